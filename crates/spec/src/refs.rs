//! Local `$ref` handling: JSON-pointer lookup, and the one pass that proves
//! every reference in a document resolves and no reference chain loops.
//!
//! References are checked, not inlined: a schema that contains itself through
//! `properties` or `items` is a legitimate recursive type, while a `$ref` whose
//! target is only another `$ref`, round and round, names nothing at all.

use std::borrow::Cow;
use std::collections::HashSet;

use indexmap::IndexMap;
use serde_json::Value;

use crate::error::{SpecError, SpecErrorKind};

/// Whether `key`'s value is a map from user-chosen names to objects: a
/// child called `example` or `x-foo` there is a name, not a keyword.
///
/// A `match` rather than a list searched with `contains`: every key of a
/// description goes through this (and [`is_literal_key`]) in each tree walk,
/// and the match compares the length before any bytes.
pub(crate) fn is_name_map(key: &str) -> bool {
    matches!(
        key,
        "properties"
            | "patternProperties"
            | "definitions"
            | "$defs"
            | "dependentSchemas"
            | "schemas"
            | "responses"
            | "parameters"
            | "requestBodies"
            | "headers"
            | "securitySchemes"
            | "links"
            | "callbacks"
            | "pathItems"
            | "paths"
            | "webhooks"
            | "content"
            | "encoding"
    )
}

/// Whether `key`'s value is literal data (or documentation), where a `$ref`
/// key is just data and must not be followed.
fn is_literal_key(key: &str) -> bool {
    matches!(key, "example" | "default" | "enum" | "const" | "$ref")
}

/// The JSON pointer of a local reference, percent-decoded (`#/a%20b` is
/// `/a b`). `None` for references to other documents.
pub(crate) fn decode_fragment(reference: &str) -> Option<Cow<'_, str>> {
    let fragment = reference.strip_prefix('#')?;
    if !fragment.contains('%') {
        return Some(Cow::Borrowed(fragment));
    }
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let escaped = (byte == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        if let Some(decoded) = escaped {
            out.push(decoded);
            i += 3;
        } else {
            out.push(byte);
            i += 1;
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

/// The unescaped segments of a JSON pointer (`/a~1b/c` is `a/b`, `c`).
pub(crate) fn segments(pointer: &str) -> impl Iterator<Item = Cow<'_, str>> {
    pointer.strip_prefix('/').map(|rest| rest.split('/')).into_iter().flatten().map(|segment| {
        if segment.contains('~') {
            Cow::Owned(segment.replace("~1", "/").replace("~0", "~"))
        } else {
            Cow::Borrowed(segment)
        }
    })
}

/// One step of a JSON pointer.
pub(crate) fn step<'a>(node: &'a Value, segment: &str) -> Option<&'a Value> {
    match node {
        Value::Object(map) => map.get(segment),
        Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    }
}

/// Looks a local reference up in `root`.
pub(crate) fn lookup<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = decode_fragment(reference)?;
    if !pointer.is_empty() && !pointer.starts_with('/') {
        // `#name` is a JSON Schema anchor, not a pointer.
        return None;
    }
    segments(&pointer).try_fold(root, |node, segment| step(node, &segment))
}

fn ref_of(node: &Value) -> Option<&str> {
    node.get("$ref").and_then(Value::as_str)
}

/// Calls `visit` for every `$ref` in `root` that is a reference (not example
/// data, not inside an `x-` extension, which tools use for their own
/// purposes and which the description does not depend on).
fn walk_refs<'a>(root: &'a Value, mut visit: impl FnMut(&'a str) -> Result<(), SpecError>) -> Result<(), SpecError> {
    // An explicit stack: the tree is depth-limited already, but a loop costs
    // nothing and cannot overflow.
    let mut stack: Vec<(&Value, bool)> = vec![(root, false)];
    while let Some((node, in_name_map)) = stack.pop() {
        match node {
            Value::Object(map) => {
                if in_name_map {
                    stack.extend(map.values().map(|child| (child, false)));
                    continue;
                }
                if let Some(reference) = ref_of(node) {
                    visit(reference)?;
                }
                for (key, child) in map {
                    let key = key.as_str();
                    if key.starts_with("x-") || is_literal_key(key) {
                        continue;
                    }
                    if key == "examples" {
                        // Example objects may be `$ref`s to components, but
                        // their `value` is literal data; JSON Schema's array
                        // form is all literal data.
                        if let Value::Object(examples) = child {
                            for example in examples.values() {
                                if let Some(reference) = ref_of(example) {
                                    visit(reference)?;
                                }
                            }
                        }
                        continue;
                    }
                    stack.push((child, is_name_map(key)));
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, false))),
            _ => {}
        }
    }
    Ok(())
}

