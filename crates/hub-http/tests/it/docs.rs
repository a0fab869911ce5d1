//! The hosted docs through the real router: pages with real content,
//! escaping against a hostile spec, sanitised markdown, the badge per plan,
//! branding and customization limits, search, the widget and its JSON.

use axum::http::{Method, StatusCode};
use hub_core::Plan;
use serde_json::json;
use test_kit::{TestApp, on_both_stores};

use crate::GRAPHQL_SDL;

/// A petstore whose every text field tries something.
const HOSTILE: &str = r#"
openapi: 3.0.3
info:
  title: "Pets <script>alert('title')</script>"
  version: '1.0'
  description: "Welcome to **Pets**.\n\n<script>alert('desc')</script>\n\n<img src=x onerror=alert(1)>\n\n[click](javascript:alert(2))"
servers: [{url: 'https://api.example.com/v1'}]
tags: [{name: pets, description: All about pets}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-API-Key}
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties:
        id: {type: string, format: uuid, description: "<a href='javascript:alert(3)'>id</a> of the pet"}
        name: {type: string, example: Rex}
security: [{key: []}]
paths:
  /pets:
    get:
      operationId: listPets
      summary: "List pets\"><script>alert('summary')</script>"
      tags: [pets]
      parameters:
        - {name: limit, in: query, schema: {type: integer, maximum: 100}, description: "How many <b onclick=alert(4)>at most</b>"}
      responses:
        '200':
          description: The pets
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}
    post:
      operationId: createPet
      summary: Create a pet
      tags: [pets]
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Pet'}
      responses:
        '201': {description: Created}
"#;

fn text(response: &test_kit::TestResponse) -> String {
    String::from_utf8_lossy(&response.body).into_owned()
}

async fn public_project(app: &TestApp, token: &str, name: &str, spec: &str) -> String {
    let slug = app.project(token, name).await;
    let made_public = app.patch_json(&format!("/api/v1/projects/{slug}"), token, &json!({"is_public": true})).await;
    assert_eq!(made_public.status, StatusCode::OK);
    let pushed = app.push(&slug, token, "label=1.0", spec.to_owned()).await;
    assert_eq!(pushed.status, StatusCode::CREATED, "{}", text(&pushed));
    slug
}

async fn page(app: &TestApp, path: &str) -> (StatusCode, String) {
    let response = app.request(Method::GET, path, None, None).await;
    (response.status, text(&response))
}

/// The page with its tags removed (entities kept).
fn without_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(ch),
            _ => {}
        }
    }
    out
}

fn assert_no_active_content(html: &str) {
    for bad in ["<script>alert", "onerror", "onclick", "javascript:"] {
        assert!(!html.contains(bad), "{bad} reached the page:\n{html}");
    }
}

