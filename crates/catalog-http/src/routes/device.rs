//! What makes a program a player: the device protocol under `/connect`
//! (register, wait for the playback, report progress), the streaming route
//! with HTTP ranges; the listener app at `/` is a device built on both.
//!
//! The device routes take the user's bearer token with the `streaming`
//! scope (Spotify's scope for playback SDKs). The streaming route takes a
//! signed link instead, which is what a browser's `<audio>` element can
//! carry; a device gets fresh links with every playback it reads.

use std::time::Duration;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use catalog_core::CatalogError;
use catalog_core::ids::{ItemKind, parse_id};
use catalog_core::player::{DeviceReport, MAX_WAIT};
use catalog_core::preview::PreviewSource;
use catalog_core::stream::{ByteRange, StreamFile, StreamLink, byte_range};
use catalog_core::transcode::{self, Ffmpeg};
use futures_util::StreamExt as _;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncSeekExt as _};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{Auth, LimitedBody, Query, json_body};

const STREAMING: &str = "streaming";
const CHUNK: u64 = 64 * 1024;

/// `POST /connect/devices`: `{"name", "type"?, "supports_volume"?}`.
pub async fn register(
    State(s): State<AppState>,
    Auth(a): Auth,
    LimitedBody(body): LimitedBody,
) -> Result<Response, ApiError> {
    let user = a.user(&[STREAMING])?;
    let body = json_body(&body)?;
    let name =
        body.get("name").and_then(Value::as_str).ok_or_else(|| ApiError::bad_request("Missing required field name"))?;
    let kind = body.get("type").and_then(Value::as_str);
    let supports_volume = body.get("supports_volume").and_then(Value::as_bool).unwrap_or(true);
    let device = s.catalog.register_device(user, name, kind, supports_volume).await?;
    Ok((StatusCode::CREATED, Json(s.wire_at(&a).device(&device))).into_response())
}

/// `GET /connect/devices/{id}/state?after=N&wait=S`: the playback as this
/// device should apply it, once its version passes `after` or after
/// `wait` seconds (0 to 30; 0 answers at once).
pub async fn state(
    State(s): State<AppState>,
    Auth(a): Auth,
    Path(id): Path<String>,
    q: Query,
) -> Result<Json<Value>, ApiError> {
    let user = a.user(&[STREAMING])?;
    let after = q.integer("after")?.unwrap_or(-1);
    let wait = q
        .integer("wait")?
        .map(|w| u64::try_from(w).ok().filter(|w| *w <= MAX_WAIT.as_secs()))
        .unwrap_or(Some(0))
        .ok_or_else(|| ApiError::bad_request(format!("wait must be 0 to {} seconds", MAX_WAIT.as_secs())))?;
    let view = s.catalog.device_view(user, &id, after, Duration::from_secs(wait)).await?;
    let w = s.wire_at(&a);
    let item = match &view.item {
        Some(playable) => {
            let id = playable.id();
            let link = s.catalog.stream_link(id).await?;
            let mut item = w.playable(playable);
            if let Some(map) = item.as_object_mut() {
                map.insert(
                    "stream_url".to_owned(),
                    json!(format!(
                        "{}/stream/{}?expires={}&signature={}",
                        s.public_url, id, link.expires, link.signature
                    )),
                );
            }
            item
        }
        None => Value::Null,
    };
    let active = view.device.is_active;
    Ok(Json(json!({
        "version": view.version,
        "server_time": view.server_time,
        "device": w.device(&view.device),
        "is_active": active,
        "is_playing": active && view.state.is_playing && view.item.is_some(),
        "progress_ms": view.progress_ms,
        "repeat_state": view.state.repeat.as_str(),
        "shuffle_state": view.state.shuffle,
        "volume_percent": view.state.volume_percent,
        "context": w.context(view.state.context_uri.as_deref()),
        "item": item,
    })))
}

