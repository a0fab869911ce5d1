//! The real before-and-after pairs in the shared collection. Each expected
//! change below was checked by reading the two files.

use diff::{Bump, Report};

use crate::support::{invariants, shared_specs};

fn pair(name: &str) -> Option<Report> {
    let root = shared_specs()?.join("pairs");
    let file = |version: &str| {
        let prefix = format!("{name}.{version}.");
        let entry = std::fs::read_dir(&root)
            .ok()?
            .map(|entry| entry.unwrap().path())
            .find(|path| path.file_name().unwrap().to_string_lossy().starts_with(&prefix))?;
        Some(spec::parse(&std::fs::read(entry).unwrap()).unwrap())
    };
    let Some((old, new)) = file("v1").zip(file("v2")) else {
        eprintln!("skipping: pair {name} is absent");
        return None;
    };
    let report = diff::diff(&old, &new).unwrap();
    invariants(&report);
    // Deterministic: the same inputs give the same report.
    assert_eq!(diff::diff(&old, &new).unwrap(), report);
    Some(report)
}

fn has(report: &Report, rule: &str, operation: Option<&str>, location: &str) {
    assert!(
        report.changes.iter().any(|change| change.rule == rule
            && change.operation.as_deref() == operation
            && change.location == location),
        "missing {rule} {operation:?} {location}; found: {:#?}",
        report.changes.iter().filter(|change| change.rule == rule).take(10).collect::<Vec<_>>()
    );
}

#[test]
fn petstore() {
    let Some(report) = pair("oai-petstore") else { return };
    assert_eq!(report.bump, Bump::Major);
    has(&report, "request-required-body-added", Some("POST /pets"), "request body");
    has(&report, "request-constraint-tightened", Some("GET /pets"), "parameter query limit");
    has(&report, "response-constraint-tightened", Some("GET /pets"), "response 200 application/json body");
    assert_eq!(report.summary.breaking, 2);
}

#[test]
fn spotify() {
    let Some(report) = pair("spotify") else { return };
    assert_eq!(report.bump, Bump::Major);
    has(&report, "request-parameter-removed", Some("PUT /me/tracks"), "parameter query ids");
    has(&report, "request-constraint-tightened", Some("GET /search"), "parameter query limit");
    has(&report, "endpoint-added", Some("GET /me/library/contains"), "endpoint");
    has(&report, "response-property-added", Some("GET /me"), "response 200 application/json body.account_id");
    // `limit` now defaults to 5 instead of 20: a call without it gets less.
    has(&report, "request-default-changed", Some("GET /search"), "parameter query limit");
    has(&report, "request-default-changed", Some("GET /artists/{id}/albums"), "parameter query limit");
    assert_eq!(report.summary.breaking, 5);
}

#[test]
fn netlify() {
    let Some(report) = pair("netlify") else { return };
    assert_eq!(report.bump, Bump::Minor);
    has(
        &report,
        "request-optional-property-added",
        Some("POST /sites/{site_id}/deploys"),
        "request body application/json body.functions_config.*.memory",
    );
    assert_eq!(report.summary.additive, 4);
}

#[test]
fn openai() {
    let Some(report) = pair("openai") else { return };
    assert_eq!(report.bump, Bump::Major);
    has(&report, "endpoint-removed", Some("GET /engines"), "endpoint");
    has(
        &report,
        "request-property-became-required",
        Some("POST /completions"),
        "request body application/json body.prompt",
    );
    has(
        &report,
        "response-became-nullable",
        Some("POST /chat/completions"),
        "response 200 application/json body.choices[].message.content",
    );
    // A response value newly restricted to an enum is a narrowing.
    has(
        &report,
        "response-constraint-tightened",
        Some("POST /chat/completions"),
        "response 200 application/json body.choices[].finish_reason",
    );
    assert_eq!(report.summary.breaking, 7);
}

#[test]
fn kubernetes() {
    let Some(report) = pair("kubernetes") else { return };
    assert_eq!(report.bump, Bump::Major);
    has(&report, "endpoint-removed", Some("GET /apis/flowcontrol.apiserver.k8s.io/v1beta2/flowschemas"), "endpoint");
    has(&report, "endpoint-added", Some("GET /apis/flowcontrol.apiserver.k8s.io/v1/flowschemas"), "endpoint");
    has(
        &report,
        "response-property-removed",
        Some("GET /api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}"),
        "response 200 application/json body.spec.resources.claims",
    );
    // Reviewed by hand: every breaking change comes from three upstream
    // removals (two API groups, `claims` from a claim's resources, `uid`
    // from a v1alpha1 ParentReference), repeated wherever the schema is used.
    assert_eq!(report.summary.breaking, 655);
    for change in report.changes.iter().filter(|change| change.kind == diff::ChangeKind::Breaking) {
        let explained = change.rule == "endpoint-removed"
            || (change.rule.ends_with("-property-removed")
                && (change.location.ends_with(".resources.claims") || change.location.ends_with(".parentRef.uid")));
        assert!(explained, "unreviewed breaking change: {change:#?}");
    }
}

#[test]
fn linear_graphql() {
    let Some(report) = pair("linear") else { return };
    assert_eq!(report.bump, Bump::Minor);
    assert_eq!(report.summary.breaking, 0);
    has(&report, "graphql-field-added", None, "EmailIntakeAddress.lastUsedAt");
    has(&report, "graphql-enum-value-added", None, "UserFlagType.agentLoopsPromoShown");
    has(&report, "graphql-type-added", None, "type NotificationSubscriptionType");
    has(&report, "graphql-optional-input-field-added", None, "OrganizationUpdateInput.defaultHomeView");
}