async fn pages_render_escaped_and_sanitised(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Free).await;
    let slug = public_project(&app, &token, "Pets", HOSTILE).await;

    let response = app.request(Method::GET, &format!("/docs/{slug}"), None, None).await;
    assert_eq!(response.status, StatusCode::OK);
    assert_eq!(response.headers["content-type"], "text/html; charset=utf-8");
    assert!(response.headers["content-security-policy"].to_str().unwrap().contains("script-src 'self'"));
    let html = text(&response);
    assert!(html.contains("Pets &lt;script&gt;alert(&#x27;title&#x27;)&lt;/script&gt;"), "{html}");
    assert!(html.contains("Welcome to <strong>Pets</strong>"), "{html}");
    assert!(html.contains(&format!("href=\"/docs/{slug}/1.0/op/listPets\"")), "{html}");
    assert!(html.contains("Powered by"), "Free projects always show the badge");
    assert_no_active_content(&html);

    let (status, op) = page(&app, &format!("/docs/{slug}/1.0/op/listPets")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(op.contains("<code>/pets</code>") && op.contains("<code>limit</code>"), "{op}");
    assert!(op.contains("How many <b>at most</b>"), "{op}");
    // Samples are highlighted on the server: their text, without the tags.
    let plain = without_tags(&op);
    assert!(plain.contains("curl -X GET &#x27;https://api.example.com/v1/pets&#x27;"), "{plain}");
    assert!(plain.contains("import requests") && plain.contains("await fetch("), "{plain}");
    assert!(op.contains("<span class=\"k\">import"), "{op}");
    assert!(op.contains(&format!("value=\"/mock/{slug}@1.0\"")), "Try-It targets the mock: {op}");
    assert!(op.contains("List pets&quot;&gt;&lt;script&gt;"), "{op}");
    assert_no_active_content(&op);

    let (status, create) = page(&app, &format!("/docs/{slug}/1.0/op/createPet")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        create.contains("Request body") && without_tags(&create).contains("&quot;name&quot;: &quot;Rex&quot;"),
        "{create}"
    );

    let (status, schema) = page(&app, &format!("/docs/{slug}/1.0/schemas/Pet")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(schema.contains("of the pet") && schema.contains("string (uuid)"), "{schema}");
    assert_no_active_content(&schema);

    let (status, tag) = page(&app, &format!("/docs/{slug}/1.0/tags/pets")).await;
    assert_eq!((status, tag.contains("Create a pet")), (StatusCode::OK, true));

    for missing in [
        format!("/docs/{slug}/1.0/op/nope"),
        format!("/docs/{slug}/2.0"),
        format!("/docs/{slug}/1.0/schemas/Nope"),
        "/docs/no-such-project".to_owned(),
    ] {
        let response = app.request(Method::GET, &missing, None, None).await;
        assert_eq!(response.status, StatusCode::NOT_FOUND, "{missing}");
        assert!(text(&response).contains("<!doctype html>"), "{missing} answers a page");
    }
}

async fn private_projects_are_not_found(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Secret").await;
    app.push(&slug, &token, "label=1.0", HOSTILE.to_owned()).await;
    let (status, html) = page(&app, &format!("/docs/{slug}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(!html.contains("Pets"), "nothing of a private project leaks");
    let response = app.request(Method::GET, &format!("/docs/{slug}/embed.json?operation=listPets"), None, None).await;
    assert_eq!(response.status, StatusCode::NOT_FOUND);
}

/// A GET with extra headers through the real router.
async fn get_with(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> test_kit::TestResponse {
    let mut builder = axum::http::Request::builder().uri(path);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    TestApp::send(&app.router, builder.body(axum::body::Body::empty()).unwrap()).await
}

/// The CSRF cookie and token a browser gets with the form at `path`.
pub(crate) async fn csrf_for(router: &axum::Router, path: &str) -> (String, String) {
    let request = axum::http::Request::builder().uri(path).body(axum::body::Body::empty()).unwrap();
    let form = TestApp::send(router, request).await;
    let html = text(&form);
    let token = html
        .split("name=\"csrf_token\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no CSRF field in {path}: {html}"))
        .to_owned();
    let cookie = form
        .headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_owned())
        .find(|pair| pair.contains("svc_csrf="))
        .expect("a CSRF cookie");
    (cookie, token)
}

/// Posts the member sign-in form as a browser would: with the CSRF cookie
/// and token from the form page.
async fn signin(app: &TestApp, form: &str, headers: &[(&str, &str)]) -> test_kit::TestResponse {
    let (cookie, token) = csrf_for(&app.router, "/docs/_signin").await;
    post_form(&app.router, "/docs/_signin", &format!("{form}&csrf_token={token}"), &cookie, headers).await
}

async fn post_form(
    router: &axum::Router,
    path: &str,
    form: &str,
    cookie: &str,
    headers: &[(&str, &str)],
) -> test_kit::TestResponse {
    let mut builder = axum::http::Request::builder()
        .method(Method::POST)
        .uri(path)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("cookie", cookie);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    TestApp::send(router, builder.body(axum::body::Body::from(form.to_owned())).unwrap()).await
}

async fn private_projects_open_to_members(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Pro).await;
    let (_, stranger) = app.user("stranger@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Members only").await;
    app.push(&slug, &token, "label=1.0", HOSTILE.to_owned()).await;
    let path = format!("/docs/{slug}/1.0/op/listPets");

    // Anonymous visitors and non-members: exactly a missing project, with
    // the same sign-in link a missing project shows.
    let anonymous = get_with(&app, &path, &[]).await;
    assert_eq!(anonymous.status, StatusCode::NOT_FOUND);
    assert!(text(&anonymous).contains(&format!("/docs/_signin?next=%2Fdocs%2F{slug}")), "{}", text(&anonymous));
    let missing = get_with(&app, "/docs/no-such-project", &[]).await;
    assert!(text(&missing).contains("/docs/_signin?next=%2Fdocs%2Fno-such-project"));
    let not_member = get_with(&app, &path, &[("authorization", &format!("Bearer {stranger}"))]).await;
    assert_eq!(not_member.status, StatusCode::NOT_FOUND);
    assert!(!text(&not_member).contains("listPets"));
    let bad_token = get_with(&app, &path, &[("authorization", "Bearer nonsense")]).await;
    assert_eq!(bad_token.status, StatusCode::NOT_FOUND, "a bad token is just an anonymous visitor");

    // A member's token opens the docs; the page is kept from shared caches.
    let member = get_with(&app, &path, &[("authorization", &format!("Bearer {token}"))]).await;
    assert_eq!(member.status, StatusCode::OK);
    assert!(text(&member).contains("<code>/pets</code>"));
    assert_eq!(member.headers["cache-control"], "private, no-store");
    let public_slug = public_project(&app, &token, "Open", HOSTILE).await;
    let open = get_with(&app, &format!("/docs/{public_slug}"), &[]).await;
    assert_eq!(open.headers["cache-control"], "no-cache", "public pages stay cacheable with revalidation");

    // The browser way: the sign-in form, then a cookie bound to the token.
    let form = get_with(&app, &format!("/docs/_signin?next=/docs/{slug}/1.0"), &[]).await;
    assert_eq!(form.status, StatusCode::OK);
    assert!(text(&form).contains(&format!("value=\"/docs/{slug}/1.0\"")) && text(&form).contains("name=\"token\""));
    let wrong = signin(&app, "token=svc_pat_wrong&next=%2Fdocs%2Fx", &[]).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(text(&wrong).contains("not valid"));
    assert!(wrong.headers.get("set-cookie").is_none());
    let escaped = signin(&app, &format!("token={token}&next=https%3A%2F%2Fevil.example%2F"), &[]).await;
    assert_eq!(escaped.status, StatusCode::SEE_OTHER);
    assert_eq!(escaped.headers["location"], "/docs/", "only docs pages are places to return to");
    let plain = escaped.headers["set-cookie"].to_str().unwrap().to_owned();
    assert!(plain.contains("HttpOnly") && plain.contains("SameSite=Lax") && plain.contains("Path=/;"), "{plain}");
    assert!(!plain.contains("Secure"), "plain HTTP keeps working: {plain}");
    assert!(!plain.contains(&token), "the cookie never carries the token");
    // A client-supplied X-Forwarded-Proto changes nothing: Secure follows
    // the configured public URL.
    let signed_in =
        signin(&app, &format!("token={token}&next=%2Fdocs%2F{slug}%2F1.0"), &[("x-forwarded-proto", "https")]).await;
    assert_eq!(signed_in.headers["location"], format!("/docs/{slug}/1.0"));
    let set = signed_in.headers["set-cookie"].to_str().unwrap().to_owned();
    assert!(!set.contains("Secure") && set.starts_with("svc_docs_member="), "{set}");
    let cookie = set.split(';').next().unwrap().to_owned();
    // Without the form's token the sign-in is refused, cookie or not.
    let (csrf_cookie, _) = csrf_for(&app.router, "/docs/_signin").await;
    let forged =
        post_form(&app.router, "/docs/_signin", &format!("token={token}&csrf_token=forged"), &csrf_cookie, &[]).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert!(forged.headers.get("set-cookie").is_none());
    let no_cookie = post_form(&app.router, "/docs/_signin", &format!("token={token}"), "", &[]).await;
    assert_eq!(no_cookie.status, StatusCode::FORBIDDEN);
    // Over https (the configured public URL), the cookie is Secure and
    // bound to the host with the __Host- prefix; the form is never framed.
    let https = app.router_with_web(hub_http::WebConfig::new(
        "https://docs.example.com",
        &platform::secrets::SecretKey::generate(),
    ));
    let form_page = TestApp::send(
        &https,
        axum::http::Request::builder().uri("/docs/_signin").body(axum::body::Body::empty()).unwrap(),
    )
    .await;
    assert!(form_page.headers["content-security-policy"].to_str().unwrap().contains("frame-ancestors 'none'"));
    let (https_csrf, https_token) = csrf_for(&https, "/docs/_signin").await;
    assert!(https_csrf.starts_with("__Host-svc_csrf="), "{https_csrf}");
    let secure =
        post_form(&https, "/docs/_signin", &format!("token={token}&csrf_token={https_token}"), &https_csrf, &[]).await;
    let secure_set = secure.headers["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        secure_set.starts_with("__Host-svc_docs_member=")
            && secure_set.contains("; Secure")
            && secure_set.contains("Path=/;"),
        "{secure_set}"
    );
    let opened = get_with(&app, &path, &[("cookie", &cookie)]).await;
    assert_eq!(opened.status, StatusCode::OK);
    assert!(text(&opened).contains("<code>/pets</code>"));
    let mut tampered = cookie.clone();
    let last = tampered.pop().unwrap();
    tampered.push(if last == '0' { '1' } else { '0' });
    let tampered_page = get_with(&app, &path, &[("cookie", &tampered)]).await;
    assert_eq!(tampered_page.status, StatusCode::NOT_FOUND);

    // Revoking the token ends the session.
    app.hub.revoke_token("owner@example.com", "test", hub_core::model::Source::System).await.unwrap();
    assert_eq!(get_with(&app, &path, &[("cookie", &cookie)]).await.status, StatusCode::NOT_FOUND);
    let refused = post_form(&app.router, "/docs/_signout", "", &cookie, &[]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "a sign-out without the form's token is refused");
    let (csrf_cookie, csrf_token) = csrf_for(&app.router, "/docs/_signout").await;
    let out = post_form(
        &app.router,
        "/docs/_signout",
        &format!("csrf_token={csrf_token}"),
        &format!("{cookie}; {csrf_cookie}"),
        &[],
    )
    .await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(out.headers["set-cookie"].to_str().unwrap().contains("Max-Age=0"));
}

/// A local API without CORS: echoes what it received.
async fn echo_api() -> std::net::SocketAddr {
    use axum::routing::any;
    let app = axum::Router::new().route(
        "/{*rest}",
        any(|method: Method, uri: axum::http::Uri, headers: axum::http::HeaderMap, body: String| async move {
            let seen: serde_json::Map<String, serde_json::Value> =
                headers.iter().map(|(k, v)| (k.as_str().to_owned(), json!(v.to_str().unwrap_or("")))).collect();
            (
                StatusCode::CREATED,
                [("x-upstream", "yes")],
                axum::Json(json!({"method": method.as_str(), "uri": uri.to_string(), "headers": seen, "body": body})),
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    addr
}

async fn relay(app: &TestApp, path: &str, content_type: &str, body: serde_json::Value) -> test_kit::TestResponse {
    let request = axum::http::Request::builder()
        .method(Method::POST)
        .uri(path)
        .header("content-type", content_type)
        .header("cookie", "svc_docs_member=secret")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    TestApp::send(&app.router, request).await
}

async fn tryit_relay_reaches_only_the_documented_api(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Free).await;
    let slug = public_project(&app, &token, "Relayed", HOSTILE).await;
    let upstream = echo_api().await;
    let base = format!("http://{upstream}/v1");
    let patched = app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"base_url": base})).await;
    assert_eq!(patched.status, StatusCode::OK, "{}", text(&patched));
    let path = format!("/docs/{slug}/1.0/_tryit");

    let page = page(&app, &format!("/docs/{slug}/1.0/op/listPets")).await.1;
    assert!(page.contains(&format!("data-relay=\"/docs/{slug}/1.0/_tryit\"")), "the panel knows its relay");

    let sent = relay(
        &app,
        &path,
        "application/json",
        json!({"method": "POST", "url": format!("{base}/pets?limit=2"),
               "headers": {"X-API-Key": "k1", "Cookie": "stolen=1", "Content-Type": "application/json"},
               "body": "{\"name\":\"Rex\"}"}),
    )
    .await;
    assert_eq!(sent.status, StatusCode::OK, "{}", text(&sent));
    let answer = sent.json();
    assert_eq!(answer["status"], 201);
    assert!(answer["headers"].as_array().unwrap().iter().any(|h| h == &json!(["x-upstream", "yes"])));
    let echoed: serde_json::Value = serde_json::from_str(answer["body"].as_str().unwrap()).unwrap();
    assert_eq!(echoed["method"], "POST");
    assert_eq!(echoed["uri"], "/v1/pets?limit=2");
    assert_eq!(echoed["body"], "{\"name\":\"Rex\"}");
    assert_eq!(echoed["headers"]["x-api-key"], "k1");
    assert!(echoed["headers"].get("cookie").is_none(), "no cookie reaches the API: {echoed}");

    let outside =
        relay(&app, &path, "application/json", json!({"method": "GET", "url": format!("http://{upstream}/admin")}))
            .await;
    assert_eq!((outside.status, outside.error_code()), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR".to_owned()));
    assert_eq!(outside.json()["error"]["details"]["field"], "url");
    let elsewhere =
        relay(&app, &path, "application/json", json!({"method": "GET", "url": "https://example.com/v1"})).await;
    assert_eq!(elsewhere.status, StatusCode::BAD_REQUEST, "never an open proxy");
    let form = relay(&app, &path, "text/plain", json!({"method": "GET", "url": format!("{base}/pets")})).await;
    assert_eq!(form.status, StatusCode::BAD_REQUEST, "a cross-site form post cannot use it");
    let garbage = relay(&app, &path, "application/json", json!(["not", "an", "object"])).await;
    assert_eq!(garbage.status, StatusCode::BAD_REQUEST);

    // A private address is refused by the outbound guard even when it is the
    // documented base URL (the test hub allows loopback only).
    app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"base_url": "http://10.1.2.3/v1"})).await;
    let private =
        relay(&app, &path, "application/json", json!({"method": "GET", "url": "http://10.1.2.3/v1/pets"})).await;
    assert_eq!(private.status, StatusCode::BAD_REQUEST);
    assert!(text(&private).contains("10.1.2.3 is not an allowed destination"), "{}", text(&private));

    // An API that does not answer is reported, not an error of the relay.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"base_url": format!("http://{closed}")})).await;
    let down =
        relay(&app, &path, "application/json", json!({"method": "GET", "url": format!("http://{closed}/pets")})).await;
    assert_eq!(down.status, StatusCode::OK);
    assert_eq!(down.json()["status"], serde_json::Value::Null);
    assert!(down.json()["error"].as_str().unwrap().contains("could not connect"), "{}", text(&down));

    // Private projects: the relay answers exactly like a missing project.
    let hidden = app.project(&token, "Hidden").await;
    app.push(&hidden, &token, "label=1.0", HOSTILE.to_owned()).await;
    let closed_relay =
        relay(&app, &format!("/docs/{hidden}/1.0/_tryit"), "application/json", json!({"method": "GET", "url": base}))
            .await;
    assert_eq!(closed_relay.status, StatusCode::NOT_FOUND);
}

