//! Test support shared by every service's suite: a fresh PostgreSQL database
//! per test, or a clear skip when none is reachable.
//!
//! The server is `TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`). Without one, tests skip
//! with a message, unless `REQUIRE_POSTGRES=1` (set by `scripts/test`) makes
//! that a failure.

use std::time::Duration;

use crate::db::Db;

pub fn postgres_admin_url() -> String {
    std::env::var("TEST_POSTGRES_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// `url` with its database name replaced by `name`.
pub fn database_url(url: &str, name: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let prefix = base.rsplit_once('/').map_or(base, |(p, _)| p);
    query.map_or_else(|| format!("{prefix}/{name}"), |q| format!("{prefix}/{name}?{q}"))
}

/// Creates an empty database named `<prefix>_<uuid>` and connects to it, or
/// returns `None` (after saying why) when no server answers.
///
/// # Panics
/// When `REQUIRE_POSTGRES=1` and no server answers, or the server refuses to
/// create the database: a test helper fails loudly.
#[expect(clippy::expect_used, reason = "a test helper fails loudly with a message")]
pub async fn fresh_postgres(prefix: &str) -> Option<Db> {
    let admin_url = postgres_admin_url();
    let admin = match tokio::time::timeout(Duration::from_secs(3), Db::connect_postgres(&admin_url)).await {
        Ok(Ok(db)) => db,
        outcome => {
            let why = match outcome {
                Ok(Err(e)) => e.to_string(),
                Err(_) => "timed out".to_owned(),
                Ok(Ok(_)) => String::new(),
            };
            assert!(
                std::env::var("REQUIRE_POSTGRES").map_or(true, |v| v != "1"),
                "REQUIRE_POSTGRES=1 but PostgreSQL is unreachable at {admin_url}: {why}"
            );
            eprintln!("skipping the PostgreSQL variant: no server at {admin_url} ({why})");
            return None;
        }
    };
    let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
    if let Db::Postgres(pool) = &admin {
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(pool)
            .await
            .expect("create the test database");
    }
    admin.close().await;
    let db = Db::connect_postgres(&database_url(&admin_url, &name)).await.expect("connect to the test database");
    Some(db)
}

/// The Redis of `TEST_REDIS_URL` (default `redis://127.0.0.1:6379`) when it
/// accepts a connection, or `None` after saying why the Redis variant is
/// skipped; `REQUIRE_REDIS=1` makes its absence a failure.
///
/// # Panics
/// When `REQUIRE_REDIS=1` and no server answers.
pub async fn redis_url() -> Option<String> {
    let url = std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned());
    let address = url::Url::parse(&url)
        .ok()
        .map(|u| format!("{}:{}", u.host_str().unwrap_or("127.0.0.1"), u.port().unwrap_or(6379)));
    let reachable = match address {
        Some(address) => {
            matches!(
                tokio::time::timeout(Duration::from_secs(2), tokio::net::TcpStream::connect(address)).await,
                Ok(Ok(_))
            )
        }
        None => false,
    };
    if reachable {
        return Some(url);
    }
    assert!(
        std::env::var("REQUIRE_REDIS").map_or(true, |v| v != "1"),
        "REQUIRE_REDIS=1 but Redis is unreachable at {url}"
    );
    eprintln!("skipping the Redis variant: no server at {url} (set TEST_REDIS_URL)");
    None
}

#[cfg(test)]
mod tests {
    use super::database_url;

    #[test]
    fn replaces_the_database_name_and_keeps_the_query() {
        assert_eq!(database_url("postgres://u@h:5/postgres", "t1"), "postgres://u@h:5/t1");
        assert_eq!(database_url("postgres://u@h/postgres?sslmode=disable", "t1"), "postgres://u@h/t1?sslmode=disable");
    }
}
