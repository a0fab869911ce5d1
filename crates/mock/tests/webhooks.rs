//! Webhook matching on a real description: OpenAI's, whose `webhooks`
//! (batches, fine-tuning jobs, responses, evals...) share one envelope and
//! differ by `type` and `data`. The payloads are shaped as OpenAI's
//! webhook documentation shows them. Skips, saying so, where
//! `../shared/specs` is not beside the checkout.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, reason = "test code")]

use std::path::Path;

use mock::webhooks::{MatchedBy, Received, WebhookModel};

fn openai() -> Option<WebhookModel> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/specs/openapi3/openai.openapi.yaml");
    let Ok(text) = std::fs::read(&path) else {
        eprintln!("skipped: ../shared/specs/openapi3/openai.openapi.yaml is not beside the checkout");
        return None;
    };
    let spec = spec::parse(&text).expect("OpenAI's description parses");
    Some(WebhookModel::new(&spec))
}

fn headers() -> Vec<(String, String)> {
    vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        ("webhook-id".to_owned(), "wh_685342e6c53c8190a1be43f081506c52".to_owned()),
    ]
}

#[test]
fn openai_events_are_named_by_their_type_and_checked_field_by_field() {
    let Some(model) = openai() else { return };
    assert!(model.len() >= 10, "OpenAI describes {} webhooks", model.len());
    let headers = headers();

    let completed = br#"{"id": "evt_685343a1381c819085d44c354e1b330e", "object": "event", "created_at": 1750287018,
        "type": "batch.completed", "data": {"id": "batch_abc123"}}"#;
    let found = model.classify(&Received { method: "POST", headers: &headers, body: completed }).expect("a match");
    assert_eq!(found.event, "batch_completed");
    assert_eq!(found.matched_by, MatchedBy::EventName);
    assert!(found.fits, "{:?}", found.issues);

    // The same event without its data and with a string timestamp.
    let broken = br#"{"id": "evt_1", "object": "event", "created_at": "yesterday", "type": "batch.completed"}"#;
    let found = model.classify(&Received { method: "POST", headers: &headers, body: broken }).expect("a match");
    assert_eq!(found.event, "batch_completed");
    assert!(!found.fits);
    let paths: Vec<&str> = found.issues.iter().map(|i| i.path.as_str()).collect();
    assert!(paths.contains(&"body.created_at"), "{paths:?}");
    assert!(paths.iter().any(|p| *p == "body" || p.starts_with("body.data")), "the missing data is named: {paths:?}");

    // Another event of the same envelope is told apart by its type.
    let cancelled = br#"{"id": "evt_2", "object": "event", "created_at": 1750287018,
        "type": "fine_tuning.job.cancelled", "data": {"id": "ftjob_abc"}}"#;
    let found = model.classify(&Received { method: "POST", headers: &headers, body: cancelled }).expect("a match");
    assert_eq!(found.event, "fine_tuning_job_cancelled");
    assert!(found.fits, "{:?}", found.issues);
}
