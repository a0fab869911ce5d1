//! Integration tests for the `spec` crate, one binary to keep link time low.

// Test helpers outside `#[test]` functions fail loudly on unexpected input,
// which is what a test should do.
#![expect(clippy::expect_used, clippy::indexing_slicing, reason = "test helpers panic on purpose")]

mod bad_inputs;
mod corpus;
mod fixtures;
mod graphql;
mod never_panics;
mod shared_specs;
mod support;
