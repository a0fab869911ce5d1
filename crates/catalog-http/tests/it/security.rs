//! The holes of "safe on the open internet", each through the real router
//! on both stores: OAuth refresh rotation and reuse, client authentication
//! on refresh, PKCE-only public refresh, code replay and checks before a
//! code is consumed, refresh expiry, private playlists and collaborators,
//! the login form's CSRF token and headers, the sign-in throttle, sandboxed
//! tenant bytes, bodies refused without being buffered, and panics.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode};
use base64::Engine as _;
use catalog_core::oauth::pkce_challenge;
use catalog_http::AppState;
use platform::throttle::SignInThrottle;
use serde_json::{Value, json};
use tower::ServiceExt as _;

use crate::on_both_stores;
use crate::support::{BASE, PASSWORD, REDIRECT, TestApp, TestResponse};

on_both_stores!(
    refresh_rotates_and_reuse_revokes_the_family,
    confidential_refresh_needs_client_authentication,
    public_clients_refresh_only_pkce_grants,
    code_replay_revokes_what_it_issued,
    failed_code_checks_do_not_consume_the_code,
    refresh_families_expire_idle_and_absolute,
    private_playlists_need_membership_and_scope,
    collaborators_edit_and_others_do_not,
    consent_without_csrf_token_is_refused,
    sign_in_is_throttled_per_account_and_address,
    tenant_bytes_are_sandboxed,
    huge_bodies_are_refused_without_being_buffered,
);

/// Extra request headers as name/value pairs.
type Headers = Vec<(String, String)>;

const VERIFIER: &str = "a-verifier-of-forty-three-characters-long-x-and-more";

/// Exchanges a code with the client secret; returns the token answer.
async fn code_grant(app: &TestApp, client_id: &str, secret: &str, user: &str, scope: &str) -> Value {
    let code = app.authorize(client_id, user, scope, None).await;
    let answer = app
        .form(
            "/api/token",
            &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT)],
            Some((client_id, secret)),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", String::from_utf8_lossy(&answer.body));
    answer.json()
}

/// Exchanges a PKCE code with only the client id (a public client).
async fn pkce_grant(app: &TestApp, client_id: &str, user: &str, scope: &str) -> Value {
    let code = app.authorize(client_id, user, scope, Some(&pkce_challenge(VERIFIER))).await;
    let answer = app
        .form(
            "/api/token",
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", REDIRECT),
                ("client_id", client_id),
                ("code_verifier", VERIFIER),
            ],
            None,
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", String::from_utf8_lossy(&answer.body));
    answer.json()
}

fn field(v: &Value, name: &str) -> String {
    v[name].as_str().unwrap_or_else(|| panic!("no {name} in {v}")).to_owned()
}

async fn refresh_with_secret(app: &TestApp, client_id: &str, secret: &str, refresh: &str) -> TestResponse {
    app.form("/api/token", &[("grant_type", "refresh_token"), ("refresh_token", refresh)], Some((client_id, secret)))
        .await
}

fn oauth_error(response: &TestResponse, status: StatusCode, code: &str) -> String {
    assert_eq!(response.status, status, "{}", String::from_utf8_lossy(&response.body));
    let body = response.json();
    assert_eq!(body["error"], code, "{body}");
    field(&body, "error_description")
}

async fn refresh_rotates_and_reuse_revokes_the_family(app: TestApp) {
    let (client_id, secret, _) = app.app_and_user("ada").await;
    let first = code_grant(&app, &client_id, &secret, "ada", "user-read-private").await;
    let (a1, r1) = (field(&first, "access_token"), field(&first, "refresh_token"));

    // Each refresh answers a new refresh token; the old one is spent.
    let second = refresh_with_secret(&app, &client_id, &secret, &r1).await;
    assert_eq!(second.status, StatusCode::OK);
    let (a2, r2) = (field(&second.json(), "access_token"), field(&second.json(), "refresh_token"));
    assert_ne!(r2, r1, "the refresh token rotates");
    assert_eq!(second.json()["scope"], "user-read-private");
    assert_eq!(app.get("/v1/me", &a2).await.status, StatusCode::OK);

    // Presenting the spent token again (someone kept a copy) revokes the
    // whole family: the new refresh token and every access token of it.
    let reused = refresh_with_secret(&app, &client_id, &secret, &r1).await;
    assert_eq!(
        oauth_error(&reused, StatusCode::BAD_REQUEST, "invalid_grant"),
        "Refresh token was already used; every token of this grant is revoked"
    );
    assert_eq!(
        oauth_error(
            &refresh_with_secret(&app, &client_id, &secret, &r2).await,
            StatusCode::BAD_REQUEST,
            "invalid_grant"
        ),
        "Invalid refresh token"
    );
    assert_eq!(app.get("/v1/me", &a2).await.spotify_error(401), "Invalid access token");
    assert_eq!(app.get("/v1/me", &a1).await.spotify_error(401), "Invalid access token");

    // Another grant of the same user and app is untouched.
    let other = code_grant(&app, &client_id, &secret, "ada", "user-read-private").await;
    assert_eq!(app.get("/v1/me", &field(&other, "access_token")).await.status, StatusCode::OK);
}