async fn graphql_reference(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Free).await;
    let slug = public_project(&app, &token, "Books", GRAPHQL_SDL).await;
    let (status, html) = page(&app, &format!("/docs/{slug}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("id=\"query-book\"") && html.contains("id=\"mutation-addBook\""), "{html}");
    assert!(html.contains(&format!("href=\"/docs/{slug}/1.0/types/Book\"")), "{html}");
    let (status, book) = page(&app, &format!("/docs/{slug}/1.0/types/Book")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(book.contains("<code>title</code>") && book.contains("String!"), "{book}");
}

async fn assets_and_widget_are_served_by_the_hub(app: TestApp) {
    for (path, kind) in [
        ("/_docs/docs.css", "text/css"),
        ("/_docs/docs.js", "text/javascript"),
        ("/_docs/icon.svg", "image/svg+xml"),
        ("/widget.js", "text/javascript"),
    ] {
        let response = app.request(Method::GET, path, None, None).await;
        assert_eq!(response.status, StatusCode::OK, "{path}");
        assert!(response.headers["content-type"].to_str().unwrap().starts_with(kind), "{path}");
    }
    let widget = app.request(Method::GET, "/widget.js", None, None).await;
    let widget = text(&widget);
    assert!(
        widget.contains("data-service-embed") && widget.contains("service:rescan") && widget.contains("attachShadow")
    );
    assert_eq!(app.request(Method::GET, "/_docs/nope.js", None, None).await.status, StatusCode::NOT_FOUND);
}

