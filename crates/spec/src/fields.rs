//! Taking typed fields out of owned JSON objects.
//!
//! The builders move values out of the parsed tree instead of cloning them,
//! so a large description is held in memory about once. They are lenient
//! about scalar types where YAML makes mistakes easy (`version: 1.0` is a
//! number to YAML but a string to OpenAPI).

use indexmap::IndexMap;
use serde_json::{Map, Value};

pub(crate) type Object = Map<String, Value>;

pub(crate) fn into_object(value: Value) -> Object {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

pub(crate) fn take_string(map: &mut Object, key: &str) -> Option<String> {
    match map.shift_remove(key)? {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

pub(crate) fn take_bool(map: &mut Object, key: &str) -> Option<bool> {
    match map.shift_remove(key)? {
        Value::Bool(b) => Some(b),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

pub(crate) fn take_object(map: &mut Object, key: &str) -> Object {
    map.shift_remove(key).map(into_object).unwrap_or_default()
}

pub(crate) fn take_array(map: &mut Object, key: &str) -> Vec<Value> {
    match map.shift_remove(key) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    }
}

pub(crate) fn take_strings(map: &mut Object, key: &str) -> Vec<String> {
    take_array(map, key)
        .into_iter()
        .filter_map(|item| match item {
            Value::String(s) => Some(s),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        })
        .collect()
}

/// Moves the `x-` keys out of `map`.
pub(crate) fn take_extensions(map: &mut Object) -> IndexMap<String, Value> {
    let keys: Vec<String> = map.keys().filter(|k| k.starts_with("x-")).cloned().collect();
    keys.into_iter().filter_map(|key| map.shift_remove(&key).map(|value| (key, value))).collect()
}

/// Moves a map-valued field out as an `IndexMap`. Keys are user-chosen
/// names here (an `x-rate-limit` header is a header, not an extension).
pub(crate) fn take_named(map: &mut Object, key: &str) -> IndexMap<String, Value> {
    take_object(map, key).into_iter().collect()
}
