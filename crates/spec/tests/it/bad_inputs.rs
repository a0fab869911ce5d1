//! Every broken input is refused with the right kind, a message that names
//! the problem, and a location where the syntax has one. Speed is measured
//! by the benchmark script, not asserted here.

use spec::SpecErrorKind as K;

use crate::support::{files_in, shared_specs};

struct Expect {
    kind: K,
    /// Substrings the message must contain.
    mentions: &'static [&'static str],
    located: bool,
}

fn expectation(file: &str) -> Option<Expect> {
    let (kind, mentions, located): (K, &'static [&'static str], bool) = match file {
        "alias-bomb.yaml" => (K::TooManyAliases, &["alias"], true),
        "binary.bin" => (K::NotText, &["binary"], false),
        "circular-ref.yaml" => (K::CyclicReference, &["#/components/"], false),
        "deep-nesting.json" => (K::TooDeep, &["nested"], true),
        "duplicate-keys.yaml" => (K::DuplicateKey, &["/pets"], true),
        "empty.json" | "empty.yaml" => (K::Empty, &["empty"], false),
        "github-schema-15.26.1.duplicate-fields.graphql" => {
            (K::InvalidGraphQl, &["EnterpriseOwnerInfo", "repositoryDeployKeySetting"], true)
        }
        "invalid-utf8.yaml" => (K::NotText, &["utf-8"], true),
        "not-a-spec.json" | "not-a-spec.yaml" => (K::NotASpec, &["openapi", "swagger"], false),
        "truncated.graphql" => (K::Syntax, &["graphql"], true),
        "truncated.json" => (K::Syntax, &["json"], true),
        "unresolvable-ref.yaml" => (K::InvalidReference, &["#/components/"], false),
        // Legitimate UTF-16 (moved to edge/ in the collection's notes).
        "utf16le-bom.yaml" => return None,
        other => panic!("no expectation for bad/{other}; add one"),
    };
    Some(Expect { kind, mentions, located })
}

#[test]
fn every_bad_input_is_refused_precisely() {
    let Some(root) = shared_specs() else { return };
    for path in files_in(&root.join("bad")) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        let bytes = std::fs::read(&path).expect("readable");
        let result = spec::parse(&bytes);
        let Some(expect) = expectation(&name) else {
            assert!(result.is_ok(), "{name}: {result:?}");
            continue;
        };
        let err = match result {
            Ok(_) => panic!("{name} parsed but should not"),
            Err(err) => err,
        };
        assert_eq!(err.kind, expect.kind, "{name}: {err}");
        for needle in expect.mentions {
            assert!(err.message.contains(needle), "{name}: `{}` lacks `{needle}`", err.message);
        }
        assert!(!err.message.ends_with('.'), "{name}: message ends with a period");
        if expect.located {
            assert!(err.line.is_some() && err.column.is_some(), "{name}: no location in {err:?}");
            assert!(err.to_string().contains(", column "), "{name}: {err}");
        }
    }
}

#[test]
fn truncated_inputs_point_at_the_cut() {
    let Some(root) = shared_specs() else { return };
    let json = spec::parse(&std::fs::read(root.join("bad/truncated.json")).expect("readable"));
    assert_eq!(json.err().and_then(|e| e.line), Some(119));
    let sdl = spec::parse(&std::fs::read(root.join("bad/truncated.graphql")).expect("readable"));
    assert!(sdl.err().and_then(|e| e.line).is_some());
}

#[test]
fn every_cycle_in_circular_ref_is_found() {
    // The shared file has several cycles; each on its own must be refused.
    let cycles = [
        (
            "schemas",
            "A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/C'}\n    C: {$ref: '#/components/schemas/A'}",
        ),
        ("schemas", "Self: {$ref: '#/components/schemas/Self'}"),
        ("responses", "R1: {$ref: '#/components/responses/R2'}\n    R2: {$ref: '#/components/responses/R1'}"),
    ];
    for (section, body) in cycles {
        let doc = format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths: {{}}\ncomponents:\n  {section}:\n    {body}\n"
        );
        let err = crate::support::parse_err(&doc);
        assert_eq!(err.kind, K::CyclicReference, "{doc}\n{err}");
        assert!(err.message.contains(" -> "), "{err}");
    }
    let path_item = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /self: {$ref: '#/paths/~1self'}\n";
    assert_eq!(crate::support::parse_err(path_item).kind, K::CyclicReference);
}

#[test]
fn size_limit_is_checked_first() {
    let limits = spec::Limits { max_bytes: 10, ..spec::Limits::default() };
    let err = spec::parse_with(b"openapi: 3.0.0\ninfo: {}\n", &limits).err();
    assert_eq!(err.map(|e| e.kind), Some(K::TooLarge));
}

#[test]
fn external_references_are_refused_by_name() {
    let doc = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A: {$ref: 'other.yaml#/B'}\n";
    let err = crate::support::parse_err(doc);
    assert_eq!(err.kind, K::ExternalReference);
    assert!(err.message.contains("other.yaml#/B"), "{err}");
}

#[test]
fn unsupported_versions_are_named() {
    let err = crate::support::parse_err("swagger: '1.2'\ninfo: {title: t, version: '1'}\n");
    assert_eq!(err.kind, K::UnsupportedVersion);
    assert!(err.message.contains("1.2"));
    let err = crate::support::parse_err("{\"openapi\": \"4.0.0\"}");
    assert_eq!(err.kind, K::UnsupportedVersion);
}

#[test]
fn non_object_documents_are_not_specs() {
    assert_eq!(crate::support::parse_err("[1, 2]").kind, K::NotASpec);
    assert_eq!(crate::support::parse_err("just a string").kind, K::NotASpec);
    assert_eq!(crate::support::parse_err("# only a comment\n").kind, K::Empty);
    assert_eq!(crate::support::parse_err("\u{feff}  \n").kind, K::Empty);
}

#[test]
fn deep_yaml_is_refused_without_overflow() {
    let deep = format!("openapi: 3.0.3\nx-deep: {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(crate::support::parse_err(&deep).kind, K::TooDeep);
    let block: String = (0..300).map(|i| format!("{}a:\n", " ".repeat(i))).collect();
    assert_eq!(crate::support::parse_err(&block).kind, K::TooDeep);
}