async fn confidential_refresh_needs_client_authentication(app: TestApp) {
    let (client_id, secret, _) = app.app_and_user("ada").await;
    let grant = code_grant(&app, &client_id, &secret, "ada", "user-read-private").await;
    let refresh = field(&grant, "refresh_token");

    // The family began with the secret: the client id alone is not enough,
    // nor a wrong secret, nor no client at all.
    let bare = app
        .form(
            "/api/token",
            &[("grant_type", "refresh_token"), ("refresh_token", &refresh), ("client_id", &client_id)],
            None,
        )
        .await;
    assert_eq!(
        oauth_error(&bare, StatusCode::UNAUTHORIZED, "invalid_client"),
        "client authentication is required to refresh this token"
    );
    let wrong = refresh_with_secret(&app, &client_id, "not-the-secret", &refresh).await;
    assert_eq!(oauth_error(&wrong, StatusCode::UNAUTHORIZED, "invalid_client"), "Invalid client secret");
    let anonymous = app.form("/api/token", &[("grant_type", "refresh_token"), ("refresh_token", &refresh)], None).await;
    assert_eq!(oauth_error(&anonymous, StatusCode::BAD_REQUEST, "invalid_request"), "client_id is required");
    // Another app's valid credentials do not refresh this app's token.
    let (other, other_secret) = app.catalog.create_app("Other", &[REDIRECT.to_owned()]).await.unwrap();
    let foreign = refresh_with_secret(&app, &other.client_id, other_secret.expose(), &refresh).await;
    assert_eq!(oauth_error(&foreign, StatusCode::BAD_REQUEST, "invalid_grant"), "Invalid refresh token");

    // None of that spent the token: with the secret it still refreshes.
    let ok = refresh_with_secret(&app, &client_id, &secret, &refresh).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", String::from_utf8_lossy(&ok.body));
    assert_eq!(ok.headers["cache-control"], "no-store");
}

async fn public_clients_refresh_only_pkce_grants(app: TestApp) {
    let (client_id, secret, _) = app.app_and_user("ada").await;
    // A PKCE grant without the secret: a public client refreshes with its id,
    // and each refresh rotates.
    let grant = pkce_grant(&app, &client_id, "ada", "user-library-read").await;
    let mut refresh = field(&grant, "refresh_token");
    for _ in 0..3 {
        let next = app
            .form(
                "/api/token",
                &[("grant_type", "refresh_token"), ("refresh_token", &refresh), ("client_id", &client_id)],
                None,
            )
            .await;
        assert_eq!(next.status, StatusCode::OK, "{}", String::from_utf8_lossy(&next.body));
        let rotated = field(&next.json(), "refresh_token");
        assert_ne!(rotated, refresh);
        refresh = rotated;
    }
    // A PKCE code exchanged with the secret made a confidential family.
    let code = app.authorize(&client_id, "ada", "user-library-read", Some(&pkce_challenge(VERIFIER))).await;
    let confidential = app
        .form(
            "/api/token",
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", REDIRECT),
                ("code_verifier", VERIFIER),
            ],
            Some((&client_id, &secret)),
        )
        .await
        .json();
    let bare = app
        .form(
            "/api/token",
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &field(&confidential, "refresh_token")),
                ("client_id", &client_id),
            ],
            None,
        )
        .await;
    assert_eq!(
        oauth_error(&bare, StatusCode::UNAUTHORIZED, "invalid_client"),
        "client authentication is required to refresh this token"
    );
    // And a grant without PKCE never refreshes on the client id alone.
    let plain = code_grant(&app, &client_id, &secret, "ada", "").await;
    let bare = app
        .form(
            "/api/token",
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &field(&plain, "refresh_token")),
                ("client_id", &client_id),
            ],
            None,
        )
        .await;
    assert_eq!(bare.status, StatusCode::UNAUTHORIZED);
}

async fn exchange(app: &TestApp, client_id: &str, secret: &str, code: &str) -> TestResponse {
    app.form(
        "/api/token",
        &[("grant_type", "authorization_code"), ("code", code), ("redirect_uri", REDIRECT)],
        Some((client_id, secret)),
    )
    .await
}

