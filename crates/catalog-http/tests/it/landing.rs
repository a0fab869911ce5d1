//! `/` tells a person what the catalog is and where to go.

use axum::http::{Method, StatusCode};

use crate::on_both_stores;
use crate::support::TestApp;

on_both_stores!(the_root_says_what_the_catalog_is);

async fn the_root_says_what_the_catalog_is(app: TestApp) {
    let page = app.request(Method::GET, "/", None, None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.headers["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = String::from_utf8_lossy(&page.body);
    assert!(
        html.contains("Spotify Web API") && html.contains("href=\"/player\"") && html.contains("/authorize"),
        "{html}"
    );
    let csp = page.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.starts_with("default-src 'none'") && !csp.contains("unsafe-inline"), "{csp}");
}
