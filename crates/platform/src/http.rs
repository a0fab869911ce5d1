//! The HTTP kit every service mounts: request ids, access logs, metrics,
//! health and readiness, bounded body reading and graceful shutdown.
//!
//! Wire envelopes are not here: each service's `*-http` crate owns its error
//! format (the hub's, the courses service's and Spotify's all differ).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::{DefaultOnResponse, TraceLayer};

use crate::db::Db;

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Wraps `router` with request ids (honouring an incoming `X-Request-Id`),
/// an access log span carrying that id, and request metrics labelled by
/// `service` and route template (never by raw path, to bound cardinality).
pub fn instrument(router: Router, service: &'static str) -> Router {
    router
        .layer(middleware::from_fn(move |req: Request, next: Next| track_metrics(service, req, next)))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &Request| {
                    let id = req.headers().get(REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or("-");
                    tracing::info_span!("request", method = %req.method(), uri = %req.uri().path(), request_id = %id)
                })
                // One access-log line per request at info, with status and latency.
                .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
        )
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
}

async fn track_metrics(service: &'static str, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let route = req.extensions().get::<MatchedPath>().map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let method = req.method().as_str().to_owned();
    let response = next.run(req).await;
    let status = response.status().as_u16().to_string();
    let labels = [("service", service.to_owned()), ("method", method), ("route", route), ("status", status)];
    metrics::counter!("http_requests_total", &labels).increment(1);
    metrics::histogram!("http_request_duration_seconds", &labels).record(started.elapsed().as_secs_f64());
    response
}

/// The process-wide Prometheus recorder. The `metrics` facade is global by
/// design, so it is installed once however many routers a process builds.
pub fn metrics_handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        PrometheusBuilder::new()
            .install_recorder()
            .unwrap_or_else(|_| PrometheusBuilder::new().build_recorder().handle())
    })
}

/// `/healthz` (the process answers), `/readyz` (its database answers) and
/// `/metrics` (Prometheus text format).
pub fn ops_routes(db: Db) -> Router {
    let handle = metrics_handle();
    Router::new()
        .route("/healthz", get(|| async { axum::Json(serde_json::json!({"status": "ok"})) }))
        .route("/readyz", get(readyz).with_state(db))
        .route(
            "/metrics",
            get(move || async move {
                ([(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4"))], handle.render())
            }),
        )
}

async fn readyz(State(db): State<Db>) -> Response {
    match tokio::time::timeout(Duration::from_secs(2), db.ping()).await {
        Ok(Ok(())) => axum::Json(serde_json::json!({"status": "ready"})).into_response(),
        Ok(Err(err)) => {
            tracing::warn!(error = %err, "readiness check failed");
            (StatusCode::SERVICE_UNAVAILABLE, axum::Json(serde_json::json!({"status": "unavailable"}))).into_response()
        }
        Err(_) => {
            (StatusCode::SERVICE_UNAVAILABLE, axum::Json(serde_json::json!({"status": "timeout"}))).into_response()
        }
    }
}

/// Why a request body could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("request body exceeds {limit} bytes")]
    TooLarge { limit: usize },
    #[error("could not read the request body: {0}")]
    Read(String),
}

/// Reads a body into memory, refusing it as soon as it passes `limit` bytes
/// (a declared `Content-Length` above the limit is refused before reading).
pub async fn read_body_limited(headers: &axum::http::HeaderMap, body: Body, limit: usize) -> Result<Bytes, BodyError> {
    let declared =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > limit as u64) {
        return Err(BodyError::TooLarge { limit });
    }
    // Most requests (GETs) carry none: no collector to set up.
    if axum::body::HttpBody::is_end_stream(&body) {
        return Ok(Bytes::new());
    }
    match tokio::time::timeout(BODY_READ_TIMEOUT, Limited::new(body, limit).collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(err)) if err.is::<LengthLimitError>() => Err(BodyError::TooLarge { limit }),
        Ok(Err(err)) => Err(BodyError::Read(err.to_string())),
        Err(_) => Err(BodyError::Read(format!("the body did not arrive within {} s", BODY_READ_TIMEOUT.as_secs()))),
    }
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut sig) => {
                sig.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}

/// How long a client may take to send a request's headers.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a client may take to send a body that is read into memory.
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(120);
/// The body limit of every route that does not document its own.
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

/// Serves `router` on `listener` until `shutdown` resolves, then stops
/// accepting and lets in-flight requests finish.
///
/// Written on hyper-util's connection builder rather than `axum::serve`
/// because axum's loop sets no timer, so a client that opens a connection
/// and trickles its headers holds it forever; here headers must arrive
/// within [`HEADER_READ_TIMEOUT`]. Each request carries the peer address as
/// axum's `ConnectInfo<SocketAddr>`.
///
/// A panic in a handler is answered by `on_panic` (each service's 500
/// envelope) and logged, instead of dropping the connection. The guard wraps
/// the router here, once, as a plain service: wrapping it inside a router
/// (as [`catch_panics`] must) routes every request twice.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    on_panic: fn() -> Response,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, router, on_panic, shutdown, HEADER_READ_TIMEOUT).await
}

