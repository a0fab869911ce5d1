use axum::http::{Method, StatusCode};
use catalog_core::oauth::pkce_challenge;

use crate::on_both_stores;
use crate::support::{REDIRECT, TestApp};

on_both_stores!(authorization_code_pkce_refresh_and_client_credentials, tokens_scopes_and_errors);

async fn authorization_code_pkce_refresh_and_client_credentials(app: TestApp) {
    let (client_id, secret, user_id) = app.app_and_user("ada").await;

    // The login page names the app and the scopes.
    let page = app
        .request(
            Method::GET,
            &format!(
                "/authorize?client_id={client_id}&response_type=code&redirect_uri={REDIRECT}&scope=user-library-read"
            ),
            None,
            None,
        )
        .await;
    assert_eq!(page.status, StatusCode::OK);
    let html = String::from_utf8_lossy(&page.body);
    assert!(html.contains("Test app") && html.contains("user-library-read"), "{html}");

    // Authorization code with a client secret.
    let code = app.authorize(&client_id, "ada", "user-library-read user-read-private", None).await;
    let token = app
        .form(
            "/api/token",
            &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT)],
            Some((&client_id, &secret)),
        )
        .await;
    assert_eq!(token.status, StatusCode::OK, "{}", String::from_utf8_lossy(&token.body));
    let body = token.json();
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 3600);
    assert_eq!(body["scope"], "user-library-read user-read-private");
    let access = body["access_token"].as_str().unwrap().to_owned();
    let refresh = body["refresh_token"].as_str().unwrap().to_owned();
    let me = app.get("/v1/me", &access).await;
    assert_eq!(me.status, StatusCode::OK);
    assert_eq!(me.json()["id"], user_id);
    assert_eq!(me.json()["account_id"], user_id);

    // A code works once.
    let again = app
        .form(
            "/api/token",
            &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT)],
            Some((&client_id, &secret)),
        )
        .await;
    assert_eq!(again.status, StatusCode::BAD_REQUEST);
    assert_eq!(again.json()["error"], "invalid_grant");
    // The replay revoked what the code issued (RFC 6749 4.1.2).
    assert_eq!(app.get("/v1/me", &access).await.spotify_error(401), "Invalid access token");
    let revoked = app
        .form(
            "/api/token",
            &[("grant_type", "refresh_token"), ("refresh_token", &refresh)],
            Some((&client_id, &secret)),
        )
        .await;
    assert_eq!(revoked.json()["error"], "invalid_grant");
    let code = app.authorize(&client_id, "ada", "user-library-read user-read-private", None).await;
    let fresh = app
        .form(
            "/api/token",
            &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT)],
            Some((&client_id, &secret)),
        )
        .await
        .json();
    let refresh = fresh["refresh_token"].as_str().unwrap().to_owned();

    // PKCE: no secret, the verifier instead.
    let verifier = "a-verifier-of-forty-three-characters-long-x-and-more";
    let code = app.authorize(&client_id, "ada", "playlist-modify-private", Some(&pkce_challenge(verifier))).await;
    let wrong = app
        .form(
            "/api/token",
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", REDIRECT),
                ("client_id", &client_id),
                ("code_verifier", "wrong-verifier-wrong-verifier-wrong-verifier"),
            ],
            None,
        )
        .await;
    assert_eq!(wrong.json()["error"], "invalid_grant");
    let code = app.authorize(&client_id, "ada", "playlist-modify-private", Some(&pkce_challenge(verifier))).await;
    let pkce = app
        .form(
            "/api/token",
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", REDIRECT),
                ("client_id", &client_id),
                ("code_verifier", verifier),
            ],
            None,
        )
        .await;
    assert_eq!(pkce.status, StatusCode::OK, "{}", String::from_utf8_lossy(&pkce.body));
    let pkce_refresh = pkce.json()["refresh_token"].as_str().unwrap().to_owned();
    // A PKCE client refreshes with only its client_id.
    let refreshed = app
        .form(
            "/api/token",
            &[("grant_type", "refresh_token"), ("refresh_token", &pkce_refresh), ("client_id", &client_id)],
            None,
        )
        .await;
    assert_eq!(refreshed.status, StatusCode::OK);
    assert_eq!(refreshed.json()["scope"], "playlist-modify-private");

    // Without PKCE a code needs the secret.
    let code = app.authorize(&client_id, "ada", "", None).await;
    let no_secret = app
        .form(
            "/api/token",
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", REDIRECT),
                ("client_id", &client_id),
            ],
            None,
        )
        .await;
    assert_eq!(no_secret.status, StatusCode::UNAUTHORIZED);
    assert_eq!(no_secret.json()["error"], "invalid_client");

    // Refresh with Basic keeps the scopes; the access token expires after an hour.
    let refreshed = app
        .form(
            "/api/token",
            &[("grant_type", "refresh_token"), ("refresh_token", &refresh)],
            Some((&client_id, &secret)),
        )
        .await;
    assert_eq!(refreshed.status, StatusCode::OK);
    let new_access = refreshed.json()["access_token"].as_str().unwrap().to_owned();
    assert_eq!(refreshed.json()["scope"], "user-library-read user-read-private");
    app.clock.advance_millis(3_600_000);
    assert_eq!(app.get("/v1/me", &new_access).await.spotify_error(401), "The access token expired");

    // Client credentials: catalog reads yes, /me no.
    let cc = app.form("/api/token", &[("grant_type", "client_credentials")], Some((&client_id, &secret))).await;
    assert_eq!(cc.status, StatusCode::OK);
    assert!(cc.json().get("refresh_token").is_none());
    let app_token = cc.json()["access_token"].as_str().unwrap().to_owned();
    assert_eq!(app.get("/v1/search?q=dawn&type=track", &app_token).await.status, StatusCode::OK);
    app.get("/v1/me/tracks", &app_token).await.spotify_error(403);
    let bad = app.form("/api/token", &[("grant_type", "client_credentials")], Some((&client_id, "nope"))).await;
    assert_eq!(bad.status, StatusCode::UNAUTHORIZED);
    assert_eq!(bad.json()["error"], "invalid_client");
    let unsupported = app.form("/api/token", &[("grant_type", "password")], Some((&client_id, &secret))).await;
    assert_eq!(unsupported.json()["error"], "unsupported_grant_type");
}