async fn code_replay_revokes_what_it_issued(app: TestApp) {
    let (client_id, secret, _) = app.app_and_user("ada").await;
    let code = app.authorize(&client_id, "ada", "user-read-private", None).await;
    let first = exchange(&app, &client_id, &secret, &code).await.json();
    let (access, refresh) = (field(&first, "access_token"), field(&first, "refresh_token"));
    // The refresh token is rotated once: the replay must reach the successor too.
    let rotated = refresh_with_secret(&app, &client_id, &secret, &refresh).await.json();
    let (access2, refresh2) = (field(&rotated, "access_token"), field(&rotated, "refresh_token"));
    assert_eq!(app.get("/v1/me", &access2).await.status, StatusCode::OK);

    let replay = exchange(&app, &client_id, &secret, &code).await;
    assert_eq!(oauth_error(&replay, StatusCode::BAD_REQUEST, "invalid_grant"), "Invalid authorization code");
    for token in [&access, &access2] {
        assert_eq!(app.get("/v1/me", token).await.spotify_error(401), "Invalid access token");
    }
    let dead = refresh_with_secret(&app, &client_id, &secret, &refresh2).await;
    assert_eq!(oauth_error(&dead, StatusCode::BAD_REQUEST, "invalid_grant"), "Invalid refresh token");
}

async fn failed_code_checks_do_not_consume_the_code(app: TestApp) {
    let (client_id, _, _) = app.app_and_user("ada").await;
    let (other, other_secret) = app.catalog.create_app("Other", &[REDIRECT.to_owned()]).await.unwrap();
    let code = app.authorize(&client_id, "ada", "user-read-private", Some(&pkce_challenge(VERIFIER))).await;
    let attempt = |client: String, verifier: &'static str, redirect: &'static str, secret: Option<String>| {
        let code = code.clone();
        let app = &app;
        async move {
            let mut pairs = vec![
                ("grant_type", "authorization_code".to_owned()),
                ("code", code),
                ("redirect_uri", redirect.to_owned()),
                ("code_verifier", verifier.to_owned()),
            ];
            let basic = match &secret {
                Some(s) => Some((client.clone(), s.clone())),
                None => {
                    pairs.push(("client_id", client.clone()));
                    None
                }
            };
            let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
            app.form("/api/token", &refs, basic.as_ref().map(|(i, s)| (i.as_str(), s.as_str()))).await
        }
    };
    // A wrong verifier, a wrong redirect URI, another client, a wrong secret:
    // each refused, none consuming the code.
    let wrong_verifier =
        attempt(client_id.clone(), "wrong-verifier-wrong-verifier-wrong-verifier", REDIRECT, None).await;
    assert_eq!(oauth_error(&wrong_verifier, StatusCode::BAD_REQUEST, "invalid_grant"), "code_verifier was incorrect");
    let wrong_redirect = attempt(client_id.clone(), VERIFIER, "http://127.0.0.1:9999/other", None).await;
    assert_eq!(oauth_error(&wrong_redirect, StatusCode::BAD_REQUEST, "invalid_grant"), "Invalid redirect URI");
    let wrong_client = attempt(other.client_id.clone(), VERIFIER, REDIRECT, Some(other_secret.expose().clone())).await;
    assert_eq!(oauth_error(&wrong_client, StatusCode::BAD_REQUEST, "invalid_grant"), "Invalid authorization code");
    let wrong_secret = attempt(client_id.clone(), VERIFIER, REDIRECT, Some("nope".to_owned())).await;
    assert_eq!(oauth_error(&wrong_secret, StatusCode::UNAUTHORIZED, "invalid_client"), "Invalid client secret");
    // The rightful exchange still works, once.
    let ok = attempt(client_id.clone(), VERIFIER, REDIRECT, None).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", String::from_utf8_lossy(&ok.body));
    assert_eq!(app.get("/v1/me", &field(&ok.json(), "access_token")).await.status, StatusCode::OK);
}

