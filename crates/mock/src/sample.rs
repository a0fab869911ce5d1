//! Sample values generated from JSON Schemas (rule 2's last resort).
//!
//! Generation is deterministic: the same schema always gives the same value,
//! so a compiled spec can precompute its default responses and snapshot
//! tests stay stable. Patterns are sampled with `rand_regex` from an RNG
//! seeded by the pattern itself.
//!
//! The walk resolves `$ref`, merges `allOf`, takes the first usable branch of
//! `oneOf`/`anyOf`, reads 3.0 `nullable` and 3.1 type arrays (preferring the
//! non-null type), and honours `const`, `enum`, `default`, formats, numeric
//! ranges with `multipleOf`, string lengths, patterns, array bounds and
//! required properties. Recursive schemas are cut off: past a depth budget
//! only required properties and minimum array lengths are generated.

use rand::SeedableRng as _;
use rand::rngs::StdRng;
use serde_json::{Map, Number, Value, json};
use spec::{Spec, schema_types};

/// Which side of the wire a sample is for: responses leave out `writeOnly`
/// properties, requests leave out `readOnly` ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Request,
    Response,
}

/// Objects nested deeper than this get only their required properties.
const SOFT_DEPTH: usize = 6;
/// Past this depth generation stops (a required recursion that cannot end).
const HARD_DEPTH: usize = 24;
/// Properties generated per object at most (huge inline objects stay bounded).
const MAX_PROPERTIES: usize = 200;
/// Values generated per sample before only required properties and minimum
/// array lengths are produced: wide schemas nested a few levels deep would
/// otherwise grow exponentially (50 properties, 6 levels: 15 billion values).
const SOFT_BUDGET: usize = 2_000;
/// Values generated per sample at most; past it, `null`.
const HARD_BUDGET: usize = 20_000;

/// Generates a sample for `schema` as it appears in `spec`.
#[must_use]
pub fn sample(spec: &Spec, schema: &Value, direction: Direction) -> Value {
    Walker { spec, direction, spent: std::cell::Cell::new(0) }.walk(schema, 0, None)
}

/// A schema that says nothing (`{}` or absent): the caller answers with an
/// explanatory placeholder instead of a sample.
#[must_use]
pub fn is_empty_schema(spec: &Spec, schema: &Value) -> bool {
    match spec.resolve_value(schema) {
        Some(Value::Object(map)) => map.keys().all(|key| {
            matches!(key.as_str(), "description" | "title" | "nullable" | "x-nullable" | "readOnly" | "writeOnly")
                || key.starts_with("x-")
        }),
        Some(Value::Bool(true)) => true,
        _ => false,
    }
}

struct Walker<'a> {
    spec: &'a Spec,
    direction: Direction,
    /// Values generated so far (see [`SOFT_BUDGET`]).
    spent: std::cell::Cell<usize>,
}