/// Proves that every reference in `root` is local, resolves, and does not
/// sit on a chain of references that loops. Returns the references that
/// point outside `#/components/` (their targets must be kept separately).
pub(crate) fn check_document(root: &Value) -> Result<Vec<&str>, SpecError> {
    let mut verified: HashSet<&str> = HashSet::new();
    let mut detached = Vec::new();
    let outcome = walk_refs(root, |reference| {
        if verified.contains(reference) {
            return Ok(());
        }
        let chain = check_chain(root, reference, &verified)?;
        for link in chain {
            if !link.starts_with("#/components/") && verified.insert(link) {
                detached.push(link);
            } else {
                verified.insert(link);
            }
        }
        Ok(())
    });
    match outcome {
        Ok(()) => Ok(detached),
        Err(mut err) => {
            if let Some(place) = err_place(root, &err) {
                err.message = format!("{} (referenced from {place})", err.message);
            }
            Err(err)
        }
    }
}

/// The reference an error is about, carried in its message between
/// backticks; used to find where in the document it appears.
fn err_place(root: &Value, err: &SpecError) -> Option<String> {
    let reference = err.message.split('`').nth(1)?;
    let mut path = Vec::new();
    find_ref(root, reference, &mut path).then(|| path.join("."))
}

fn find_ref(node: &Value, reference: &str, path: &mut Vec<String>) -> bool {
    match node {
        Value::Object(map) => {
            if ref_of(node) == Some(reference) {
                return true;
            }
            for (key, child) in map {
                if key.starts_with("x-") {
                    continue;
                }
                path.push(key.clone());
                if find_ref(child, reference, path) {
                    return true;
                }
                path.pop();
            }
            false
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                path.push(i.to_string());
                if find_ref(child, reference, path) {
                    return true;
                }
                path.pop();
            }
            false
        }
        _ => false,
    }
}

/// Follows `reference` through targets that are themselves references until
/// a real node; returns every reference on the way.
fn check_chain<'a>(root: &'a Value, reference: &'a str, verified: &HashSet<&str>) -> Result<Vec<&'a str>, SpecError> {
    let mut chain = vec![reference];
    let mut current = reference;
    loop {
        if !current.starts_with('#') {
            return Err(SpecError::new(
                SpecErrorKind::ExternalReference,
                format!("external reference `{current}` is not supported; bundle referenced files into one document"),
            ));
        }
        let Some(target) = lookup(root, current) else {
            let what = if current.starts_with("#/") || current == "#" {
                "points at nothing in the document"
            } else {
                "is not a json pointer (anchors are not supported)"
            };
            let via = if chain.len() > 1 { format!(" (reached via {})", chain.join(" -> ")) } else { String::new() };
            return Err(SpecError::new(SpecErrorKind::InvalidReference, format!("reference `{current}` {what}{via}")));
        };
        let Some(next) = ref_of(target) else {
            return Ok(chain);
        };
        if chain.contains(&next) {
            chain.push(next);
            return Err(SpecError::new(
                SpecErrorKind::CyclicReference,
                format!("reference `{reference}` never reaches a definition: {}", chain.join(" -> ")),
            ));
        }
        chain.push(next);
        if verified.contains(next) {
            return Ok(chain);
        }
        current = next;
    }
}

/// Copies the targets of `references` so they stay resolvable after the
/// document is taken apart. Missing targets are skipped: validation already
/// happened on the document as written.
pub(crate) fn copy_targets(root: &Value, references: &[&str]) -> IndexMap<String, Value> {
    references
        .iter()
        .filter_map(|reference| lookup(root, reference).map(|target| ((*reference).to_owned(), target.clone())))
        .collect()
}

/// Local references in a converted document that point outside
/// `#/components/`, without checking them (see [`check_document`]).
pub(crate) fn detached_references(root: &Value) -> Vec<&str> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let _ = walk_refs(root, |reference| {
        if reference.starts_with('#') && !reference.starts_with("#/components/") && seen.insert(reference) {
            out.push(reference);
        }
        Ok(())
    });
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pointers_unescape_and_percent_decode() {
        let doc = json!({"paths": {"/a b": {"get": {"x": 1}}}});
        assert_eq!(lookup(&doc, "#/paths/~1a%20b/get/x"), Some(&json!(1)));
    }

    #[test]
    fn recursive_schema_is_fine_but_pure_cycle_is_not() {
        let ok = json!({"components": {"schemas": {
            "Node": {"properties": {"children": {"items": {"$ref": "#/components/schemas/Node"}}}}
        }}});
        assert!(check_document(&ok).is_ok());
        let cyclic = json!({"components": {"schemas": {
            "A": {"$ref": "#/components/schemas/B"},
            "B": {"$ref": "#/components/schemas/A"}
        }}});
        let err = check_document(&cyclic).err();
        assert_eq!(err.map(|e| e.kind), Some(SpecErrorKind::CyclicReference));
    }

    #[test]
    fn refs_in_examples_and_extensions_are_data() {
        let doc = json!({
            "x-policy": {"$ref": "../policies.yaml"},
            "components": {"schemas": {"A": {"example": {"$ref": "nowhere"}, "properties": {
                "default": {"$ref": "#/components/schemas/A"}
            }}}}
        });
        assert!(check_document(&doc).is_ok());
    }
}
