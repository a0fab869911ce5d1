//! The one `check` helper every data-driven case goes through, and small
//! document builders for inline fixtures.

use std::path::PathBuf;

use diff::{ChangeKind, Report};

pub fn parse(text: &str) -> spec::Spec {
    spec::parse(text.as_bytes()).unwrap_or_else(|err| panic!("fixture does not parse: {err}\n{text}"))
}

/// Diffs `old` against `new` and asserts the sorted rule ids; returns the
/// report for further assertions. Also checks the invariants every report
/// keeps: kinds match the catalogue, the summary counts them, the bump
/// follows from them.
pub fn check(old: &str, new: &str, expected: &[&str]) -> Report {
    let report = diff::diff(&parse(old), &parse(new)).expect("comparable");
    let mut rules: Vec<&str> = report.changes.iter().map(|change| change.rule).collect();
    rules.sort_unstable();
    let mut expected: Vec<&str> = expected.to_vec();
    expected.sort_unstable();
    assert_eq!(rules, expected, "\nold:\n{old}\nnew:\n{new}\nchanges: {:#?}", report.changes);
    invariants(&report);
    report
}

pub fn invariants(report: &Report) {
    for change in &report.changes {
        let rule = diff::rule(change.rule).expect("rule in the catalogue");
        assert_eq!(rule.kind, change.kind, "{}", change.rule);
    }
    let count = |kind| report.changes.iter().filter(|change| change.kind == kind).count();
    assert_eq!(report.summary.breaking, count(ChangeKind::Breaking));
    assert_eq!(report.summary.additive, count(ChangeKind::Additive));
    assert_eq!(report.summary.cosmetic, count(ChangeKind::Cosmetic));
    let expected_bump = if report.summary.breaking > 0 {
        diff::Bump::Major
    } else if report.summary.additive > 0 {
        diff::Bump::Minor
    } else {
        diff::Bump::Patch
    };
    assert_eq!(report.bump, expected_bump);
    assert_eq!(report.has_breaking(), report.summary.breaking > 0);
}

/// An OpenAPI 3.0 document with these `paths` (YAML, flow style welcome)
/// and optional `components`.
pub fn oas(paths: &str, components: &str) -> String {
    let mut doc = String::from("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n");
    for line in paths.lines() {
        doc.push_str("  ");
        doc.push_str(line);
        doc.push('\n');
    }
    if !components.is_empty() {
        doc.push_str("components:\n");
        for line in components.lines() {
            doc.push_str("  ");
            doc.push_str(line);
            doc.push('\n');
        }
    }
    doc
}

/// `GET /pets` answering 200 with this JSON schema.
pub fn response(schema: &str) -> String {
    oas(
        &format!(
            "/pets: {{get: {{responses: {{'200': {{description: ok, content: {{application/json: {{schema: {schema}}}}}}}}}}}}}"
        ),
        "",
    )
}

/// `POST /pets` taking a required JSON body with this schema.
pub fn request(schema: &str) -> String {
    oas(
        &format!(
            "/pets: {{post: {{requestBody: {{required: true, content: {{application/json: {{schema: {schema}}}}}}}, responses: {{'204': {{description: ok}}}}}}}}"
        ),
        "",
    )
}

/// `GET /pets` with these parameters (a flow list) and a 204.
pub fn params(list: &str) -> String {
    oas(&format!("/pets: {{get: {{parameters: {list}, responses: {{'204': {{description: ok}}}}}}}}"), "")
}

/// The shared collection of real descriptions, or `None` with a message.
pub fn shared_specs() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/specs");
    if root.is_dir() {
        Some(root)
    } else {
        eprintln!("skipping: the shared specs are not at {}", root.display());
        None
    }
}