async fn refresh_families_expire_idle_and_absolute(app: TestApp) {
    const DAY_MS: i64 = 24 * 3600 * 1000;
    let (client_id, secret, _) = app.app_and_user("ada").await;
    // Idle: unused for 90 days, the family has ended.
    let idle = code_grant(&app, &client_id, &secret, "ada", "").await;
    app.clock.advance_millis(89 * DAY_MS);
    let used = refresh_with_secret(&app, &client_id, &secret, &field(&idle, "refresh_token")).await;
    assert_eq!(used.status, StatusCode::OK, "89 days idle is within the limit");
    let next = field(&used.json(), "refresh_token");
    app.clock.advance_millis(90 * DAY_MS);
    let expired = refresh_with_secret(&app, &client_id, &secret, &next).await;
    assert_eq!(oauth_error(&expired, StatusCode::BAD_REQUEST, "invalid_grant"), "Refresh token expired");

    // Absolute: used every 60 days, it still ends 180 days after the code.
    let grant = code_grant(&app, &client_id, &secret, "ada", "").await;
    let mut refresh = field(&grant, "refresh_token");
    for _ in 0..2 {
        app.clock.advance_millis(60 * DAY_MS);
        let next = refresh_with_secret(&app, &client_id, &secret, &refresh).await;
        assert_eq!(next.status, StatusCode::OK, "{}", String::from_utf8_lossy(&next.body));
        refresh = field(&next.json(), "refresh_token");
    }
    app.clock.advance_millis(60 * DAY_MS);
    let ended = refresh_with_secret(&app, &client_id, &secret, &refresh).await;
    assert_eq!(oauth_error(&ended, StatusCode::BAD_REQUEST, "invalid_grant"), "Refresh token expired");
    // The pruning job removes what has ended.
    assert!(app.catalog.prune_grants().await.unwrap() > 0);
}

const OWNER_SCOPES: &str =
    "playlist-read-private playlist-read-collaborative playlist-modify-private playlist-modify-public";

async fn create_playlist(app: &TestApp, token: &str, body: &Value) -> String {
    let created = app.send_json(Method::POST, "/v1/me/playlists", token, body).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&created.body));
    field(&created.json(), "id")
}

async fn private_playlists_need_membership_and_scope(app: TestApp) {
    let owner = app.user_token("ada", OWNER_SCOPES).await;
    let private = create_playlist(&app, &owner, &json!({ "name": "Secret", "public": false })).await;
    let public = create_playlist(&app, &owner, &json!({ "name": "Open", "public": true })).await;

    // The owner without playlist-read-private: 403 on the private one, the public one reads.
    let no_read = app.token_for("ada", "playlist-modify-private").await;
    for path in [
        format!("/v1/playlists/{private}"),
        format!("/v1/playlists/{private}/items"),
        format!("/v1/playlists/{private}/images"),
    ] {
        assert_eq!(app.get(&path, &no_read).await.spotify_error(403), "Insufficient client scope", "{path}");
        assert_eq!(app.get(&path, &owner).await.status, StatusCode::OK, "{path}");
    }
    assert_eq!(app.get(&format!("/v1/playlists/{public}"), &no_read).await.json()["name"], "Open");
    // The owner's own list shows the private one only with the scope.
    let listed = |v: Value| -> Vec<String> {
        v["items"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_owned()).collect()
    };
    let names = listed(app.get("/v1/me/playlists", &owner).await.json());
    assert!(names.contains(&"Secret".to_owned()) && names.contains(&"Open".to_owned()), "{names:?}");
    assert_eq!(listed(app.get("/v1/me/playlists", &no_read).await.json()), vec!["Open".to_owned()]);

    // Anyone else, whatever the scopes: the private playlist does not exist,
    // cannot be followed (which used to open it), nor probed for followers.
    let (_, _, bo_id) = app.app_and_user("bo").await;
    let bo = app.token_for("bo", OWNER_SCOPES).await;
    assert_eq!(app.get(&format!("/v1/playlists/{private}"), &bo).await.spotify_error(404), "Resource not found");
    assert_eq!(app.get(&format!("/v1/playlists/{private}/items"), &bo).await.spotify_error(404), "Resource not found");
    let follow = app.request(Method::PUT, &format!("/v1/playlists/{private}/followers"), Some(&bo), None).await;
    assert_eq!(follow.spotify_error(404), "Resource not found");
    assert_eq!(app.get(&format!("/v1/playlists/{private}"), &bo).await.status, StatusCode::NOT_FOUND);
    let probe = app.get(&format!("/v1/playlists/{private}/followers/contains?ids={bo_id}"), &bo).await;
    assert_eq!(probe.spotify_error(404), "Resource not found");
    let edit =
        app.send_json(Method::POST, &format!("/v1/playlists/{private}/items"), &bo, &json!({ "uris": [] })).await;
    assert_eq!(edit.status, StatusCode::BAD_REQUEST, "an empty add is refused before any access is granted");
    let ids = app.track_ids(&bo).await;
    let edit = app
        .send_json(
            Method::POST,
            &format!("/v1/playlists/{private}/items"),
            &bo,
            &json!({ "uris": [format!("spotify:track:{}", ids[0])] }),
        )
        .await;
    assert_eq!(edit.spotify_error(404), "Resource not found");
    // An app token sees public playlists only.
    let (client_id, secret, _) = app.app_and_user("cy").await;
    let cc = app.form("/api/token", &[("grant_type", "client_credentials")], Some((&client_id, &secret))).await.json();
    let app_token = field(&cc, "access_token");
    assert_eq!(app.get(&format!("/v1/playlists/{private}"), &app_token).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&format!("/v1/playlists/{public}"), &app_token).await.status, StatusCode::OK);

    // Editing needs the scope of the playlist's visibility.
    let public_only = app.token_for("ada", "playlist-modify-public playlist-read-private").await;
    let denied = app
        .send_json(
            Method::POST,
            &format!("/v1/playlists/{private}/items"),
            &public_only,
            &json!({ "uris": [format!("spotify:track:{}", ids[0])] }),
        )
        .await;
    assert_eq!(denied.spotify_error(403), "Insufficient client scope");
    let allowed = app
        .send_json(
            Method::POST,
            &format!("/v1/playlists/{public}/items"),
            &public_only,
            &json!({ "uris": [format!("spotify:track:{}", ids[0])] }),
        )
        .await;
    assert_eq!(allowed.status, StatusCode::CREATED);
    let private_create =
        app.send_json(Method::POST, "/v1/me/playlists", &public_only, &json!({ "name": "x", "public": false })).await;
    assert_eq!(private_create.spotify_error(403), "Insufficient client scope");
}

