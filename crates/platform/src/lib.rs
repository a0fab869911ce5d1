//! Plumbing shared by the services, with no domain knowledge.
//!
//! `platform` owns the database pools and embedded migrations for SQLite and
//! PostgreSQL, the HTTP kit (request ids, tracing, health and readiness,
//! Prometheus metrics, bounded body reading, graceful shutdown), outbound
//! HTTP with a guard against server-side request forgery, scheduled
//! jobs with a cross-node lease, and the cryptographic helpers every service
//! needs (hashing, random tokens, constant-time comparison). It knows nothing
//! about projects, tracks or courses: the `*-core` crates own those, and wire
//! envelopes belong to the `*-http` crates.

pub mod blobs;
pub mod crypto;
pub mod db;
pub mod document_cache;
pub mod embeddings;
#[cfg(test)]
mod fuzz_tests;
pub mod http;
pub mod jobs;
pub mod limiter;
pub mod llm;
pub mod mail;
pub mod net;
pub mod outbound;
pub mod passwords;
pub mod secrets;
pub mod telemetry;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod throttle;
pub mod web;

pub use db::{Backend, Db, DbError, Migrations};