async fn branding_and_customization(app: TestApp) {
    let (_, free) = app.user("free@example.com", Plan::Free).await;
    let free_slug = public_project(&app, &free, "Free pets", HOSTILE).await;
    let refused = app
        .request(
            Method::PUT,
            &format!("/api/v1/projects/{free_slug}/theme"),
            Some(&free),
            Some(json!({"light": {"primary": "#ff0000"}}).to_string().into()),
        )
        .await;
    assert_eq!((refused.status, refused.error_code()), (StatusCode::PAYMENT_REQUIRED, "PLAN_REQUIRED".to_owned()));

    let (_, token) = app.user("biz@example.com", Plan::Business).await;
    let slug = public_project(&app, &token, "Biz pets", HOSTILE).await;
    let put = |path: &'static str, body: serde_json::Value| {
        let app = &app;
        let token = token.clone();
        let slug = slug.clone();
        async move {
            app.request(
                Method::PUT,
                &format!("/api/v1/projects/{slug}/{path}"),
                Some(&token),
                Some(body.to_string().into()),
            )
            .await
        }
    };
    let branding =
        put("branding", json!({"logo_url": "https://acme.example/logo.svg", "accent_color": "#FF6600"})).await;
    assert_eq!(branding.status, StatusCode::OK, "{}", text(&branding));
    assert_eq!(branding.json()["accent_color"], "#ff6600");
    let bad = put("branding", json!({"logo_url": "javascript:alert(1)"})).await;
    assert_eq!(
        (bad.status, bad.json()["error"]["details"]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("logo_url"))
    );

    let (_, html) = page(&app, &format!("/docs/{slug}")).await;
    assert!(html.contains("--primary:#ff6600;"), "the legacy accent colour is the primary: {html}");

    let theme = put(
        "theme",
        json!({"light": {"primary": "#112233"}, "dark": {"primary": "#445566"}, "radius": 4, "lock": "dark"}),
    )
    .await;
    assert_eq!(theme.status, StatusCode::OK, "{}", text(&theme));
    let (_, html) = page(&app, &format!("/docs/{slug}")).await;
    assert!(html.contains("--primary:#112233;") && !html.contains("#ff6600"), "tokens win over the accent: {html}");
    assert!(html.contains("data-theme=\"dark\""), "{html}");

    let button = json!({"label": "Sign up", "url": "https://acme.example/signup", "variant": "outline"});
    let link = json!({"label": "Blog", "url": "https://acme.example/blog"});
    let too_many = put("customization", json!({"header": {"buttons": vec![button.clone(); 7]}})).await;
    assert_eq!(
        (too_many.status, too_many.json()["error"]["details"]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("header.buttons"))
    );
    let too_many = put("customization", json!({"header": {"links": vec![link.clone(); 9]}})).await;
    assert_eq!(
        (too_many.status, too_many.json()["error"]["details"]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("header.links"))
    );
    let saved = put(
        "customization",
        json!({"header": {"title": "Acme <API>", "buttons": vec![button; 6], "links": vec![link; 8], "search": true}, "remove_watermark": true}),
    )
    .await;
    assert_eq!(saved.status, StatusCode::OK, "{}", text(&saved));
    let (_, html) = page(&app, &format!("/docs/{slug}")).await;
    assert!(html.contains("Acme &lt;API&gt;"), "{html}");
    assert!(html.contains("class=\"btn btn-outline\" href=\"https://acme.example/signup\""), "{html}");
    assert!(!html.contains("Powered by"), "a paid plan may remove the badge");
    assert!(html.contains(&format!("action=\"/docs/{slug}/1.0/search\"")), "the top-bar search: {html}");

    let markdown = put(
        "endpoint-docs",
        json!({"version": "1.0", "endpoint": "get /pets", "intro": "Read **this** first.<script>alert('md')</script>", "extras": "[x](javascript:alert(5)) More."}),
    )
    .await;
    assert_eq!(markdown.status, StatusCode::OK, "{}", text(&markdown));
    assert_eq!(markdown.json()["item"]["endpoint"], "GET /pets");
    let (_, op) = page(&app, &format!("/docs/{slug}/1.0/op/listPets")).await;
    assert!(op.contains("Read <strong>this</strong> first.") && op.contains("More."), "{op}");
    assert_no_active_content(&op);
    let listed = app.get(&format!("/api/v1/projects/{slug}/endpoint-docs?version=1.0"), &token).await;
    assert_eq!(listed.json()["items"].as_array().map(Vec::len), Some(1));

    let events = app
        .hub
        .store()
        .audit_events(&app.hub.store().user_by_email("biz@example.com").await.unwrap().unwrap().id)
        .await
        .unwrap();
    let codes: Vec<&str> = events.iter().map(|e| e.action.as_str()).collect();
    for code in ["BRANDING_UPDATED", "THEME_UPDATED", "CUSTOMIZATION_UPDATED"] {
        assert!(codes.contains(&code), "{code} in {codes:?}");
    }

    // A downgrade keeps everything stored but applies none of it.
    app.hub.set_plan("biz@example.com", Plan::Free).await.unwrap();
    let (_, html) = page(&app, &format!("/docs/{slug}")).await;
    assert!(!html.contains("#112233") && !html.contains("Acme &lt;API&gt;") && html.contains("Powered by"), "{html}");
    let kept = app.get(&format!("/api/v1/projects/{slug}/theme"), &token).await;
    assert_eq!(kept.json()["light"]["primary"], "#112233");
}

