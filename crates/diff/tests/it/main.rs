//! Integration tests for the `diff` crate, one binary to keep link time low.

// Test helpers fail loudly on unexpected input, which is what a test should do.
#![expect(clippy::expect_used, clippy::unwrap_used, reason = "tests panic on purpose")]

mod cases;
mod false_positives;
mod graphql;
mod identity;
mod pairs;
mod support;
