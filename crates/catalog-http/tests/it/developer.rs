//! `/api/apps`, the developer page's API: a listener's own OAuth apps,
//! reached only with a token of the catalog's own listener app.

use axum::http::{Method, StatusCode};
use serde_json::json;

use crate::on_both_stores;
use crate::support::{PASSWORD, REDIRECT, TestApp};

on_both_stores!(
    apps_are_made_rotated_and_deleted_by_their_owner_only,
    an_app_uses_only_the_flows_it_was_given,
    an_app_is_edited_by_its_owner_and_shows_its_rate_limit_usage
);

const VERIFIER: &str = "a-verifier-of-forty-three-characters-long-x";

/// A token of the catalog's own listener app (the first-party client) for
/// `username`, a new listener.
pub async fn listener_token(app: &TestApp, username: &str) -> String {
    app.catalog.create_user(username, Some(kernel::Secret::new(PASSWORD.to_owned()))).await.unwrap();
    app.catalog.web_player_app(REDIRECT).await.unwrap();
    let challenge = catalog_core::oauth::pkce_challenge(VERIFIER);
    let code = app.authorize("catalog-web-player", username, "user-read-private", Some(&challenge)).await;
    pkce_exchange(app, "catalog-web-player", &code).await.json()["access_token"].as_str().unwrap().to_owned()
}

async fn pkce_exchange(app: &TestApp, client_id: &str, code: &str) -> crate::support::TestResponse {
    app.form(
        "/api/token",
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("client_id", client_id),
            ("code_verifier", VERIFIER),
        ],
        None,
    )
    .await
}

async fn client_credentials(app: &TestApp, client_id: &str, secret: &str) -> crate::support::TestResponse {
    app.form("/api/token", &[("grant_type", "client_credentials")], Some((client_id, secret))).await
}

async fn apps_are_made_rotated_and_deleted_by_their_owner_only(app: TestApp) {
    let ada = listener_token(&app, "ada").await;
    let bob = listener_token(&app, "bob").await;
    let body = json!({ "name": "Ada's app", "redirect_uris": [REDIRECT], "flows": ["authorization_code", "pkce", "client_credentials"] });
    let made = app.send_json(Method::POST, "/api/apps", &ada, &body).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&made.body));
    assert_eq!(made.headers["cache-control"], "no-store");
    let made = made.json();
    let client_id = made["client_id"].as_str().unwrap().to_owned();
    let secret = made["client_secret"].as_str().unwrap().to_owned();
    assert_eq!(made["flows"], json!(["authorization_code", "pkce", "client_credentials"]));

    // Listed for its owner without the secret; another listener sees nothing.
    let listed = app.get("/api/apps", &ada).await;
    let text = String::from_utf8_lossy(&listed.body).into_owned();
    assert_eq!(listed.json()["items"][0]["client_id"], client_id.as_str(), "{text}");
    assert!(!text.contains("client_secret") && !text.contains(&secret), "{text}");
    assert_eq!(app.get("/api/apps", &bob).await.json()["items"], json!([]));

    // The new app completes the authorization code flow with PKCE and with
    // its secret, and gets client-credentials tokens.
    let challenge = catalog_core::oauth::pkce_challenge(VERIFIER);
    let code = app.authorize(&client_id, "ada", "user-read-private", Some(&challenge)).await;
    let pkce = pkce_exchange(&app, &client_id, &code).await;
    assert_eq!(pkce.status, StatusCode::OK, "{}", String::from_utf8_lossy(&pkce.body));
    let user_token = pkce.json()["access_token"].as_str().unwrap().to_owned();
    assert_eq!(app.get("/v1/me", &user_token).await.json()["id"], app.get("/v1/me", &ada).await.json()["id"]);
    assert_eq!(client_credentials(&app, &client_id, &secret).await.status, StatusCode::OK);

    // Its user token is not the listener app's: it cannot manage apps.
    let refused = app.get("/api/apps", &user_token).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", String::from_utf8_lossy(&refused.body));
    assert_eq!(app.get("/api/apps", "not-a-token").await.status, StatusCode::UNAUTHORIZED);

    // Another listener can neither rotate nor delete it: it does not exist for them.
    let path = format!("/api/apps/{client_id}/secret");
    assert_eq!(app.request(Method::POST, &path, Some(&bob), None).await.status, StatusCode::NOT_FOUND);
    let delete = format!("/api/apps/{client_id}");
    assert_eq!(app.request(Method::DELETE, &delete, Some(&bob), None).await.status, StatusCode::NOT_FOUND);

    // Rotating: the new secret is shown once and the old one stops working.
    let rotated = app.request(Method::POST, &path, Some(&ada), None).await;
    assert_eq!(rotated.status, StatusCode::OK);
    assert_eq!(rotated.headers["cache-control"], "no-store");
    let fresh = rotated.json()["client_secret"].as_str().unwrap().to_owned();
    assert_ne!(fresh, secret);
    let old = client_credentials(&app, &client_id, &secret).await;
    assert_eq!(old.status, StatusCode::UNAUTHORIZED, "{}", String::from_utf8_lossy(&old.body));
    assert_eq!(old.json()["error"], "invalid_client");
    assert_eq!(client_credentials(&app, &client_id, &fresh).await.status, StatusCode::OK);

    // Deleting: gone from the list, its secret and tokens refused.
    assert_eq!(app.request(Method::DELETE, &delete, Some(&ada), None).await.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get("/api/apps", &ada).await.json()["items"], json!([]));
    assert_eq!(client_credentials(&app, &client_id, &fresh).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.get("/v1/me", &user_token).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.request(Method::DELETE, &delete, Some(&ada), None).await.status, StatusCode::NOT_FOUND);
}

