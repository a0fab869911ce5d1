//! `/`: the listener app's shell. Signed out (or without JavaScript) it
//! reads as the landing page; its script signs in as the catalog's own
//! public client with PKCE and registers the tab as a device.

use axum::http::{Method, StatusCode};

use crate::on_both_stores;
use crate::player::FakeDevice;
use crate::support::{BASE, TestApp};

on_both_stores!(the_root_says_what_the_catalog_is, the_app_signs_in_as_its_own_client, assets_are_fingerprinted);

fn asset_paths(html: &str) -> Vec<String> {
    html.split("\"/_app/").skip(1).filter_map(|rest| rest.split('"').next()).map(|p| format!("/_app/{p}")).collect()
}

async fn the_root_says_what_the_catalog_is(app: TestApp) {
    let page = app.request(Method::GET, "/", None, None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.headers["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = String::from_utf8_lossy(&page.body);
    assert!(
        html.contains("Spotify Web API") && html.contains("id=\"signin\"") && html.contains("/authorize"),
        "{html}"
    );
    // No inline script or style anywhere in the shell.
    assert!(!html.contains("<style") && !html.contains("style=") && !html.contains("<script>"), "{html}");
    let csp = page.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.starts_with("default-src 'none'") && csp.contains("script-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe-inline") && csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(page.headers["x-content-type-options"], "nosniff");
    // The old web player's address leads to the app.
    let old = app.request(Method::GET, "/player", None, None).await;
    assert_eq!(old.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(old.headers["location"], "/");
}

async fn assets_are_fingerprinted(app: TestApp) {
    let page = app.request(Method::GET, "/", None, None).await;
    let html = String::from_utf8_lossy(&page.body);
    let assets = asset_paths(&html);
    // The page kit's stylesheet first, then the app's own files.
    let names: Vec<&str> = assets.iter().map(|p| p.trim_start_matches("/_app/").split('?').next().unwrap()).collect();
    assert_eq!(names, ["app.css", "listener.css", "listener.js"], "{assets:?}");
    let versions: Vec<&str> = assets.iter().map(|p| p.split("?v=").nth(1).unwrap()).collect();
    assert!(versions.iter().all(|v| v.len() == 12 && *v == versions[0]), "{versions:?}");
    for path in &assets {
        let asset = app.request(Method::GET, path, None, None).await;
        assert_eq!(asset.status, StatusCode::OK, "{path}");
        assert!(asset.headers["cache-control"].to_str().unwrap().contains("immutable"), "{path}");
        let mime = asset.headers["content-type"].to_str().unwrap();
        assert!(
            if path.contains(".js") { mime.starts_with("text/javascript") } else { mime.starts_with("text/css") },
            "{path}: {mime}"
        );
    }
    let kit = app.request(Method::GET, &assets[0], None, None).await;
    assert!(String::from_utf8_lossy(&kit.body).contains("--primary"), "the kit's tokens");
    let script = app.request(Method::GET, &assets[2], None, None).await;
    let script = String::from_utf8_lossy(&script.body);
    // The app is a device of the device protocol and names itself after
    // the browser and the system; a closed tab deletes its device.
    assert!(script.contains("/connect/devices") && script.contains("' on '") && script.contains("pagehide"));
    let unknown = app.request(Method::GET, "/_app/other.js", None, None).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

async fn the_app_signs_in_as_its_own_client(app: TestApp) {
    let page = app.request(Method::GET, "/", None, None).await;
    let html = String::from_utf8(page.body.to_vec()).unwrap();
    assert!(html.contains("data-client-id=\"catalog-web-player\""), "{html}");
    assert!(html.contains(&format!("data-redirect-uri=\"{BASE}/\"")), "{html}");
    assert!(html.contains("<audio"), "{html}");
    // The page's own sign-in: authorization code with PKCE, no secret.
    app.app_and_user("ada").await;
    let verifier = "a-verifier-of-forty-three-characters-long-x";
    let challenge = catalog_core::oauth::pkce_challenge(verifier);
    let redirect = format!("{BASE}/");
    let pairs = [
        ("client_id", "catalog-web-player"),
        ("redirect_uri", redirect.as_str()),
        ("response_type", "code"),
        ("scope", "streaming user-read-playback-state user-modify-playback-state playlist-modify-private"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("username", "ada"),
        ("password", crate::support::PASSWORD),
        ("decision", "allow"),
    ];
    let answer = app.submit_login(&pairs).await;
    let location = answer.headers["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(&redirect), "{location}");
    let code = serde_urlencoded::from_str::<Vec<(String, String)>>(location.split_once('?').unwrap().1)
        .unwrap()
        .into_iter()
        .find(|(k, _)| k == "code")
        .unwrap()
        .1;
    let token = app
        .form(
            "/api/token",
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", &redirect),
                ("client_id", "catalog-web-player"),
                ("code_verifier", verifier),
            ],
            None,
        )
        .await;
    assert_eq!(token.status, StatusCode::OK, "{}", String::from_utf8_lossy(&token.body));
    let access = token.json()["access_token"].as_str().unwrap().to_owned();
    let device = FakeDevice::register(&app, &access, "Chrome on Linux").await;
    let listed = app.get("/v1/me/player/devices", &access).await.json();
    assert_eq!(listed["devices"][0]["name"], "Chrome on Linux", "{listed}");
    // A closed tab deletes its device (the app's `pagehide`): it is gone.
    let gone = app.request(Method::DELETE, &format!("/connect/devices/{}", device.id), Some(&access), None).await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT);
    let listed = app.get("/v1/me/player/devices", &access).await.json();
    assert_eq!(listed["devices"].as_array().map(Vec::len), Some(0), "{listed}");
}