impl Walker<'_> {
    fn walk(&self, schema: &Value, depth: usize, name: Option<&str>) -> Value {
        self.spent.set(self.spent.get() + 1);
        if depth > HARD_DEPTH || self.spent.get() > HARD_BUDGET {
            return Value::Null;
        }
        let Some(schema) = self.spec.resolve_value(schema) else {
            return Value::Null;
        };
        let Value::Object(map) = schema else {
            // `true` or `false` schemas: anything (or nothing) goes.
            return Value::Null;
        };
        if let Some(value) = map.get("const") {
            return value.clone();
        }
        if let Some(Value::Array(values)) = map.get("enum")
            && let Some(first) = values
                .iter()
                .find(|v| !v.is_null() && self.admits(schema, v))
                .or_else(|| values.iter().find(|v| !v.is_null()))
                .or_else(|| values.first())
        {
            // The first value the schema's other keywords admit (an enum
            // value longer than the property's `maxLength` would not
            // validate), else the first at all.
            return first.clone();
        }
        if let Some(default) = map.get("default")
            && self.fits(schema, default)
        {
            return default.clone();
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            let merged = self.merge_all_of(schema, parts, 0);
            // The merged schema may still carry `oneOf`/`anyOf`/`enum`.
            return self.walk(&merged, depth, name);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let branch = branches
                    .iter()
                    .find(|b| {
                        self.spec.resolve_value(b).is_some_and(|s| {
                            let types = schema_types(s);
                            !(types.types.is_empty() && types.nullable)
                        })
                    })
                    .or_else(|| branches.first());
                if let Some(branch) = branch {
                    let mut value = self.walk(branch, depth + 1, name);
                    // An empty object (a deep, frugal walk keeps only
                    // required properties) would match every object branch
                    // of a `oneOf`; one property of the chosen branch tells
                    // them apart in the common case.
                    if key == "oneOf"
                        && let Value::Object(empty) = &mut value
                        && empty.is_empty()
                        && let Some(Value::Object(props)) =
                            self.spec.resolve_value(branch).and_then(|b| b.get("properties"))
                        && let Some((prop_name, prop)) = props.iter().find(|(_, p)| self.include(p))
                    {
                        empty.insert(prop_name.clone(), self.walk(prop, depth + 2, Some(prop_name)));
                    }
                    // A schema closed beside its composition admits only
                    // its own properties (and what it requires).
                    if let (Value::Object(object), Some(allowed)) = (&mut value, closed_properties(schema)) {
                        let required: Vec<&str> = map
                            .get("required")
                            .and_then(Value::as_array)
                            .map(|r| r.iter().filter_map(Value::as_str).collect())
                            .unwrap_or_default();
                        object.retain(|key, _| allowed.contains(key) || required.contains(&key.as_str()));
                    }
                    // Properties declared beside the composition belong too.
                    if let (Value::Object(extra), Some(Value::Object(props))) = (&mut value, map.get("properties")) {
                        for (key, prop) in props {
                            if !extra.contains_key(key) && self.include(prop) {
                                extra.insert(key.clone(), self.walk(prop, depth + 1, Some(key)));
                            }
                        }
                    }
                    return value;
                }
            }
        }
        self.walk_merged(schema, depth, name)
    }

    fn walk_merged(&self, schema: &Value, depth: usize, name: Option<&str>) -> Value {
        if let Some(example) = schema.get("example").or_else(|| schema.get("examples").and_then(|e| e.get(0)))
            && depth > 0
            && self.fits(schema, example)
        {
            return example.clone();
        }
        let types = schema_types(schema);
        let ty = types.types.first().copied().unwrap_or_else(|| infer_type(schema));
        match ty {
            "object" => self.object(schema, depth),
            "array" => self.array(schema, depth),
            "string" => Value::String(string(schema, name)),
            "integer" => integer(schema),
            "number" => number(schema),
            "boolean" => Value::Bool(true),
            "null" => Value::Null,
            _ if types.nullable => Value::Null,
            _ => Value::Null,
        }
    }

    /// Whether a declared example or default is safe to reuse: its JSON type
    /// is one the schema admits and it is one of the `enum` values.
    fn fits(&self, schema: &Value, value: &Value) -> bool {
        let types = schema_types(schema);
        if value.is_null() {
            return types.nullable;
        }
        if let Some(Value::Array(values)) = schema.get("enum")
            && !values.contains(value)
        {
            return false;
        }
        let ok_type = types.types.is_empty()
            || types.types.iter().any(|ty| match (*ty, value) {
                ("string", Value::String(_)) | ("boolean", Value::Bool(_)) | ("array", Value::Array(_)) => true,
                ("object", Value::Object(_)) => true,
                ("number", Value::Number(_)) => true,
                ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
                _ => false,
            });
        if !ok_type {
            return false;
        }
        match value {
            Value::String(s) => {
                let len = s.chars().count() as u64;
                let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
                let max = schema.get("maxLength").and_then(Value::as_u64).unwrap_or(u64::MAX);
                // Patterns and formats are not re-checked here: a string
                // example with either is only trusted when none is declared.
                len >= min && len <= max && schema.get("pattern").is_none() && schema.get("format").is_none()
            }
            Value::Number(n) => {
                let v = n.as_f64().unwrap_or(0.0);
                let min_ok = schema.get("minimum").and_then(Value::as_f64).is_none_or(|m| v >= m);
                let max_ok = schema.get("maximum").and_then(Value::as_f64).is_none_or(|m| v <= m);
                min_ok && max_ok && schema.get("multipleOf").is_none()
            }
            // Structured examples are only reused at the top level.
            Value::Array(_) | Value::Object(_) => false,
            _ => true,
        }
    }

    /// An optional property no value can satisfy as written (an `enum` none
    /// of whose values has the declared type or length, as in Vimeo's
    /// string enum under `type: array`) is better left out than answered.
    fn impossible(&self, property: &Value) -> bool {
        let Some(schema) = self.spec.resolve_value(property) else { return false };
        let schema = match schema.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
            Some([only]) => self.spec.resolve_value(only).unwrap_or(schema),
            _ => schema,
        };
        schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| !values.is_empty() && !values.iter().any(|v| self.admits(schema, v)))
    }

    /// Whether `value` satisfies the schema's type, lengths, numeric bounds
    /// and pattern (the `enum` itself aside).
    fn admits(&self, schema: &Value, value: &Value) -> bool {
        let types = schema_types(schema);
        let ok_type = types.types.is_empty()
            || types.types.iter().any(|ty| match (*ty, value) {
                ("string", Value::String(_)) | ("boolean", Value::Bool(_)) | ("array", Value::Array(_)) => true,
                ("object", Value::Object(_)) | ("number", Value::Number(_)) => true,
                ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
                _ => false,
            });
        ok_type
            && match value {
                Value::String(s) => {
                    let len = s.chars().count() as u64;
                    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
                    let max = schema.get("maxLength").and_then(Value::as_u64).unwrap_or(u64::MAX);
                    len >= min
                        && len <= max
                        && schema.get("pattern").and_then(Value::as_str).is_none_or(|p| pattern_matches(p, s))
                }
                Value::Number(n) => {
                    let v = n.as_f64().unwrap_or(0.0);
                    schema.get("minimum").and_then(Value::as_f64).is_none_or(|m| v >= m)
                        && schema.get("maximum").and_then(Value::as_f64).is_none_or(|m| v <= m)
                }
                _ => true,
            }
    }

    /// Merges `allOf` members (and the schema's own keywords) into one
    /// schema: properties and required lists union, the tightest bounds win.
    fn merge_all_of(&self, schema: &Value, parts: &[Value], nesting: usize) -> Value {
        let mut merged = Map::new();
        if let Value::Object(own) = schema {
            for (key, value) in own {
                if key != "allOf" {
                    merge_keyword(&mut merged, key, value);
                }
            }
        }
        // Members closed with `additionalProperties` (false or a schema)
        // admit only their own properties freely, so the value may carry only the properties every
        // closed member declares (a common pattern: a closed base plus a
        // member adding optional fields, which then must stay out).
        let mut closed: Option<Vec<String>> = closed_properties(schema);
        for part in parts {
            let Some(resolved) = self.spec.resolve_value(part) else { continue };
            let resolved = match resolved.get("allOf") {
                Some(Value::Array(inner)) if nesting < 8 => self.merge_all_of(resolved, inner, nesting + 1),
                _ => resolved.clone(),
            };
            // `additionalProperties: {schema}` closes a member too: another
            // member's properties would be judged by that schema (Adyen's
            // booleans under a string map, Azure's objects under `object`).
            if let Some(own) = closed_properties(&resolved) {
                closed = Some(match closed {
                    Some(previous) => previous.into_iter().filter(|k| own.contains(k)).collect(),
                    None => own,
                });
            }
            if let Value::Object(map) = resolved {
                for (key, value) in &map {
                    merge_keyword(&mut merged, key, value);
                }
            }
        }
        if let Some(allowed) = closed {
            let required: Vec<String> = merged
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = merged.get_mut("properties") {
                properties.retain(|key, _| allowed.contains(key) || required.contains(key));
            }
            if !merged.contains_key("additionalProperties") {
                merged.insert("additionalProperties".to_owned(), Value::Bool(false));
            }
        }
        Value::Object(merged)
    }

    fn include(&self, property: &Value) -> bool {
        let Some(resolved) = self.spec.resolve_value(property) else { return true };
        let flag = |key: &str| resolved.get(key).and_then(Value::as_bool) == Some(true);
        match self.direction {
            Direction::Response => !flag("writeOnly"),
            Direction::Request => !flag("readOnly"),
        }
    }

    fn object(&self, schema: &Value, depth: usize) -> Value {
        let mut out = Map::new();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (key, property) in properties.iter().take(MAX_PROPERTIES) {
                let is_required = required.contains(&key.as_str());
                let frugal = depth >= SOFT_DEPTH || self.spent.get() > SOFT_BUDGET;
                if !is_required && (frugal || !self.include(property) || self.impossible(property)) {
                    continue;
                }
                out.insert(key.clone(), self.walk(property, depth + 1, Some(key)));
            }
        }
        // Required names without a declared property still have to be there.
        for key in &required {
            if !out.contains_key(*key) {
                let value = match schema.get("additionalProperties") {
                    Some(extra @ Value::Object(_)) => self.walk(extra, depth + 1, Some(key)),
                    _ => Value::String((*key).to_owned()),
                };
                out.insert((*key).to_owned(), value);
            }
        }
        if out.is_empty()
            && depth < SOFT_DEPTH
            && let Some(extra @ Value::Object(_)) = schema.get("additionalProperties")
        {
            out.insert("key".to_owned(), self.walk(extra, depth + 1, Some("key")));
        }
        let min = schema.get("minProperties").and_then(Value::as_u64).unwrap_or(0);
        let mut filler = 1;
        while (out.len() as u64) < min && filler < 64 {
            let key = format!("property{filler}");
            let value = match schema.get("additionalProperties") {
                Some(extra @ Value::Object(_)) => self.walk(extra, depth + 1, Some(&key)),
                _ => Value::String("value".to_owned()),
            };
            out.insert(key, value);
            filler += 1;
        }
        Value::Object(out)
    }

    fn array(&self, schema: &Value, depth: usize) -> Value {
        let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = schema.get("maxItems").and_then(Value::as_u64).unwrap_or(u64::MAX);
        let frugal = depth >= SOFT_DEPTH || self.spent.get() > SOFT_BUDGET;
        let wanted = if frugal { min } else { min.max(1) }.min(max).min(64);
        let items = schema.get("items").filter(|items| items.is_object());
        let Some(items) = items else {
            return Value::Array((0..wanted).map(|i| Value::String(format!("item{i}"))).collect());
        };
        let first = self.walk(items, depth + 1, None);
        let unique = schema.get("uniqueItems").and_then(Value::as_bool) == Some(true);
        let mut out = Vec::new();
        for i in 0..wanted {
            let item = if i == 0 { first.clone() } else { self.walk(items, depth + 1, None) };
            if unique && out.contains(&item) {
                match vary(&item, i) {
                    Some(varied) if !out.contains(&varied) => out.push(varied),
                    // Cannot make a distinct item (an enum of one value, say).
                    _ => break,
                }
            } else {
                out.push(item);
            }
        }
        Value::Array(out)
    }
}

