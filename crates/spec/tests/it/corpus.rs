//! The bulk corpus from `fetch-corpus.sh` (APIs.guru, GitHub REST and
//! GraphQL): every document parses, except the few listed in
//! `KNOWN_INVALID`, each of which is explained in `CORPUS.md`.
//!
//! Run with `SPEC_CORPUS_DIR=target/spec-corpus` (relative to the workspace
//! or absolute); skipped when unset.

use std::collections::BTreeMap;
use std::path::PathBuf;

use spec::SpecErrorKind as K;

/// Documents in the corpus that really are invalid, with the error they get.
const KNOWN_INVALID: &[(&str, K)] = &[
    // GitHub's GraphQL introspection result (JSON), not SDL and not an
    // OpenAPI document; the same schema's SDL in the corpus parses.
    ("octokit-graphql-schema--schema.json", K::NotASpec),
];

fn corpus_dir() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("SPEC_CORPUS_DIR") else {
        eprintln!("skipping: SPEC_CORPUS_DIR is not set (see scripts/fetch-corpus.sh)");
        return None;
    };
    let dir = PathBuf::from(dir);
    // `cargo test` runs in the crate folder; accept paths relative to the
    // workspace root as well.
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    [dir.clone(), workspace.join(&dir)].into_iter().find(|candidate| candidate.join("manifest.tsv").is_file()).or_else(
        || {
            eprintln!("skipping: no manifest.tsv in {}", dir.display());
            None
        },
    )
}

#[test]
fn corpus_parses() {
    let Some(dir) = corpus_dir() else { return };
    let manifest = std::fs::read_to_string(dir.join("manifest.tsv")).expect("readable manifest");
    // The `.deref` GitHub variants inline every reference and weigh 63-78 MB,
    // beyond the 50 MB upload limit; parse them anyway to prove the parser
    // copes, with only the size limit raised.
    let limits = spec::Limits { max_bytes: 128 * 1024 * 1024, ..spec::Limits::default() };
    let mut ok = 0usize;
    let mut operations = 0usize;
    let mut by_format: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut failures: Vec<(String, spec::SpecError)> = Vec::new();
    for line in manifest.lines().skip(1) {
        let Some(relative) = line.split('\t').next().filter(|p| !p.is_empty()) else {
            continue;
        };
        let bytes = std::fs::read(dir.join(relative)).expect("corpus file");
        match spec::parse_with(&bytes, &limits) {
            Ok(parsed) => {
                ok += 1;
                operations += parsed.operation_count();
                *by_format.entry(parsed.format.as_str()).or_default() += 1;
            }
            Err(err) => failures.push((relative.to_owned(), err)),
        }
    }
    println!("corpus: {ok} ok ({operations} operations; {by_format:?}), {} failed", failures.len());
    let mut unexpected = Vec::new();
    for (file, err) in &failures {
        println!("  failed {file}: [{}] {err}", err.kind);
        let name = file.rsplit('/').next().unwrap_or(file);
        if !KNOWN_INVALID.iter().any(|(known, kind)| *known == name && *kind == err.kind) {
            unexpected.push(file.as_str());
        }
    }
    assert!(unexpected.is_empty(), "unexpected failures: {unexpected:#?}");
    assert!(ok > 2_000, "too few documents parsed: {ok}");
}
