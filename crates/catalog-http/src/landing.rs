//! `/`: the listener app. One HTML shell holds two things: the landing
//! text a signed-out visitor (or a browser without JavaScript) reads, with
//! a sign-in button, and the root the app renders into once it holds a
//! token. The app (`assets/listener.js`, `assets/listener.css`) renders on
//! the client, so the player and its `<audio>` live across page changes;
//! it signs in as the catalog's own public OAuth client with PKCE and then
//! calls only the public Web API and the device protocol, like any other
//! client. Its assets are served under `/_app/` with a content fingerprint
//! in their names and a year of caching; the page's CSP allows nothing
//! inline and nothing from elsewhere.

use std::sync::OnceLock;

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};

use crate::AppState;
use crate::error::ApiError;

const JS: &str = include_str!("../assets/listener.js");
const CSS: &str = include_str!("../assets/listener.css");

/// The page's policy: the page kit's (`page_kit::PAGE_CSP`) plus media from
/// this origin (the audio streams); nothing inline, nothing from elsewhere.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   media-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The scopes the app asks for: everything a listener does in it.
pub const SCOPES: &str = "streaming user-read-playback-state user-modify-playback-state user-read-currently-playing \
                          user-read-recently-played user-library-read user-library-modify user-follow-read \
                          user-follow-modify playlist-read-private playlist-read-collaborative \
                          playlist-modify-public playlist-modify-private user-read-private user-top-read \
                          user-read-playback-position ugc-image-upload";

/// The page kit's stylesheet (tokens and components shared with the hub's
/// dashboard) and the app's own script and stylesheet, under one
/// fingerprint.
fn assets() -> &'static page_kit::Assets {
    static ASSETS: OnceLock<page_kit::Assets> = OnceLock::new();
    ASSETS.get_or_init(|| {
        page_kit::Assets::new(&[
            page_kit::assets::Asset { name: "listener.js", body: JS, content_type: "text/javascript; charset=utf-8" },
            page_kit::assets::Asset { name: "listener.css", body: CSS, content_type: "text/css; charset=utf-8" },
        ])
    })
}

fn attribute(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

fn shell(client_id: &str, redirect_uri: &str) -> String {
    let v = assets().version();
    format!(
        r##"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>svc catalog</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/_app/app.css?v={v}">
<link rel="stylesheet" href="/_app/listener.css?v={v}">
<script type="module" src="/_app/listener.js?v={v}"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<div id="app" data-client-id="{client}" data-redirect-uri="{redirect}" data-scopes="{scopes}">
<header class="top"><a class="brand" href="/">svc catalog</a>
<nav id="nav" aria-label="Main" hidden></nav>
<div class="who" id="who"></div></header>
<main id="main" tabindex="-1">
<section id="landing">
<h1>svc catalog</h1>
<p>A self-hosted audio catalog over your own files, whose API is the Spotify Web API: existing Spotify clients and libraries work against it unchanged.</p>
<p id="signin-row" hidden><button class="btn" type="button" id="signin">Sign in to listen</button></p>
<noscript><p>The listener app needs JavaScript; the Web API below does not.</p></noscript>
<h2>Where to go</h2>
<ul>
<li>This page is the listener app once you sign in: search, albums, artists, playlists, your library, and a player.</li>
<li>The Web API: <code>/v1</code> (for example <a href="/v1/browse/new-releases">/v1/browse/new-releases</a>, with a bearer token).</li>
<li>OAuth: <code>/authorize</code> and <code>/api/token</code>, the Spotify accounts flows (authorization code with PKCE, client credentials, refresh).</li>
</ul>
<h2>First steps on the server</h2>
<pre><code>svc catalog scan ~/Music
svc catalog user create --name you
svc catalog app create --name "My app" --redirect-uri http://127.0.0.1:8888/callback</code></pre>
<p>Then point the Spotify client of your choice at this address instead of <code>api.spotify.com</code> and <code>accounts.spotify.com</code>.</p>
</section>
<div id="view" hidden></div>
</main>
<p id="announce" class="visually-hidden" role="status" aria-live="polite"></p>
<section id="deck" class="deck" aria-label="Player" hidden></section>
<audio id="audio" preload="auto"></audio>
</div>
</body>
</html>
"##,
        client = attribute(client_id),
        redirect = attribute(redirect_uri),
        scopes = attribute(SCOPES),
    )
}

fn strict(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

/// `GET /`: the app's shell (the landing text until the app signs in).
/// The redirect URI is this page on the public origin, registered to the
/// app's client on first use.
pub async fn page(State(s): State<AppState>) -> Result<Response, ApiError> {
    let redirect = format!("{}/", s.public_url);
    let client_id = s.catalog.web_player_app(&redirect).await?;
    let mut response = axum::response::Html(shell(&client_id, &redirect)).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(strict(response))
}

/// `GET /_app/{file}`: the kit's stylesheet and the app's files, with a
/// year of caching (their URLs carry the fingerprint).
pub async fn asset(Path(file): Path<String>) -> Response {
    let response = assets().serve(&file);
    if response.status() == StatusCode::NOT_FOUND {
        return ApiError::new(StatusCode::NOT_FOUND, "Service not found").into_response();
    }
    response
}

/// `GET /player`: the web player is now the app itself.
pub async fn player() -> Redirect {
    Redirect::permanent("/")
}
