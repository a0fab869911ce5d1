//! The courses core's integration tests: property tests that feed the
//! parsers of untrusted input (SCORM packages, course CSV, signed embed
//! links, the API key header) arbitrary and mutated bytes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    reason = "a test fails loudly on an unexpected shape; that is its job"
)]

mod fuzz;
