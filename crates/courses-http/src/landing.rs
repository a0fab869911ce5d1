//! `/`: what this service is and where to go, until the authoring studio
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
<title>svc courses</title>
</head>
<body>
<main>
<h1>svc courses</h1>
<p>Course authoring and delivery: courses of screens and quizzes, learners, completions and certificates, SCORM 1.2 and 2004 packages, AI generation, plans and allowances.</p>
<h2>Where to go</h2>
<ul>
<li>The API: <code>/v1</code>, described by <a href="/v1/openapi.json">/v1/openapi.json</a>, with a workspace key as the bearer token.</li>
<li>MCP: <code>/v1/mcp</code>, for assistants that author courses.</li>
<li>Learners open a course through a signed embed link made with the API.</li>
</ul>
<h2>First steps on the server</h2>
<pre><code>svc courses workspace create --name "My school"
svc courses key create --workspace &lt;id&gt;</code></pre>
<p>Then call the API with <code>Authorization: Bearer &lt;key&gt;</code>, for example <code>GET /v1/courses</code>.</p>
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
