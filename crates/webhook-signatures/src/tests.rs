use proptest::prelude::*;

use super::*;

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect()
}

const NOW: i64 = 1_700_000_000;

// ---- vectors from the senders' own documentation --------------------------

#[test]
fn github_documented_example() {
    // docs.github.com, "Validating webhook deliveries": secret "It's a
    // Secret to Everybody", payload "Hello, World!".
    let h =
        headers(&[("X-Hub-Signature-256", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")]);
    assert_eq!(Scheme::Github.verify("It's a Secret to Everybody", &h, b"Hello, World!", NOW, 300), Ok(()));
    assert_eq!(
        Scheme::Github.verify("It's a Secret to Everybody", &h, b"Hello, World?", NOW, 300),
        Err(Refusal::Mismatch)
    );
    // The same delivery's legacy SHA-1 header (computed with Python's hmac).
    let h = headers(&[("X-Hub-Signature", "sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59")]);
    assert_eq!(Scheme::GithubSha1.verify("It's a Secret to Everybody", &h, b"Hello, World!", NOW, 300), Ok(()));
}

#[test]
fn slack_documented_example() {
    // api.slack.com, "Verifying requests from Slack".
    let body = "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    let h = headers(&[
        ("X-Slack-Request-Timestamp", "1531420618"),
        ("X-Slack-Signature", "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"),
    ]);
    let secret = "8f742231b10e8888abcd99yyyzzz85a5";
    assert_eq!(Scheme::Slack.verify(secret, &h, body.as_bytes(), 1_531_420_618 + 60, 300), Ok(()));
    assert_eq!(
        Scheme::Slack.verify(secret, &h, body.as_bytes(), 1_531_420_618 + 301, 300),
        Err(Refusal::Stale { age: 301, tolerance: 300 })
    );
}

#[test]
fn standard_webhooks_documented_example() {
    // The Standard Webhooks specification's example.
    let h = headers(&[
        ("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek"),
        ("webhook-timestamp", "1614265330"),
        ("webhook-signature", "v1a,ignored v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="),
    ]);
    let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    assert_eq!(Scheme::StandardWebhooks.verify(secret, &h, br#"{"test": 2432232314}"#, 1_614_265_330, 300), Ok(()));
    assert_eq!(
        Scheme::StandardWebhooks.verify(secret, &h, br#"{"test": 2432232315}"#, 1_614_265_330, 300),
        Err(Refusal::Mismatch)
    );
    let signed = Scheme::StandardWebhooks.sign(
        secret,
        br#"{"test": 2432232314}"#,
        Signing { timestamp_secs: 1_614_265_330, message_id: "msg_p5jXN8AQM9LWM0D4loKWxJek" },
    );
    assert_eq!(signed.header("webhook-signature"), Some("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="));
}

// ---- vectors computed with Python's hmac module (an independent MAC) ------

#[test]
fn stripe_vector_and_rolled_secrets() {
    let body = br#"{"id":"evt_1"}"#;
    let sig = "248a374f50f943a28b0f6ab50faf9a7e7e29b710fa26df9fb1618b9bf8ea9c9a";
    let h = headers(&[("Stripe-Signature", &format!("t=1700000000,v1={}{},v1={sig},v0=abc", "0".repeat(63), "1"))]);
    assert_eq!(Scheme::Stripe.verify("whsec_test_secret", &h, body, NOW, 300), Ok(()));
    assert_eq!(Scheme::Stripe.verify("whsec_other", &h, body, NOW, 300), Err(Refusal::Mismatch));
    assert_eq!(
        Scheme::Stripe.verify("whsec_test_secret", &h, body, NOW - 1000, 300),
        Err(Refusal::Stale { age: 1000, tolerance: 300 })
    );
    let no_t = headers(&[("Stripe-Signature", &format!("v1={sig}"))]);
    assert!(matches!(
        Scheme::Stripe.verify("whsec_test_secret", &no_t, body, NOW, 300),
        Err(Refusal::Malformed { .. })
    ));
}

#[test]
fn shopify_linear_zendesk_vectors() {
    let h = headers(&[("X-Shopify-Hmac-Sha256", "xocA3LkeJ/RvNrkxep1EUtFHuj7rIoIqZYaLU26LyPQ=")]);
    assert_eq!(Scheme::Shopify.verify("shpss_secret", &h, br#"{"id":1}"#, NOW, 300), Ok(()));

    let body = br#"{"action":"create","webhookTimestamp":1700000000000}"#;
    let h = headers(&[("Linear-Signature", "0e7eb538ce08f2d147d43dcc1a8d5fef4d5dd6effe602c4c11c3d2456d92c6be")]);
    assert_eq!(Scheme::Linear.verify("lin_wh_secret", &h, body, NOW + 30, 60), Ok(()));
    assert_eq!(
        Scheme::Linear.verify("lin_wh_secret", &h, body, NOW + 61, 60),
        Err(Refusal::Stale { age: 61, tolerance: 60 })
    );

    let h = headers(&[
        ("X-Zendesk-Webhook-Signature", "A4S2n2ElTP4X+yEdtoCYW1I4YIiib8tLhTL1OgOry/A="),
        ("X-Zendesk-Webhook-Signature-Timestamp", "2023-11-14T22:13:20Z"),
    ]);
    assert_eq!(Scheme::Zendesk.verify("zd_secret", &h, br#"{"ticket":1}"#, NOW, 300), Ok(()));
    assert_eq!(Scheme::Zendesk.verify("zd_secret", &h, br#"{"ticket":2}"#, NOW, 300), Err(Refusal::Mismatch));
}

#[test]
fn custom_sha512_base64_with_a_timestamp() {
    let scheme = Scheme::new(
        SchemeName::Custom,
        Some(Custom {
            header: "X-Signature".into(),
            algorithm: Algorithm::Sha512,
            encoding: Encoding::Base64,
            prefix: "sig=".into(),
            timestamp_header: Some("X-Timestamp".into()),
        }),
    )
    .unwrap_or(Scheme::Svc);
    let h = headers(&[
        ("x-signature", "sig=osTld7F8x2gkU8L4xD9DZ579HiZes8MgCjsn9AKm69VEFMpR8sKVw9gCvt+v74eknzgPqH6XfVinXdG4hN7YIg=="),
        ("x-timestamp", "1700000000"),
    ]);
    assert_eq!(scheme.verify("custom", &h, b"payload", NOW, 300), Ok(()));
    let missing_prefix = headers(&[("x-signature", "osTld7F8"), ("x-timestamp", "1700000000")]);
    assert!(matches!(scheme.verify("custom", &missing_prefix, b"payload", NOW, 300), Err(Refusal::Malformed { .. })));
}

#[test]
fn our_own_signature_matches_the_audit_webhooks_format() {
    let signed = Scheme::Svc.sign("s3cret", b"{}", Signing { timestamp_secs: NOW, message_id: "" });
    let value = signed.header("X-Service-Signature").unwrap_or_default();
    assert!(value.starts_with("sha256=") && value.len() == 7 + 64, "{value}");
    assert_eq!(Scheme::Svc.verify("s3cret", &signed, b"{}", NOW, 300), Ok(()));
}

#[test]
fn missing_headers_are_named() {
    assert_eq!(
        Scheme::Slack.verify("x", &headers(&[]), b"", NOW, 300),
        Err(Refusal::Missing("X-Slack-Request-Timestamp".into()))
    );
    assert_eq!(
        Scheme::Github.verify("x", &headers(&[]), b"", NOW, 300),
        Err(Refusal::Missing("X-Hub-Signature-256".into()))
    );
}

#[test]
fn settings_are_checked() {
    assert_eq!(SchemeName::parse("github-sha1"), Ok(SchemeName::GithubSha1));
    assert_eq!(SchemeName::parse("paypal"), Err(Invalid::Scheme));
    assert_eq!(Scheme::new(SchemeName::Custom, None), Err(Invalid::HeaderName));
    let bad = Custom {
        header: "X Sig".into(),
        algorithm: Algorithm::Sha256,
        encoding: Encoding::Hex,
        prefix: String::new(),
        timestamp_header: None,
    };
    assert_eq!(Scheme::new(SchemeName::Custom, Some(bad)), Err(Invalid::HeaderName));
    assert_eq!(Scheme::StandardWebhooks.check_secret("whsec_!!!"), Err(Invalid::StandardSecret));
    assert_eq!(Scheme::Stripe.check_secret(""), Err(Invalid::EmptySecret));
    assert_eq!(Scheme::Stripe.check_secret("whsec_anything"), Ok(()));
    for name in SchemeName::ALL {
        let json = serde_json::to_string(&name).unwrap_or_default();
        assert_eq!(json, format!("\"{}\"", name.as_str()));
    }
}

// ---- every scheme: verify(sign(x)) holds, and any one-byte change fails ---

fn every_scheme() -> Vec<Scheme> {
    let mut all: Vec<Scheme> = vec![
        Scheme::Svc,
        Scheme::Stripe,
        Scheme::Github,
        Scheme::GithubSha1,
        Scheme::Slack,
        Scheme::Shopify,
        Scheme::Linear,
        Scheme::Zendesk,
        Scheme::StandardWebhooks,
    ];
    for (algorithm, encoding, ts) in [
        (Algorithm::Sha1, Encoding::Hex, false),
        (Algorithm::Sha256, Encoding::Base64, true),
        (Algorithm::Sha512, Encoding::Hex, true),
    ] {
        all.push(Scheme::Custom(Custom {
            header: "X-Sig".into(),
            algorithm,
            encoding,
            prefix: "v=".into(),
            timestamp_header: ts.then(|| "X-Ts".into()),
        }));
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn signed_bodies_verify_and_any_changed_byte_fails(
        body in proptest::collection::vec(any::<u8>(), 1..512),
        at in 0usize..512,
        flip in 1u8..=255,
        ts in 1_000_000_000i64..4_000_000_000,
    ) {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        for scheme in every_scheme() {
            let signed = scheme.sign(secret, &body, Signing { timestamp_secs: ts, message_id: "msg_1" });
            prop_assert_eq!(scheme.verify(secret, &signed, &body, ts, 300), Ok(()), "{:?}", scheme);
            let mut changed = body.clone();
            let i = at % changed.len();
            if let Some(byte) = changed.get_mut(i) {
                *byte ^= flip;
            }
            prop_assert_eq!(scheme.verify(secret, &signed, &changed, ts, 300), Err(Refusal::Mismatch), "{:?}", scheme);
            // Another secret never verifies.
            prop_assert_eq!(scheme.verify("whsec_b3RoZXI=", &signed, &body, ts, 300), Err(Refusal::Mismatch), "{:?}", scheme);
        }
    }
}