async fn search_finds_operations_and_schemas(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Pro).await;
    let slug = public_project(&app, &token, "Pets", HOSTILE).await;
    let (status, html) = page(&app, &format!("/docs/{slug}/1.0/search?q=how%20many")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(&format!("href=\"/docs/{slug}/1.0/op/listPets\"")), "{html}");
    let (_, html) = page(&app, &format!("/docs/{slug}/1.0/search?q=pet")).await;
    assert!(html.contains(&format!("href=\"/docs/{slug}/1.0/schemas/Pet\"")), "prefix match: {html}");
    let (_, html) = page(&app, &format!("/docs/{slug}/1.0/search?q=%22%29%28*%20NEAR")).await;
    assert!(html.contains("No results"), "hostile queries are words only: {html}");
}

/// The quick-search overlay's two sources: the prebuilt index (cacheable by
/// its hash) and the full-text hits as JSON; and the download link.
async fn quick_search_index_hits_and_download(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Pro).await;
    let slug = public_project(&app, &token, "Pets", HOSTILE).await;
    let (_, html) = page(&app, &format!("/docs/{slug}/1.0")).await;
    let index_url = html
        .split("data-index=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no index link: {html}"))
        .to_owned();
    assert!(index_url.starts_with(&format!("/docs/{slug}/1.0/search?index=")), "{index_url}");
    let index = app.request(Method::GET, &index_url, None, None).await;
    assert_eq!(index.status, StatusCode::OK);
    assert_eq!(index.headers.get("cache-control").and_then(|v| v.to_str().ok()), Some("public, max-age=86400"));
    let entries: Vec<[String; 4]> = serde_json::from_slice(&index.body).unwrap_or_else(|e| panic!("{e}"));
    assert!(entries.iter().any(|e| e[0] == "POST" && e[1] == "Create a pet" && e[3] == "op/createPet"), "{entries:?}");
    assert!(entries.iter().any(|e| e[0] == "schema" && e[3] == "schemas/Pet"), "{entries:?}");

    let hits = app.request(Method::GET, &format!("/docs/{slug}/1.0/search?format=json&q=how%20many"), None, None).await;
    assert_eq!(hits.status, StatusCode::OK);
    let hits: serde_json::Value = serde_json::from_slice(&hits.body).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(hits["query"], "how many");
    assert!(hits["hits"].as_array().is_some_and(|h| h.iter().any(|h| h["target"] == "op/listPets")), "{hits}");

    let download = app.request(Method::GET, &format!("/docs/{slug}/1.0/openapi"), None, None).await;
    assert_eq!(download.status, StatusCode::OK);
    assert_eq!(
        download.headers.get("content-type").and_then(|v| v.to_str().ok()),
        Some("application/yaml; charset=utf-8")
    );
    let disposition = download.headers.get("content-disposition").and_then(|v| v.to_str().ok()).unwrap_or_default();
    assert_eq!(disposition, format!("attachment; filename=\"{slug}-1.0.yaml\""));
    assert_eq!(text(&download), HOSTILE, "the document as pushed");
    assert!(
        html.contains(&format!("href=\"/docs/{slug}/1.0/openapi\" download>Download OpenAPI document</a>")),
        "{html}"
    );
    let (missing, _) = page(&app, &format!("/docs/{slug}/9.9/openapi")).await;
    assert_eq!(missing, StatusCode::NOT_FOUND);
}