/// `PUT /connect/devices/{id}/state`: `{"track_id", "progress_ms", "ended"?}`.
pub async fn report(
    State(s): State<AppState>,
    Auth(a): Auth,
    Path(id): Path<String>,
    LimitedBody(body): LimitedBody,
) -> Result<StatusCode, ApiError> {
    let user = a.user(&[STREAMING])?;
    let body = json_body(&body)?;
    let track_id = body
        .get("track_id")
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad_request("Missing required field track_id"))?;
    let progress_ms = body
        .get("progress_ms")
        .and_then(Value::as_u64)
        .ok_or_else(|| ApiError::bad_request("progress_ms must be a non-negative integer"))?;
    let ended = match body.get("ended") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(ApiError::bad_request("ended must be a boolean")),
    };
    let report = DeviceReport { track_id: track_id.to_owned(), progress_ms, ended };
    s.catalog.device_report(user, &id, &report).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /connect/devices/{id}`.
pub async fn unregister(
    State(s): State<AppState>,
    Auth(a): Auth,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let user = a.user(&[STREAMING])?;
    s.catalog.unregister_device(user, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

fn file_body(file: tokio::fs::File, len: u64) -> Body {
    let chunks = futures_util::stream::unfold((file, len), |(mut file, left)| async move {
        if left == 0 {
            return None;
        }
        let mut buf = vec![0_u8; usize::try_from(left.min(CHUNK)).unwrap_or(64 * 1024)];
        match file.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                let read = u64::try_from(n).unwrap_or(left);
                Some((Ok::<_, std::io::Error>(Bytes::from(buf)), (file, left.saturating_sub(read))))
            }
            Err(e) => Some((Err(e), (file, 0))),
        }
    });
    Body::from_stream(chunks)
}

/// The answer to a range past the end: 416 with the length.
fn unsatisfiable(len: u64) -> Response {
    let mut response = ApiError::new(StatusCode::RANGE_NOT_SATISFIABLE, "Range not satisfiable").into_response();
    if let Ok(value) = HeaderValue::from_str(&format!("bytes */{len}")) {
        response.headers_mut().insert(header::CONTENT_RANGE, value);
    }
    platform::http::tenant_content_headers(response.headers_mut());
    response
}

/// A file a browser cannot play, sent as constant-bitrate MP3 encoded by
/// ffmpeg as it is read. Its length follows from the duration, so ranges
/// work: a range is encoded from the second its first byte stands for
/// (`catalog_core::transcode`). The body is exactly the announced length:
/// cut when ffmpeg writes more, padded with zero bytes (which MP3 decoders
/// skip) when it writes less. ffmpeg is killed when the client goes away.
fn transcoded(ffmpeg: &Ffmpeg, file: &StreamFile, headers: &HeaderMap) -> Result<Response, ApiError> {
    let len = transcode::transcoded_len(file.duration_ms);
    let (status, start, count) = match byte_range(headers.get(header::RANGE).and_then(|v| v.to_str().ok()), len) {
        ByteRange::Full => (StatusCode::OK, 0, len),
        ByteRange::Partial { start, end } => (StatusCode::PARTIAL_CONTENT, start, end - start + 1),
        ByteRange::Unsatisfiable => return Ok(unsatisfiable(len)),
    };
    let command = ffmpeg.mp3_command(&file.path, transcode::start_second(start), None);
    let mut response = Response::new(encoded_body(command, count)?);
    *response.status_mut() = status;
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(transcode::TRANSCODED_MIME));
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(count));
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=3600"));
    platform::http::tenant_content_headers(h);
    if status == StatusCode::PARTIAL_CONTENT
        && let Ok(value) = HeaderValue::from_str(&format!("bytes {start}-{}/{len}", start + count - 1))
    {
        h.insert(header::CONTENT_RANGE, value);
    }
    Ok(response)
}

/// The output of an encoding `command`, exactly `count` bytes long: cut
/// when ffmpeg writes more, padded with zero bytes (which MP3 decoders
/// skip) when it writes less. ffmpeg is killed when the body is dropped.
fn encoded_body(command: std::process::Command, count: u64) -> Result<Body, ApiError> {
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let mut child = command.spawn().map_err(|e| CatalogError::Audio(format!("ffmpeg could not start: {e}")))?;
    let stdout = child.stdout.take().ok_or_else(|| CatalogError::Internal("ffmpeg has no output".to_owned()))?;
    let chunks = futures_util::stream::unfold((Some(stdout), count, Some(child)), |(out, left, child)| async move {
        if left == 0 {
            return None;
        }
        let want = usize::try_from(left.min(CHUNK)).unwrap_or(64 * 1024);
        let mut buf = vec![0_u8; want];
        let read = match out {
            Some(mut out) => match out.read(&mut buf).await {
                Ok(0) | Err(_) => (0, None),
                Ok(n) => (n, Some(out)),
            },
            None => (0, None),
        };
        // ffmpeg finished early: pad with zeros up to the announced length.
        let (n, out) = if read.0 == 0 { (want, None) } else { read };
        buf.truncate(n);
        let sent = u64::try_from(n).unwrap_or(left);
        Some((Ok::<_, std::io::Error>(Bytes::from(buf)), (out, left.saturating_sub(sent), child)))
    });
    Ok(Body::from_stream(chunks))
}

/// `GET /preview/{id}?signature=`: 30 seconds of the track (its
/// `preview_url`), cut from a WAV or MP3 file or encoded as MP3 by ffmpeg;
/// always whole (no ranges: a preview is small).
pub async fn preview(State(s): State<AppState>, Path(id): Path<String>, q: Query) -> Result<Response, ApiError> {
    let id = parse_id(&id, ItemKind::Track)?;
    let file = s.catalog.open_preview(&id, q.get("signature").unwrap_or("")).await?;
    let (body, len, mime) = match file.source {
        PreviewSource::Wav { header, offset, len } => {
            let mut handle = tokio::fs::File::open(&file.path).await.map_err(not_found)?;
            handle.seek(std::io::SeekFrom::Start(offset)).await.map_err(CatalogError::Io)?;
            let head_len = u64::try_from(header.len()).unwrap_or(0);
            let head = futures_util::stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(header)) });
            let body = Body::from_stream(
                head.chain(file_body(handle, len).into_data_stream().map(|r| r.map_err(std::io::Error::other))),
            );
            (body, head_len + len, "audio/wav".to_owned())
        }
        PreviewSource::Bytes { offset, len, mime } => {
            let mut handle = tokio::fs::File::open(&file.path).await.map_err(not_found)?;
            handle.seek(std::io::SeekFrom::Start(offset)).await.map_err(CatalogError::Io)?;
            (file_body(handle, len), len, mime)
        }
        PreviewSource::Transcode { ffmpeg, start_ms, len_ms } => {
            let len = transcode::transcoded_len(len_ms);
            let command = ffmpeg.mp3_command(&file.path, start_ms as f64 / 1_000.0, Some(len_ms as f64 / 1_000.0));
            (encoded_body(command, len)?, len, transcode::TRANSCODED_MIME.to_owned())
        }
    };
    let mut response = Response::new(body);
    let h = response.headers_mut();
    if let Ok(mime) = HeaderValue::from_str(&mime) {
        h.insert(header::CONTENT_TYPE, mime);
    }
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=86400"));
    platform::http::tenant_content_headers(h);
    Ok(response)
}

fn not_found(e: std::io::Error) -> CatalogError {
    if e.kind() == std::io::ErrorKind::NotFound { CatalogError::NotFound("track") } else { CatalogError::Io(e) }
}

/// `GET /stream/{id}?expires=&signature=`: the track's audio file, whole
/// (200) or one byte range (206), 416 for a range past its end.
pub async fn stream(
    State(s): State<AppState>,
    Path(id): Path<String>,
    q: Query,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = parse_id(&id, ItemKind::Track)?;
    let link = StreamLink {
        expires: q.integer("expires")?.unwrap_or(0),
        signature: q.get("signature").unwrap_or("").to_owned(),
    };
    let file = s.catalog.open_stream(&id, &link).await?;
    if let Some(ffmpeg) = &file.transcode {
        return transcoded(ffmpeg, &file, &headers);
    }
    let mut handle = tokio::fs::File::open(&file.path).await.map_err(not_found)?;
    let len = handle.metadata().await.map_err(CatalogError::Io)?.len();
    let range = byte_range(headers.get(header::RANGE).and_then(|v| v.to_str().ok()), len);
    let (status, start, count) = match range {
        ByteRange::Full => (StatusCode::OK, 0, len),
        ByteRange::Partial { start, end } => (StatusCode::PARTIAL_CONTENT, start, end - start + 1),
        ByteRange::Unsatisfiable => return Ok(unsatisfiable(len)),
    };
    if start > 0 {
        handle.seek(std::io::SeekFrom::Start(start)).await.map_err(CatalogError::Io)?;
    }
    let mut response = Response::new(file_body(handle, count));
    *response.status_mut() = status;
    let h = response.headers_mut();
    if let Ok(mime) = HeaderValue::from_str(&file.mime) {
        h.insert(header::CONTENT_TYPE, mime);
    }
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(count));
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, max-age=3600"));
    // The file's bytes are whatever was scanned: sandboxed, never sniffed.
    platform::http::tenant_content_headers(h);
    if status == StatusCode::PARTIAL_CONTENT
        && let Ok(value) = HeaderValue::from_str(&format!("bytes {start}-{}/{len}", start + count - 1))
    {
        h.insert(header::CONTENT_RANGE, value);
    }
    Ok(response)
}
