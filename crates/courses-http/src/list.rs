//! Lists streamed straight from the store: `{"object":"list","data":[...],
//! "pagination":{"limit","offset","hasMore"}}`, written item by item so a
//! page of any `limit` is never held in memory.

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use courses_core::ListItem;
use courses_core::courses::ListRequest;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::ApiError;

struct Cursor<T> {
    rx: mpsc::Receiver<ListItem<T>>,
    pending: Option<ListItem<T>>,
    first: bool,
    done: bool,
}

const OPEN: &str = "{\"object\":\"list\",\"data\":[";

pub async fn stream_list<T: Send + 'static>(
    mut rx: mpsc::Receiver<ListItem<T>>,
    page: ListRequest,
    to_wire: fn(&T) -> Value,
) -> Result<Response, ApiError> {
    // A failure before the first item still gets a proper error response.
    let first = rx.recv().await;
    let pending = match first {
        Some(ListItem::Failed(err)) => return Err(courses_core::CoursesError::Store(err).into()),
        None => return Err(courses_core::CoursesError::Internal("the list ended without a result".to_owned()).into()),
        Some(item) => Some(item),
    };
    let cursor = Cursor { rx, pending, first: true, done: false };
    let stream = futures_util::stream::unfold(cursor, move |mut cursor| async move {
        if cursor.done {
            return None;
        }
        let next = match cursor.pending.take() {
            Some(item) => Some(item),
            None => cursor.rx.recv().await,
        };
        let open = if cursor.first { OPEN } else { "" };
        let chunk = match next {
            Some(ListItem::Item(item)) => {
                let sep = if cursor.first { "" } else { "," };
                cursor.first = false;
                let json = serde_json::to_string(&to_wire(&item)).unwrap_or_else(|_| "null".to_owned());
                Ok(Bytes::from(format!("{open}{sep}{json}")))
            }
            Some(ListItem::End { has_more }) => {
                cursor.done = true;
                Ok(Bytes::from(format!(
                    "{open}],\"pagination\":{{\"limit\":{},\"offset\":{},\"hasMore\":{has_more}}}}}",
                    page.limit, page.offset
                )))
            }
            Some(ListItem::Failed(err)) => {
                cursor.done = true;
                tracing::error!(error = %err, "a streamed list failed midway");
                Err(std::io::Error::other("the list could not be completed"))
            }
            None => {
                cursor.done = true;
                Err(std::io::Error::other("the list ended early"))
            }
        };
        Some((chunk, cursor))
    });
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        Body::from_stream(stream),
    )
        .into_response())
}
