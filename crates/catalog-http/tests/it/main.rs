//! The catalog's integration suite: the real router in-process, every
//! scenario on a fresh SQLite file and again on a fresh PostgreSQL database.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    reason = "a test fails loudly on an unexpected shape; that is its job"
)]

mod admin;
mod catalog_reads;
mod developer;
mod fidelity;
mod formats;
mod landing;
mod library;
mod limits;
mod oauth;
mod parsers;
mod player;
mod security;
mod spoken;
mod spotify_schema;
mod support;
