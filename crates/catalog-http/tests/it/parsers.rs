//! Property tests of the HTTP layer's parsers of untrusted input: the
//! `Authorization: Basic` header, the token endpoint's form, JSON bodies,
//! and whole requests to the login page and the token endpoint through the
//! router. Arbitrary input never panics and is answered in the documented
//! shapes. `SVC_TEST_LONG=1` runs many more cases.

use axum::body::Body;
use axum::http::{Method, Request};
use base64::Engine as _;
use catalog_http::extract::json_body;
use catalog_http::routes::oauth::{basic_credentials, token_request};
use proptest::prelude::*;
use proptest::strategy::ValueTree as _;

use crate::support::TestApp;

fn cases(short: u32, long: u32) -> ProptestConfig {
    let is_long = std::env::var_os("SVC_TEST_LONG").is_some_and(|v| v != "0");
    ProptestConfig { cases: if is_long { long } else { short }, ..ProptestConfig::default() }
}

fn header_value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "(Basic|basic|BASIC|Bearer) [A-Za-z0-9+/=%:]{0,60}",
        any::<(String, String)>().prop_map(|(id, secret)| {
            format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}")))
        }),
        proptest::collection::vec(any::<u8>(), 0..40)
            .prop_map(|bytes| format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(bytes))),
    ]
}

fn form_body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        "((grant_type|code|redirect_uri|code_verifier|refresh_token|client_id|client_secret|scope|csrf_token|username|password|decision)=[A-Za-z0-9%+&=._~-]{0,30}&?){0,8}"
            .prop_map(String::into_bytes),
    ]
}

proptest! {
    #![proptest_config(cases(1024, 100_000))]

    #[test]
    fn basic_credentials_never_panic(value in header_value()) {
        let _ = basic_credentials(&value);
    }

    #[test]
    fn basic_credentials_read_what_clients_send(id in "[A-Za-z0-9]{1,40}", secret in "[A-Za-z0-9:]{0,40}") {
        let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
        prop_assert_eq!(basic_credentials(&format!("Basic {encoded}")), Some((id, secret)));
    }

    #[test]
    fn token_forms_never_panic(authorization in proptest::option::of(header_value()), body in form_body()) {
        if let Ok(request) = token_request(authorization.as_deref(), &body) {
            // Basic credentials win over body fields.
            if let Some((id, _)) = authorization.as_deref().and_then(basic_credentials) {
                prop_assert_eq!(request.client_id, Some(id));
            }
        }
    }

    #[test]
    fn json_bodies_never_panic(body in prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        "[\\[\\]{}\":,0-9a-z \\t\\n-]{0,80}".prop_map(String::into_bytes),
    ]) {
        let _ = json_body(&body);
    }
}

/// Whole requests with arbitrary forms and headers to the two routes that
/// read a body before anyone is known: never a 5xx, always a documented
/// status.
#[tokio::test]
async fn login_and_token_routes_answer_any_form() {
    let app = TestApp::sqlite().await;
    let mut runner = proptest::test_runner::TestRunner::new(cases(64, 5_000));
    let strategy = (proptest::option::of(header_value()), form_body(), any::<bool>());
    let mut inputs = Vec::new();
    for _ in 0..runner.config().cases {
        let tree = strategy.new_tree(&mut runner).expect("a strategy that generates");
        inputs.push(tree.current());
    }
    for (authorization, body, to_token) in inputs {
        let path = if to_token { "/api/token" } else { "/authorize" };
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(path)
            .header("content-type", "application/x-www-form-urlencoded");
        if let Some(value) = authorization.as_deref().and_then(|v| axum::http::HeaderValue::from_str(v).ok()) {
            request = request.header("authorization", value);
        }
        let answer = app.send(request.body(Body::from(body.clone())).unwrap()).await;
        let status = answer.status.as_u16();
        assert!(
            matches!(status, 302 | 303 | 400 | 401 | 403 | 429),
            "{path} answered {status} to {body:?}: {}",
            String::from_utf8_lossy(&answer.body)
        );
    }
}