async fn embed_json_feeds_the_widget(app: TestApp) {
    let (_, free) = app.user("free@example.com", Plan::Free).await;
    let free_slug = public_project(&app, &free, "Free", HOSTILE).await;
    let refused =
        app.request(Method::GET, &format!("/docs/{free_slug}/embed.json?operation=listPets"), None, None).await;
    assert_eq!(refused.status, StatusCode::PAYMENT_REQUIRED);

    let (_, token) = app.user("pro@example.com", Plan::Pro).await;
    let slug = public_project(&app, &token, "Pro", HOSTILE).await;
    let response = app.request(Method::GET, &format!("/docs/{slug}/embed.json?operation=createPet"), None, None).await;
    assert_eq!(response.status, StatusCode::OK, "{}", text(&response));
    let body = response.json();
    assert_eq!(body["operation"]["method"], "POST");
    assert_eq!(body["operation"]["body_media"], "application/json");
    assert_eq!(body["targets"][1]["url"], format!("/mock/{slug}@1.0"));
    let missing = app.request(Method::GET, &format!("/docs/{slug}/embed.json?operation=nope"), None, None).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

async fn password_protected_docs_and_mock(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Free).await;
    let slug = public_project(&app, &token, "Guarded", HOSTILE).await;
    let short = app
        .request(
            Method::PUT,
            &format!("/api/v1/projects/{slug}/docs-password"),
            Some(&token),
            Some(json!({"password": "short"}).to_string().into()),
        )
        .await;
    assert_eq!(short.status, StatusCode::BAD_REQUEST);
    let set = app
        .request(
            Method::PUT,
            &format!("/api/v1/projects/{slug}/docs-password"),
            Some(&token),
            Some(json!({"password": "correct horse"}).to_string().into()),
        )
        .await;
    assert_eq!((set.status, set.json()["password_protected"].clone()), (StatusCode::OK, json!(true)));

    let (status, html) = page(&app, &format!("/docs/{slug}/1.0/op/listPets")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(html.contains("type=\"password\"") && html.contains(&format!("action=\"/docs/{slug}/_login\"")), "{html}");
    assert!(!html.contains("listPets"), "nothing of the docs shows");
    let mock = app.mock(Method::GET, &format!("/mock/{slug}/pets"), &[], None).await;
    assert_eq!((mock.status, mock.error_code()), (StatusCode::UNAUTHORIZED, "PASSWORD_REQUIRED".to_owned()));
    let member =
        get_with(&app, &format!("/docs/{slug}/1.0/op/listPets"), &[("authorization", &format!("Bearer {token}"))])
            .await;
    assert_eq!(member.status, StatusCode::OK, "members skip the docs password");
    assert_eq!(member.headers["cache-control"], "private, no-store");

    let (csrf_cookie, csrf_token) = csrf_for(&app.router, &format!("/docs/{slug}/1.0/op/listPets")).await;
    let login = |password: &'static str| {
        let app = &app;
        let slug = slug.clone();
        let (csrf_cookie, csrf_token) = (csrf_cookie.clone(), csrf_token.clone());
        async move {
            post_form(
                &app.router,
                &format!("/docs/{slug}/_login"),
                &format!("password={password}&next=%2Fdocs%2F{slug}%2F1.0&csrf_token={csrf_token}"),
                &csrf_cookie,
                &[],
            )
            .await
        }
    };
    let forged =
        post_form(&app.router, &format!("/docs/{slug}/_login"), "password=correct%20horse", &csrf_cookie, &[]).await;
    assert_eq!(forged.status, StatusCode::UNAUTHORIZED, "without the token the password form comes back");
    assert!(forged.headers.get_all("set-cookie").iter().all(|c| !c.to_str().unwrap().contains("docs_session")));
    let wrong = login("nope").await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(text(&wrong).contains("Wrong password"));
    let right = login("correct%20horse").await;
    assert_eq!(right.status, StatusCode::SEE_OTHER);
    assert_eq!(right.headers["location"], format!("/docs/{slug}/1.0"));
    let cookie = right.headers["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
    assert!(right.headers["set-cookie"].to_str().unwrap().contains("HttpOnly"));

    let request = axum::http::Request::builder()
        .uri(format!("/docs/{slug}/1.0/op/listPets"))
        .header("cookie", &cookie)
        .body(axum::body::Body::empty())
        .unwrap();
    let opened = TestApp::send(&app.router, request).await;
    assert_eq!(opened.status, StatusCode::OK);
    assert!(text(&opened).contains("<code>/pets</code>"));
    let mock =
        app.mock(Method::GET, &format!("/mock/{slug}/pets"), &[("cookie", &cookie), ("x-api-key", "k")], None).await;
    assert_eq!(mock.status, StatusCode::OK, "the docs session opens the mock: {}", text(&mock));
    let anonymous = app.mock(Method::GET, &format!("/mock/{slug}/pets"), &[], None).await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED, "an opened mock is not cached for others");

    // A new password ends every session.
    app.request(
        Method::PUT,
        &format!("/api/v1/projects/{slug}/docs-password"),
        Some(&token),
        Some(json!({"password": "another one!"}).to_string().into()),
    )
    .await;
    let request = axum::http::Request::builder()
        .uri(format!("/docs/{slug}"))
        .header("cookie", &cookie)
        .body(axum::body::Body::empty())
        .unwrap();
    assert_eq!(TestApp::send(&app.router, request).await.status, StatusCode::UNAUTHORIZED);
    let cleared = app
        .request(
            Method::PUT,
            &format!("/api/v1/projects/{slug}/docs-password"),
            Some(&token),
            Some(json!({"password": null}).to_string().into()),
        )
        .await;
    assert_eq!(cleared.json()["password_protected"], false);
    assert_eq!(page(&app, &format!("/docs/{slug}")).await.0, StatusCode::OK);
}