async fn collaborators_edit_and_others_do_not(app: TestApp) {
    let owner = app.user_token("ada", OWNER_SCOPES).await;
    let (_, _, bo_id) = app.app_and_user("bo").await;
    let bo = app.token_for("bo", "playlist-read-collaborative playlist-modify-private").await;
    let (_, _, _) = app.app_and_user("cy").await;
    let cy = app.token_for("cy", OWNER_SCOPES).await;
    let shared =
        create_playlist(&app, &owner, &json!({ "name": "Shared", "public": false, "collaborative": true })).await;
    let ids = app.track_ids(&owner).await;
    let add = |token: &str, n: usize| {
        let body = json!({ "uris": [format!("spotify:track:{}", ids[n])] });
        let path = format!("/v1/playlists/{shared}/items");
        let token = token.to_owned();
        let app = &app;
        async move { app.send_json(Method::POST, &path, &token, &body).await }
    };
    // Before the owner adds bo, a collaborative playlist is not everyone's to edit.
    assert_eq!(add(&bo, 0).await.spotify_error(404), "Resource not found");
    assert_eq!(add(&cy, 0).await.spotify_error(404), "Resource not found");
    // Only the owner names collaborators.
    let by_cy = app
        .send_json(Method::PUT, &format!("/v1/playlists/{shared}/collaborators"), &cy, &json!({ "ids": [bo_id] }))
        .await;
    assert_eq!(by_cy.spotify_error(404), "Resource not found");
    let by_owner = app
        .send_json(Method::PUT, &format!("/v1/playlists/{shared}/collaborators"), &owner, &json!({ "ids": [bo_id] }))
        .await;
    assert_eq!(by_owner.status, StatusCode::OK, "{}", String::from_utf8_lossy(&by_owner.body));
    assert_eq!(app.get(&format!("/v1/playlists/{shared}/collaborators"), &owner).await.json()["ids"], json!([bo_id]));
    // The collaborator reads (with playlist-read-collaborative), edits and follows.
    assert_eq!(add(&bo, 1).await.status, StatusCode::CREATED);
    let seen = app.get(&format!("/v1/playlists/{shared}"), &bo).await.json();
    assert_eq!(seen["collaborative"], true);
    assert_eq!(seen["items"]["items"][0]["added_by"]["id"], bo_id);
    let follow = app.request(Method::PUT, &format!("/v1/playlists/{shared}/followers"), Some(&bo), None).await;
    assert_eq!(follow.status, StatusCode::OK);
    // ...but cannot change its details or its collaborators.
    let rename = app.send_json(Method::PUT, &format!("/v1/playlists/{shared}"), &bo, &json!({ "name": "Mine" })).await;
    assert_eq!(rename.spotify_error(403), "only the owner may change a playlist's details");
    // Removed, bo loses it again.
    let removed = app
        .send_json(Method::DELETE, &format!("/v1/playlists/{shared}/collaborators"), &owner, &json!({ "ids": [bo_id] }))
        .await;
    assert_eq!(removed.status, StatusCode::OK);
    assert_eq!(add(&bo, 2).await.spotify_error(404), "Resource not found");
    assert_eq!(app.get(&format!("/v1/playlists/{shared}"), &bo).await.spotify_error(404), "Resource not found");
}