async fn an_app_uses_only_the_flows_it_was_given(app: TestApp) {
    let ada = listener_token(&app, "ada").await;
    for (body, why) in [
        (json!({ "name": "x", "redirect_uris": [REDIRECT], "flows": [] }), "no flow"),
        (json!({ "name": "x", "redirect_uris": [REDIRECT], "flows": ["implicit"] }), "an unknown flow"),
        (json!({ "name": " ", "redirect_uris": [REDIRECT], "flows": ["pkce"] }), "a blank name"),
        (json!({ "name": "x", "redirect_uris": ["not a uri"], "flows": ["pkce"] }), "a bad redirect uri"),
        (json!({ "name": "x", "redirect_uris": [], "flows": ["pkce"] }), "a code flow without a redirect uri"),
        (json!({ "name": "x", "redirect_uris": "http://x/", "flows": ["pkce"] }), "uris not in a list"),
    ] {
        let answer = app.send_json(Method::POST, "/api/apps", &ada, &body).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{why}: {}", String::from_utf8_lossy(&answer.body));
    }
    // A public client (PKCE only): no client credentials, no secret-authenticated code.
    let made = app
        .send_json(
            Method::POST,
            "/api/apps",
            &ada,
            &json!({ "name": "Phone app", "redirect_uris": [REDIRECT], "flows": ["pkce"] }),
        )
        .await
        .json();
    let (client_id, secret) = (made["client_id"].as_str().unwrap(), made["client_secret"].as_str().unwrap());
    let refused = client_credentials(&app, client_id, secret).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert_eq!(refused.json()["error"], "unauthorized_client");
    let code = app.authorize(client_id, "ada", "user-read-private", None).await;
    let with_secret = app
        .form(
            "/api/token",
            &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT)],
            Some((client_id, secret)),
        )
        .await;
    assert_eq!(with_secret.json()["error"], "unauthorized_client", "{}", String::from_utf8_lossy(&with_secret.body));
    let challenge = catalog_core::oauth::pkce_challenge(VERIFIER);
    let code = app.authorize(client_id, "ada", "user-read-private", Some(&challenge)).await;
    assert_eq!(pkce_exchange(&app, client_id, &code).await.status, StatusCode::OK);
    // A server app (client credentials only) needs no redirect uri.
    let server = app
        .send_json(Method::POST, "/api/apps", &ada, &json!({ "name": "Indexer", "flows": ["client_credentials"] }))
        .await;
    assert_eq!(server.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&server.body));
}

