//! IO-free vocabulary shared by every crate of the workspace.
//!
//! `kernel` owns the small types that several crates must agree on: instants
//! and the clock that produces them, page requests and pages, redacted secrets
//! and the store error. It performs no I/O and depends on nothing heavier than
//! `chrono` and `serde`; it must never depend on tokio, axum, sqlx or reqwest.

pub mod clock;
pub mod page;
pub mod secret;
pub mod store;

pub use clock::{Clock, ManualClock, SystemClock, Timestamp};
pub use page::{Page, PageRequest};
pub use secret::Secret;
pub use store::StoreError;
