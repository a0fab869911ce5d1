//! Property tests as fuzzing for the parsers of untrusted input in this
//! crate: cookie headers, CSRF tokens, forwarded-for chains, sealed
//! secrets, CIDR and allow-list entries. None may panic, and each answers
//! within its input's size. `SVC_TEST_LONG=1` runs a hundred times more cases.

use axum::http::{HeaderMap, HeaderValue};
use proptest::prelude::*;

use crate::net::TrustedProxies;
use crate::outbound::{AllowList, Cidr};
use crate::secrets::SecretKey;
use crate::web::{CookiePolicy, Csrf, cookie};

fn cases() -> u32 {
    if std::env::var("SVC_TEST_LONG").is_ok_and(|v| v == "1") { 25_600 } else { 256 }
}

fn headers(name: &'static str, raw: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Ok(value) = HeaderValue::from_str(raw) {
        headers.insert(name, value);
    }
    headers
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), .. ProptestConfig::default() })]

    #[test]
    fn cookie_headers_never_panic(raw in "[ -~]{0,400}", name in "[a-z_]{1,12}") {
        let headers = headers("cookie", &raw);
        let found = cookie(&headers, &name);
        if let Some(value) = found {
            prop_assert!(raw.contains(value));
        }
    }

    #[test]
    fn csrf_tokens_pass_only_when_signed(raw_cookie in "[ -~]{0,200}", token in "[ -~]{0,100}") {
        let csrf = Csrf::new(&SecretKey::generate(), CookiePolicy::for_public_url("https://hub.example"));
        let headers = headers("cookie", &raw_cookie);
        // Random input never passes: the HMAC under a fresh key is not guessable.
        prop_assert!(!csrf.verify(&headers, Some(&token)));
        let issued = csrf.issue(&headers);
        prop_assert_eq!(issued.token.len(), 64);
    }

    #[test]
    fn forwarded_for_chains_never_panic(chain in "[0-9a-f:., \\[\\]]{0,300}", proxies in "[0-9./, ]{0,60}") {
        if let Ok(trusted) = TrustedProxies::parse(&proxies) {
            let peer = "10.0.0.1".parse().unwrap_or(std::net::IpAddr::from([10, 0, 0, 1]));
            let _ = trusted.client_ip(peer, &headers("x-forwarded-for", &chain));
        }
    }

    #[test]
    fn sealed_secrets_open_only_unaltered(plain in ".{0,200}", garbage in "enc:v1:[A-Za-z0-9_-]{0,300}") {
        let key = SecretKey::generate();
        prop_assert_eq!(key.open(&key.seal(&plain)).ok(), Some(plain));
        prop_assert!(key.open(&garbage).is_err());
        let _ = SecretKey::parse(&garbage);
    }

    #[test]
    fn network_entries_never_panic(entry in "[0-9a-fA-F:./\\[\\] -]{0,80}") {
        let _ = Cidr::parse(&entry);
        let _ = AllowList::parse(&entry);
    }
}