async fn downgrade_retention(app: TestApp) {
    let (_, token) = app.user("pro@example.com", Plan::Pro).await;
    let slug = public_project(&app, &token, "Kept", HOSTILE).await;
    let header = json!({"header": {"title": "Custom title"}, "remove_watermark": true});
    let saved = app
        .request(
            Method::PUT,
            &format!("/api/v1/projects/{slug}/customization"),
            Some(&token),
            Some(header.to_string().into()),
        )
        .await;
    assert_eq!(saved.status, StatusCode::OK);
    let theme = json!({"light": {"primary": "#123456"}});
    app.request(Method::PUT, &format!("/api/v1/projects/{slug}/theme"), Some(&token), Some(theme.to_string().into()))
        .await;
    let md = json!({"version": "1.0", "endpoint": "GET /pets", "intro": "Intro text"});
    app.request(
        Method::PUT,
        &format!("/api/v1/projects/{slug}/endpoint-docs"),
        Some(&token),
        Some(md.to_string().into()),
    )
    .await;
    let prune = || async {
        let request = axum::http::Request::builder()
            .method(Method::POST)
            .uri("/api/cron/customizations-prune")
            .header("authorization", format!("Bearer {}", test_kit::CRON_SECRET))
            .body(axum::body::Body::empty())
            .unwrap();
        TestApp::send(&app.router, request).await
    };
    let unauthorised = app.request(Method::POST, "/api/cron/customizations-prune", None, None).await;
    assert_eq!(unauthorised.status, StatusCode::UNAUTHORIZED);

    // Down to Free, back within 14 days: everything is restored.
    app.hub.set_plan("pro@example.com", Plan::Free).await.unwrap();
    app.clock.advance_days(13);
    assert_eq!(prune().await.json()["removed"], 0);
    app.hub.set_plan("pro@example.com", Plan::Pro).await.unwrap();
    let (_, html) = page(&app, &format!("/docs/{slug}")).await;
    assert!(html.contains("Custom title") && html.contains("#123456") && !html.contains("Powered by"), "{html}");

    // Down to Free for longer: the customizations are deleted, the theme
    // tokens are kept (and apply again after an upgrade).
    app.hub.set_plan("pro@example.com", Plan::Free).await.unwrap();
    app.clock.advance_millis(14 * 86_400_000 + 1);
    assert_eq!(prune().await.json()["removed"], 2);
    app.hub.set_plan("pro@example.com", Plan::Pro).await.unwrap();
    let (_, html) = page(&app, &format!("/docs/{slug}")).await;
    assert!(!html.contains("Custom title") && html.contains("Powered by"), "{html}");
    assert!(html.contains("#123456"), "theme tokens survive: {html}");
    let listed = app.get(&format!("/api/v1/projects/{slug}/endpoint-docs"), &token).await;
    assert_eq!(listed.json()["items"], json!([]));
}

async fn custom_domains(app: TestApp) {
    let (_, token) = app.user("biz@example.com", Plan::Business).await;
    let slug = public_project(&app, &token, "Domain pets", HOSTILE).await;
    let set = app
        .patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"custom_domain": "Docs.Acme.example"}))
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", text(&set));
    let on_domain = |path: &'static str| {
        let app = &app;
        async move {
            let request = axum::http::Request::builder()
                .uri(path)
                .header("host", "docs.acme.example:443")
                .body(axum::body::Body::empty())
                .unwrap();
            TestApp::send(&app.router, request).await
        }
    };
    assert_eq!(on_domain("/").await.status, StatusCode::NOT_FOUND, "not served before verification");
    app.hub.verify_custom_domain("docs.acme.example").await.unwrap();
    let root = on_domain("/").await;
    assert_eq!(root.status, StatusCode::OK);
    let html = text(&root);
    assert!(html.contains("href=\"/1.0/op/listPets\""), "links are relative to the domain root: {html}");
    let op = on_domain("/1.0/op/listPets").await;
    assert!(op.status == StatusCode::OK && text(&op).contains("<code>/pets</code>"));
    assert_eq!(on_domain("/_docs/docs.css").await.status, StatusCode::OK, "assets keep their paths");
    let spoofed = axum::http::Request::builder()
        .uri(format!("/docs/{slug}"))
        .header("x-svc-custom-domain", "1")
        .body(axum::body::Body::empty())
        .unwrap();
    let spoofed = text(&TestApp::send(&app.router, spoofed).await);
    assert!(
        spoofed.contains(&format!("href=\"/docs/{slug}/1.0/op/listPets\"")),
        "the internal marker cannot be sent by clients"
    );

    // Custom domains are Business: a downgrade stops serving it at once.
    app.hub.set_plan("biz@example.com", Plan::Pro).await.unwrap();
    assert_eq!(on_domain("/").await.status, StatusCode::NOT_FOUND);
    app.hub.set_plan("biz@example.com", Plan::Business).await.unwrap();
    // Changing the domain needs a new verification.
    app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"custom_domain": "api.acme.example"})).await;
    app.hub.verify_custom_domain("docs.acme.example").await.unwrap_err();
    let request = axum::http::Request::builder()
        .uri("/")
        .header("host", "api.acme.example")
        .body(axum::body::Body::empty())
        .unwrap();
    assert_eq!(TestApp::send(&app.router, request).await.status, StatusCode::NOT_FOUND);
}

/// A mock answer large enough that it would be compressed if the mock
/// were behind the compression layer.
const BIG_MOCK: &str = r"
openapi: 3.0.3
info: {title: Big, version: '1.0'}
paths:
  /items:
    get:
      operationId: listItems
      responses:
        '200':
          description: Many items
          content:
            application/json:
              example: {items: [
                {name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa},
                {name: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb},
                {name: cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc},
                {name: dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd},
                {name: eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee},
                {name: ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff},
                {name: gggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg},
                {name: hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh},
                {name: iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii},
                {name: jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj},
                {name: kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk},
                {name: llllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll}]}
";

fn gunzip(bytes: &[u8]) -> String {
    let mut out = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(bytes), &mut out).expect("valid gzip");
    out
}

fn unbrotli(bytes: &[u8]) -> String {
    let mut out = String::new();
    std::io::Read::read_to_string(&mut brotli_decompressor::Decompressor::new(bytes, 4096), &mut out)
        .expect("valid brotli");
    out
}

fn header<'a>(response: &'a test_kit::TestResponse, name: &str) -> Option<&'a str> {
    response.headers.get(name).and_then(|v| v.to_str().ok())
}

