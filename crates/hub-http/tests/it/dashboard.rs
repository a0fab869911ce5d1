//! The dashboard through the real router on both stores, as a browser
//! drives it: cookies kept between requests, CSRF tokens read from the
//! forms, mail read from the files the hub writes without SMTP.

use std::collections::HashMap;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use hub_core::Plan;
use kernel::Secret;
use test_kit::{TestApp, TestResponse, on_both_stores};

use crate::openapi_yaml;

on_both_stores!(
    sign_up_verify_and_sign_in,
    every_dashboard_mutation_writes_its_audit_row_as_the_dashboard,
    viewers_see_no_controls_and_are_refused_and_strangers_get_404,
    forms_without_the_csrf_token_change_nothing,
    sessions_end_with_sign_out_everywhere_and_a_password_change,
    a_reset_link_sets_the_password_once,
    tokens_made_in_the_dashboard_work_on_the_api_until_revoked,
    the_docs_builder_and_the_mock_act_through_the_use_cases,
    the_builder_previews_unsaved_work_and_edits_endpoint_pages_and_overrides_by_field,
    inbox_pages_make_read_and_change_inboxes,
    request_pages_save_run_import_and_keep_secrets_out,
);

pub(crate) const PASSWORD: &str = "violet tractor wanders";

/// A browser: a cookie jar and the last page.
pub(crate) struct Browser<'a> {
    app: &'a TestApp,
    pub(crate) cookies: HashMap<String, String>,
}

impl<'a> Browser<'a> {
    pub(crate) fn new(app: &'a TestApp) -> Self {
        Self { app, cookies: HashMap::new() }
    }

    pub(crate) fn cookie_header(&self) -> String {
        self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
    }

    pub(crate) async fn send(&mut self, request: Request<Body>) -> TestResponse {
        let response = TestApp::send(&self.app.router, request).await;
        for value in response.headers.get_all(header::SET_COOKIE) {
            let text = value.to_str().unwrap();
            let (pair, attributes) = text.split_once(';').unwrap_or((text, ""));
            let (name, value) = pair.split_once('=').unwrap();
            if attributes.contains("Max-Age=0") {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        response
    }

    pub(crate) async fn get(&mut self, path: &str) -> TestResponse {
        let request =
            Request::builder().uri(path).header(header::COOKIE, self.cookie_header()).body(Body::empty()).unwrap();
        self.send(request).await
    }

    pub(crate) async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> TestResponse {
        let body = serde_urlencoded::to_string(fields).unwrap();
        let request = Request::builder()
            .method(Method::POST)
            .uri(path)
            .header(header::COOKIE, self.cookie_header())
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap();
        self.send(request).await
    }

    /// Opens `page` and posts its form to `action` with its CSRF token.
    pub(crate) async fn submit(&mut self, page: &str, action: &str, fields: &[(&str, &str)]) -> TestResponse {
        let form = self.get(page).await;
        assert_eq!(form.status, StatusCode::OK, "{page}: {}", text(&form));
        let token = csrf_of(&text(&form));
        let mut all = fields.to_vec();
        all.push(("csrf_token", &token));
        self.post(action, &all).await
    }

    async fn upload(&mut self, slug: &str, label: &str, spec: &str) -> TestResponse {
        let page = format!("/app/p/{slug}");
        self.multipart(&page, &format!("/app/p/{slug}/versions"), &[("label", label)], "spec", spec).await
    }

    /// Posts a file form as the browser does: the CSRF token of `page` in
    /// the query, `texts` and one file field.
    async fn multipart(
        &mut self,
        page: &str,
        action: &str,
        texts: &[(&str, &str)],
        file_field: &str,
        content: &str,
    ) -> TestResponse {
        let form = self.get(page).await;
        let token = csrf_of(&text(&form));
        let boundary = "----svc-test-boundary";
        let mut body = String::new();
        for (name, value) in texts {
            body.push_str(&format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            ));
        }
        body.push_str(&format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{file_field}\"; filename=\"upload\"\r\nContent-Type: application/octet-stream\r\n\r\n{content}\r\n--{boundary}--\r\n"
        ));
        let request = Request::builder()
            .method(Method::POST)
            .uri(format!("{action}?csrf_token={token}"))
            .header(header::COOKIE, self.cookie_header())
            .header(header::CONTENT_TYPE, format!("multipart/form-data; boundary={boundary}"))
            .body(Body::from(body))
            .unwrap();
        self.send(request).await
    }

    pub(crate) async fn sign_in(&mut self, email: &str, password: &str) -> TestResponse {
        self.submit("/app/signin", "/app/signin", &[("email", email), ("password", password), ("next", "/app")]).await
    }
}

/// The page, with the template engine's escaped slashes read back.
pub(crate) fn text(response: &TestResponse) -> String {
    String::from_utf8_lossy(&response.body).replace("&#x2f;", "/")
}

pub(crate) fn csrf_of(html: &str) -> String {
    let marker = "name=\"csrf_token\" value=\"";
    let start = html.find(marker).unwrap_or_else(|| panic!("no CSRF field in: {html}")) + marker.len();
    html[start..].split('"').next().unwrap().to_owned()
}

pub(crate) fn location(response: &TestResponse) -> &str {
    response.headers.get(header::LOCATION).and_then(|v| v.to_str().ok()).unwrap_or_default()
}

/// Every mail the hub wrote, oldest first (mail leaves off the request
/// path: what was started is waited for).
pub(crate) async fn mails(app: &TestApp) -> Vec<String> {
    app.hub.settle_background().await;
    let dir = app.mail_dir();
    let mut paths: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(entries) => {
            entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "eml")).collect()
        }
        Err(_) => Vec::new(),
    };
    paths.sort();
    paths.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect()
}

/// The token of the first link to `path` in the plain-text part of a mail.
pub(crate) fn link_token(mail: &str, path: &str) -> String {
    let unfolded = mail.replace("=\r\n", "").replace("=\n", "").replace("=3D", "=");
    let start = unfolded.find(&format!("{path}?token=")).unwrap_or_else(|| panic!("no {path} link in: {mail}"));
    let rest = &unfolded[start + path.len() + "?token=".len()..];
    rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect()
}

async fn principal(app: &TestApp, email: &str) -> hub_core::Principal {
    let user = app.hub.user_by_email(email).await.unwrap();
    hub_core::Principal { user_id: user.id, email: user.email, plan: user.plan, token_id: None }
}

/// A user with a password, signed in.
pub(crate) async fn signed_in<'a>(app: &'a TestApp, email: &str, plan: Plan) -> Browser<'a> {
    app.hub.create_user(email, plan, Some(&Secret::new(PASSWORD.to_owned()))).await.unwrap();
    let mut browser = Browser::new(app);
    let response = browser.sign_in(email, PASSWORD).await;
    assert_eq!(response.status, StatusCode::SEE_OTHER, "{}", text(&response));
    browser
}