async fn consent_without_csrf_token_is_refused(app: TestApp) {
    let (client_id, _, _) = app.app_and_user("ada").await;
    let pairs = [
        ("client_id", client_id.as_str()),
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("scope", "user-read-private"),
        ("username", "ada"),
        ("password", PASSWORD),
        ("decision", "allow"),
    ];
    // The page: a CSRF cookie (HttpOnly, SameSite=Lax), no framing, no cache.
    let query = serde_urlencoded::to_string(&pairs[..4]).unwrap();
    let page = app.request(Method::GET, &format!("/authorize?{query}"), None, None).await;
    assert_eq!(page.status, StatusCode::OK);
    let csp = page.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'none'"), "{csp}");
    assert_eq!(page.headers["x-frame-options"], "DENY");
    assert_eq!(page.headers["cache-control"], "no-store");
    let cookie = page.headers["set-cookie"].to_str().unwrap();
    assert!(cookie.starts_with("csrf=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"), "{cookie}");
    assert!(!cookie.contains("Secure"), "plain http public URL: {cookie}");
    assert!(String::from_utf8_lossy(&page.body).contains("name=\"csrf_token\""));

    // A POST without the token (a cross-site form), with a forged token,
    // or with a token but not its cookie: 403 and no code.
    let (cookie, token) = app.login_page(&pairs).await;
    let cases: Vec<(Vec<(&str, &str)>, Headers)> = vec![
        (pairs.to_vec(), vec![]),
        (pairs.to_vec(), vec![("cookie".to_owned(), cookie.clone())]),
        ([&pairs[..], &[("csrf_token", "forged")]].concat(), vec![("cookie".to_owned(), cookie.clone())]),
        ([&pairs[..], &[("csrf_token", token.as_str())]].concat(), vec![]),
        (
            [&pairs[..], &[("csrf_token", token.as_str())]].concat(),
            vec![("cookie".to_owned(), "csrf=another-browsers-nonce-value".to_owned())],
        ),
    ];
    for (form, headers) in cases {
        let refused = app.form_with("/authorize", &form, &headers).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{headers:?}");
        assert!(!refused.headers.contains_key("location"));
        let html = String::from_utf8_lossy(&refused.body);
        assert!(html.contains("was not sent from the catalog&#39;s own login page"), "{html}");
    }
    // Denying without the token is refused too (no redirect at all).
    let deny = app.form_with("/authorize", &[&pairs[..4], &[("decision", "deny")]].concat(), &[]).await;
    assert_eq!(deny.status, StatusCode::FORBIDDEN);
    // With both, the login goes through.
    let ok = app
        .form_with(
            "/authorize",
            &[&pairs[..], &[("csrf_token", token.as_str())]].concat(),
            &[("cookie".to_owned(), cookie)],
        )
        .await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER);
    assert!(ok.headers["location"].to_str().unwrap().starts_with(REDIRECT));

    // Over https the cookie is Secure and __Host- prefixed, whatever
    // X-Forwarded-Proto says.
    let https = catalog_http::router(AppState::new(app.catalog.clone(), "https://catalog.example"));
    let request =
        Request::get(format!("/authorize?{query}")).header("x-forwarded-proto", "http").body(Body::empty()).unwrap();
    let answer = https.oneshot(request).await.unwrap();
    let cookie = answer.headers()["set-cookie"].to_str().unwrap();
    assert!(cookie.starts_with("__Host-csrf=") && cookie.contains("; Secure"), "{cookie}");
}

/// A login POST (page first, for its CSRF token) from `peer`, with extra headers.
async fn login_from(
    router: &axum::Router,
    app: &TestApp,
    client_id: &str,
    user: &str,
    password: &str,
    peer: &str,
    forwarded: Option<&str>,
) -> TestResponse {
    let pairs = [
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("scope", ""),
        ("username", user),
        ("password", password),
        ("decision", "allow"),
    ];
    let (cookie, token) = app.login_page_on(router, &pairs).await;
    let body = serde_urlencoded::to_string([&pairs[..], &[("csrf_token", token.as_str())]].concat()).unwrap();
    let mut request = Request::post("/authorize")
        .header("content-type", "application/x-www-form-urlencoded")
        .header("cookie", cookie)
        .body(Body::from(body))
        .unwrap();
    if let Some(xff) = forwarded {
        request.headers_mut().insert("x-forwarded-for", xff.parse().unwrap());
    }
    request.extensions_mut().insert(ConnectInfo(peer.parse::<SocketAddr>().unwrap()));
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
    TestResponse { status, headers, body }
}