/// Docs pages, assets and JSON answers are compressed as the client asks;
/// tiny answers and the hosted mock are not.
async fn answers_are_compressed_except_the_mock(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Free).await;
    let slug = public_project(&app, &token, "Pets", HOSTILE).await;
    let path = format!("/docs/{slug}/1.0/op/listPets");
    let plain = get_with(&app, &path, &[]).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(header(&plain, "content-encoding"), None);
    assert_eq!(header(&plain, "vary"), Some("accept-encoding"), "{:?}", plain.headers);
    let html = text(&plain);

    let gzipped = get_with(&app, &path, &[("accept-encoding", "gzip")]).await;
    assert_eq!(gzipped.status, StatusCode::OK);
    assert_eq!(header(&gzipped, "content-encoding"), Some("gzip"));
    assert_eq!(header(&gzipped, "vary"), Some("accept-encoding"));
    assert!(gzipped.body.len() * 3 < html.len(), "{} of {} bytes", gzipped.body.len(), html.len());
    assert_eq!(gunzip(&gzipped.body), html);
    // The page's security headers survive.
    assert!(header(&gzipped, "content-security-policy").is_some_and(|v| v.contains("default-src 'self'")));

    let brotli = get_with(&app, &path, &[("accept-encoding", "gzip, deflate, br")]).await;
    assert_eq!(header(&brotli, "content-encoding"), Some("br"));
    assert_eq!(unbrotli(&brotli.body), html);
    let refused = get_with(&app, &path, &[("accept-encoding", "gzip;q=0, identity")]).await;
    assert_eq!(header(&refused, "content-encoding"), None);
    assert_eq!(text(&refused), html);

    // Assets, the search index and API answers too.
    for asset in ["/_docs/docs.css", "/_docs/docs.js", "/widget.js", "/api/v1/openapi.json"] {
        let response = get_with(&app, asset, &[("accept-encoding", "gzip")]).await;
        assert_eq!(response.status, StatusCode::OK, "{asset}");
        assert_eq!(header(&response, "content-encoding"), Some("gzip"), "{asset}");
    }
    let listed = app.router.clone();
    let request = axum::http::Request::builder()
        .uri(format!("/api/v1/projects/{slug}/versions"))
        .header("authorization", format!("Bearer {token}"))
        .header("accept-encoding", "gzip")
        .body(axum::body::Body::empty())
        .unwrap();
    let versions = TestApp::send(&listed, request).await;
    assert_eq!(versions.status, StatusCode::OK);
    // A short JSON answer is not worth compressing.
    if versions.body.len() < 1024 {
        assert_eq!(header(&versions, "content-encoding"), None, "{:?}", versions.headers);
    }
    let missing = get_with(&app, "/_docs/nope.js", &[("accept-encoding", "gzip")]).await;
    assert_eq!((missing.status, header(&missing, "content-encoding")), (StatusCode::NOT_FOUND, None));

    // The hosted mock answers as it is, whatever the client accepts.
    let big = public_project(&app, &token, "Big", BIG_MOCK).await;
    let mock = app.mock(Method::GET, &format!("/mock/{big}/items"), &[("accept-encoding", "gzip, br")], None).await;
    assert_eq!(mock.status, StatusCode::OK);
    assert!(mock.body.len() > 1024, "{} bytes", mock.body.len());
    assert_eq!(header(&mock, "content-encoding"), None);
    assert!(!header(&mock, "vary").is_some_and(|v| v.to_ascii_lowercase().contains("accept-encoding")));
    assert!(text(&mock).contains("llllllll"));
    let mock = TestApp::send(
        &app.router,
        axum::http::Request::builder()
            .uri(format!("/mock/{big}/items"))
            .header("accept-encoding", "gzip")
            .body(axum::body::Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!((mock.status, header(&mock, "content-encoding")), (StatusCode::OK, None));
}

on_both_stores!(
    answers_are_compressed_except_the_mock,
    custom_domains,
    downgrade_retention,
    password_protected_docs_and_mock,
    pages_render_escaped_and_sanitised,
    private_projects_are_not_found,
    private_projects_open_to_members,
    tryit_relay_reaches_only_the_documented_api,
    graphql_reference,
    assets_and_widget_are_served_by_the_hub,
    branding_and_customization,
    search_finds_operations_and_schemas,
    quick_search_index_hits_and_download,
    embed_json_feeds_the_widget,
    markdown_for_assistants_beside_every_page,
);

/// `llms.txt` and the `.md` beside operation and schema pages: real
/// content, the page's visibility, plain text never rendered as HTML.
async fn markdown_for_assistants_beside_every_page(app: TestApp) {
    let (_, token) = app.user("llms@example.com", Plan::Free).await;
    let slug = public_project(&app, &token, "Pets", HOSTILE).await;
    let index = app.request(Method::GET, &format!("/docs/{slug}/llms.txt"), None, None).await;
    assert_eq!(index.status, StatusCode::OK);
    assert_eq!(index.headers.get("content-type").unwrap(), "text/markdown; charset=utf-8");
    assert_eq!(index.headers.get("x-content-type-options").unwrap(), "nosniff");
    let text = text(&index);
    assert!(text.starts_with("# Pets"), "{text}");
    let link = format!("](/docs/{slug}/1.0/op/");
    let start = text.find(&link).unwrap_or_else(|| panic!("no operation link in {text}")) + 2;
    let href = text[start..].split(')').next().unwrap().to_owned();
    assert!(href.ends_with(".md"), "{href}");
    assert!(text.contains(&format!("[Pet](/docs/{slug}/1.0/schemas/Pet.md)")), "{text}");
    assert_eq!(text, self::text(&app.request(Method::GET, &format!("/docs/{slug}/1.0/llms.txt"), None, None).await));

    let op = app.request(Method::GET, &href, None, None).await;
    assert_eq!(op.status, StatusCode::OK, "{href}");
    let op = self::text(&op);
    assert!(op.contains("`GET /pets`") && op.contains("| `limit` | query | no | integer |"), "{op}");
    let pet = self::text(&app.request(Method::GET, &format!("/docs/{slug}/1.0/schemas/Pet.md"), None, None).await);
    assert!(pet.starts_with("# Pet") && pet.contains("| `name` | string | yes |"), "{pet}");
    let missing = app.request(Method::GET, &format!("/docs/{slug}/1.0/op/nothing.md"), None, None).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);

    let secret = app.project(&token, "Hidden").await;
    app.push(&secret, &token, "label=1.0", HOSTILE.to_owned()).await;
    let hidden = app.request(Method::GET, &format!("/docs/{secret}/llms.txt"), None, None).await;
    assert_eq!(hidden.status, StatusCode::NOT_FOUND, "as invisible as its pages");
}
