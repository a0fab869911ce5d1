//! Sign-up, reset and resend take as long for an address with an account as
//! for one without, so their timing tells an attacker nothing.
//!
//! The one test of the hub whose assertion is a time: it lives alone in its
//! binary, and runs its stores one after the other, so no other test shares
//! the CPU while it measures. It prints both medians of each form. The
//! default bound catches work that depends on the address (several times
//! slower); `SVC_TEST_LONG=1` tightens it to 10 %.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    reason = "a test fails loudly on an unexpected shape; that is its job"
)]

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use hub_core::Plan;
use hub_core::sessions::{AccountsConfig, SignupMode};
use kernel::Secret;
use test_kit::{TestApp, TestResponse};

const PASSWORD: &str = "violet tractor wanders";
/// Requests of each kind measured per address (at least the 50 the issue
/// asks for), after two to warm up.
const ROUNDS: usize = 80;

fn csrf_of(html: &str) -> String {
    let marker = "name=\"csrf_token\" value=\"";
    let start = html.find(marker).unwrap_or_else(|| panic!("no CSRF field in: {html}")) + marker.len();
    html[start..].split('"').next().unwrap().to_owned()
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
    let csrf = csrf_of(&String::from_utf8_lossy(&form.body));
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

/// A form to time: its name, the page that holds it, where it posts, the
/// fields for an address with an account and for one without.
type Case<'a> = (&'a str, &'a str, &'a str, Vec<(&'a str, &'a str)>, Vec<(&'a str, &'a str)>);

/// Whether the long sweeps were asked for (`SVC_TEST_LONG=1`).
fn long_run() -> bool {
    std::env::var("SVC_TEST_LONG")
        .is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

async fn answers_take_as_long_for_every_address(app: TestApp) {
    let known = "known@example.com";
    let unverified = "pending@example.com";
    app.hub.create_user(known, Plan::Free, Some(&Secret::new(PASSWORD.to_owned()))).await.unwrap();
    let mailer = platform::mail::Mailer::from_config(None, "noreply@localhost", app.mail_dir().parent().unwrap())
        .expect("a mailer");
    let accounts =
        |signup| AccountsConfig { signup, public_url: "http://127.0.0.1".to_owned(), mailer: mailer.clone() };
    let open = app.router_for(app.hub.clone().with_accounts(accounts(SignupMode::Open)));
    let (made, _) =
        timed_post(&open, "/app/signup", "/app/signup", &[("email", unverified), ("password", PASSWORD)]).await;
    assert_eq!(made.status, StatusCode::OK);
    app.hub.settle_background().await;
    // Invite mode, where the pages used to differ most.
    let invite = app.router_for(app.hub.clone().with_accounts(accounts(SignupMode::Invite)));

    let stranger = [("email", "stranger@example.com")];
    let cases: [Case<'_>; 3] = [
        (
            "sign-up",
            "/app/signup",
            "/app/signup",
            vec![("email", known), ("password", "a sign up attempt")],
            vec![("email", "stranger@example.com"), ("password", "a sign up attempt")],
        ),
        ("reset", "/app/reset", "/app/reset", vec![("email", known)], stranger.to_vec()),
        ("resend", "/app/signin", "/app/verify/resend", vec![("email", unverified)], stranger.to_vec()),
    ];
    for (name, page, action, with_account, without_account) in cases {
        let (mut with, mut without) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS + 2 {
            // Alternate which goes first, so a drift of the machine's speed
            // weighs on both alike; what happens after an answer is waited
            // for between requests, so only the request path is timed.
            let first_known = round % 2 == 0;
            let mut pair = [(Duration::ZERO, StatusCode::OK); 2];
            for known_turn in [first_known, !first_known] {
                let fields = if known_turn { &with_account } else { &without_account };
                let (response, took) = timed_post(&invite, page, action, fields).await;
                app.hub.settle_background().await;
                pair[usize::from(!known_turn)] = (took, response.status);
            }
            assert_eq!((pair[0].1, pair[1].1), (StatusCode::OK, StatusCode::OK), "{name}");
            if round >= 2 {
                with.push(pair[0].0);
                without.push(pair[1].0);
            }
        }
        // Each round's two requests ran next to each other: their ratio
        // cancels whatever else the machine did meanwhile (another process,
        // the database's own work), which the two medians alone do not.
        let mut ratios: Vec<f64> =
            with.iter().zip(&without).map(|(a, b)| a.as_secs_f64() / b.as_secs_f64().max(1e-9)).collect();
        ratios.sort_by(f64::total_cmp);
        let ratio = ratios[ratios.len() / 2];
        let (a, b) = (median(with), median(without));
        println!(
            "{name} ({}): median {a:?} for an address with an account, {b:?} without; median ratio of each round {ratio:.3}",
            app.backend
        );
        // Address-dependent work on the request path shows as a ratio of
        // several times (the leaks this guards against measured 10x and
        // 18x), so the default run fails past 1.5x, which a busy machine's
        // noise does not reach (a shared CI host has shown 1.16 on equal
        // work). `SVC_TEST_LONG=1` asks for the fine bound of 10 % on a
        // quiet machine. Either way, where the whole answer takes well under
        // a millisecond, a gap under 0.2 ms (the scheduler's jitter) passes.
        let bound = if long_run() { 0.10 } else { 0.50 };
        let gap = a.max(b) - a.min(b);
        assert!(
            (ratio - 1.0).abs() < bound || gap < Duration::from_micros(200),
            "{name} takes {a:?} with an account and {b:?} without (median ratio {ratio:.3})"
        );
    }
}

#[tokio::test]
async fn sign_up_reset_and_resend_take_as_long_for_every_address() {
    answers_take_as_long_for_every_address(TestApp::sqlite().await).await;
    if let Some(app) = TestApp::postgres().await {
        answers_take_as_long_for_every_address(app).await;
    }
}
