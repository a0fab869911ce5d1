//! `/`: what this service is and where to go, until the listener app
//! takes the root. A static page: no script, no style of its own (the
//! browser's, light or dark as the system is), nothing from elsewhere.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

const PAGE: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>svc catalog</title>
</head>
<body>
<main>
<h1>svc catalog</h1>
<p>A self-hosted audio catalog over your own files, whose API is the Spotify Web API: existing Spotify clients and libraries work against it unchanged.</p>
<h2>Where to go</h2>
<ul>
<li><a href="/player">The web player</a>: a playback device for your account.</li>
<li>The Web API: <code>/v1</code> (for example <a href="/v1/browse/new-releases">/v1/browse/new-releases</a>, with a bearer token).</li>
<li>OAuth: <code>/authorize</code> and <code>/api/token</code>, the Spotify accounts flows (authorization code with PKCE, client credentials, refresh).</li>
</ul>
<h2>First steps on the server</h2>
<pre><code>svc catalog scan ~/Music
svc catalog user create --name you
svc catalog app create --name "My app" --redirect-uri http://127.0.0.1:8888/callback</code></pre>
<p>Then point the Spotify client of your choice at this address instead of <code>api.spotify.com</code> and <code>accounts.spotify.com</code>.</p>
</main>
</body>
</html>
"#;

/// The landing page.
pub async fn page() -> Response {
    let mut response = axum::response::Html(PAGE).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