/// A variation of a generated item for `uniqueItems` arrays.
fn vary(item: &Value, i: u64) -> Option<Value> {
    match item {
        // Same length (so `maxLength` still holds): the last character varies.
        Value::String(s) => {
            let mut chars: Vec<char> = s.chars().collect();
            let digit = char::from_digit(u32::try_from(i % 36).unwrap_or(0), 36)?;
            match chars.last_mut() {
                Some(last) => *last = digit,
                None => chars.push(digit),
            }
            Some(Value::String(chars.into_iter().collect()))
        }
        Value::Number(n) => n.as_i64().map(|v| json!(v.saturating_add(i64::try_from(i).unwrap_or(0)))),
        Value::Object(map) => {
            let mut map = map.clone();
            for value in map.values_mut() {
                if let Some(varied) = vary(value, i) {
                    *value = varied;
                    return Some(Value::Object(map));
                }
            }
            None
        }
        _ => None,
    }
}

fn merge_keyword(merged: &mut Map<String, Value>, key: &str, value: &Value) {
    match (key, merged.get_mut(key)) {
        ("properties", Some(Value::Object(existing))) => {
            if let Value::Object(new) = value {
                // A property declared by several members must satisfy all
                // of them (a generic `object` here, its real shape there).
                for (name, schema) in new {
                    match existing.get_mut(name) {
                        Some(first) if first != schema => {
                            *first = json!({ "allOf": [first.clone(), schema.clone()] });
                        }
                        Some(_) => {}
                        None => {
                            existing.insert(name.clone(), schema.clone());
                        }
                    }
                }
            }
        }
        ("required", Some(Value::Array(existing))) => {
            if let Value::Array(new) = value {
                for name in new {
                    if !existing.contains(name) {
                        existing.push(name.clone());
                    }
                }
            }
        }
        ("minimum" | "minLength" | "minItems" | "minProperties", Some(existing)) => {
            if value.as_f64() > existing.as_f64() {
                *existing = value.clone();
            }
        }
        ("maximum" | "maxLength" | "maxItems" | "maxProperties", Some(existing)) => {
            if value.as_f64() < existing.as_f64() {
                *existing = value.clone();
            }
        }
        // `nullable: false` in one member must not cancel another's type.
        ("type", Some(_)) | ("nullable", Some(_)) => {}
        (_, Some(_)) => {}
        (_, None) => {
            merged.insert(key.to_owned(), value.clone());
        }
    }
}