async fn an_app_is_edited_by_its_owner_and_shows_its_rate_limit_usage(app: TestApp) {
    let ada = listener_token(&app, "ada").await;
    let bob = listener_token(&app, "bob").await;
    let body = json!({ "name": "Radio", "redirect_uris": [REDIRECT], "flows": ["pkce", "client_credentials"] });
    let made = app.send_json(Method::POST, "/api/apps", &ada, &body).await.json();
    let client_id = made["client_id"].as_str().unwrap().to_owned();
    let secret = made["client_secret"].as_str().unwrap().to_owned();
    assert_eq!(made["rate_limit"], json!({ "used": 0, "limit": 600, "window_secs": 30, "resets_in_secs": 0 }));

    // Three Web API calls with the app's token are counted; the token
    // request and the listener app's own calls are not.
    let token = client_credentials(&app, &client_id, &secret).await.json()["access_token"].as_str().unwrap().to_owned();
    for _ in 0..3 {
        assert_eq!(app.get("/v1/markets", &token).await.status, StatusCode::OK);
    }
    let listed = app.get("/api/apps", &ada).await.json();
    assert_eq!(
        listed["items"][0]["rate_limit"],
        json!({ "used": 3, "limit": 600, "window_secs": 30, "resets_in_secs": 30 })
    );
    app.clock.advance_millis(12_500);
    let listed = app.get("/api/apps", &ada).await.json();
    assert_eq!(listed["items"][0]["rate_limit"]["resets_in_secs"], 18);
    app.clock.advance_millis(20_000);
    assert_eq!(app.get("/api/apps", &ada).await.json()["items"][0]["rate_limit"]["used"], 0);

    // Edited: a new name, a second redirect URI, client credentials taken away.
    let path = format!("/api/apps/{client_id}");
    let second = "http://127.0.0.1:9999/done";
    let change = json!({ "name": " Night radio ", "redirect_uris": [REDIRECT, second], "flows": ["pkce"] });
    let edited = app.send_json(Method::PUT, &path, &ada, &change).await;
    assert_eq!(edited.status, StatusCode::OK, "{}", String::from_utf8_lossy(&edited.body));
    assert_eq!(edited.headers["cache-control"], "no-store");
    let edited = edited.json();
    assert_eq!(edited["name"], "Night radio");
    assert_eq!(edited["redirect_uris"], json!([REDIRECT, second]));
    assert_eq!(edited["flows"], json!(["pkce"]));
    assert!(edited.get("client_secret").is_none(), "{edited}");
    let listed = app.get("/api/apps", &ada).await.json();
    assert_eq!(listed["items"][0]["name"], "Night radio");
    // The flow taken away is refused at once; the secret is the same and PKCE still works.
    let refused = client_credentials(&app, &client_id, &secret).await;
    assert_eq!(refused.json()["error"], "unauthorized_client");
    let challenge = catalog_core::oauth::pkce_challenge(VERIFIER);
    let code = app.authorize(&client_id, "ada", "user-read-private", Some(&challenge)).await;
    assert_eq!(pkce_exchange(&app, &client_id, &code).await.status, StatusCode::OK);

    // A change breaking a rule is refused and changes nothing.
    for (body, message) in [
        (json!({ "name": "x", "redirect_uris": [REDIRECT], "flows": [] }), "choose at least one flow"),
        (
            json!({ "name": "x", "redirect_uris": [], "flows": ["pkce"] }),
            "the authorization code flows need at least one redirect uri",
        ),
        (json!({ "redirect_uris": [REDIRECT], "flows": ["pkce"] }), "Missing required field name"),
    ] {
        assert_eq!(app.send_json(Method::PUT, &path, &ada, &body).await.spotify_error(400), message);
    }
    assert_eq!(app.get("/api/apps", &ada).await.json()["items"][0]["name"], "Night radio");
    // Another listener's edit finds nothing, as for a missing app.
    assert_eq!(app.send_json(Method::PUT, &path, &bob, &change).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.send_json(Method::PUT, "/api/apps/nope", &ada, &change).await.status, StatusCode::NOT_FOUND);
}
