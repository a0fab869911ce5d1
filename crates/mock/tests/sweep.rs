//! Every operation of every description under `../shared/specs` (and of a
//! fetched corpus when `MOCK_SWEEP_CORPUS` names one) answered by the mock:
//! each generated REST body validates against its own response schema with
//! a JSON Schema validator, and each GraphQL root field answers a generated
//! query without errors and with every selected field present.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, reason = "test code")]

use std::path::{Path, PathBuf};

use mock::schema::{SchemaSet, issues};
use mock::{Context, Engine, Request, Settings};
use rand::SeedableRng as _;
use serde_json::{Value, json};

fn shared_specs() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/specs");
    dir.is_dir().then_some(dir)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "bad") {
                continue;
            }
            files(&path, out);
        } else if matches!(path.extension().and_then(|e| e.to_str()), Some("json" | "yaml" | "yml" | "graphql")) {
            out.push(path);
        }
    }
}

#[derive(Default)]
struct Tally {
    specs: usize,
    operations: usize,
    validated: usize,
    failures: Vec<String>,
    /// Failures of operations listed in `corpus-faults.txt`: responses no
    /// value can satisfy as the description is written.
    known: Vec<String>,
}

/// The reviewed list of description faults in the fetched corpus: lines of
/// `file<TAB>METHOD /path` (or `*` for every operation of the file) and a
/// reason. The corpus is pinned by the fetch script, so the list is stable.
fn known_faults() -> Vec<(String, String)> {
    include_str!("corpus-faults.txt")
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let mut fields = line.split('\t');
            Some((fields.next()?.to_owned(), fields.next()?.to_owned()))
        })
        .collect()
}

fn is_known(path: &Path, operation: &str) -> bool {
    let Some(file) = path.file_name().and_then(|n| n.to_str()) else { return false };
    thread_local! {
        static FAULTS: Vec<(String, String)> = known_faults();
    }
    FAULTS.with(|faults| faults.iter().any(|(f, op)| f == file && (op == "*" || op == operation)))
}

/// Fills a path template's parameters with plain values.
fn concrete_path(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some((before, after)) = rest.split_once('{') {
        out.push_str(before);
        let Some((_, tail)) = after.split_once('}') else { break };
        out.push('1');
        rest = tail;
    }
    out.push_str(rest);
    out
}

fn sweep_rest(path: &Path, spec: spec::Spec, source: &str, tally: &mut Tally) {
    let set = SchemaSet::new(&spec);
    let engine = Engine::compile(spec.clone(), source).unwrap();
    let settings = Settings::default();
    let headers = http::HeaderMap::new();
    for operation in &spec.operations {
        tally.operations += 1;
        let method = http::Method::from_bytes(operation.method.as_str().as_bytes()).unwrap();
        let request_path = concrete_path(&operation.path);
        let request = Request { method: &method, path: &request_path, query: "", headers: &headers, body: b"" };
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let mut ctx = Context { now: chrono::Utc::now(), rng: &mut rng, sequence: None, version: "v" };
        let reply = engine.respond(&request, &settings, &mut ctx);
        let label = format!("{}: {} {}", path.display(), operation.method, operation.path);
        let documented = operation.responses.contains_key(&reply.status.as_u16().to_string());
        if (reply.status.as_u16() == 404 || reply.status.as_u16() == 405) && !documented {
            // Another template of the description claims this concrete path
            // (`/a/{x}` beside `/a/b`), which is the router's right choice.
            let routed = engine.route(&method, &request_path).map(|r| r.template);
            if routed.as_deref() == Some(operation.path.as_str()) {
                tally.failures.push(format!("{label}: answered {}", reply.status));
            }
            continue;
        }
        if reply.synth() != Some("schema-walk") {
            continue;
        }
        let routed = engine.route(&method, &request_path).unwrap();
        if routed.template != operation.path {
            continue;
        }
        let code = reply.status.as_u16().to_string();
        let response = operation
            .responses
            .get(&code)
            .or_else(|| operation.responses.get(&format!("{}XX", &code[..1])))
            .or_else(|| operation.responses.get("default"));
        let Some(response) = response else { continue };
        let content_type = reply.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
        let Some(media) = response.content.get(content_type) else { continue };
        let Some(schema) = &media.schema else { continue };
        let body: Value = match serde_json::from_slice(&reply.body) {
            Ok(body) => body,
            Err(_) => Value::String(String::from_utf8_lossy(&reply.body).into_owned()),
        };
        let Some(validator) = set.validator(&spec, schema) else { continue };
        tally.validated += 1;
        let found = issues(&validator, &body, "body");
        if !found.is_empty() {
            let shown = body.to_string();
            let shown = shown.get(..300).unwrap_or(&shown);
            let failure = format!("{label}: {found:?}\n    body: {shown}");
            if is_known(path, &format!("{} {}", operation.method, operation.path)) {
                tally.known.push(failure);
            } else {
                tally.failures.push(failure);
            }
        }
    }
}