/// The properties a schema closed by `additionalProperties` (false or a
/// schema) declares itself; `None` when it is open.
fn closed_properties(schema: &Value) -> Option<Vec<String>> {
    schema.get("additionalProperties").filter(|a| *a != &Value::Bool(true))?;
    Some(schema.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default())
}

fn infer_type(schema: &Value) -> &'static str {
    if schema.get("properties").is_some() || schema.get("additionalProperties").is_some() {
        "object"
    } else if schema.get("items").is_some() {
        "array"
    } else if schema.get("pattern").is_some() || schema.get("format").is_some() || schema.get("minLength").is_some() {
        "string"
    } else if schema.get("minimum").is_some() || schema.get("maximum").is_some() {
        "number"
    } else {
        ""
    }
}

fn string(schema: &Value, name: Option<&str>) -> String {
    let min = usize::try_from(schema.get("minLength").and_then(Value::as_u64).unwrap_or(0)).unwrap_or(0);
    let max = schema.get("maxLength").and_then(Value::as_u64).and_then(|m| usize::try_from(m).ok());
    let format = schema.get("format").and_then(Value::as_str).unwrap_or("");
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        let fits = |text: &str| {
            let len = text.chars().count();
            len >= min && max.is_none_or(|m| len <= m) && pattern_matches(pattern, text)
        };
        // The format's own sample when the pattern admits it (a date
        // pattern that allows five-digit years still admits 2024-01-15).
        if let Some(sample) = by_format(format)
            && fits(sample)
        {
            return sample.to_owned();
        }
        if let Some(text) = from_pattern(pattern, min, &|text| fits(text) && format_ok(format, text)) {
            return text;
        }
        let fallback = fit_length(by_name(name), min, max, false);
        if fits(&fallback) {
            return fallback;
        }
    }
    if format == "date-time" {
        // Longer spellings of the same instant for descriptions that set a
        // `minLength` on their timestamps.
        let variants = ["2024-01-15T09:30:00Z", "2024-01-15T09:30:00.000Z", "2024-01-15T09:30:00.000+00:00"];
        if let Some(found) = variants.iter().find(|v| v.len() >= min && max.is_none_or(|m| v.len() <= m)) {
            return (*found).to_owned();
        }
    }
    let base = by_format(format).map(str::to_owned).unwrap_or_else(|| by_name(name));
    fit_length(base, min, max, !format.is_empty())
}