async fn sign_in_is_throttled_per_account_and_address(app: TestApp) {
    let (client_id, _, _) = app.app_and_user("ada").await;
    // Routers with small limits; each serves its own login page, since the
    // CSRF key is per router state.
    let per_account = app.catalog.clone().with_signin_throttle(SignInThrottle::new(100, 3));
    let router = catalog_http::router(AppState::new(per_account, BASE));
    for _ in 0..3 {
        let wrong = login_from(&router, &app, &client_id, "ada", "wrong password", "192.0.2.1:5000", None).await;
        assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    }
    // The fourth attempt on the account is refused before any password
    // check, from another address too, and even with the right password.
    let throttled = login_from(&router, &app, &client_id, "ADA", PASSWORD, "198.51.100.7:5000", None).await;
    assert_eq!(throttled.status, StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = throttled.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    let html = String::from_utf8_lossy(&throttled.body);
    assert!(html.contains("Too many login attempts. Try again in"), "{html}");
    assert!(!throttled.headers.contains_key("location"));
    // Unknown names share the same rule (and are throttled like real ones).
    for _ in 0..3 {
        let unknown = login_from(&router, &app, &client_id, "nobody", "x", "192.0.2.9:1", None).await;
        assert_eq!(unknown.status, StatusCode::UNAUTHORIZED);
    }
    let unknown = login_from(&router, &app, &client_id, "nobody", "x", "192.0.2.9:1", None).await;
    assert_eq!(unknown.status, StatusCode::TOO_MANY_REQUESTS);

    // Per address: two attempts per minute from one address, whatever the
    // account, and a forged X-Forwarded-For does not buy more.
    let per_ip = app.catalog.clone().with_signin_throttle(SignInThrottle::new(2, 100));
    let router = catalog_http::router(AppState::new(per_ip, BASE));
    for (n, user) in ["u1", "u2"].iter().enumerate() {
        let forged = format!("203.0.113.{n}");
        let r = login_from(&router, &app, &client_id, user, "x", "192.0.2.50:1", Some(&forged)).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    }
    let r = login_from(&router, &app, &client_id, "u3", "x", "192.0.2.50:1", Some("203.0.113.99")).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    // Behind a trusted proxy the forwarded client is the key instead.
    let per_ip = app.catalog.clone().with_signin_throttle(SignInThrottle::new(2, 100));
    let proxies = platform::net::TrustedProxies::parse("127.0.0.1").unwrap();
    let router = catalog_http::router(AppState::new(per_ip, BASE).with_trusted_proxies(proxies));
    for n in 0..4 {
        let client = format!("203.0.113.{n}");
        let r = login_from(&router, &app, &client_id, "ada", PASSWORD, "127.0.0.1:1", Some(&client)).await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "each forwarded client has its own budget");
    }
}

async fn tenant_bytes_are_sandboxed(app: TestApp) {
    let token = app.user_token("ada", &format!("{OWNER_SCOPES} ugc-image-upload streaming")).await;
    // An uploaded cover, served back: sandboxed and never sniffed.
    let playlist = create_playlist(&app, &token, &json!({ "name": "Covered", "public": true })).await;
    let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0];
    jpeg.extend_from_slice(b"<html><script>alert(1)</script></html>");
    let body = base64::engine::general_purpose::STANDARD.encode(&jpeg).into_bytes();
    let put = app
        .request(Method::PUT, &format!("/v1/playlists/{playlist}/images"), Some(&token), Some(("image/jpeg", body)))
        .await;
    assert_eq!(put.status, StatusCode::ACCEPTED);
    let images = app.get(&format!("/v1/playlists/{playlist}/images"), &token).await.json();
    let url = field(&images[0], "url");
    let image = app.request(Method::GET, url.trim_start_matches(BASE), None, None).await;
    assert_eq!(image.status, StatusCode::OK);
    assert_eq!(&image.body[..], &jpeg[..]);
    assert_eq!(image.headers["content-security-policy"], "sandbox; default-src 'none'");
    assert_eq!(image.headers["x-content-type-options"], "nosniff");
    assert_eq!(image.headers["content-type"], "image/jpeg");

    // An audio stream, whole and ranged.
    let track = app.track_ids(&token).await[0].clone();
    let link = app.catalog.stream_link(&track).await.unwrap();
    let path = format!("/stream/{track}?expires={}&signature={}", link.expires, link.signature);
    let whole = app.request(Method::GET, &path, None, None).await;
    assert_eq!(whole.status, StatusCode::OK);
    assert!(whole.body.starts_with(b"RIFF"), "a WAV file");
    let request = Request::get(&path).header("range", "bytes=0-3").body(Body::empty()).unwrap();
    let ranged = app.send(request).await;
    assert_eq!(ranged.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(&ranged.body[..], b"RIFF");
    for response in [&whole, &ranged] {
        assert_eq!(response.headers["content-security-policy"], "sandbox; default-src 'none'");
        assert_eq!(response.headers["x-content-type-options"], "nosniff");
    }
}