async fn serve_with(
    listener: tokio::net::TcpListener,
    router: Router,
    on_panic: fn() -> Response,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    header_read_timeout: Duration,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::service::TowerToHyperService;

    let mut builder = Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(header_read_timeout);
    builder.http2().timer(TokioTimer::new()).enable_connect_protocol();
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let app = tower::Layer::layer(&tower_http::catch_panic::CatchPanicLayer::custom(PanicAnswer(on_panic)), router);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors and the like: wait, do not spin.
                    tracing::warn!(error = %err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service =
            tower::ServiceExt::map_request(app.clone(), move |request: axum::http::Request<hyper::body::Incoming>| {
                let mut request = request.map(Body::new);
                request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
                request
            });
        let connection =
            builder.serve_connection_with_upgrades(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection.into_owned());
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::trace!(error = %err, "connection ended with an error");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// The answer to a panicking handler: logs the panic, answers the service's
/// 500 envelope.
#[derive(Clone, Copy)]
struct PanicAnswer(fn() -> Response);

impl tower_http::catch_panic::ResponseForPanic for PanicAnswer {
    type ResponseBody = Body;

    fn response_for_panic(&mut self, panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        tracing::error!(panic = message, "a request handler panicked");
        (self.0)()
    }
}

/// `router` with a panic in any handler answered by `answer`, as a router,
/// for tests and for routers that are not served by [`serve`] (which guards
/// its router itself, without the second routing this costs).
pub fn catch_panics(router: Router, answer: fn() -> Response) -> Router {
    let layer = tower_http::catch_panic::CatchPanicLayer::custom(PanicAnswer(answer));
    Router::new().fallback_service(tower::Layer::layer(&layer, router))
}

/// Headers of every response that carries bytes a tenant chose (hosted mock
/// answers, uploaded images and media): a sandboxed, script-less document
/// that cannot read the origin's cookies or storage, and no MIME sniffing.
pub fn tenant_content_headers(headers: &mut axum::http::HeaderMap) {
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(TENANT_CONTENT_CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
}

/// The Content-Security-Policy of tenant content.
pub const TENANT_CONTENT_CSP: &str = "sandbox; default-src 'none'";

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn body_over_the_limit_is_refused_by_declared_length_and_by_stream() {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("11"));
        let err = read_body_limited(&headers, Body::from("hello world"), 10).await.unwrap_err();
        assert!(matches!(err, BodyError::TooLarge { limit: 10 }));
        let err = read_body_limited(&axum::http::HeaderMap::new(), Body::from("hello world"), 10).await.unwrap_err();
        assert!(matches!(err, BodyError::TooLarge { limit: 10 }));
        let ok = read_body_limited(&axum::http::HeaderMap::new(), Body::from("hello"), 10).await.unwrap();
        assert_eq!(&ok[..], b"hello");
    }

    #[tokio::test]
    async fn a_client_that_never_finishes_its_headers_is_cut_off() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new().route("/", get(|| async { "ok" }));
        tokio::spawn(serve_with(
            listener,
            app,
            || StatusCode::INTERNAL_SERVER_ERROR.into_response(),
            std::future::pending(),
            Duration::from_millis(200),
        ));
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").await.unwrap();
        let mut buf = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut buf)).await;
        assert!(read.is_ok(), "the connection was closed by the server");
    }

    #[tokio::test]
    async fn a_served_router_answers_a_panic_with_the_service_envelope() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new().route("/", get(|| async { if true { panic!("boom") } else { "unreachable" } }));
        let answer = || (StatusCode::INTERNAL_SERVER_ERROR, "{\"error\":\"internal\"}").into_response();
        tokio::spawn(serve(listener, app, answer, std::future::pending()));
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
        let mut buf = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut buf)).await.unwrap().unwrap();
        let text = String::from_utf8_lossy(&buf);
        assert!(text.starts_with("HTTP/1.1 500"), "{text}");
        assert!(text.ends_with("{\"error\":\"internal\"}"), "{text}");
    }

    #[tokio::test]
    async fn a_panicking_handler_answers_the_service_envelope() {
        let app = catch_panics(
            Router::new().route("/", get(|| async { if true { panic!("boom") } else { "unreachable" } })),
            || (StatusCode::INTERNAL_SERVER_ERROR, "{\"error\":\"internal\"}").into_response(),
        );
        let response = tower::ServiceExt::oneshot(app, Request::new(Body::empty())).await.unwrap();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], br#"{"error":"internal"}"#);
    }
}