/// Whether `text` contains a match of `pattern` as a JSON Schema validator
/// reads it (ECMA-262 style, lookaround included). A pattern that cannot be
/// compiled is not held against the text. Compiled patterns are kept per
/// thread.
/// The pattern with ECMA-262's ASCII meaning of `\d`, `\w` and `\s`
/// spelled out (validators read them so; the `regex` family would read
/// them as Unicode classes and generate or accept other scripts' digits).
fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push(c);
                    break;
                };
                let (inside, outside) = match next {
                    'd' => ("0-9", "[0-9]"),
                    'w' => ("A-Za-z0-9_", "[A-Za-z0-9_]"),
                    's' => (" \\t\\n\\r\\x0B\\x0C", "[ \\t\\n\\r\\x0B\\x0C]"),
                    'D' if !in_class => ("", "[^0-9]"),
                    'W' if !in_class => ("", "[^A-Za-z0-9_]"),
                    _ => {
                        out.push(c);
                        out.push(next);
                        continue;
                    }
                };
                out.push_str(if in_class { inside } else { outside });
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A leading `]` or `^]` is a literal, not the end.
                if chars.peek() == Some(&'^') {
                    out.extend(chars.next());
                }
                if chars.peek() == Some(&']') {
                    out.extend(chars.next());
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

fn pattern_matches(pattern: &str, text: &str) -> bool {
    thread_local! {
        static COMPILED: std::cell::RefCell<std::collections::HashMap<String, Option<fancy_regex::Regex>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    COMPILED.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() > 4096 {
            cache.clear();
        }
        let regex = cache.entry(pattern.to_owned()).or_insert_with(|| {
            fancy_regex::RegexBuilder::new(&ascii_classes(pattern)).backtrack_limit(100_000).build().ok()
        });
        regex.as_ref().is_none_or(|re| re.is_match(text).unwrap_or(true))
    })
}

/// Whether a generated string is a valid instance of the format, for the
/// formats a pattern can get wrong (dates with five-digit years, months
/// past 12, times without an offset).
fn format_ok(format: &str, text: &str) -> bool {
    match format {
        "date" => text.len() == 10 && chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok(),
        "date-time" => chrono::DateTime::parse_from_rfc3339(text).is_ok(),
        "time" => chrono::DateTime::parse_from_rfc3339(&format!("2000-01-01T{text}")).is_ok(),
        "uuid" => uuid::Uuid::try_parse(text).is_ok_and(|_| text.len() == 36),
        "email" | "idn-email" => {
            text.split_once('@').is_some_and(|(local, domain)| !local.is_empty() && !domain.is_empty())
        }
        "ipv4" => text.parse::<std::net::Ipv4Addr>().is_ok(),
        "ipv6" => text.parse::<std::net::Ipv6Addr>().is_ok(),
        "uri" | "url" => text.split_once(':').is_some_and(|(scheme, _)| {
            scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }),
        _ => true,
    }
}

/// Pads or cuts a sample to the declared lengths. Formatted strings are not
/// padded (that would break the format); a format with impossible lengths
/// is the description's problem.
fn fit_length(mut text: String, min: usize, max: Option<usize>, formatted: bool) -> String {
    let len = text.chars().count();
    if len < min && !formatted {
        text.extend(std::iter::repeat_n('x', min - len));
    }
    if let Some(max) = max
        && text.chars().count() > max
        && !formatted
    {
        text = text.chars().take(max).collect();
    }
    text
}

/// A string from the pattern that `accept` takes (`min` is the declared
/// minimum length): up to 32 draws from
/// `rand_regex`, seeded by the pattern. `rand_regex` cannot generate
/// anchors or lookaround, so those are taken out for generation (inner
/// anchors as in `(^A$)|(^B$)`, lookaheads as in `^(?!-)[a-z-]+$`), and
/// `accept` checks each draw against the pattern as written.
fn from_pattern(pattern: &str, min: usize, accept: &dyn Fn(&str) -> bool) -> Option<String> {
    let generating = without_anchors_and_lookaround(&ascii_classes(pattern));
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .build()
        .parse(&generating)
        .ok()
        .or_else(|| regex_syntax::ParserBuilder::new().build().parse(&generating).ok())?;
    // Open repetitions (`+`, `*`, `{2,}`) repeat up to 8 times, or up to the
    // minimum length so that `^[0-9]+$` with `minLength: 12` can be met.
    let generator = rand_regex::Regex::with_hir(hir, u32::try_from(min.clamp(8, 4096)).unwrap_or(8)).ok()?;
    let seed = pattern.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let mut rng = StdRng::seed_from_u64(seed);
    (0..32).map(|_| rand::Rng::sample(&mut rng, &generator)).find(|candidate: &String| accept(candidate))
}

