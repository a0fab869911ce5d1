//! Two server processes sharing one PostgreSQL database.

use futures_util::future::join_all;
use serde_json::Value;

use crate::support::{SPEC, Server, http, run_json};

/// A database of its own on the test PostgreSQL server, for the nodes to
/// share; `None` (the test skips) without a server.
struct SharedDatabase {
    admin: sqlx::PgPool,
    name: String,
    url: String,
}

impl SharedDatabase {
    async fn create() -> Option<Self> {
        drop(test_kit::TestApp::postgres().await?);
        let name = format!("hubtest_{}", uuid::Uuid::new_v4().simple());
        let admin_url = test_kit::postgres_admin_url();
        let admin = sqlx::PgPool::connect(&admin_url).await.unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}"))).execute(&admin).await.unwrap();
        let url = test_kit::database_url(&admin_url, &name);
        Some(Self { admin, name, url })
    }

    async fn drop_now(self) {
        let sql = format!("DROP DATABASE {} WITH (FORCE)", self.name);
        sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&self.admin).await.ok();
    }
}

/// A Pro user made with the CLI in `data_dir`, and a token of theirs.
fn pro_user_token(data_dir: &std::path::Path, email: &str, env: &[(&str, &str)]) -> String {
    let data = data_dir.to_str().unwrap();
    run_json(&["--data-dir", data, "hub", "user", "create", "--email", email, "--plan", "pro"], env);
    let token = run_json(&["--data-dir", data, "hub", "token", "create", "--email", email, "--name", "t"], env);
    token["token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn concurrent_promotions_on_two_nodes_leave_exactly_one_default() {
    let Some(database) = SharedDatabase::create().await else { return };
    let url = database.url.clone();
    let env = [("HUB_DATABASE_URL", url.as_str())];
    let dir_a = tempfile::tempdir().unwrap();
    let dir_b = tempfile::tempdir().unwrap();
    let token = pro_user_token(dir_a.path(), "nodes@example.com", &env);
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
    database.drop_now().await;
}

/// Two nodes on one database (and, with `redis`, one Redis): a burst of
/// mock requests from 300 client addresses, alternating between the nodes,
/// gets the project's 120 per minute in all, and 100 from one address get
/// that address's 60: the limits are the seed's, however many nodes answer.
async fn mock_limits_are_shared_by_two_nodes(redis: Option<&str>) {
    let Some(database) = SharedDatabase::create().await else { return };
    let url = database.url.clone();
    let mut env = vec![("HUB_DATABASE_URL", url.as_str()), ("SVC_TRUSTED_PROXIES", "127.0.0.1")];
    if let Some(redis) = redis {
        env.push(("SVC_REDIS_URL", redis));
    }
    let dir_a = tempfile::tempdir().unwrap();
    let dir_b = tempfile::tempdir().unwrap();
    let token = pro_user_token(dir_a.path(), "limits@example.com", &env);
    let nodes = [Server::start(dir_a.path(), &env), Server::start(dir_b.path(), &env)];
    let client = http();
    for project in ["wide", "narrow"] {
        let created = client
            .post(format!("{}/api/v1/projects", nodes[0].url))
            .bearer_auth(&token)
            .json(&serde_json::json!({ "name": project, "is_public": true }))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), 201);
        let pushed = client
            .post(format!("{}/api/v1/projects/{project}/versions?label=1", nodes[1].url))
            .bearer_auth(&token)
            .body(SPEC)
            .send()
            .await
            .unwrap();
        assert_eq!(pushed.status(), 201, "{}", pushed.text().await.unwrap());
    }

    // Sends `count` requests to `project`'s mock, 20 at a time, alternating
    // nodes; `client_of(i)` is the address the proxy reports. Returns the
    // answers per node that passed, and the seconds the burst took.
    let burst = async |project: &str, count: usize, client_of: &dyn Fn(usize) -> String| {
        let started = std::time::Instant::now();
        let mut passed = [0_usize; 2];
        let mut refused = 0;
        for wave in (0..count).collect::<Vec<_>>().chunks(20) {
            let sent = wave.iter().map(|&i| {
                let node = i % 2;
                let request = client
                    .get(format!("{}/mock/{project}/a", nodes[node].url))
                    .header("X-Forwarded-For", client_of(i))
                    .send();
                async move { (node, request.await.unwrap().status().as_u16()) }
            });
            for (node, status) in join_all(sent).await {
                match status {
                    200 => passed[node] += 1,
                    429 => refused += 1,
                    other => panic!("unexpected status {other}"),
                }
            }
        }
        assert_eq!(passed[0] + passed[1] + refused, count);
        (passed, started.elapsed().as_secs_f64())
    };

    // Both limits refill over the minute (2 a second for the project's 120,
    // 1 for an address's 60): what the burst's duration adds is allowed for.
    let (passed, secs) = burst("wide", 300, &|i| format!("198.51.100.{}", i % 250 + 1)).await;
    let total = passed[0] + passed[1];
    let most = 120 + (2.0 * secs).ceil() as usize + 1;
    assert!(passed[0] > 0 && passed[1] > 0, "both nodes answered: {passed:?}");
    assert!(
        (114..=most).contains(&total),
        "two nodes allowed {total} mock requests of 120 per project ({passed:?} in {secs:.1} s)"
    );

    let (passed, secs) = burst("narrow", 100, &|_| "203.0.113.9".to_owned()).await;
    let total = passed[0] + passed[1];
    let most = 60 + secs.ceil() as usize + 1;
    assert!(
        (57..=most).contains(&total),
        "two nodes allowed {total} mock requests of 60 per address ({passed:?} in {secs:.1} s)"
    );

    drop(nodes);
    database.drop_now().await;
}

#[tokio::test]
async fn two_nodes_on_one_postgres_share_the_mock_limits() {
    mock_limits_are_shared_by_two_nodes(None).await;
}

#[tokio::test]
async fn two_nodes_on_one_redis_share_the_mock_limits() {
    let Some(redis) = platform::testing::redis_url().await else { return };
    mock_limits_are_shared_by_two_nodes(Some(&redis)).await;
}
