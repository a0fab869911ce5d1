//! Two server processes sharing one PostgreSQL database.

use futures_util::future::join_all;
use serde_json::Value;

use crate::support::{SPEC, Server, http, run_json};

#[tokio::test]
async fn concurrent_promotions_on_two_nodes_leave_exactly_one_default() {
    let Some(admin) = test_kit::TestApp::postgres().await else { return };
    drop(admin);
    let name = format!("hubtest_{}", uuid::Uuid::new_v4().simple());
    let admin_url = test_kit::postgres_admin_url();
    let pool = sqlx::PgPool::connect(&admin_url).await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"))).execute(&pool).await.unwrap();
    let url = test_kit::database_url(&admin_url, &name);
    let env = [("HUB_DATABASE_URL", url.as_str())];
    let dir_a = tempfile::tempdir().unwrap();
    let dir_b = tempfile::tempdir().unwrap();
    let data_a = dir_a.path().to_str().unwrap();
    run_json(&["--data-dir", data_a, "hub", "user", "create", "--email", "nodes@example.com", "--plan", "pro"], &env);
    let token = run_json(
        &["--data-dir", data_a, "hub", "token", "create", "--email", "nodes@example.com", "--name", "t"],
        &env,
    );
    let token = token["token"].as_str().unwrap().to_owned();
    let node_a = Server::start(dir_a.path(), &env);
    let node_b = Server::start(dir_b.path(), &env);
    let client = http();

    let created = client
        .post(format!("{}/api/v1/projects", node_a.url))
        .bearer_auth(&token)
        .json(&serde_json::json!({ "name": "Nodes" }))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let labels: Vec<String> = (0..10).map(|i| format!("v{i}")).collect();
    for (i, label) in labels.iter().enumerate() {
        let node = if i % 2 == 0 { &node_a } else { &node_b };
        let pushed = client
            .post(format!("{}/api/v1/projects/nodes/versions?label={label}", node.url))
            .bearer_auth(&token)
            .body(SPEC)
            .send()
            .await
            .unwrap();
        assert_eq!(pushed.status(), 201, "{}", pushed.text().await.unwrap());
    }
    // Every node reads the blobs and rows any node wrote.
    let from_b: Value = client
        .get(format!("{}/api/v1/projects/nodes/versions/v0", node_b.url))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(from_b["is_default"], true);

    let promotions = (0..50).map(|i| {
        let node = if i % 2 == 0 { &node_a.url } else { &node_b.url };
        let label = &labels[i % labels.len()];
        client
            .patch(format!("{node}/api/v1/projects/nodes/versions/{label}"))
            .bearer_auth(&token)
            .json(&serde_json::json!({ "is_default": true }))
            .send()
    });
    let results = join_all(promotions).await;
    let statuses: Vec<u16> = results.into_iter().map(|r| r.unwrap().status().as_u16()).collect();
    assert!(statuses.iter().all(|s| *s == 200), "every promotion succeeded in turn: {statuses:?}");

    let listed: Value = client
        .get(format!("{}/api/v1/projects/nodes/versions?limit=100", node_a.url))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let defaults = listed["data"].as_array().unwrap().iter().filter(|v| v["is_default"] == true).count();
    assert_eq!(defaults, 1, "exactly one default version: {listed}");
    let db = sqlx::PgPool::connect(&url).await.unwrap();
    let (count,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM versions WHERE is_default").fetch_one(&db).await.unwrap();
    assert_eq!(count, 1);
    db.close().await;
    drop((node_a, node_b));
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE {name} WITH (FORCE)"))).execute(&pool).await.ok();
}