/// The pattern without `^`/`$` anchors and lookaround groups, for
/// generation only. JSON Schema patterns are unanchored, so a string
/// generated from the rest still contains a match in the common cases; the
/// caller checks every draw against the real pattern.
fn without_anchors_and_lookaround(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len());
    let mut i = 0;
    let mut in_class = false;
    while let Some(&c) = chars.get(i) {
        match c {
            // `\A`, `\z`, `\Z`, `\b`, `\B` are anchors too.
            '\\' if !in_class && matches!(chars.get(i + 1), Some('A' | 'z' | 'Z' | 'b' | 'B')) => {
                i += 2;
                continue;
            }
            '\\' => {
                out.push(c);
                if let Some(&next) = chars.get(i + 1) {
                    out.push(next);
                }
                i += 2;
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '^' | '$' if !in_class => {
                i += 1;
                continue;
            }
            '(' if !in_class && matches!(chars.get(i + 1..i + 3), Some(['?', '=' | '!'])) => {
                i = group_end(&chars, i);
                continue;
            }
            '(' if !in_class && matches!(chars.get(i + 1..i + 4), Some(['?', '<', '=' | '!'])) => {
                i = group_end(&chars, i);
                continue;
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The index just past the group opened at `start` (escapes and classes
/// respected); the end of the pattern when it is not closed.
fn group_end(chars: &[char], start: usize) -> usize {
    let mut depth = 0usize;
    let mut in_class = false;
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 1,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

fn by_format(format: &str) -> Option<&'static str> {
    Some(match format {
        "uuid" => "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        "date-time" => "2024-01-15T09:30:00Z",
        "date" => "2024-01-15",
        "time" => "09:30:00Z",
        "duration" => "P3D",
        "email" | "idn-email" => "user@example.com",
        "uri" | "url" | "iri" => "https://example.com/resource",
        "uri-reference" | "iri-reference" => "/resource",
        "uri-template" => "https://example.com/{id}",
        "hostname" | "idn-hostname" => "example.com",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "byte" => "U3dhZ2dlciByb2Nrcw==",
        "binary" => "binary-data",
        "password" => "********",
        "json-pointer" => "/path/to/field",
        "relative-json-pointer" => "0/field",
        "regex" => "^[a-z]+$",
        "int32" | "int64" => "1",
        "double" | "float" | "decimal" => "1.5",
        "phone" => "+15555550123",
        "color" => "#336699",
        _ => return None,
    })
}

/// A plausible string from the property's name when the schema has no format.
fn by_name(name: Option<&str>) -> String {
    let Some(name) = name else { return "string".to_owned() };
    let lower = name.to_ascii_lowercase();
    let pick = if lower.contains("email") {
        "user@example.com"
    } else if lower.ends_with("url") || lower.ends_with("uri") || lower == "href" || lower == "link" {
        "https://example.com/resource"
    } else if lower == "id" || lower.ends_with("_id") || lower.ends_with("id") && name.ends_with("Id") {
        "3fa85f64-5717-4562-b3fc-2c963f66afa6"
    } else if lower.ends_with("_at") || lower.ends_with("date") || lower.ends_with("time") {
        "2024-01-15T09:30:00Z"
    } else if lower.contains("name") {
        "Ada Lovelace"
    } else if lower.contains("phone") {
        "+15555550123"
    } else if lower == "country" {
        "GB"
    } else if lower.contains("city") {
        "London"
    } else {
        return name.to_owned();
    };
    pick.to_owned()
}

fn bounds(schema: &Value) -> (Option<f64>, Option<f64>, bool, bool) {
    // 3.0 writes `exclusiveMinimum: true` beside `minimum`; 3.1 writes the
    // bound itself as `exclusiveMinimum: 5`.
    let mut min = schema.get("minimum").and_then(Value::as_f64);
    let mut max = schema.get("maximum").and_then(Value::as_f64);
    let mut min_exclusive = schema.get("exclusiveMinimum").and_then(Value::as_bool) == Some(true);
    let mut max_exclusive = schema.get("exclusiveMaximum").and_then(Value::as_bool) == Some(true);
    if let Some(bound) = schema.get("exclusiveMinimum").and_then(Value::as_f64)
        && min.is_none_or(|m| bound >= m)
    {
        min = Some(bound);
        min_exclusive = true;
    }
    if let Some(bound) = schema.get("exclusiveMaximum").and_then(Value::as_f64)
        && max.is_none_or(|m| bound <= m)
    {
        max = Some(bound);
        max_exclusive = true;
    }
    (min, max, min_exclusive, max_exclusive)
}

fn integer(schema: &Value) -> Value {
    let (min, max, min_ex, max_ex) = bounds(schema);
    let step = schema.get("multipleOf").and_then(Value::as_f64).filter(|s| *s >= 1.0 && s.fract() == 0.0);
    let low = min.map(|m| if min_ex { m.floor() + 1.0 } else { m.ceil() });
    let high = max.map(|m| if max_ex { m.ceil() - 1.0 } else { m.floor() });
    let mut value = match (low, high) {
        (Some(low), _) => low,
        (None, Some(high)) => high.min(1.0),
        (None, None) => 1.0,
    };
    if let Some(step) = step {
        value = (value / step).ceil() * step;
        if high.is_some_and(|h| value > h) {
            value -= step;
        }
    }
    // Saturating float-to-int conversion is the intent.
    #[allow(clippy::cast_possible_truncation, reason = "saturating conversion of a bounded sample")]
    let int = value as i64;
    Value::Number(Number::from(int))
}

fn number(schema: &Value) -> Value {
    let (min, max, min_ex, max_ex) = bounds(schema);
    let step = schema.get("multipleOf").and_then(Value::as_f64).filter(|s| *s > 0.0);
    let mut value = match (min, max) {
        (Some(low), Some(high)) => (low + high) / 2.0,
        (Some(low), None) => low + if min_ex { 1.0 } else { 0.0 },
        (None, Some(high)) => high - if max_ex { 1.0 } else { 0.0 },
        (None, None) => 1.5,
    };
    if let Some(step) = step {
        value = (value / step).ceil() * step;
        if max.is_some_and(|h| value > h || (max_ex && value >= h)) {
            value -= step;
        }
    }
    Number::from_f64(value).map_or(Value::Null, |n| {
        // Whole numbers print as integers, as a person would write them.
        if value.fract() == 0.0 && value.abs() < 9.0e15 {
            #[allow(clippy::cast_possible_truncation, reason = "checked whole and in range")]
            let int = value as i64;
            Value::Number(Number::from(int))
        } else {
            Value::Number(n)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec_with(schemas: Value) -> Spec {
        let doc = json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {},
            "components": {"schemas": schemas}});
        spec::parse(doc.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn honours_formats_bounds_and_required() {
        let spec = spec_with(json!({}));
        let schema = json!({"type": "object", "required": ["id", "age", "tags"], "properties": {
            "id": {"type": "string", "format": "uuid"},
            "age": {"type": "integer", "minimum": 18, "maximum": 30, "multipleOf": 5},
            "tags": {"type": "array", "minItems": 3, "uniqueItems": true, "items": {"type": "string", "maxLength": 4}},
            "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "secret": {"type": "string", "writeOnly": true}
        }});
        let value = sample(&spec, &schema, Direction::Response);
        assert_eq!(value["id"], "3fa85f64-5717-4562-b3fc-2c963f66afa6");
        assert_eq!(value["age"], 20);
        let tags = value["tags"].as_array().unwrap();
        assert_eq!(tags.len(), 3);
        assert!(tags.iter().all(|t| t.as_str().unwrap().len() <= 4));
        assert_ne!(tags[0], tags[1]);
        let code = value["code"].as_str().unwrap();
        assert!(code.len() == 6 && code.as_bytes()[3] == b'-', "{code}");
        assert_eq!(value["ratio"], 0.5);
        assert!(value.get("secret").is_none());
        assert_eq!(sample(&spec, &schema, Direction::Response), value, "deterministic");
    }

    /// Classes of real-world descriptions the corpus sweep found.
    #[test]
    fn patterns_formats_and_enums_agree() {
        let spec = spec_with(json!({}));
        let schema = json!({"type": "object", "required": ["day", "storage", "name", "area", "grant", "code"],
            "properties": {
            // Microsoft Graph: a date pattern admitting five-digit years.
            "day": {"type": "string", "format": "date",
                "pattern": "^[0-9]{4,}-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])$"},
            // AWS: anchors inside alternations.
            "storage": {"type": "string", "pattern": "(^ReducedRedundancy$)|(^Standard$)"},
            // AWS: lookaheads.
            "name": {"type": "string", "pattern": "^(?!svc-)(?![-])(?!.*[-]$)(?!.*[-]{2})[a-z0-9-]+$"},
            "area": {"type": "string", "pattern": "^$|^[0-9]{3,3}$"},
            // Adyen: an enum whose first value breaks the property's maxLength.
            "grant": {"type": "string", "maxLength": 1, "enum": ["MALE", "F", "M"]},
            "code": {"type": "string", "format": "date-time", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T.*$"}
        }});
        let value = sample(&spec, &schema, Direction::Response);
        assert_eq!(value["day"], "2024-01-15", "the format's sample fits the pattern");
        assert!(matches!(value["storage"].as_str(), Some("ReducedRedundancy" | "Standard")), "{value}");
        let name = value["name"].as_str().unwrap();
        assert!(pattern_matches("^(?!svc-)(?![-])(?!.*[-]$)(?!.*[-]{2})[a-z0-9-]+$", name), "{name}");
        assert!(pattern_matches("^$|^[0-9]{3,3}$", value["area"].as_str().unwrap()));
        assert_eq!(value["grant"], "F");
        assert_eq!(value["code"], "2024-01-15T09:30:00Z");
        // BBC: a closed member plus a member adding optional fields.
        let spec = spec_with(json!({
            "Base": {"type": "object", "additionalProperties": false, "required": ["href"],
                "properties": {"href": {"type": "string"}, "kind": {"type": "string"}}}
        }));
        let reference = json!({"allOf": [{"$ref": "#/components/schemas/Base"},
            {"type": "object", "properties": {"href_deprecated": {"type": "boolean"}}}]});
        let value = sample(&spec, &reference, Direction::Response);
        assert_eq!(
            value,
            json!({"href": "https://example.com/resource", "kind": "kind"}),
            "only the closed member's properties"
        );
        // ShipEngine: closed at the top, properties only in an allOf member.
        let spec = spec_with(json!({
            "Settings": {"type": "object", "properties": {"layout": {"type": "string"}}}
        }));
        let body = json!({"type": "object", "additionalProperties": false,
            "allOf": [{"$ref": "#/components/schemas/Settings"}]});
        assert_eq!(sample(&spec, &body, Direction::Response), json!({}), "nothing else is admitted");
        let image = json!({"type": "object", "additionalProperties": false,
            "anyOf": [{"properties": {"deprecated": {"type": "boolean"}}}, {"properties": {"url": {"type": "string"}}}]});
        assert_eq!(sample(&spec, &image, Direction::Response), json!({}));
        assert_eq!(without_anchors_and_lookaround(r"^(?!a)[\^$a-z]+\$$"), r"[\^$a-z]+\$");
        assert!(format_ok("date", "2024-02-29") && !format_ok("date", "881010141-11-29"));
        // AWS: `\w` is ASCII for validators; draws stay ASCII and Unicode
        // word characters are not accepted.
        assert_eq!(ascii_classes(r"^arn:[\w+=/,.@-]+:\d\W$"), r"^arn:[A-Za-z0-9_+=/,.@-]+:[0-9][^A-Za-z0-9_]$");
        assert!(!pattern_matches(r"^\w+$", "caf\u{e9}"));
        let arn = from_pattern(r"^arn:[\w+=/,.@-]+:forecast:[\w+=/,.@-]*$", 0, &|t| {
            pattern_matches(r"^arn:[\w+=/,.@-]+:forecast:[\w+=/,.@-]*$", t)
        })
        .unwrap();
        assert!(arn.is_ascii(), "{arn}");
        // AWS: account ids of exactly twelve digits; Telstra: long timestamps.
        let ids = json!({"type": "string", "pattern": "^[0-9]+$", "minLength": 12, "maxLength": 12});
        let id = sample(&spec, &ids, Direction::Response);
        assert!(id.as_str().is_some_and(|s| s.len() == 12 && s.bytes().all(|b| b.is_ascii_digit())), "{id}");
        let volume = json!({"type": "string", "pattern": "^(fsvol-[0-9a-f]{17,})$"});
        let volume = sample(&spec, &volume, Direction::Response);
        assert!(pattern_matches("^(fsvol-[0-9a-f]{17,})$", volume.as_str().unwrap()), "{volume}");
        let cell = json!({"type": "string", "pattern": r"\A[a-zA-Z0-9_]+\z"});
        let cell = sample(&spec, &cell, Direction::Response);
        assert!(pattern_matches(r"\A[a-zA-Z0-9_]+\z", cell.as_str().unwrap()), "{cell}");
        // Vimeo: an optional string enum under `type: array` is left out.
        let user = json!({"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"},
            "content_filter": {"type": "array", "items": {"type": "string"}, "enum": ["drugs", "safe"]}}});
        assert_eq!(sample(&spec, &user, Direction::Response), json!({"name": "Ada Lovelace"}));
        // NPR: a property declared by two allOf members takes both shapes.
        let spec = spec_with(json!({
            "Doc": {"type": "object", "required": ["attributes"], "properties": {"attributes": {"type": "object"}}},
            "Data": {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": ["aggregation"]}}}
        }));
        let doc = json!({"allOf": [{"$ref": "#/components/schemas/Doc"},
            {"properties": {"attributes": {"$ref": "#/components/schemas/Data"}}}]});
        assert_eq!(sample(&spec, &doc, Direction::Response), json!({"attributes": {"type": "aggregation"}}));
        let stamp = json!({"type": "string", "format": "date-time", "minLength": 24});
        assert_eq!(sample(&spec, &stamp, Direction::Response), "2024-01-15T09:30:00.000Z");
        assert!(!format_ok("time", "23:48:28.55") && format_ok("time", "23:48:28.55Z"));
    }

    #[test]
    fn resolves_refs_compositions_and_nullability() {
        let spec = spec_with(json!({
            "Pet": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
            "Dog": {"allOf": [{"$ref": "#/components/schemas/Pet"},
                {"type": "object", "required": ["bark"], "properties": {"bark": {"type": "boolean"}}}]},
            "Maybe": {"type": ["null", "integer"], "minimum": 3},
            "Either": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Pet"}]},
            "Node": {"type": "object", "required": ["children"], "properties": {
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}
        }));
        let dog = sample(&spec, &json!({"$ref": "#/components/schemas/Dog"}), Direction::Response);
        assert_eq!(dog, json!({"name": "Ada Lovelace", "bark": true}));
        assert_eq!(sample(&spec, &json!({"$ref": "#/components/schemas/Maybe"}), Direction::Response), json!(3));
        let either = sample(&spec, &json!({"$ref": "#/components/schemas/Either"}), Direction::Response);
        assert_eq!(either, json!({"name": "Ada Lovelace"}));
        // Recursion ends: past the soft depth arrays stay at their minimum.
        let node = sample(&spec, &json!({"$ref": "#/components/schemas/Node"}), Direction::Response);
        assert!(node.to_string().len() < 400, "{node}");
    }

    #[test]
    fn wide_nested_schemas_stay_bounded() {
        // 30 optional properties per level, 8 levels: 30^8 values unbounded.
        let mut schemas = serde_json::Map::new();
        schemas.insert("L0".to_owned(), json!({"type": "string"}));
        for level in 1..=8 {
            let props: serde_json::Map<String, Value> = (0..30)
                .map(|i| (format!("p{i}"), json!({"$ref": format!("#/components/schemas/L{}", level - 1)})))
                .collect();
            schemas.insert(format!("L{level}"), json!({"type": "object", "properties": props}));
        }
        let spec = spec_with(Value::Object(schemas));
        let schema = json!({"$ref": "#/components/schemas/L8"});
        let started = std::time::Instant::now();
        let value = sample(&spec, &schema, Direction::Response);
        assert!(value.to_string().len() < 1_000_000);
        assert!(started.elapsed().as_secs() < 5);
    }

    #[test]
    fn empty_schema_is_recognised() {
        let spec = spec_with(json!({"Any": {"description": "anything"}}));
        assert!(is_empty_schema(&spec, &json!({})));
        assert!(is_empty_schema(&spec, &json!({"$ref": "#/components/schemas/Any"})));
        assert!(!is_empty_schema(&spec, &json!({"type": "string"})));
    }
}
