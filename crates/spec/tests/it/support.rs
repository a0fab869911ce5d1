//! Helpers shared by the test modules.

use std::path::PathBuf;

/// The team's shared spec collection, reached relative to the crate so no
/// machine-specific path is written down. `None` (with a message) when the
/// checkout does not have it next to the repository.
pub fn shared_specs() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/specs");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: ../shared/specs not found");
        None
    }
}

/// Files of one folder of the shared collection, sorted, without READMEs.
pub fn files_in(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.is_file() && path.extension().is_none_or(|ext| ext != "md"))
        .collect();
    files.sort();
    files
}

pub fn parse_str(text: &str) -> Result<spec::Spec, spec::SpecError> {
    spec::parse(text.as_bytes())
}

pub fn parse_ok(text: &str) -> spec::Spec {
    parse_str(text).unwrap_or_else(|err| panic!("expected to parse, got {err:?}"))
}

pub fn parse_err(text: &str) -> spec::SpecError {
    match parse_str(text) {
        Ok(spec) => panic!("expected an error, parsed {} operations", spec.operation_count()),
        Err(err) => err,
    }
}
