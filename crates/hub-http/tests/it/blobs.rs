//! The collector of blobs no version refers to (issue 32).

use axum::http::StatusCode;
use hub_core::Plan;
use test_kit::{TestApp, on_both_stores};

use crate::openapi_yaml;

on_both_stores!(unreferenced_blobs_are_deleted_after_the_grace_period_and_a_repush_restores_them);

async fn unreferenced_blobs_are_deleted_after_the_grace_period_and_a_repush_restores_them(app: TestApp) {
    let (_, token) = app.user("gc@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Collected").await;
    let first = app.push(&slug, &token, "label=main", openapi_yaml("1")).await;
    assert_eq!(first.status, StatusCode::CREATED);
    let old = first.json()["spec_sha256"].as_str().unwrap().to_owned();
    // The same label again with other content: the first document is
    // referenced by nothing now.
    let second = app.push(&slug, &token, "label=main", openapi_yaml("2")).await;
    assert_eq!(second.status, StatusCode::OK);
    let current = second.json()["spec_sha256"].as_str().unwrap().to_owned();
    let blobs = app.hub.blobs().clone();
    let stored = blobs.list().await.unwrap();
    assert_eq!(stored.len(), 2);
    // What the search keeps of both documents: sections and vectors.
    let store = app.hub.store();
    let section = || {
        vec![hub_core::docs::SearchSection {
            target: "op/listPets".to_owned(),
            title: "GET /pets".to_owned(),
            body: "List pets".to_owned(),
        }]
    };
    let kept = hub_core::store::KeptVectors {
        texts_sha256: "t".repeat(64),
        sections: 1,
        width: 2,
        bytes: vec![1, 2, 0, 0, 128, 63],
    };
    for sha in [&old, &current] {
        store.index_docs(sha, &section(), app.hub.clock().now()).await.unwrap();
        store.put_docs_vectors(sha, "model@test", &kept, app.hub.clock().now()).await.unwrap();
        let (now, forever) = (app.hub.clock().now(), app.hub.clock().now().plus_days(365));
        assert!(store.claim_docs_vectors(sha, "model@test", "a node", now, forever).await.unwrap());
    }
    let grace = hub_core::blobs::GRACE_MS;
    // First pass: noted, kept.
    let noted = app.hub.collect_blob_garbage(grace).await.unwrap();
    assert_eq!((noted.stored, noted.unreferenced, noted.deleted), (2, 1, 0));
    assert!(blobs.contains(&old).await.unwrap());
    // A day later it goes; the referenced one stays, byte for byte.
    app.clock.advance_days(1);
    let collected = app.hub.collect_blob_garbage(grace).await.unwrap();
    assert_eq!((collected.stored, collected.unreferenced, collected.deleted), (2, 1, 1));
    assert!(!blobs.contains(&old).await.unwrap());
    assert_eq!(blobs.list().await.unwrap().len(), 1);
    // The search's rows went with the collected document, and only with it.
    assert!(!store.docs_indexed(&old).await.unwrap());
    assert!(store.docs_sections(&old).await.unwrap().is_empty());
    assert_eq!(store.docs_vectors(&old, "model@test").await.unwrap(), None);
    let (now, forever) = (app.hub.clock().now(), app.hub.clock().now().plus_days(365));
    assert!(store.claim_docs_vectors(&old, "model@test", "another node", now, forever).await.unwrap(), "claim gone");
    assert!(store.docs_indexed(&current).await.unwrap());
    assert_eq!(store.docs_sections(&current).await.unwrap().len(), 1);
    assert_eq!(store.docs_vectors(&current, "model@test").await.unwrap(), Some(kept.clone()));
    assert!(!store.claim_docs_vectors(&current, "model@test", "another node", now, forever).await.unwrap());
    assert_eq!(blobs.get(&current).await.unwrap().unwrap(), openapi_yaml("2").as_bytes());
    // Pushing the collected content again stores it again.
    let third = app.push(&slug, &token, "label=older", openapi_yaml("1")).await;
    assert_eq!(third.status, StatusCode::CREATED);
    assert!(blobs.contains(&old).await.unwrap());
    let after = app.hub.collect_blob_garbage(grace).await.unwrap();
    assert_eq!((after.stored, after.unreferenced, after.deleted), (2, 0, 0));
}