/// A query selecting every scalar field of a type, two levels deep, with
/// required arguments filled from their types.
fn selection(model: &spec::GraphQlModel, type_name: &str, depth: usize) -> String {
    let Some(ty) = model.types.get(type_name) else { return String::new() };
    if !ty.members.is_empty() {
        return "{ __typename }".to_owned();
    }
    let mut fields = vec!["__typename".to_owned()];
    for field in ty.fields.iter().take(25) {
        if field.args.iter().any(|a| a.ty.is_non_null() && a.default_value.is_none()) {
            continue;
        }
        let inner = field.ty.named();
        match model.types.get(inner).map(|t| t.kind) {
            Some(spec::GraphQlTypeKind::Object | spec::GraphQlTypeKind::Interface | spec::GraphQlTypeKind::Union) => {
                if depth > 0 {
                    fields.push(format!("{} {}", field.name, selection(model, inner, depth - 1)));
                }
            }
            _ => fields.push(field.name.clone()),
        }
    }
    format!("{{ {} }}", fields.join(" "))
}

fn literal(model: &spec::GraphQlModel, ty: &spec::TypeRef, depth: usize) -> String {
    match ty {
        spec::TypeRef::NonNull(inner) => return literal(model, inner, depth),
        spec::TypeRef::List(inner) => return format!("[{}]", literal(model, inner, depth)),
        spec::TypeRef::Named(_) => {}
    }
    match model.types.get(ty.named()) {
        Some(t) if t.kind == spec::GraphQlTypeKind::Enum => {
            t.enum_values.first().map(|v| v.name.clone()).unwrap_or_default()
        }
        Some(t) if t.kind == spec::GraphQlTypeKind::InputObject && depth < 4 => {
            let fields: Vec<String> = t
                .input_fields
                .iter()
                .filter(|f| f.ty.is_non_null() && f.default_value.is_none())
                .map(|f| format!("{}: {}", f.name, literal(model, &f.ty, depth + 1)))
                .collect();
            format!("{{ {} }}", fields.join(", "))
        }
        _ => match ty.named() {
            "Int" => "1".to_owned(),
            "Float" => "1.5".to_owned(),
            "Boolean" => "true".to_owned(),
            _ => "\"1\"".to_owned(),
        },
    }
}

fn sweep_graphql(path: &Path, spec: spec::Spec, source: &str, tally: &mut Tally) {
    let engine = mock::GraphQlEngine::new(source).unwrap();
    let model = spec.graphql.as_ref().unwrap();
    for (keyword, fields) in [("query", &model.queries), ("mutation", &model.mutations)] {
        for field in fields.iter() {
            tally.operations += 1;
            let args: Vec<String> = field
                .args
                .iter()
                .filter(|a| a.ty.is_non_null() && a.default_value.is_none())
                .map(|a| format!("{}: {}", a.name, literal(model, &a.ty, 0)))
                .collect();
            let args = if args.is_empty() { String::new() } else { format!("({})", args.join(", ")) };
            let inner = field.ty.named();
            let sub = match model.types.get(inner).map(|t| t.kind) {
                Some(
                    spec::GraphQlTypeKind::Object | spec::GraphQlTypeKind::Interface | spec::GraphQlTypeKind::Union,
                ) => selection(model, inner, 1),
                _ => String::new(),
            };
            let query = format!("{keyword} {{ {}{args} {sub} }}", field.name);
            let out = engine.execute(&json!({ "query": query }));
            tally.validated += 1;
            if out.get("errors").is_some() || out["data"].get(&field.name).is_none() {
                let shown = out.to_string();
                tally.failures.push(format!("{}: {query}\n    {}", path.display(), shown.get(..400).unwrap_or(&shown)));
            }
        }
    }
}

fn sweep(dir: &Path) -> Tally {
    let mut paths = Vec::new();
    files(dir, &mut paths);
    let mut tally = Tally::default();
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(spec) = spec::parse(&bytes) else { continue };
        let source = spec::decode(&bytes).unwrap();
        tally.specs += 1;
        if spec.format.is_rest() {
            sweep_rest(&path, spec, &source, &mut tally);
        } else {
            sweep_graphql(&path, spec, &source, &mut tally);
        }
    }
    tally
}

fn report(tally: &Tally) {
    eprintln!(
        "swept {} descriptions, {} operations, {} responses validated, {} failures ({} more in operations listed as description faults)",
        tally.specs,
        tally.operations,
        tally.validated,
        tally.failures.len(),
        tally.known.len()
    );
    // `MOCK_SWEEP_ALL=1` lists every failure, for working through a corpus.
    let shown = if std::env::var_os("MOCK_SWEEP_ALL").is_some() { usize::MAX } else { 40 };
    for failure in tally.failures.iter().take(shown) {
        eprintln!("  {failure}");
    }
    // The listed faults too, to keep the list to operations that still fail.
    if std::env::var_os("MOCK_SWEEP_ALL").is_some() {
        for failure in &tally.known {
            eprintln!("  listed: {failure}");
        }
    }
}

#[test]
fn every_operation_of_the_shared_specs_answers_valid_bodies() {
    let Some(dir) = shared_specs() else {
        eprintln!("skipped: ../shared/specs is not beside the checkout");
        return;
    };
    let tally = sweep(&dir);
    report(&tally);
    assert!(tally.validated > 1000, "the sweep validated too little: {}", tally.validated);
    assert!(tally.failures.is_empty(), "{} responses do not match their schemas", tally.failures.len());
}

#[test]
fn every_operation_of_the_fetched_corpus_answers_valid_bodies() {
    let Some(dir) = std::env::var_os("MOCK_SWEEP_CORPUS").map(PathBuf::from) else {
        eprintln!("skipped: set MOCK_SWEEP_CORPUS to a fetched corpus directory");
        return;
    };
    let tally = sweep(&dir);
    report(&tally);
    assert!(tally.failures.is_empty(), "{} responses do not match their schemas", tally.failures.len());
}