async fn sign_up_verify_and_sign_in(app: TestApp) {
    let mut browser = Browser::new(&app);
    // Signed out, the dashboard sends people to sign in and back.
    let home = browser.get("/app/tokens").await;
    assert_eq!(home.status, StatusCode::SEE_OTHER);
    assert_eq!(location(&home), "/app/signin?next=%2Fapp%2Ftokens");

    let weak = browser
        .submit("/app/signup", "/app/signup", &[("email", "ada@example.com"), ("password", "password1234")])
        .await;
    assert_eq!(weak.status, StatusCode::UNPROCESSABLE_ENTITY);
    let page = text(&weak);
    assert!(page.contains("less common password"), "{page}");
    assert!(page.contains("aria-invalid=\"true\""), "the field is marked: {page}");
    assert!(!page.contains("password1234"), "the password is never echoed");
    assert!(mails(&app).await.is_empty(), "no mail for a refused sign-up");

    let done =
        browser.submit("/app/signup", "/app/signup", &[("email", "ada@example.com"), ("password", PASSWORD)]).await;
    assert_eq!(done.status, StatusCode::OK, "{}", text(&done));
    assert!(text(&done).contains("Check your mail"));
    let sent = mails(&app).await;
    assert_eq!(sent.len(), 1);
    assert!(sent[0].contains("To: ada@example.com"), "{}", sent[0]);
    assert!(sent[0].contains("text/plain") && sent[0].contains("text/html"));

    // Not verified yet: the password is right but no session opens.
    let early = browser.sign_in("ada@example.com", PASSWORD).await;
    assert_eq!(early.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(text(&early).contains("Verify your address first"));

    // Signing up again with the same address answers the same and tells the owner.
    let mut other = Browser::new(&app);
    let again = other
        .submit("/app/signup", "/app/signup", &[("email", "ada@example.com"), ("password", "another fine passphrase")])
        .await;
    assert_eq!(again.status, StatusCode::OK);
    assert!(text(&again).contains("Check your mail"));

    let token = link_token(&sent[0], "/app/verify");
    let confirm = browser.get(&format!("/app/verify?token={token}")).await;
    assert!(text(&confirm).contains("Verify my address"), "a GET does not use the link up");
    let csrf = csrf_of(&text(&confirm));
    let verified = browser.post("/app/verify", &[("token", &token), ("csrf_token", &csrf)]).await;
    assert_eq!(verified.status, StatusCode::SEE_OTHER);
    assert!(location(&verified).starts_with("/app/signin"));
    let reused = browser.post("/app/verify", &[("token", &token), ("csrf_token", &csrf)]).await;
    assert_eq!(reused.status, StatusCode::BAD_REQUEST, "a link works once");

    let wrong = browser.sign_in("ada@example.com", "not the password at all").await;
    assert_eq!(wrong.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(text(&wrong).contains("not right"));
    let signed = browser.sign_in("ada@example.com", PASSWORD).await;
    assert_eq!(signed.status, StatusCode::SEE_OTHER);
    let session = signed
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("svc_session="))
        .expect("a session cookie");
    assert!(session.contains("HttpOnly") && session.contains("SameSite=Lax"), "{session}");
    let home = browser.get("/app").await;
    assert_eq!(home.status, StatusCode::OK);
    let page = text(&home);
    assert!(page.contains("No projects yet") && page.contains("ada@example.com"), "{page}");
    let csp = home.headers.get(header::CONTENT_SECURITY_POLICY).unwrap().to_str().unwrap();
    assert!(
        csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'") && !csp.contains("unsafe-inline")
    );
    assert_eq!(home.headers.get(header::CACHE_CONTROL).unwrap(), "no-store");

    let out = browser.submit("/app", "/app/signout", &[]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert_eq!(browser.get("/app").await.status, StatusCode::SEE_OTHER, "signed out");
}

/// The audit rows of `email`'s account whose source is the dashboard.
async fn dashboard_actions(app: &TestApp, email: &str) -> Vec<String> {
    app.hub
        .audit_log(email)
        .await
        .unwrap()
        .into_iter()
        .inspect(|event| assert_eq!(event.metadata["source"], "dashboard", "{event:?}"))
        .map(|event| event.action)
        .collect()
}

async fn every_dashboard_mutation_writes_its_audit_row_as_the_dashboard(app: TestApp) {
    let email = "biz@example.com";
    let mut browser = signed_in(&app, email, Plan::Business).await;
    // The sign-in itself is the first row.
    let mut expect: Vec<&str> = vec!["SIGNED_IN"];
    let mut check = |app_actions: Vec<String>, added: &[&'static str]| {
        expect.extend_from_slice(added);
        assert_eq!(app_actions, expect, "after {added:?}");
    };

    let created = browser.submit("/app/new", "/app/new", &[("name", "Audited"), ("slug", "audited")]).await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", text(&created));
    assert_eq!(location(&created), "/app/p/audited");
    check(dashboard_actions(&app, email).await, &["PROJECT_CREATED"]);

    let pushed = browser.upload("audited", "v1", &openapi_yaml("1")).await;
    assert_eq!(pushed.status, StatusCode::SEE_OTHER, "{}", text(&pushed));
    check(dashboard_actions(&app, email).await, &["SPEC_UPLOADED", "VERSION_PROMOTED_DEFAULT"]);
    let flash = browser.get("/app/p/audited").await;
    assert!(text(&flash).contains("Version v1 added: 2 operations."), "{}", text(&flash));
    assert!(browser.upload("audited", "v2", &openapi_yaml("2")).await.status.is_redirection());
    check(dashboard_actions(&app, email).await, &["SPEC_UPLOADED"]);

    let promoted = browser.submit("/app/p/audited", "/app/p/audited/versions/v2/promote", &[]).await;
    assert_eq!(promoted.status, StatusCode::SEE_OTHER);
    check(dashboard_actions(&app, email).await, &["VERSION_PROMOTED_DEFAULT"]);
    browser.submit("/app/p/audited", "/app/p/audited/versions/v1/deactivate", &[]).await;
    check(dashboard_actions(&app, email).await, &["VERSION_DEACTIVATED"]);
    browser.submit("/app/p/audited", "/app/p/audited/versions/v1/activate", &[]).await;
    check(dashboard_actions(&app, email).await, &["VERSION_REACTIVATED"]);

    // Deleting asks first; the question changes nothing.
    let question = browser.submit("/app/p/audited", "/app/p/audited/versions/v1/delete", &[]).await;
    assert_eq!(question.status, StatusCode::OK);
    assert!(text(&question).contains("Delete version v1?"));
    check(dashboard_actions(&app, email).await, &[]);
    let deleted = browser.submit("/app/p/audited", "/app/p/audited/versions/v1/delete", &[("confirm", "yes")]).await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER);
    check(dashboard_actions(&app, email).await, &["VERSION_DELETED"]);

    let settings = browser
        .submit(
            "/app/p/audited/settings",
            "/app/p/audited/settings",
            &[("name", "Audited API"), ("is_public", "on"), ("base_url", ""), ("custom_domain", "")],
        )
        .await;
    assert_eq!(settings.status, StatusCode::SEE_OTHER, "{}", text(&settings));
    check(dashboard_actions(&app, email).await, &["PROJECT_VISIBILITY_CHANGED", "PROJECT_UPDATED"]);

    let rotated = browser.submit("/app/p/audited/settings", "/app/p/audited/upload-token", &[]).await;
    assert_eq!(rotated.status, StatusCode::OK);
    assert!(text(&rotated).contains("svc_"), "the upload token is shown once");
    check(dashboard_actions(&app, email).await, &["UPLOAD_TOKEN_ROTATED"]);

    let token = browser.submit("/app/tokens", "/app/tokens", &[("name", "laptop"), ("expires_in", "30")]).await;
    assert_eq!(token.status, StatusCode::OK);
    check(dashboard_actions(&app, email).await, &["TOKEN_CREATED"]);
    let id = app.hub.list_tokens(email).await.unwrap()[0].id.clone();
    browser.submit("/app/tokens", &format!("/app/tokens/{id}/revoke"), &[]).await;
    check(dashboard_actions(&app, email).await, &["TOKEN_REVOKED"]);

    // The typed confirmation is checked on the server too.
    let mistyped = browser.submit("/app/p/audited/settings", "/app/p/audited/delete", &[("confirm", "audit")]).await;
    assert_eq!(mistyped.status, StatusCode::UNPROCESSABLE_ENTITY);
    check(dashboard_actions(&app, email).await, &[]);
    let gone = browser.submit("/app/p/audited/settings", "/app/p/audited/delete", &[("confirm", "audited")]).await;
    assert_eq!(gone.status, StatusCode::SEE_OTHER);
    check(dashboard_actions(&app, email).await, &["PROJECT_DELETED"]);

    browser.submit("/app/account", "/app/account/plan", &[("plan", "pro")]).await;
    check(dashboard_actions(&app, email).await, &["PLAN_CHANGE_REQUESTED"]);
    let account = browser.get("/app/account").await;
    assert!(text(&account).contains("You asked for the <strong>pro</strong> plan"), "{}", text(&account));
    // The docs assistant's quotas are counted on the plan page (this
    // account is Business: unlimited AI searches, 200,000 tokens a day).
    assert!(text(&account).contains("<td>AI searches this month</td><td>0</td><td>unlimited"), "{}", text(&account));
    assert!(text(&account).contains("<td>Docs chat tokens today</td><td>0</td><td>200000"), "{}", text(&account));
    app.hub.set_plan(email, Plan::Pro).await.unwrap();
    assert!(!text(&browser.get("/app/account").await).contains("You asked for"), "the operator completed it");
}

async fn viewers_see_no_controls_and_are_refused_and_strangers_get_404(app: TestApp) {
    let mut owner = signed_in(&app, "owner@example.com", Plan::Business).await;
    owner.submit("/app/new", "/app/new", &[("name", "Shared"), ("slug", "shared")]).await;
    assert!(owner.upload("shared", "v1", &openapi_yaml("1")).await.status.is_redirection());
    assert!(owner.upload("shared", "v2", &openapi_yaml("2")).await.status.is_redirection());
    // Signed in to the dashboard, a member reads the private docs too.
    let docs = owner.get("/docs/shared").await;
    assert_eq!(docs.status, StatusCode::OK, "{}", text(&docs));
    let owner_page = text(&owner.get("/app/p/shared").await);
    assert!(owner_page.contains("Make default") && owner_page.contains("Push a version"), "{owner_page}");

    let mut viewer = signed_in(&app, "viewer@example.com", Plan::Free).await;
    app.hub.add_collaborator("owner@example.com", "viewer@example.com", hub_core::Role::Viewer).await.unwrap();
    let page = viewer.get("/app/p/shared").await;
    assert_eq!(page.status, StatusCode::OK);
    let html = text(&page);
    for control in ["Make default", "Deactivate", "Push a version", "/delete\""] {
        assert!(!html.contains(control), "a viewer sees {control:?}: {html}");
    }
    let settings = text(&viewer.get("/app/p/shared/settings").await);
    assert!(
        !settings.contains("Save settings") && !settings.contains("Delete project") && !settings.contains("Rotate")
    );

    // Posting the forms anyway: refused by the gate, nothing changes.
    let token = csrf_of(&html);
    for action in
        ["/app/p/shared/versions/v2/promote", "/app/p/shared/versions/v1/delete", "/app/p/shared/upload-token"]
    {
        let refused = viewer.post(action, &[("csrf_token", &token), ("confirm", "yes")]).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{action}: {}", text(&refused));
    }
    let refused = viewer.post("/app/p/shared/delete", &[("csrf_token", &token), ("confirm", "shared")]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(viewer.upload("shared", "v3", &openapi_yaml("3")).await.status, StatusCode::FORBIDDEN);
    let versions = app.hub.version(&principal(&app, "owner@example.com").await, "shared", "v1").await.unwrap();
    assert!(versions.is_default, "v1 is still the default");

    // A stranger: every page and action of the project is 404.
    let mut stranger = signed_in(&app, "stranger@example.com", Plan::Free).await;
    for path in ["/app/p/shared", "/app/p/shared/settings", "/app/p/shared/diff", "/app/p/shared/sdks", "/docs/shared"]
    {
        assert_eq!(stranger.get(path).await.status, StatusCode::NOT_FOUND, "{path}");
    }
    let token = csrf_of(&text(&stranger.get("/app").await));
    let hidden = stranger.post("/app/p/shared/versions/v2/promote", &[("csrf_token", &token)]).await;
    assert_eq!(hidden.status, StatusCode::NOT_FOUND);
    assert_eq!(stranger.upload("shared", "v3", &openapi_yaml("3")).await.status, StatusCode::NOT_FOUND);
}

async fn forms_without_the_csrf_token_change_nothing(app: TestApp) {
    let mut browser = signed_in(&app, "csrf@example.com", Plan::Pro).await;
    let forged = browser.post("/app/new", &[("name", "Forged")]).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert!(text(&forged).contains("This form has expired"));
    let wrong = browser.post("/app/new", &[("name", "Forged"), ("csrf_token", "0123")]).await;
    assert_eq!(wrong.status, StatusCode::FORBIDDEN);
    let principal = principal(&app, "csrf@example.com").await;
    let listed = app.hub.list_projects(&principal, None, kernel::PageRequest::clamped(None, None)).await.unwrap();
    assert_eq!(listed.total, 0, "no project was created");
    // Sign-in needs the token too (login CSRF).
    let mut fresh = Browser::new(&app);
    let login = fresh.post("/app/signin", &[("email", "csrf@example.com"), ("password", PASSWORD)]).await;
    assert_eq!(login.status, StatusCode::FORBIDDEN);
}

async fn sessions_end_with_sign_out_everywhere_and_a_password_change(app: TestApp) {
    let email = "many@example.com";
    let mut laptop = signed_in(&app, email, Plan::Free).await;
    let mut phone = Browser::new(&app);
    assert_eq!(phone.sign_in(email, PASSWORD).await.status, StatusCode::SEE_OTHER);
    let account = text(&laptop.get("/app/account").await);
    assert_eq!(account.matches("/revoke\"").count(), 1, "the other session can be signed out: {account}");
    assert!(account.contains("this browser"));

    // A password change keeps this browser and ends the others.
    let bad = laptop
        .submit(
            "/app/account",
            "/app/account/password",
            &[("current_password", "wrong wrong wrong"), ("new_password", "fresh orange kayak")],
        )
        .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(text(&bad).contains("current password is not right"));
    let changed = laptop
        .submit(
            "/app/account",
            "/app/account/password",
            &[("current_password", PASSWORD), ("new_password", "fresh orange kayak")],
        )
        .await;
    assert_eq!(changed.status, StatusCode::SEE_OTHER, "{}", text(&changed));
    assert_eq!(laptop.get("/app").await.status, StatusCode::OK);
    assert_eq!(phone.get("/app").await.status, StatusCode::SEE_OTHER, "the phone was signed out");

    let mut tablet = Browser::new(&app);
    assert_eq!(tablet.sign_in(email, "fresh orange kayak").await.status, StatusCode::SEE_OTHER);
    let everywhere = laptop.submit("/app/account", "/app/account/signout-everywhere", &[]).await;
    assert_eq!(everywhere.status, StatusCode::SEE_OTHER);
    assert_eq!(laptop.get("/app").await.status, StatusCode::SEE_OTHER);
    assert_eq!(tablet.get("/app").await.status, StatusCode::SEE_OTHER);

    // Sessions expire after the idle period.
    let mut idle = Browser::new(&app);
    assert_eq!(idle.sign_in(email, "fresh orange kayak").await.status, StatusCode::SEE_OTHER);
    app.clock.advance_days(hub_core::sessions::SESSION_IDLE_DAYS + 1);
    assert_eq!(idle.get("/app").await.status, StatusCode::SEE_OTHER, "idle too long");
}

async fn a_reset_link_sets_the_password_once(app: TestApp) {
    let email = "forgot@example.com";
    app.hub.create_user(email, Plan::Free, Some(&Secret::new(PASSWORD.to_owned()))).await.unwrap();
    let mut browser = Browser::new(&app);
    // Unknown addresses get the same answer and no mail.
    let unknown = browser.submit("/app/reset", "/app/reset", &[("email", "nobody@example.com")]).await;
    assert!(text(&unknown).contains("Check your mail"));
    assert!(mails(&app).await.is_empty());
    let asked = browser.submit("/app/reset", "/app/reset", &[("email", email)]).await;
    assert!(text(&asked).contains("Check your mail"));
    let token = link_token(&mails(&app).await[0], "/app/reset/new");
    let page = format!("/app/reset/new?token={token}");
    let weak = browser.submit(&page, "/app/reset/new", &[("token", &token), ("password", "123456789012")]).await;
    assert_eq!(weak.status, StatusCode::UNPROCESSABLE_ENTITY, "a refused password keeps the link");
    let saved = browser.submit(&page, "/app/reset/new", &[("token", &token), ("password", "brand new lantern")]).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", text(&saved));
    assert_eq!(browser.get(&page).await.status, StatusCode::BAD_REQUEST, "used up");
    assert_eq!(browser.sign_in(email, PASSWORD).await.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(browser.sign_in(email, "brand new lantern").await.status, StatusCode::SEE_OTHER);
}

async fn tokens_made_in_the_dashboard_work_on_the_api_until_revoked(app: TestApp) {
    let email = "api@example.com";
    let mut browser = signed_in(&app, email, Plan::Free).await;
    let created = browser.submit("/app/tokens", "/app/tokens", &[("name", "ci"), ("expires_in", "7")]).await;
    assert_eq!(created.status, StatusCode::OK);
    let html = text(&created);
    let marker = "id=\"new-token\">";
    let start = html.find(marker).expect("the plaintext is shown once") + marker.len();
    let token: String = html[start..].chars().take_while(|c| *c != '<').collect();
    assert!(token.starts_with("svc_pat_"), "{token}");
    assert_eq!(app.get("/api/v1/projects", &token).await.status, StatusCode::OK);
    let listed = text(&browser.get("/app/tokens").await);
    assert!(!listed.contains(&token), "the list never shows the plaintext again");
    assert!(listed.contains("ci"));
    let id = app.hub.list_tokens(email).await.unwrap()[0].id.clone();
    browser.submit("/app/tokens", &format!("/app/tokens/{id}/revoke"), &[]).await;
    let refused = app.get("/api/v1/projects", &token).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    assert_eq!(refused.error_code(), "INVALID_TOKEN");
}

async fn the_docs_builder_and_the_mock_act_through_the_use_cases(app: TestApp) {
    let email = "builder@example.com";
    let mut browser = signed_in(&app, email, Plan::Business).await;
    browser.submit("/app/new", "/app/new", &[("name", "Built"), ("slug", "built"), ("is_public", "on")]).await;
    assert!(browser.upload("built", "v1", &openapi_yaml("1")).await.status.is_redirection());
    let before = app.hub.audit_log(email).await.unwrap().len();

    // Docs builder: a bad colour is shown beside its field; good values are saved.
    let page = "/app/p/built/docs";
    let bad = browser.submit(page, "/app/p/built/docs/branding", &[("accent_color", "purple")]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(text(&bad).contains("id=\"e-accent_color\""), "{}", text(&bad));
    let saved =
        browser.submit(page, "/app/p/built/docs/branding", &[("accent_color", "#ff5500"), ("logo_url", "")]).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", text(&saved));
    let branding = app.hub.branding(&principal(&app, email).await, "built").await.unwrap();
    assert_eq!(branding.accent_color.as_deref(), Some("#ff5500"));
    let theme = browser
        .submit(page, "/app/p/built/docs/theme", &[("light_primary", "#112233"), ("radius", "6"), ("lock", "dark")])
        .await;
    assert_eq!(theme.status, StatusCode::SEE_OTHER, "{}", text(&theme));
    let header = browser
        .submit(page, "/app/p/built/docs/header", &[("header_title", "Built API"), ("header_search", "on")])
        .await;
    assert_eq!(header.status, StatusCode::SEE_OTHER, "{}", text(&header));
    let docs = text(&browser.get("/docs/built").await);
    assert!(docs.contains("Built API"), "the docs show the saved header");
    let locked = browser.submit(page, "/app/p/built/docs/password", &[("docs_password", "open sesame please")]).await;
    assert_eq!(locked.status, StatusCode::SEE_OTHER);
    assert_eq!(
        Browser::new(&app).get("/docs/built").await.status,
        StatusCode::UNAUTHORIZED,
        "a stranger meets the password"
    );
    let shown = text(&browser.get(page).await);
    assert!(shown.contains("<iframe id=\"docs-preview\" src=\"/docs/built\""), "the preview is the real page");
    let opened = browser.submit(page, "/app/p/built/docs/password", &[("clear_password", "on")]).await;
    assert_eq!(opened.status, StatusCode::SEE_OTHER);
    assert_eq!(Browser::new(&app).get("/docs/built").await.status, StatusCode::OK, "open again");

    // Mock: settings, an override's life, the export and the log.
    let mock = "/app/p/built/mock";
    let bad = browser
        .submit(
            mock,
            "/app/p/built/mock/settings",
            &[("latency_min", "0"), ("latency_max", "99999"), ("chaos_rate", "0"), ("chaos_status", "0")],
        )
        .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(text(&bad).contains("30000"), "{}", text(&bad));
    let ok = browser
        .submit(
            mock,
            "/app/p/built/mock/settings",
            &[
                ("validate", "on"),
                ("latency_min", "0"),
                ("latency_max", "0"),
                ("chaos_rate", "0"),
                ("chaos_status", "0"),
            ],
        )
        .await;
    assert_eq!(ok.status, StatusCode::SEE_OTHER, "{}", text(&ok));
    assert!(app.hub.get_mock_settings(&principal(&app, email).await, "built").await.unwrap().validate_requests);

    let new = "/app/p/built/mock/overrides/new";
    let broken = browser.submit(new, "/app/p/built/mock/overrides", &[("mode", "json"), ("json", "{not json")]).await;
    assert_eq!(broken.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(text(&broken).contains("not valid JSON"));
    let json =
        r#"{"name":"Gone","matcher":{"method":"GET","path":"/pets"},"response":{"status":410,"body":{"gone":true}}}"#;
    let created = browser.submit(new, "/app/p/built/mock/overrides", &[("mode", "json"), ("json", json)]).await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", text(&created));
    let answered = app.mock(axum::http::Method::GET, "/mock/built/pets", &[], None).await;
    assert_eq!(answered.status.as_u16(), 410, "the override answers");
    let id = app.hub.list_mock_overrides(&principal(&app, email).await, "built").await.unwrap()[0].id.clone();
    browser.submit(mock, &format!("/app/p/built/mock/overrides/{id}/disable"), &[]).await;
    assert_eq!(
        app.mock(axum::http::Method::GET, "/mock/built/pets", &[], None).await.status,
        StatusCode::OK,
        "turned off"
    );
    browser.submit(mock, &format!("/app/p/built/mock/overrides/{id}/duplicate"), &[]).await;
    assert_eq!(app.hub.list_mock_overrides(&principal(&app, email).await, "built").await.unwrap().len(), 2);
    let export = browser.get("/app/p/built/mock/export").await;
    assert_eq!(export.status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&export.body).contains("Gone"));
    browser.submit(mock, &format!("/app/p/built/mock/overrides/{id}/delete"), &[("confirm", "yes")]).await;
    assert_eq!(app.hub.list_mock_overrides(&principal(&app, email).await, "built").await.unwrap().len(), 1);

    // Every change above is audited as the dashboard's.
    let actions: Vec<String> = app
        .hub
        .audit_log(email)
        .await
        .unwrap()
        .into_iter()
        .skip(before)
        .map(|e| {
            assert_eq!(e.metadata["source"], "dashboard");
            e.action
        })
        .collect();
    for code in [
        "BRANDING_UPDATED",
        "THEME_UPDATED",
        "CUSTOMIZATION_UPDATED",
        "PROJECT_UPDATED",
        "MOCK_SETTINGS_UPDATED",
        "MOCK_OVERRIDE_CREATED",
        "MOCK_OVERRIDE_UPDATED",
        "MOCK_OVERRIDE_DELETED",
    ] {
        assert!(actions.iter().any(|a| a == code), "{code} missing from {actions:?}");
    }
}

/// Posts `fields` to `action` with the CSRF token of `page`, as the
/// builder's script does (no navigation).
async fn post_from(browser: &mut Browser<'_>, page: &str, action: &str, fields: &[(&str, &str)]) -> TestResponse {
    browser.submit(page, action, fields).await
}

async fn the_builder_previews_unsaved_work_and_edits_endpoint_pages_and_overrides_by_field(app: TestApp) {
    let email = "previews@example.com";
    let mut browser = signed_in(&app, email, Plan::Business).await;
    browser.submit("/app/new", "/app/new", &[("name", "Shown"), ("slug", "shown"), ("is_public", "on")]).await;
    assert!(browser.upload("shown", "v1", &openapi_yaml("1")).await.status.is_redirection());
    let me = principal(&app, email).await;

    // Unsaved theme tokens come back as the docs' stylesheet, and stay unsaved.
    let page = "/app/p/shown/docs";
    let preview = "/app/p/shown/docs/theme/preview";
    let css = post_from(
        &mut browser,
        page,
        preview,
        &[("light_primary", "#123456"), ("dark_background", "#000000"), ("lock", "dark")],
    )
    .await;
    assert_eq!(css.status, StatusCode::OK, "{}", text(&css));
    let body: serde_json::Value = serde_json::from_slice(&css.body).unwrap();
    assert!(body["css"].as_str().unwrap().contains("--primary:#123456"), "{body}");
    assert!(body["css"].as_str().unwrap().contains("--bg:#000000"), "{body}");
    assert_eq!(body["lock"], "dark");
    assert!(app.hub.theme(&me, "shown").await.unwrap().is_none(), "a preview saves nothing");
    let bad = post_from(&mut browser, page, preview, &[("light_primary", "blue")]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    let body: serde_json::Value = serde_json::from_slice(&bad.body).unwrap();
    assert_eq!(body["field"], "light_primary", "{body}");
    let forged = browser.post(preview, &[("light_primary", "#123456")]).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "no CSRF token, no preview");

    // Endpoint pages: the version's endpoints, an editor, a sandboxed preview, the save.
    let list = text(&browser.get("/app/p/shown/docs/endpoints").await);
    assert!(list.contains("GET /pets/{id}") && list.contains("GET /pets<"), "{list}");
    let filtered = text(&browser.get("/app/p/shown/docs/endpoints?version=v1&q=%7Bid%7D").await);
    assert!(filtered.contains("GET /pets/{id}") && !filtered.contains("GET /pets<"), "{filtered}");
    assert_eq!(browser.get("/app/p/shown/docs/endpoints?version=nope").await.status, StatusCode::NOT_FOUND);
    let editor = "/app/p/shown/docs/endpoints/edit?version=v1&endpoint=GET%20%2Fpets";
    assert_eq!(browser.get(editor).await.status, StatusCode::OK);
    assert_eq!(
        browser.get("/app/p/shown/docs/endpoints/edit?version=v1&endpoint=DELETE%20%2Fnothing").await.status,
        StatusCode::NOT_FOUND
    );
    let intro = "## Paging\n\nAsk for *fifty* at a time.<script>alert(1)</script>";
    let shown =
        post_from(&mut browser, editor, "/app/p/shown/docs/endpoints/preview", &[("intro", intro), ("extras", "")])
            .await;
    assert_eq!(shown.status, StatusCode::OK);
    let csp = shown.headers.get(header::CONTENT_SECURITY_POLICY).unwrap().to_str().unwrap();
    assert!(csp.starts_with("sandbox;") && csp.contains("frame-ancestors 'self'"), "{csp}");
    let html = text(&shown);
    assert!(html.contains("<em>fifty</em>") && html.contains("Paging"), "{html}");
    assert!(!html.contains("<script"), "sanitised: {html}");
    assert!(html.contains("Nothing here yet."), "the empty part says so");
    let saved = post_from(
        &mut browser,
        editor,
        "/app/p/shown/docs/endpoints",
        &[("version", "v1"), ("endpoint", "GET /pets"), ("intro", intro), ("extras", "See also the **export**.")],
    )
    .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", text(&saved));
    let stored = app.hub.list_endpoint_markdown(&me, "shown", Some("v1")).await.unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].endpoint, "GET /pets");
    assert!(text(&browser.get(editor).await).contains("Ask for *fifty* at a time."), "the editor shows what is saved");
    let docs = text(&browser.get("/docs/shown/v1/op/listPets").await);
    assert!(docs.contains("<em>fifty</em>") && docs.contains("<strong>export</strong>"), "{docs}");
    assert!(text(&browser.get("/app/p/shown/docs/endpoints").await).contains("written"));
    let removed = post_from(
        &mut browser,
        editor,
        "/app/p/shown/docs/endpoints",
        &[("version", "v1"), ("endpoint", "GET /pets"), ("intro", " "), ("extras", "")],
    )
    .await;
    assert_eq!(removed.status, StatusCode::SEE_OTHER);
    assert!(app.hub.list_endpoint_markdown(&me, "shown", Some("v1")).await.unwrap().is_empty(), "emptied: removed");

    // Overrides by field: created, answering, shown again in its fields.
    let new = "/app/p/shown/mock/overrides/new";
    let fields = |headers: &'static str| {
        vec![
            ("mode", "fields"),
            ("name", "Slow and gone"),
            ("enabled", "on"),
            ("priority", "1"),
            ("method", "GET"),
            ("path", "/pets/{id}"),
            ("query", ""),
            ("match_headers", ""),
            ("match_body", ""),
            ("operation_name", ""),
            ("status", "410"),
            ("response_headers", headers),
            ("response_body", "{\"gone\": \"{{request.path.id}}\"}"),
            ("latency_ms", "0"),
        ]
    };
    let unreadable = browser.submit(new, "/app/p/shown/mock/overrides", &fields("Retry-After 5")).await;
    assert_eq!(unreadable.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(text(&unreadable).contains("id=\"e-response_headers\""), "{}", text(&unreadable));
    let refused = browser.submit(new, "/app/p/shown/mock/overrides", &fields("Set-Cookie: a=b")).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    let refused = text(&refused);
    assert!(refused.contains("id=\"e-response_headers\"") && refused.contains("Set-Cookie"), "{refused}");
    let created = browser.submit(new, "/app/p/shown/mock/overrides", &fields("Retry-After: 5")).await;
    assert_eq!(created.status, StatusCode::SEE_OTHER, "{}", text(&created));
    let answered = app.mock(axum::http::Method::GET, "/mock/shown/pets/7", &[], None).await;
    assert_eq!(answered.status.as_u16(), 410);
    assert_eq!(answered.headers.get("retry-after").unwrap(), "5");
    assert_eq!(answered.json(), serde_json::json!({ "gone": "7" }));
    let id = app.hub.list_mock_overrides(&me, "shown").await.unwrap()[0].id.clone();
    let edit = text(&browser.get(&format!("/app/p/shown/mock/overrides/{id}")).await);
    assert!(edit.contains("value=\"Slow and gone\"") && edit.contains("Retry-After: 5"), "{edit}");
    assert!(edit.contains("<option value=\"GET\" selected>"), "{edit}");

    // A bundle imported from a file, merged then replacing; an empty file
    // and an empty spec upload are refused with a sentence.
    let mock = "/app/p/shown/mock";
    let bundle = text(&browser.get("/app/p/shown/mock/export").await);
    let merged = browser.multipart(mock, "/app/p/shown/mock/import", &[("mode", "merge")], "bundle", &bundle).await;
    assert_eq!(merged.status, StatusCode::SEE_OTHER);
    assert_eq!(app.hub.list_mock_overrides(&me, "shown").await.unwrap().len(), 2, "merged beside the original");
    let replaced = browser.multipart(mock, "/app/p/shown/mock/import", &[("mode", "replace")], "bundle", &bundle).await;
    assert_eq!(replaced.status, StatusCode::SEE_OTHER);
    assert_eq!(app.hub.list_mock_overrides(&me, "shown").await.unwrap().len(), 1, "replaced");
    let flash = text(&browser.get(mock).await);
    assert!(flash.contains("Imported 1 overrides"), "{flash}");
    let empty = browser.multipart(mock, "/app/p/shown/mock/import", &[("mode", "merge")], "bundle", "").await;
    assert_eq!(empty.status, StatusCode::SEE_OTHER);
    assert!(text(&browser.get(mock).await).contains("Choose a bundle file"));
    let no_spec = browser.multipart("/app/p/shown", "/app/p/shown/versions", &[("label", "v2")], "spec", "").await;
    assert_eq!(no_spec.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(text(&no_spec).contains("Choose a spec file to upload."));

    // The MCP token: minted on the settings page, shown once, audited.
    let settings = "/app/p/shown/settings";
    let minted = text(&browser.submit(settings, "/app/p/shown/mcp-token", &[]).await);
    let start =
        minted.find("<code id=\"mcp-token\">").expect("the new token is shown") + "<code id=\"mcp-token\">".len();
    let token = minted[start..].split('<').next().unwrap().to_owned();
    assert!(token.starts_with("svc_mcp_"), "{token}");
    assert!(!text(&browser.get(settings).await).contains(&token), "shown once");
    let audit = app.hub.audit_log(email).await.unwrap();
    assert!(audit.iter().any(|e| e.action == "MCP_TOKEN_ROTATED" && e.metadata["source"] == "dashboard"));
}

/// The inbox pages act through the same use cases as the API: make an
/// inbox with a scheme, see a capture (its pretty body, headers, the
/// verified badge), search, pause and resume, replay, clear, change the
/// settings with errors beside their fields, delete by typing the name;
/// the live view's stream says when a capture arrives; the verifier page
/// has no field that could post the secret.
async fn inbox_pages_make_read_and_change_inboxes(app: TestApp) {
    let email = "inboxes@example.com";
    let mut browser = signed_in(&app, email, Plan::Business).await;
    let made = browser
        .submit(
            "/app/inboxes",
            "/app/inboxes",
            &[("name", "Payments"), ("scheme", "github"), ("secret", "gh-secret"), ("username", ""), ("allow_ips", "")],
        )
        .await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", text(&made));
    let page = location(&made).to_owned();
    assert!(page.starts_with("/app/inboxes/ibx_"), "{page}");
    let id = page.trim_start_matches("/app/inboxes/").to_owned();
    let list = text(&browser.get("/app/inboxes").await);
    assert!(
        list.contains("Payments") && list.contains(&format!("/i/{id}")) && list.contains("GitHub (SHA-256)"),
        "{list}"
    );
    assert!(!list.contains("gh-secret"), "the secret is never shown");

    let body = r#"{"action":"opened","number":7}"#;
    let signed = webhook_signatures::Scheme::Github.sign(
        "gh-secret",
        body.as_bytes(),
        webhook_signatures::Signing { timestamp_secs: 0, message_id: "" },
    );
    let pairs: Vec<(&str, &str)> = signed.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    assert_eq!(app.mock(Method::POST, &format!("/i/{id}/hooks"), &pairs, Some(body)).await.status, StatusCode::OK);
    let inbox = text(&browser.get(&page).await);
    assert!(inbox.contains("/hooks") && inbox.contains("signature verified"), "{inbox}");
    assert!(inbox.contains("&quot;number&quot;: 7"), "the body is shown pretty: {inbox}");
    assert!(inbox.contains("x-hub-signature-256"), "{inbox}");
    assert!(inbox.contains(&format!("data-live=\"/app/inboxes/{id}/live\"")), "{inbox}");
    let missed = text(&browser.get(&format!("{page}?q=closed")).await);
    assert!(missed.contains("No captures match"), "{missed}");

    let paused = browser.submit(&page, &format!("{page}/pause"), &[]).await;
    assert_eq!(paused.status, StatusCode::SEE_OTHER);
    assert!(text(&browser.get(&page).await).contains("senders get 503"));
    assert_eq!(
        app.mock(Method::POST, &format!("/i/{id}"), &pairs, Some(body)).await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    browser.submit(&page, &format!("{page}/resume"), &[]).await;

    // A settings error shows beside its field; a good change is saved.
    let bad = browser
        .submit(
            &format!("{page}/settings"),
            &format!("{page}/settings"),
            &[("name", "Payments"), ("scheme", "custom"), ("secret", "x"), ("header", ""), ("allow_ips", "")],
        )
        .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(text(&bad).contains("id=\"e-header\""), "{}", text(&bad));
    let good = browser
        .submit(
            &format!("{page}/settings"),
            &format!("{page}/settings"),
            &[("name", "Payments v2"), ("scheme", "github"), ("secret", ""), ("allow_ips", "203.0.113.0/24")],
        )
        .await;
    assert_eq!(good.status, StatusCode::SEE_OTHER, "{}", text(&good));
    let me = principal(&app, email).await;
    let stored = app.hub.inbox(&me, &id).await.unwrap();
    assert_eq!(stored.name, "Payments v2");
    assert_eq!(stored.allow_ips, ["203.0.113.0/24"]);
    assert!(stored.verification.is_some(), "an empty secret kept the stored one");

    // Linked to a project whose description has webhooks: each capture
    // names its webhook and its field errors, and becomes an override of
    // that project's mock with one form.
    assert!(
        browser.submit("/app/new", "/app/new", &[("name", "Hooks"), ("slug", "hooks")]).await.status.is_redirection()
    );
    let described = r#"{"openapi": "3.1.0", "info": {"title": "Hooks", "version": "1"}, "paths": {},
      "webhooks": {"issues-opened": {"post": {"summary": "An issue was opened", "requestBody": {"content": {"application/json":
        {"schema": {"type": "object", "required": ["action", "issue"], "properties": {"action": {"const": "opened"},
          "issue": {"type": "object"}}}}}}, "responses": {"200": {"description": "ok"}}}}}}"#;
    assert!(browser.upload("hooks", "v1", described).await.status.is_redirection());
    let settings = text(&browser.get(&format!("{page}/settings")).await);
    assert!(settings.contains("<option value=\"hooks\">hooks</option>"), "{settings}");
    let linked = browser
        .submit(
            &format!("{page}/settings"),
            &format!("{page}/settings"),
            &[("name", "Payments v2"), ("project", "hooks"), ("scheme", "github"), ("allow_ips", "")],
        )
        .await;
    assert_eq!(linked.status, StatusCode::SEE_OTHER, "{}", text(&linked));
    let mut headers = pairs.clone();
    headers.push(("X-GitHub-Event", "issues"));
    assert_eq!(app.mock(Method::POST, &format!("/i/{id}/hooks"), &headers, Some(body)).await.status, StatusCode::OK);
    let inbox = text(&browser.get(&page).await);
    assert!(inbox.contains("Webhook <code>issues-opened</code>"), "{inbox}");
    assert!(inbox.contains("<code>body</code>") && inbox.contains("issue"), "the missing field is named: {inbox}");
    let newest = app.hub.inbox_captures(&me, &id, 1, None, None).await.unwrap().remove(0);
    let made = browser
        .submit(
            &page,
            &format!("{page}/override"),
            &[("capture", newest.id.as_str()), ("method", "POST"), ("path", "/events"), ("status", "202")],
        )
        .await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", text(&made));
    assert!(location(&made).starts_with("/app/p/hooks/mock/overrides/"), "{}", location(&made));
    let rules = app.hub.list_mock_overrides(&me, "hooks").await.unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!((rules[0].spec.matcher.path.as_str(), rules[0].spec.response.status), ("/events", 202));
    assert_eq!(rules[0].spec.response.body, Some(serde_json::from_str(body).unwrap()));
    let kept = browser.submit(&page, &format!("{page}/request"), &[("capture", newest.id.as_str())]).await;
    assert_eq!(kept.status, StatusCode::SEE_OTHER, "{}", text(&kept));
    assert!(location(&kept).starts_with("/app/p/hooks/requests/req_"), "{}", location(&kept));
    let saved = text(&browser.get(location(&kept)).await);
    assert!(saved.contains("{{receiver}}/hooks") && saved.contains("Inbox captures"), "{saved}");
    let forgot = browser.submit(&page, &format!("{page}/forget"), &[("capture", newest.id.as_str())]).await;
    assert_eq!(forgot.status, StatusCode::SEE_OTHER);
    assert!(app.hub.inbox_capture(&me, &id, &newest.id).await.is_err(), "one capture deleted");

    let cleared = browser.submit(&page, &format!("{page}/clear"), &[]).await;
    assert_eq!(cleared.status, StatusCode::SEE_OTHER);
    assert!(app.hub.inbox_captures(&me, &id, 10, None, None).await.unwrap().is_empty());

    // The verifier: the fields have no names, so no submission carries them.
    let verifier = text(&browser.get("/app/inboxes/verify").await);
    assert!(verifier.contains("id=\"v-secret\"") && !verifier.contains("name=\"secret\""), "{verifier}");
    assert!(verifier.contains("/verify.js?v="), "{verifier}");

    // Deleting needs the name typed.
    let wrong = browser.submit(&format!("{page}/settings"), &format!("{page}/delete"), &[("confirm", "nope")]).await;
    assert_eq!(wrong.status, StatusCode::SEE_OTHER);
    assert!(app.hub.inbox(&me, &id).await.is_ok());
    let gone =
        browser.submit(&format!("{page}/settings"), &format!("{page}/delete"), &[("confirm", "Payments v2")]).await;
    assert_eq!(location(&gone), "/app/inboxes");
    assert!(app.hub.inbox(&me, &id).await.is_err());
    let actions = dashboard_actions(&app, email).await;
    for code in ["INBOX_CREATED", "INBOX_UPDATED", "INBOX_CLEARED", "INBOX_DELETED"] {
        assert!(actions.iter().any(|a| a == code), "{code} missing from {actions:?}");
    }
}

async fn request_pages_save_run_import_and_keep_secrets_out(app: TestApp) {
    let secret = "tok_dashboard_Secret_9f1";
    let (base, seen) = crate::workbench::local_api().await;
    let mut browser = signed_in(&app, "workbench@example.com", Plan::Pro).await;
    assert!(
        browser.submit("/app/new", "/app/new", &[("name", "Shop"), ("slug", "shop")]).await.status.is_redirection()
    );
    assert!(browser.upload("shop", "v1", &crate::workbench::described(&base)).await.status.is_redirection());
    let empty = text(&browser.get("/app/p/shop/requests").await);
    assert!(empty.contains("No saved requests yet") && empty.contains("aria-current=\"page\">Requests"), "{empty}");

    // An environment with a secret, then a request that uses both.
    let made = browser
        .submit(
            "/app/p/shop/environments",
            "/app/p/shop/environments",
            &[
                ("name", "Local"),
                ("variables", "pet=Rex"),
                ("new_secrets", &format!("token={secret}")),
                ("is_default", "on"),
            ],
        )
        .await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", text(&made));
    let env_page = location(&made).to_owned();
    let shown = text(&browser.get(&env_page).await);
    assert!(shown.contains("New value for <span class=\"mono\">token</span>") && !shown.contains(secret), "{shown}");
    // The new-request form takes what a link brings (the docs' Try-It, a capture).
    let prefilled = text(&browser.get("/app/p/shop/requests/new?method=POST&url=%2Fpets&name=From+the+docs").await);
    assert!(
        prefilled.contains("value=\"/pets\"") && prefilled.contains("<option value=\"POST\" selected>"),
        "{prefilled}"
    );
    let saved = browser
        .submit(
            "/app/p/shop/requests/new",
            "/app/p/shop/requests",
            &[
                ("name", "Create a pet"),
                ("folder", "Pets"),
                ("method", "POST"),
                ("url", "/pets"),
                ("query", "verbose=1"),
                ("headers", "Authorization: Bearer {{token}}\nContent-Type: application/json"),
                ("body", "{\"name\": \"{{pet}}\"}"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", text(&saved));
    let page = location(&saved).to_owned();
    let bad =
        browser.submit(&page, &format!("{page}/save"), &[("name", "x"), ("method", "GET"), ("url", "pets")]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(text(&bad).contains("id=\"e-url\""), "{}", text(&bad));

    // Run: the API sees the values, the page shows the answer without the secret.
    let ran = browser.submit(&page, &format!("{page}/run"), &[("environment", "")]).await;
    assert_eq!(ran.status, StatusCode::OK, "{}", text(&ran));
    let got = seen.lock().unwrap().pop().unwrap();
    assert_eq!(got["headers"]["authorization"], format!("Bearer {secret}"));
    assert_eq!(got["body"], "{\"name\": \"Rex\"}");
    let result = text(&ran);
    assert!(result.contains("<span class=\"badge ok\">200</span>") && result.contains("with Local"), "{result}");
    assert!(result.contains("Bearer ********") && !result.contains(secret), "{result}");
    assert!(result.contains("data-hotkey-run"), "the run form answers Ctrl+Enter");
    assert!(
        result.contains("&quot;${TOKEN}&quot;") || result.contains("\"${TOKEN}\""),
        "curl names the secret as a variable: {result}"
    );

    // Export, and the same collection imported back under a new folder name.
    let exported = browser.get("/app/p/shop/requests/export.json").await;
    let collection = text(&exported);
    assert!(collection.contains("\"Create a pet\"") && !collection.contains(secret), "{collection}");
    let renamed = collection.replace("\"Pets\"", "\"Imported\"");
    let imported =
        browser.multipart("/app/p/shop/requests", "/app/p/shop/requests/import", &[], "collection", &renamed).await;
    assert_eq!(imported.status, StatusCode::SEE_OTHER, "{}", text(&imported));
    let list = text(&browser.get("/app/p/shop/requests").await);
    assert!(list.contains("Imported 1 request."), "{list}");
    assert!(list.contains(">Imported<") && list.contains(">Pets<"), "both folders are listed: {list}");

    // The environment's export leaves the value out unless asked.
    let hidden = browser.submit(&env_page, &format!("{env_page}/export"), &[]).await;
    assert!(text(&hidden).contains("\"type\": \"secret\"") && !text(&hidden).contains(secret));
    let with = browser.submit(&env_page, &format!("{env_page}/export"), &[("secrets", "on")]).await;
    assert!(text(&with).contains(secret), "asked for explicitly");
}