async fn tokens_scopes_and_errors(app: TestApp) {
    let (client_id, _, _) = app.app_and_user("bo").await;
    // Missing and invalid tokens: 401 in Spotify's error object, with WWW-Authenticate.
    let missing = app.request(Method::GET, "/v1/tracks/abc", None, None).await;
    assert_eq!(missing.spotify_error(401), "No token provided");
    assert!(missing.headers.contains_key("www-authenticate"));
    assert_eq!(app.get("/v1/me", "not-a-token").await.spotify_error(401), "Invalid access token");

    // A token without the route's scope: 403.
    let token = app.user_token("cy", "user-read-private").await;
    assert_eq!(app.get("/v1/me/tracks", &token).await.spotify_error(403), "Insufficient client scope");
    assert_eq!(app.get("/v1/me", &token).await.status, StatusCode::OK);

    // Wrong password: the form again with 401; a wrong redirect URI: an error page, no redirect.
    let wrong = app
        .submit_login(&[
            ("client_id", &client_id),
            ("redirect_uri", REDIRECT),
            ("response_type", "code"),
            ("scope", ""),
            ("username", "bo"),
            ("password", "wrong"),
            ("decision", "allow"),
        ])
        .await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    let evil = app
        .request(
            Method::GET,
            &format!("/authorize?client_id={client_id}&response_type=code&redirect_uri=http://evil.example/cb"),
            None,
            None,
        )
        .await;
    assert_eq!(evil.status, StatusCode::BAD_REQUEST);
    assert!(!evil.headers.contains_key("location"));
    let bad_scope = app
        .request(
            Method::GET,
            &format!("/authorize?client_id={client_id}&response_type=code&redirect_uri={REDIRECT}&scope=nope"),
            None,
            None,
        )
        .await;
    assert_eq!(bad_scope.status, StatusCode::BAD_REQUEST);

    // Deny redirects with access_denied.
    let denied = app
        .submit_login(&[
            ("client_id", &client_id),
            ("redirect_uri", REDIRECT),
            ("response_type", "code"),
            ("state", "s1"),
            ("decision", "deny"),
        ])
        .await;
    let location = denied.headers["location"].to_str().unwrap();
    assert!(location.contains("error=access_denied") && location.contains("state=s1"), "{location}");

    // Unknown routes and player commands without a device.
    app.get("/v1/nothing-here", &token).await.spotify_error(404);
    let player_token = app.user_token("dee", "user-modify-playback-state user-read-playback-state").await;
    let pause = app.request(Method::PUT, "/v1/me/player/pause", Some(&player_token), None).await;
    assert_eq!(pause.status, StatusCode::NOT_FOUND);
    assert_eq!(pause.json()["error"]["reason"], "NO_ACTIVE_DEVICE");
    assert_eq!(app.get("/v1/me/player", &player_token).await.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get("/v1/me/player/devices", &player_token).await.json()["devices"], serde_json::json!([]));
}
