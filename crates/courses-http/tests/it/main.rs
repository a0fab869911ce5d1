//! The courses service's integration suite: the real router in-process,
//! every scenario on a fresh SQLite file and again on a fresh PostgreSQL
//! database.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    reason = "a test fails loudly on an unexpected shape; that is its job"
)]

mod auth;
mod content;
mod embed;
mod generate;
mod landing;
mod learners;
mod mcp;
mod openapi;
mod plans;
mod scorm;
mod security;
mod studio;
mod support;
mod webhooks;