/// A body of `total` bytes produced on demand, counting what the server pulls.
fn counted_body(total: usize, pulled: Arc<AtomicUsize>) -> Body {
    static CHUNK: [u8; 64 * 1024] = [b'a'; 64 * 1024];
    let stream = futures_util::stream::unfold(0_usize, move |sent| {
        let pulled = pulled.clone();
        async move {
            if sent >= total {
                return None;
            }
            pulled.fetch_add(CHUNK.len(), Ordering::SeqCst);
            Some((Ok::<_, std::io::Error>(bytes::Bytes::from_static(&CHUNK)), sent + CHUNK.len()))
        }
    });
    Body::from_stream(stream)
}

async fn huge_bodies_are_refused_without_being_buffered(app: TestApp) {
    const HUGE: usize = 200 * 1024 * 1024;
    let token = app.user_token("ada", &format!("{OWNER_SCOPES} ugc-image-upload user-library-modify")).await;
    let playlist = create_playlist(&app, &token, &json!({ "name": "Big", "public": false })).await;
    // (method, path, token, content-type, the limit that applies once authorised)
    let routes: Vec<(Method, String, bool, &str, usize)> = vec![
        (Method::PUT, format!("/v1/playlists/{playlist}/images"), true, "image/jpeg", 360 * 1024),
        (Method::POST, format!("/v1/playlists/{playlist}/items"), true, "application/json", 1024 * 1024),
        (Method::PUT, "/v1/me/tracks".to_owned(), true, "application/json", 1024 * 1024),
        (Method::POST, "/v1/me/playlists".to_owned(), true, "application/json", 1024 * 1024),
        (Method::POST, "/api/token".to_owned(), false, "application/x-www-form-urlencoded", 64 * 1024),
        (Method::POST, "/authorize".to_owned(), false, "application/x-www-form-urlencoded", 64 * 1024),
    ];
    for (method, path, needs_token, content_type, limit) in routes {
        // Without credentials: refused before a byte of the body is read.
        if needs_token {
            let pulled = Arc::new(AtomicUsize::new(0));
            let request = Request::builder()
                .method(method.clone())
                .uri(&path)
                .header("content-type", content_type)
                .body(counted_body(HUGE, pulled.clone()))
                .unwrap();
            let answer = app.send(request).await;
            assert_eq!(answer.spotify_error(401), "No token provided", "{path}");
            assert_eq!(pulled.load(Ordering::SeqCst), 0, "{path}: no byte read without a token");
        }
        // Streamed without a length: read only up to the limit, then 413.
        let pulled = Arc::new(AtomicUsize::new(0));
        let mut builder = Request::builder().method(method.clone()).uri(&path).header("content-type", content_type);
        if needs_token {
            builder = builder.header("authorization", format!("Bearer {token}"));
        }
        let answer = app.send(builder.body(counted_body(HUGE, pulled.clone())).unwrap()).await;
        assert_eq!(
            answer.spotify_error(413),
            format!("Request body too large: at most {limit} bytes"),
            "{method} {path}"
        );
        let read = pulled.load(Ordering::SeqCst);
        assert!(read <= limit + 64 * 1024, "{path}: read {read} bytes for a limit of {limit}");
        // A declared length over the limit: refused before reading.
        let pulled = Arc::new(AtomicUsize::new(0));
        let mut builder = Request::builder()
            .method(method.clone())
            .uri(&path)
            .header("content-type", content_type)
            .header("content-length", HUGE.to_string());
        if needs_token {
            builder = builder.header("authorization", format!("Bearer {token}"));
        }
        let answer = app.send(builder.body(counted_body(HUGE, pulled.clone())).unwrap()).await;
        assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        assert_eq!(pulled.load(Ordering::SeqCst), 0, "{path}: a declared length is refused unread");
    }
}

/// A panicking handler answers Spotify's 500 object instead of a dropped connection.
#[tokio::test]
async fn a_panic_answers_spotifys_500() {
    let router = axum::Router::new().route(
        "/boom",
        axum::routing::get(|| async {
            // The kind of bug the layer exists for.
            let empty: Vec<u8> = Vec::new();
            empty[usize::from(empty.is_empty())].to_string()
        }),
    );
    let router = platform::http::catch_panics(router, catalog_http::panic_response);
    let response = router.oneshot(Request::get("/boom").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        body,
        json!({ "error": { "status": 500, "message": "Server error; the request id identifies it in the logs" } })
    );
}
