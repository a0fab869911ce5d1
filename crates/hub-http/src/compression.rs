//! Response compression for the hosted docs (pages, assets, the search
//! index, downloads, the Try-It relay's answers) and the JSON API: gzip or
//! brotli as the request's `Accept-Encoding` prefers, `Vary:
//! Accept-Encoding` on every answer that could be compressed.
//!
//! Not for the hosted mock: its answers are the tenant's content, sent as
//! fast as possible, and it sits outside these routers. Request bodies
//! (spec uploads) are never touched: this compresses answers only.

use tower_http::compression::predicate::{NotForContentType, Predicate, SizeAbove};
use tower_http::compression::{CompressionLayer, CompressionLevel};

/// Answers smaller than this are sent as they are: the headers would eat
/// most of the gain.
pub const MIN_BYTES: u16 = 1024;

/// Brotli's default (11) costs tens of milliseconds on a 100 KB page; 5
/// compresses about as fast as gzip's default and still smaller. gzip at 5
/// is within a few per cent of its default size.
const LEVEL: i32 = 5;

/// The layer for the docs and API routers.
#[must_use]
pub fn layer() -> CompressionLayer<impl Predicate> {
    let predicate = SizeAbove::new(MIN_BYTES)
        .and(NotForContentType::GRPC)
        .and(NotForContentType::IMAGES)
        .and(NotForContentType::SSE)
        // Already compressed (SDK archives).
        .and(NotForContentType::const_new("application/zip"))
        .and(NotForContentType::const_new("application/gzip"));
    CompressionLayer::new().quality(CompressionLevel::Precise(LEVEL)).compress_when(predicate)
}
