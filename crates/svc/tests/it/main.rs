//! Tests that drive the real `svc` binary as separate processes: the command
//! contract, graceful shutdown, and several nodes sharing one PostgreSQL.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    reason = "a test fails loudly on an unexpected shape; that is its job"
)]

mod bounded;
mod commands;
mod mock;
mod multinode;
mod push;
mod support;
