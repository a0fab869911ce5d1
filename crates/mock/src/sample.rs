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

use std::sync::OnceLock;

use rand::SeedableRng as _;
use rand::rngs::StdRng;
use serde_json::{Map, Number, Value, json};
use spec::{Spec, schema_types};

use crate::schema::SchemaSet;

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
/// Declared properties generated per object at most, required ones aside
/// (huge inline objects stay bounded).
const MAX_PROPERTIES: usize = 200;
/// Values generated per sample before only required properties and minimum
/// array lengths are produced: wide schemas nested a few levels deep would
/// otherwise grow exponentially (50 properties, 6 levels: 15 billion values).
const SOFT_BUDGET: usize = 2_000;
/// Values generated per sample at most; past it, `null`.
const HARD_BUDGET: usize = 20_000;
/// String bytes one sample may hold. A schema that asks for more
/// (`minLength: 1000000000000`, a pattern repeating `x{100000}` 100,000
/// times) is answered with a placeholder that says so, instead of
/// allocating until the process dies. Array lengths are capped at 64 items
/// and values at [`HARD_BUDGET`], so this bounds the whole sample.
pub const SAMPLE_BYTE_BUDGET: usize = 64 * 1024;

/// The example of a media type: `example`, the first of `examples`, else a
/// generated sample when there is a schema (the docs pages, their code
/// samples and the docs assistant all show this one).
#[must_use]
pub fn media_example(spec: &Spec, media: &spec::MediaType, direction: Direction) -> Option<Value> {
    if let Some(example) = &media.example {
        return Some(example.clone());
    }
    if let Some(value) = media.examples.values().find_map(|e| e.value.clone()) {
        return Some(value);
    }
    let schema = media.schema.as_ref()?;
    if is_empty_schema(spec, schema) {
        return None;
    }
    Some(sample(spec, schema, direction))
}

/// Generates a sample for `schema` as it appears in `spec`.
#[must_use]
pub fn sample(spec: &Spec, schema: &Value, direction: Direction) -> Value {
    sample_with(spec, &OnceLock::new(), schema, direction)
}

/// [`sample`] with the description's validators (built on first need and
/// kept in `schemas`), which tell `oneOf` branches apart.
#[must_use]
pub fn sample_with(spec: &Spec, schemas: &OnceLock<SchemaSet>, schema: &Value, direction: Direction) -> Value {
    bounded_sample_with(spec, schemas, schema, direction).unwrap_or_else(over_budget_placeholder)
}

/// A sample of a value called `name` (a parameter, say): the name picks a
/// plausible value where the schema says nothing more specific, as it does
/// for properties.
#[must_use]
pub fn sample_named(spec: &Spec, schema: &Value, name: &str, direction: Direction) -> Value {
    let walker = Walker {
        spec,
        direction,
        spent: std::cell::Cell::new(0),
        schemas: &OnceLock::new(),
        unmet: std::cell::Cell::new(false),
        bytes: std::cell::Cell::new(0),
        over_budget: std::cell::Cell::new(false),
    };
    let value = walker.walk(schema, 0, Some(name));
    if walker.over_budget.get() { over_budget_placeholder() } else { value }
}

/// [`sample_with`], or `None` when the schema asks for more than
/// [`SAMPLE_BYTE_BUDGET`] bytes of strings.
#[must_use]
pub fn bounded_sample_with(
    spec: &Spec,
    schemas: &OnceLock<SchemaSet>,
    schema: &Value,
    direction: Direction,
) -> Option<Value> {
    let walker = Walker {
        spec,
        direction,
        spent: std::cell::Cell::new(0),
        schemas,
        unmet: std::cell::Cell::new(false),
        bytes: std::cell::Cell::new(0),
        over_budget: std::cell::Cell::new(false),
    };
    let value = walker.walk(schema, 0, None);
    (!walker.over_budget.get()).then_some(value)
}

/// What a sample over [`SAMPLE_BYTE_BUDGET`] is answered with.
#[must_use]
pub fn over_budget_placeholder() -> Value {
    serde_json::json!({
        "message": format!(
            "The schema asks for a value larger than the mock generates ({} KiB of text per body: a very large minLength, minItems or pattern repetition). Add an example, or create an override.",
            SAMPLE_BYTE_BUDGET / 1024
        )
    })
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
    /// The description's validators, built when a `oneOf` first needs them.
    schemas: &'a OnceLock<SchemaSet>,
    /// Set when a value was answered that does not meet its schema (a
    /// pattern no draw matched, a `oneOf` no draw matched exactly once), so
    /// that an optional property or list item holding it can be left out.
    unmet: std::cell::Cell<bool>,
    /// String bytes generated so far (see [`SAMPLE_BYTE_BUDGET`]).
    bytes: std::cell::Cell<usize>,
    /// Set when the sample would pass [`SAMPLE_BYTE_BUDGET`]; generation
    /// stops and the caller answers a placeholder.
    over_budget: std::cell::Cell<bool>,
}

impl Walker<'_> {
    fn walk(&self, schema: &Value, depth: usize, name: Option<&str>) -> Value {
        self.spent.set(self.spent.get() + 1);
        if depth > HARD_DEPTH || self.spent.get() > HARD_BUDGET || self.over_budget.get() {
            return Value::Null;
        }
        let Some(schema) = self.spec.resolve_value(schema) else {
            return Value::Null;
        };
        let Value::Object(map) = schema else {
            // `true` or `false` schemas: anything (or nothing) goes.
            return Value::Null;
        };
        // A schema no value satisfies is still answered (the caller leaves
        // it out where it may), but marked.
        if self.closed_against_required(schema) {
            self.unmet.set(true);
        }
        if let Some(value) = map.get("const") {
            return self.charge(value);
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
            if !self.admits(schema, first) {
                self.unmet.set(true);
            }
            return self.charge(first);
        }
        if let Some(default) = map.get("default")
            && self.fits(schema, default)
        {
            return self.charge(default);
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            match self.types_conflict(schema, 0) {
                // Members of types that share none (Sinao's `discount`, an
                // object in one member and an integer in another).
                None => self.unmet.set(true),
                // Nullable members of different types (a nullable string
                // and a nullable integer) share null alone.
                Some(Some(Value::String(only))) if only == "null" => return Value::Null,
                Some(_) => {}
            }
            let merged = self.merge_all_of(schema, parts, 0);
            // The merged schema may still carry `oneOf`/`anyOf`/`enum`.
            return self.walk(&merged, depth, name);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let usable = branches.iter().position(|b| {
                    self.spec.resolve_value(b).is_some_and(|s| {
                        let types = schema_types(s);
                        !(types.types.is_empty() && types.nullable)
                    })
                });
                if key == "oneOf"
                    && let Some(value) = self.one_of(schema, map, branches, usable.unwrap_or(0), depth, name)
                {
                    return value;
                }
                if let Some(branch) = usable.and_then(|i| branches.get(i)).or_else(|| branches.first()) {
                    return self.with_branch(schema, map, key, branch, depth, name);
                }
            }
        }
        self.walk_merged(schema, depth, name)
    }

    /// The value of a composed schema drawn from one of its branches, with
    /// the properties declared beside the composition.
    fn with_branch(
        &self,
        schema: &Value,
        map: &Map<String, Value>,
        key: &str,
        branch: &Value,
        depth: usize,
        name: Option<&str>,
    ) -> Value {
        let mut value = self.walk(branch, depth + 1, name);
        // An empty object (a deep, frugal walk keeps only
        // required properties) would match every object branch
        // of a `oneOf`; one property of the chosen branch tells
        // them apart in the common case.
        if key == "oneOf"
            && let Value::Object(empty) = &mut value
            && empty.is_empty()
            && let Some(Value::Object(props)) = self.spec.resolve_value(branch).and_then(|b| b.get("properties"))
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
        // And so do the names required beside it that nothing declares
        // (Wealthreader requires a name it declares only one level down).
        if let Value::Object(extra) = &mut value {
            let missing: Vec<String> = required_names(schema).into_iter().filter(|k| !extra.contains_key(k)).collect();
            if !missing.is_empty() {
                // A branch that declares the name (optional there) says
                // what its value is.
                let own = self.flattened(branch);
                for key in missing {
                    let filler = match own.get("properties").and_then(|p| p.get(&key)) {
                        Some(property) => self.walk(property, depth + 2, Some(&key)),
                        None => self.undeclared(schema, &key, depth),
                    };
                    extra.insert(key, filler);
                }
            }
        }
        value
    }

    /// A value for a `oneOf` that matches exactly one of its branches.
    ///
    /// Real descriptions often list branches that share their properties
    /// (three open objects with a `type` string each), so the first draw
    /// of the first branch can match several of them, which `oneOf`
    /// forbids. Each draw is checked against every branch with the
    /// description's validators; when it matches more than one, variants
    /// that tell the branches apart are tried (optional properties left
    /// out or added, other enum values), then the other branches. `None`
    /// when the branches cannot be checked (a branch does not compile),
    /// so the caller draws as before; when no branch can be made
    /// exclusive, the first draw is answered (the description's fault).
    fn one_of(
        &self,
        schema: &Value,
        map: &Map<String, Value>,
        branches: &[Value],
        preferred: usize,
        depth: usize,
        name: Option<&str>,
    ) -> Option<Value> {
        let set = self.schemas.get_or_init(|| SchemaSet::new(self.spec));
        let validators = branches.iter().map(|branch| set.validator(self.spec, branch)).collect::<Option<Vec<_>>>()?;
        // The keywords beside the `oneOf` count too (Vercel's `type: null`
        // beside branches that are all of other types admits nothing).
        let exclusive =
            |value: &Value| self.admits(schema, value) && validators.iter().filter(|v| v.is_valid(value)).count() == 1;
        let order = std::iter::once(preferred).chain((0..branches.len()).filter(|i| *i != preferred));
        let mut first = None;
        // A value the validators accept is valid whatever was unmet while
        // drawing it.
        let before = self.unmet.get();
        for index in order {
            let Some(branch) = branches.get(index) else { continue };
            let drawn = self.with_branch(schema, map, "oneOf", branch, depth, name);
            if exclusive(&drawn) {
                self.unmet.set(before);
                return Some(drawn);
            }
            if let Some(found) = self.variants(branch, &drawn, branches, depth, 0).into_iter().find(|v| exclusive(v)) {
                self.unmet.set(before);
                return Some(found);
            }
            first.get_or_insert(drawn);
        }
        self.unmet.set(true);
        first
    }

    /// Variations of a value drawn from a `oneOf` branch that may match
    /// fewer of the other branches: objects without their optional
    /// properties, without the ones another branch requires, with an
    /// optional property another (closed or differently typed) branch
    /// rejects, or with another value of an enum; scalars drawn without
    /// the property name's hint.
    fn variants(&self, branch: &Value, drawn: &Value, branches: &[Value], depth: usize, nesting: usize) -> Vec<Value> {
        const MAX_VARIANTS: usize = 64;
        let mut out = Vec::new();
        let own = self.flattened(branch);
        let Value::Object(object) = drawn else {
            out.push(self.walk(branch, depth + 1, None));
            if let Some(Value::Array(values)) = own.get("enum") {
                out.extend(values.iter().filter(|v| *v != drawn).take(MAX_VARIANTS).cloned());
            }
            return out;
        };
        let required = required_names(&own);
        let properties = own.get("properties").and_then(Value::as_object);
        let bare: Map<String, Value> =
            object.iter().filter(|(k, _)| required.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        out.push(Value::Object(bare.clone()));
        // Leave out what other branches require and this one does not.
        let others_require: Vec<String> = branches
            .iter()
            .filter(|b| *b != branch)
            .flat_map(|b| required_names(&self.flattened(b)))
            .filter(|k| !required.contains(k))
            .collect();
        let mut without = object.clone();
        without.retain(|k, _| !others_require.contains(k));
        out.push(Value::Object(without.clone()));
        if let Some(properties) = properties {
            // Add each declared property the draw left out (on the bare
            // value, and on the value without other branches' names).
            let missing: Vec<(&String, &Value)> = properties
                .iter()
                .filter(|(k, p)| !object.contains_key(*k) && self.include(p) && !others_require.contains(k))
                .take(MAX_VARIANTS / 4)
                .collect();
            for (key, property) in &missing {
                let value = self.walk(property, depth + 2, Some(key));
                for base in [&bare, &without] {
                    let mut added = base.clone();
                    added.insert((*key).clone(), value.clone());
                    out.push(Value::Object(added));
                }
            }
            // Other values of the enums this branch declares.
            for (key, property) in properties {
                let Some(resolved) = self.spec.resolve_value(property) else { continue };
                let Some(Value::Array(values)) = resolved.get("enum") else { continue };
                for value in values.iter().filter(|v| object.get(key) != Some(*v) && !v.is_null()) {
                    for base in [object, &without] {
                        let mut changed = base.clone();
                        changed.insert(key.clone(), value.clone());
                        out.push(Value::Object(changed));
                    }
                    if out.len() >= MAX_VARIANTS / 2 {
                        break;
                    }
                }
            }
        }
        // An open branch admits any undeclared property, so a property
        // another branch declares, with a value of a type that branch does
        // not admit, rules that branch out (Linode's PayPal data beside two
        // identical card branches, Rudder's status objects).
        let open = own.get("additionalProperties").is_none_or(|a| *a == Value::Bool(true));
        if open {
            // One such property at a time, then one for every other branch
            // at once (Intellifi's three open branches, each with its own
            // optional property, need two of them ruled out).
            let mut all: Vec<(String, Value)> = Vec::new();
            for other in branches.iter().filter(|b| *b != branch) {
                let other = self.flattened(other);
                let Some(declared) = other.get("properties").and_then(Value::as_object) else { continue };
                for (key, property) in declared {
                    if properties.is_some_and(|own| own.contains_key(key)) || all.iter().any(|(k, _)| k == key) {
                        continue;
                    }
                    let Some(value) = self.spec.resolve_value(property).and_then(inadmissible) else { continue };
                    for base in [object, &without, &bare] {
                        if out.len() < MAX_VARIANTS {
                            let mut added = base.clone();
                            added.insert(key.clone(), value.clone());
                            out.push(Value::Object(added));
                        }
                    }
                    all.push((key.clone(), value));
                }
            }
            if all.len() > 1 {
                for base in [object, &without, &bare] {
                    let mut added = base.clone();
                    added.extend(all.iter().cloned());
                    out.push(Value::Object(added));
                }
            }
        }
        // A property both branches declare with different schemas, given a
        // value only this branch's schema admits (InfluxDB's dashboards
        // differ only in what their cells' items may hold).
        if let Some(properties) = properties.filter(|_| nesting < 3) {
            let others: Vec<Value> = branches.iter().filter(|b| *b != branch).map(|b| self.flattened(b)).collect();
            for (key, value) in object {
                let Some(mine) = properties.get(key) else { continue };
                // Against each other branch alone, then against all of
                // them at once (Vonage's report records, whose eleven
                // branches differ mostly in their records' items).
                let theirs: Vec<&Value> = others
                    .iter()
                    .filter_map(|other| other.get("properties").and_then(|p| p.get(key)))
                    .filter(|theirs| *theirs != mine)
                    .collect();
                let mut targets: Vec<Vec<Value>> = theirs.iter().map(|t| vec![(*t).clone()]).collect();
                if theirs.len() > 1 {
                    targets.push(theirs.iter().map(|t| (*t).clone()).collect());
                }
                for target in targets {
                    if let Some(changed) = self.distinguishing(mine, &target, value, depth + 1, nesting + 1) {
                        let mut object = object.clone();
                        object.insert(key.clone(), changed);
                        out.push(Value::Object(object));
                    }
                }
            }
        }
        out
    }

    /// A value `own` admits and none of `others` does, from `value` (which
    /// `own` admits): `value` itself, one of its variants, or, for lists
    /// and objects, the same with one item or property changed so. `None`
    /// when none is found within a few levels.
    fn distinguishing(
        &self,
        own: &Value,
        others: &[Value],
        value: &Value,
        depth: usize,
        nesting: usize,
    ) -> Option<Value> {
        let set = self.schemas.get()?;
        let mine = set.validator(self.spec, own)?;
        let theirs = others.iter().map(|other| set.validator(self.spec, other)).collect::<Option<Vec<_>>>()?;
        let wanted = |v: &Value| mine.is_valid(v) && !theirs.iter().any(|t| t.is_valid(v));
        if !mine.is_valid(value) {
            return None;
        }
        if wanted(value) {
            return Some(value.clone());
        }
        if nesting >= 3 {
            return None;
        }
        let all: Vec<Value> = std::iter::once(own.clone()).chain(others.iter().cloned()).collect();
        if let Some(found) = self.variants(own, value, &all, depth, nesting).into_iter().find(|v| wanted(v)) {
            return Some(found);
        }
        let own_items = self.flattened(own).get("items").cloned()?;
        let other_items =
            others.iter().map(|other| self.flattened(other).get("items").cloned()).collect::<Option<Vec<_>>>()?;
        let Value::Array(items) = value else { return None };
        let item = match items.first() {
            Some(item) => item.clone(),
            None => self.walk(&own_items, depth + 1, None),
        };
        let changed = self.distinguishing(&own_items, &other_items, &item, depth + 1, nesting + 1)?;
        let list = Value::Array(vec![changed]);
        wanted(&list).then_some(list)
    }

    /// A schema with its `$ref` followed and its `allOf` merged.
    fn flattened(&self, schema: &Value) -> Value {
        let Some(resolved) = self.spec.resolve_value(schema) else { return Value::Null };
        match resolved.get("allOf") {
            Some(Value::Array(parts)) => self.merge_all_of(resolved, parts, 0),
            _ => resolved.clone(),
        }
    }

    fn walk_merged(&self, schema: &Value, depth: usize, name: Option<&str>) -> Value {
        if let Some(example) = schema.get("example").or_else(|| schema.get("examples").and_then(|e| e.get(0)))
            && depth > 0
            && self.fits(schema, example)
        {
            return self.charge(example);
        }
        let types = schema_types(schema);
        let ty = types.types.first().copied().unwrap_or_else(|| infer_type(schema));
        match ty {
            "object" => self.object(schema, depth),
            "array" => self.array(schema, depth),
            "string" => {
                let remaining = SAMPLE_BYTE_BUDGET.saturating_sub(self.bytes.get());
                let Some(text) = string(schema, name, remaining) else {
                    self.over_budget.set(true);
                    return Value::Null;
                };
                self.bytes.set(self.bytes.get() + text.len());
                if self.bytes.get() > SAMPLE_BYTE_BUDGET {
                    self.over_budget.set(true);
                    return Value::Null;
                }
                let text = Value::String(text);
                if !self.admits(schema, &text) {
                    self.unmet.set(true);
                }
                text
            }
            "integer" => name
                .filter(|_| !has_numeric_keywords(schema))
                .and_then(crate::realistic::integer_for)
                .map_or_else(|| integer(schema), |n| Value::Number(Number::from(n))),
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
        let bad_enum = schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| !values.is_empty() && !values.iter().any(|v| self.admits(schema, v)));
        bad_enum || self.closed_against_required(property)
    }

    /// Whether a schema closed by `additionalProperties` (itself or through
    /// its `allOf` members) requires a property it does not admit, so no
    /// object can satisfy it: BBC's two closed members, each requiring
    /// names the other does not declare, or a closed object with no
    /// properties of its own whose every `anyOf` branch requires some.
    fn closed_against_required(&self, schema: &Value) -> bool {
        let Some(allowed) = self.closed_names(schema, 0) else { return false };
        let flat = self.flattened(schema);
        if required_names(&flat).iter().any(|name| !allowed.contains(name)) {
            return true;
        }
        ["anyOf", "oneOf"].iter().any(|key| {
            flat.get(*key).and_then(Value::as_array).is_some_and(|branches| {
                !branches.is_empty()
                    && branches.iter().all(|branch| {
                        required_names(&self.flattened(branch)).iter().any(|name| !allowed.contains(name))
                    })
            })
        })
    }

    /// The types a schema and its `allOf` members all admit: `Some(None)`
    /// when none of them names a type, `None` when they name types that
    /// share none.
    fn types_conflict(&self, schema: &Value, nesting: usize) -> Option<Option<Value>> {
        let Some(resolved) = self.spec.resolve_value(schema) else { return Some(None) };
        let mut shared = resolved.get("type").filter(|t| t.is_string() || t.is_array()).cloned();
        // 3.0's `nullable` admits null beside the type.
        if let Some(Value::String(ty)) = &shared
            && schema_types(resolved).nullable
        {
            shared = Some(json!([ty, "null"]));
        }
        if let Some(Value::Array(parts)) = resolved.get("allOf")
            && nesting < 8
        {
            for part in parts {
                let Some(types) = self.types_conflict(part, nesting + 1)? else { continue };
                shared = Some(match shared {
                    Some(previous) => shared_types(&previous, &types)?,
                    None => types,
                });
            }
        }
        Some(shared)
    }

    /// The names a schema closed by `additionalProperties: false` admits:
    /// its own declared properties, narrowed by every closed `allOf`
    /// member; `None` when it is open.
    fn closed_names(&self, schema: &Value, nesting: usize) -> Option<Vec<String>> {
        let resolved = self.spec.resolve_value(schema)?;
        // Only `false` closes for certain (a schema admits names that match
        // it, and `patternProperties` admits more names).
        let strictly_closed = resolved.get("additionalProperties") == Some(&Value::Bool(false))
            && resolved.get("patternProperties").is_none();
        let mut closed = if strictly_closed { closed_properties(resolved) } else { None };
        if let Some(Value::Array(parts)) = resolved.get("allOf")
            && nesting < 8
        {
            for part in parts {
                if let Some(own) = self.closed_names(part, nesting + 1) {
                    closed = Some(match closed {
                        Some(previous) => previous.into_iter().filter(|k| own.contains(k)).collect(),
                        None => own,
                    });
                }
            }
        }
        closed
    }

    /// Whether `value` satisfies the schema's type, lengths, numeric bounds
    /// and pattern (the `enum` itself aside).
    fn admits(&self, schema: &Value, value: &Value) -> bool {
        let types = schema_types(schema);
        if value.is_null() && types.nullable {
            return true;
        }
        // `type: null` alone (3.1) admits nothing else.
        if types.types.is_empty() && types.nullable && schema.get("type").is_some() {
            return false;
        }
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

    /// A value copied from the description (an example, a default, a
    /// constant), counted against [`SAMPLE_BYTE_BUDGET`]: a 1 MB example
    /// repeated in nested lists would otherwise multiply.
    fn charge(&self, value: &Value) -> Value {
        self.bytes.set(self.bytes.get().saturating_add(approximate_size(value)));
        if self.bytes.get() > SAMPLE_BYTE_BUDGET {
            self.over_budget.set(true);
            return Value::Null;
        }
        value.clone()
    }

    /// Runs a generation step and says whether some constraint within it
    /// went unmet (see [`Walker::unmet`]), leaving the flag as it was.
    fn attempt(&self, step: impl FnOnce() -> Value) -> (Value, bool) {
        let before = self.unmet.replace(false);
        let value = step();
        let unmet = self.unmet.replace(before);
        (value, unmet)
    }

    /// A value for a required name the schema does not declare: from
    /// `additionalProperties` when it is a schema, else the name itself.
    /// A schema closed by `additionalProperties: false` admits no such name
    /// (Airbyte requires `json_schema` and declares `jsonSchema`).
    fn undeclared(&self, schema: &Value, key: &str, depth: usize) -> Value {
        match schema.get("additionalProperties") {
            Some(extra @ Value::Object(_)) => self.walk(extra, depth + 1, Some(key)),
            Some(Value::Bool(false)) => {
                self.unmet.set(true);
                Value::String(key.to_owned())
            }
            _ => Value::String(key.to_owned()),
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
            for (index, (key, property)) in properties.iter().enumerate() {
                let is_required = required.contains(&key.as_str());
                // Past the cap only required properties (EPA's 300 declared
                // properties, some required near the end).
                let frugal = depth >= SOFT_DEPTH || self.spent.get() > SOFT_BUDGET || index >= MAX_PROPERTIES;
                // `false` declares a property that must not be there (Codat
                // wrote `additionalProperties: false` inside `properties`).
                let forbidden = *property == Value::Bool(false);
                if !is_required && (frugal || forbidden || !self.include(property) || self.impossible(property)) {
                    continue;
                }
                if forbidden {
                    self.unmet.set(true);
                }
                let (value, unmet) = self.attempt(|| self.walk(property, depth + 1, Some(key)));
                if unmet && !is_required {
                    // An optional property the sampler could not make
                    // valid is better left out than answered wrong.
                    continue;
                }
                if unmet && self.spec.resolve_value(property).is_some_and(|p| schema_types(p).nullable) {
                    // A required one that may be null is null (ShipEngine's
                    // nullable link whose closed schema admits no object).
                    out.insert(key.clone(), Value::Null);
                    continue;
                }
                if unmet {
                    self.unmet.set(true);
                }
                out.insert(key.clone(), value);
            }
        }
        // Required names without a declared property still have to be there.
        for key in &required {
            if !out.contains_key(*key) {
                let value = self.undeclared(schema, key, depth);
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
        // Declared properties first (a frugal walk left them out), then
        // made-up names where the schema admits them.
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (key, property) in properties {
                if out.len() as u64 >= min {
                    break;
                }
                if !out.contains_key(key) && self.include(property) && !self.impossible(property) {
                    out.insert(key.clone(), self.walk(property, depth + 1, Some(key)));
                }
            }
        }
        if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
            return Value::Object(out);
        }
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
        let (first, unmet) = self.attempt(|| self.walk(items, depth + 1, None));
        if unmet {
            if min == 0 {
                // No item could be made valid: an empty list is.
                return Value::Array(Vec::new());
            }
            self.unmet.set(true);
        }
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

/// About how many bytes `value` takes as JSON text.
fn approximate_size(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len() + 2,
        Value::Array(items) => items.iter().map(approximate_size).sum::<usize>() + 2,
        Value::Object(map) => map.iter().map(|(k, v)| k.len() + 4 + approximate_size(v)).sum::<usize>() + 2,
        _ => 8,
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
        // Items described by several members must satisfy all of them (NPR:
        // any object in the base document, a channel in the other member).
        ("items", Some(existing)) => {
            if existing != value && existing.is_object() && value.is_object() {
                *existing = json!({ "allOf": [existing.clone(), value.clone()] });
            }
        }
        // Members that both name types admit only the types they share
        // (Mailchimp's `number` in one member and `integer` in another).
        ("type", Some(existing)) => {
            if let Some(shared) = shared_types(existing, value) {
                *existing = shared;
            }
        }
        // `nullable: false` in one member must not cancel another's type.
        ("nullable", Some(_)) => {}
        (_, Some(_)) => {}
        (_, None) => {
            merged.insert(key.to_owned(), value.clone());
        }
    }
}

/// A value of a JSON type `schema` does not admit (`None` when it admits
/// every type).
fn inadmissible(schema: &Value) -> Option<Value> {
    let types = schema_types(schema);
    if types.types.is_empty() {
        return None;
    }
    let admitted = |value: &Value| {
        types.types.iter().any(|ty| {
            matches!(
                (*ty, value),
                ("string", Value::String(_))
                    | ("boolean", Value::Bool(_))
                    | ("array", Value::Array(_))
                    | ("object", Value::Object(_))
                    | ("number" | "integer", Value::Number(_))
            )
        })
    };
    [json!("value"), json!(0), json!(true), json!({}), json!([])].into_iter().find(|v| !admitted(v))
}

/// The types two `type` keywords share (`integer` is a `number`), as one
/// keyword; `None` when they share none (then the first is kept).
fn shared_types(first: &Value, second: &Value) -> Option<Value> {
    let list = |value: &Value| -> Vec<String> {
        match value {
            Value::String(ty) => vec![ty.clone()],
            Value::Array(types) => types.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        }
    };
    let (a, b) = (list(first), list(second));
    let within = |ty: &str, types: &[String]| types.iter().any(|t| t == ty || (ty == "integer" && t == "number"));
    let mut shared: Vec<String> = a.iter().filter(|ty| within(ty, &b)).cloned().collect();
    for ty in b.iter().filter(|ty| within(ty, &a)) {
        if !shared.contains(ty) {
            shared.push(ty.clone());
        }
    }
    // `number` and `integer` share `integer` only.
    if shared.iter().any(|t| t == "integer") {
        shared.retain(|t| t != "number");
    }
    match shared.as_slice() {
        [] => None,
        [one] => Some(Value::String(one.clone())),
        _ => Some(Value::Array(shared.into_iter().map(Value::String).collect())),
    }
}

/// The names a (flattened) schema requires.
fn required_names(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// The properties a schema closed by `additionalProperties` (false or a
/// schema) declares itself; `None` when it is open.
fn closed_properties(schema: &Value) -> Option<Vec<String>> {
    schema.get("additionalProperties").filter(|a| *a != &Value::Bool(true))?;
    Some(schema.get("properties").and_then(Value::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default())
}

fn infer_type(schema: &Value) -> &'static str {
    // A branch that only lists `required` names (InfluxDB's `oneOf` of two
    // required lists beside the properties) is about an object too.
    let object_keywords = ["properties", "additionalProperties", "required", "patternProperties", "minProperties"];
    if object_keywords.iter().any(|key| schema.get(*key).is_some()) {
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

/// A string for `schema` of at most `limit` bytes, or `None` when the
/// schema's minimum length or pattern asks for more.
fn string(schema: &Value, name: Option<&str>, limit: usize) -> Option<String> {
    let min = usize::try_from(schema.get("minLength").and_then(Value::as_u64).unwrap_or(0)).unwrap_or(usize::MAX);
    if min > limit {
        return None;
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
        && pattern_minimum_len(pattern).is_some_and(|shortest| shortest > limit)
    {
        return None;
    }
    Some(unbounded_string(schema, name, min, limit))
}

/// The length in bytes of the shortest text the pattern matches in full,
/// when the pattern parses.
fn pattern_minimum_len(pattern: &str) -> Option<usize> {
    let plain = without_anchors_and_lookaround(&ascii_classes(pattern), false);
    let hir = regex_syntax::ParserBuilder::new().unicode(false).build().parse(&plain).ok()?;
    // An overflowing minimum is longer than any budget.
    Some(hir.properties().minimum_len().unwrap_or(usize::MAX))
}

fn unbounded_string(schema: &Value, name: Option<&str>, min: usize, limit: usize) -> String {
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
        // A realistic value for a known name, when the pattern admits it
        // (`login: ^[a-z-]+$` reads `ada-lovelace`, not a random draw).
        if let Some(text) = name.and_then(crate::realistic::string_for)
            && fits(text)
            && format_ok(format, text)
        {
            return text.to_owned();
        }
        if let Some(text) = from_pattern(pattern, min, limit, &|text| fits(text) && format_ok(format, text)) {
            return text;
        }
        // A URL pattern that only says how the path ends (OPTIMADE's
        // `.+/v[0-1](\.[0-9]+)*/?$`): the format's sample, then a draw.
        if matches!(format, "uri" | "url" | "iri")
            && let Some(base) = by_format(format)
            && let Some(tail) = from_pattern(pattern, 0, limit, &|tail| {
                tail.bytes().all(|b| b.is_ascii_graphic()) && fits(&format!("{base}{tail}"))
            })
        {
            return format!("{base}{tail}");
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
    /// How a pattern is checked: as the JSON Schema validator reads
    /// `pattern` (which reads AWS's Java `[\p{Print}&&[^|:/]]+` its own
    /// way), or with `fancy-regex` when that cannot be built.
    enum Matcher {
        Regex(fancy_regex::Regex),
        Schema(jsonschema::Validator),
    }
    thread_local! {
        static COMPILED: std::cell::RefCell<std::collections::HashMap<String, Option<Matcher>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    COMPILED.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() > 4096 {
            cache.clear();
        }
        let matcher = cache.entry(pattern.to_owned()).or_insert_with(|| {
            pattern_validator(pattern).map(Matcher::Schema).or_else(|| {
                fancy_regex::RegexBuilder::new(&ascii_classes(pattern))
                    .backtrack_limit(100_000)
                    .build()
                    .ok()
                    .map(Matcher::Regex)
            })
        });
        match matcher {
            Some(Matcher::Regex(re)) => re.is_match(text).unwrap_or(true),
            Some(Matcher::Schema(validator)) => validator.is_valid(&Value::String(text.to_owned())),
            None => true,
        }
    })
}

/// A validator of `{"pattern": ...}` alone. The schema is registered
/// rather than compiled directly, as descriptions' schemas are, so the
/// pattern is not first checked against the meta-schema's `regex` format.
fn pattern_validator(pattern: &str) -> Option<jsonschema::Validator> {
    const BASE: &str = "https://pattern.invalid/schema.json";
    let draft = jsonschema::Draft::Draft4;
    let resource = draft.create_resource(json!({ "definitions": { "p": { "pattern": pattern } } }));
    let registry = jsonschema::Registry::new().add(BASE, resource).ok()?.prepare().ok()?;
    jsonschema::options()
        .with_draft(draft)
        .with_registry(&registry)
        .with_pattern_options(crate::schema::pattern_limits())
        .build(&json!({ "$ref": format!("{BASE}#/definitions/p") }))
        .ok()
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
/// minimum length): up to 32 draws from `rand_regex`, seeded by the
/// pattern. `rand_regex` cannot generate anchors or lookaround, so those
/// are taken out for generation (inner anchors as in `(^A$)|(^B$)`,
/// lookaheads as in `^(?!-)[a-z-]+$`), and `accept` checks each draw
/// against the pattern as written. When no draw is accepted, the draws
/// are stretched to `min` and then the pattern is rewritten further (see
/// [`rewritten`]) for more draws.
fn from_pattern(pattern: &str, min: usize, limit: usize, accept: &dyn Fn(&str) -> bool) -> Option<String> {
    let seed = pattern.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let mut rng = StdRng::seed_from_u64(seed);
    let plain = without_anchors_and_lookaround(&ascii_classes(pattern), false);
    // Open repetitions (`+`, `*`, `{2,}`) repeat up to 8 times, or up to the
    // minimum length so that `^[0-9]+$` with `minLength: 12` can be met.
    let open = u32::try_from(min.clamp(8, 4096)).unwrap_or(8);
    let mut attempts = vec![(plain, open, false)];
    let rewritten_inlined = rewritten(pattern, true);
    let rewritten_plain = rewritten(pattern, false);
    let literal = without_anchors_and_lookaround(&ecma_classes(pattern), false);
    for form in [rewritten_inlined, rewritten_plain, literal] {
        // The shortest reading too (`.*` empty, `+` once), for patterns
        // like `.*(^arn:...)` whose anchors only hold at the very start.
        for repeat in [open, 0] {
            if !attempts.iter().any(|(f, r, _)| *f == form && *r == repeat) {
                attempts.push((form.clone(), repeat, true));
            }
        }
    }
    for (form, repeat, printable_only) in attempts {
        let Some(generator) = generator(&form, repeat, printable_only, limit) else { continue };
        let draws: Vec<String> = (0..32).map(|_| rand::Rng::sample(&mut rng, &generator)).collect();
        if let Some(found) = draws.iter().find(|candidate| accept(candidate)) {
            return Some(found.clone());
        }
        // A draw too short for `minLength` (`^[a-f0-9-]+$` with exactly 36
        // characters) usually still matches with its last character
        // repeated.
        if let Some(found) = draws.iter().filter_map(|draw| stretch(draw, min)).find(|candidate| accept(candidate)) {
            return Some(found);
        }
    }
    None
}

/// A `rand_regex` generator for a pattern already rewritten for
/// generation, with open repetitions repeating up to `repeat` more times;
/// with `printable_only`, classes keep their printable ASCII part when
/// they have one (`.` and `[^:]` would draw from all of Unicode, where a
/// lookahead the draw is checked against seldom holds).
fn generator(form: &str, repeat: u32, printable_only: bool, limit: usize) -> Option<rand_regex::Regex> {
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .build()
        .parse(form)
        .ok()
        .or_else(|| regex_syntax::ParserBuilder::new().build().parse(form).ok())?;
    let hir = if printable_only { printable(hir) } else { hir };
    let hir = within(hir, repeat, limit)?;
    rand_regex::Regex::with_hir(hir, repeat).ok()
}

/// The expression with every repetition bounded so that no draw can pass
/// `limit` bytes, or `None` when even its shortest match is longer.
///
/// Open repetitions (`+`, `{2,}`) become `{n, n + repeat}`, which is what
/// `rand_regex` draws from them anyway; then wide bounded ones are narrowed
/// (`{0,1000000}` to `{0,4096}`, and on to `{n,n+8}` and `{n}`) until the
/// longest possible draw fits. Nested counts multiply (`(x{100000}){100000}`
/// is ten billion characters), so the check is on the whole expression.
fn within(hir: regex_syntax::hir::Hir, repeat: u32, limit: usize) -> Option<regex_syntax::hir::Hir> {
    if hir.properties().minimum_len().is_none_or(|min| min > limit) {
        return None;
    }
    for gap in [4096, 8, 0] {
        let bounded = bound_repetitions(hir.clone(), repeat.min(gap), gap);
        if bounded.properties().maximum_len().is_some_and(|max| max <= limit) {
            return Some(bounded);
        }
    }
    None
}

fn bound_repetitions(hir: regex_syntax::hir::Hir, open: u32, gap: u32) -> regex_syntax::hir::Hir {
    use regex_syntax::hir::{Capture, Hir, HirKind, Repetition};
    match hir.into_kind() {
        HirKind::Repetition(rep) => {
            let ceiling = rep.min.saturating_add(gap);
            let max = Some(rep.max.map_or(rep.min.saturating_add(open), |max| max.min(ceiling)));
            Hir::repetition(Repetition { sub: Box::new(bound_repetitions(*rep.sub, open, gap)), max, ..rep })
        }
        HirKind::Capture(cap) => Hir::capture(Capture { sub: Box::new(bound_repetitions(*cap.sub, open, gap)), ..cap }),
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(|s| bound_repetitions(s, open, gap)).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(|s| bound_repetitions(s, open, gap)).collect())
        }
        HirKind::Class(class) => Hir::class(class),
        HirKind::Literal(literal) => Hir::literal(literal.0),
        HirKind::Look(look) => Hir::look(look),
        HirKind::Empty => Hir::empty(),
    }
}

/// The expression with every Unicode class narrowed to its printable ASCII
/// part (classes without one are kept as they are).
fn printable(hir: regex_syntax::hir::Hir) -> regex_syntax::hir::Hir {
    use regex_syntax::hir::{Capture, Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Repetition};
    match hir.into_kind() {
        HirKind::Class(Class::Unicode(class)) => {
            let mut narrowed = ClassUnicode::new([ClassUnicodeRange::new(' ', '~')]);
            narrowed.intersect(&class);
            Hir::class(Class::Unicode(if narrowed.ranges().is_empty() { class } else { narrowed }))
        }
        HirKind::Class(class) => Hir::class(class),
        HirKind::Repetition(rep) => Hir::repetition(Repetition { sub: Box::new(printable(*rep.sub)), ..rep }),
        HirKind::Capture(cap) => Hir::capture(Capture { sub: Box::new(printable(*cap.sub)), ..cap }),
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(printable).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.into_iter().map(printable).collect()),
        HirKind::Literal(literal) => Hir::literal(literal.0),
        HirKind::Look(look) => Hir::look(look),
        HirKind::Empty => Hir::empty(),
    }
}

/// `draw` with its last character repeated up to `min` characters.
fn stretch(draw: &str, min: usize) -> Option<String> {
    let len = draw.chars().count();
    let last = draw.chars().last()?;
    (len < min).then(|| draw.chars().chain(std::iter::repeat_n(last, min - len)).collect())
}

/// The pattern rewritten for generation beyond anchors and lookaround:
/// back-references (`(-?)..\1`, which `rand_regex` cannot generate)
/// become a copy of their group, so a draw repeats the group's value with
/// some chance (the draw is checked against the real pattern); the POSIX
/// classes of Java patterns (`\p{Alnum}`, `\p{Alpha}`, ..., which AWS
/// writes) become their ASCII sets; with `inline_lookahead`, a positive
/// lookahead becomes what it looks for (`^arn:(?=[^:]+:fsx:)...` draws
/// `fsx` where the lookahead wants it).
fn rewritten(pattern: &str, inline_lookahead: bool) -> String {
    let expanded = expand_backreferences(&ascii_classes(pattern));
    without_anchors_and_lookaround(&posix_classes(&expanded), inline_lookahead)
}

/// The pattern's classes read as ECMA-262 reads them without the `u`
/// flag: a class ends at its first `]` (a `[` inside is literal, so Java's
/// `[\p{Print}&&[^|:/]]+` is a class followed by a literal `]`), and
/// property escapes, which mean nothing there, are left out.
fn ecma_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_class && matches!(chars.peek(), Some('p' | 'P')) => {
                chars.next();
                if chars.peek() == Some(&'{') {
                    for skipped in chars.by_ref() {
                        if skipped == '}' {
                            break;
                        }
                    }
                }
            }
            '\\' => {
                out.push(c);
                out.extend(chars.next());
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                if chars.peek() == Some(&'^') {
                    out.extend(chars.next());
                }
            }
            '[' | '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            ']' => out.push_str("\\]"),
            _ => out.push(c),
        }
    }
    out
}

/// Java's POSIX character classes spelled as ASCII sets.
fn posix_classes(pattern: &str) -> String {
    const CLASSES: [(&str, &str); 12] = [
        ("Alnum", "A-Za-z0-9"),
        ("Alpha", "A-Za-z"),
        ("Digit", "0-9"),
        ("Upper", "A-Z"),
        ("Lower", "a-z"),
        ("XDigit", "0-9a-fA-F"),
        ("Punct", "!-/:-@\\[-`{-~"),
        ("Graph", "!-~"),
        ("Print", " -~"),
        ("Blank", " \\t"),
        ("Space", " \\t\\n\\x0B\\f\\r"),
        ("ASCII", "\\x00-\\x7F"),
    ];
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    let mut in_class = false;
    while let Some(c) = rest.chars().next() {
        if c == '\\' {
            let found =
                CLASSES.iter().find(|(name, _)| rest.get(1..).is_some_and(|r| r.starts_with(&format!("p{{{name}}}"))));
            if let Some((name, set)) = found {
                if in_class {
                    out.push_str(set);
                } else {
                    out.push('[');
                    out.push_str(set);
                    out.push(']');
                }
                rest = rest.get(name.len() + 4..).unwrap_or("");
                continue;
            }
            // Any other escape is copied with its escaped character.
            let mut chars = rest.chars();
            out.extend(chars.next());
            out.extend(chars.next());
            rest = chars.as_str();
            continue;
        }
        match c {
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            _ => {}
        }
        out.push(c);
        rest = rest.get(c.len_utf8()..).unwrap_or("");
    }
    out
}

/// The pattern with each back-reference `\N` replaced by a copy of the
/// text of capturing group N (left as it is when there is no such group).
fn expand_backreferences(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    // The spans of the capturing groups, in the order they open.
    let mut groups = Vec::new();
    let mut in_class = false;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 1,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => {
                let named =
                    matches!(chars.get(i + 1..i + 3), Some(['?', '<'])) && !matches!(chars.get(i + 3), Some('=' | '!'));
                if chars.get(i + 1) != Some(&'?') || named {
                    groups.push((i, group_end(&chars, i)));
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut out = String::with_capacity(pattern.len());
    let mut in_class = false;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c == '\\' && !in_class && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit() && *d != '0') {
            let digits: String = chars.iter().skip(i + 1).take_while(|d| d.is_ascii_digit()).collect();
            if let Some(&(start, end)) = digits.parse::<usize>().ok().and_then(|n| groups.get(n.wrapping_sub(1)))
                && let Some(group) = chars.get(start..end)
            {
                // The group's body without its own parentheses and name.
                let text: String = group.iter().collect();
                let body = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(&text);
                let body = match body.strip_prefix("?<").and_then(|b| b.split_once('>')) {
                    Some((_, inner)) => inner,
                    None => body,
                };
                out.push_str("(?:");
                out.push_str(body);
                out.push(')');
                i += 1 + digits.len();
                continue;
            }
        }
        match c {
            '\\' => {
                out.push(c);
                out.extend(chars.get(i + 1));
                i += 2;
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The pattern without `^`/`$` anchors and lookaround groups, for
/// generation only. JSON Schema patterns are unanchored, so a string
/// generated from the rest still contains a match in the common cases; the
/// caller checks every draw against the real pattern.
fn without_anchors_and_lookaround(pattern: &str, inline_lookahead: bool) -> String {
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
            '(' if !in_class && inline_lookahead && matches!(chars.get(i + 1..i + 3), Some(['?', '='])) => {
                // The lookahead's own text, as a group that consumes.
                out.push_str("(?:");
                i += 3;
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
        return crate::realistic::string_for(name).map_or_else(|| name.to_owned(), str::to_owned);
    };
    pick.to_owned()
}

/// Whether an integer schema constrains its value (then the bounds decide,
/// not the property's name).
fn has_numeric_keywords(schema: &Value) -> bool {
    ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "const", "enum"]
        .iter()
        .any(|key| schema.get(*key).is_some())
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
            json!({"href": "https://example.com/resource", "kind": "standard"}),
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
        assert_eq!(without_anchors_and_lookaround(r"^(?!a)[\^$a-z]+\$$", false), r"[\^$a-z]+\$");
        assert!(format_ok("date", "2024-02-29") && !format_ok("date", "881010141-11-29"));
        // AWS: `\w` is ASCII for validators; draws stay ASCII and Unicode
        // word characters are not accepted.
        assert_eq!(ascii_classes(r"^arn:[\w+=/,.@-]+:\d\W$"), r"^arn:[A-Za-z0-9_+=/,.@-]+:[0-9][^A-Za-z0-9_]$");
        assert!(!pattern_matches(r"^\w+$", "caf\u{e9}"));
        let arn = from_pattern(r"^arn:[\w+=/,.@-]+:forecast:[\w+=/,.@-]*$", 0, SAMPLE_BYTE_BUDGET, &|t| {
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
        // NPR: list items described by two members take both shapes.
        let document = json!({"allOf": [
            {"properties": {"items": {"type": "array", "items": {"type": "object"}}}},
            {"properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}]});
        assert_eq!(sample(&spec, &document, Direction::Response), json!({"items": [{"name": "Ada Lovelace"}]}));
        // OPTIMADE: a URL whose pattern only says how the path ends.
        let url = json!({"type": "string", "format": "uri", "pattern": r".+/v[0-1](\.[0-9]+)*/?$"});
        let url = sample(&spec, &url, Direction::Response);
        let url = url.as_str().unwrap();
        assert!(url.starts_with("https://example.com/") && pattern_matches(r".+/v[0-1](\.[0-9]+)*/?$", url), "{url}");
        // Mailchimp: `number` in one member, `integer` in the other.
        let summary = json!({"allOf": [{"properties": {"impressions": {"type": "number"}}},
            {"properties": {"impressions": {"type": "integer"}}}]});
        assert_eq!(sample(&spec, &summary, Direction::Response), json!({"impressions": 1}));
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

    /// Otoroshi, Rudder, ix-api, Linode: `oneOf` branches that share their
    /// properties, so the first draw matches several of them.
    #[test]
    fn one_of_draws_match_exactly_one_branch() {
        let spec = spec_with(json!({
            // The first branch's optional `name` is what the second requires.
            "Query": {"type": "object", "required": ["type"],
                "properties": {"type": {"type": "string"}, "name": {"type": "string"}}},
            "Header": {"type": "object", "required": ["type", "name"],
                "properties": {"type": {"type": "string"}, "name": {"type": "string"}}},
            // Told apart only by another value of an enum.
            "Wide": {"type": "object", "required": ["kind"],
                "properties": {"kind": {"type": "string", "enum": ["a", "b"]}}},
            "Narrow": {"type": "object", "required": ["kind"],
                "properties": {"kind": {"type": "string", "enum": ["a"]}}},
            // Every draw of the closed branch with an id matches both.
            "Closed": {"type": "object", "additionalProperties": false,
                "properties": {"id": {"type": "integer"}}},
            "Open": {"type": "object", "required": ["id"],
                "properties": {"id": {"type": "integer"}, "note": {"type": "string"}}},
            // Two identical open branches and a third whose draws match
            // them too: only a property they declare, with another type,
            // rules them out.
            "Card": {"type": "object", "properties": {"card_type": {"type": "string"}}},
            "Wallet": {"type": "object", "properties": {"card_type": {"type": "string"}}},
            "PayPal": {"type": "object", "properties": {"email": {"type": "string"}}},
            "Cell": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "View": {"allOf": [{"$ref": "#/components/schemas/Cell"},
                {"type": "object", "properties": {"view": {"type": "object"}}}]},
            "Kind": {"allOf": [{"$ref": "#/components/schemas/Cell"},
                {"type": "object", "properties": {"kind": {"type": "string"}}}]}
        }));
        let set = OnceLock::new();
        let one_of = |names: &[&str]| {
            let branches: Vec<Value> =
                names.iter().map(|n| json!({"$ref": format!("#/components/schemas/{n}")})).collect();
            let schema = json!({"oneOf": branches});
            let value = sample_with(&spec, &set, &schema, Direction::Response);
            let validator = set.get().unwrap().validator(&spec, &schema).unwrap();
            assert!(validator.is_valid(&value), "{names:?}: {value}");
            value
        };
        assert_eq!(one_of(&["Query", "Header"]), json!({"type": "standard"}));
        assert_eq!(one_of(&["Wide", "Narrow"]), json!({"kind": "b"}));
        assert_eq!(one_of(&["Closed", "Open"]), json!({}), "without the id the second branch does not match");
        assert_eq!(one_of(&["Card", "Wallet", "PayPal"]), json!({"email": "user@example.com", "card_type": 0}));
        // Intellifi: three open branches, each with its own property.
        let item = json!({"oneOf": [
            {"type": "object", "properties": {"location": {"type": "integer"}}},
            {"type": "object", "properties": {"location_id": {"type": "string"}}},
            {"type": "object", "properties": {"location_url": {"type": "string"}}}]});
        let value = sample_with(&spec, &set, &item, Direction::Response);
        assert_eq!(value, json!({"location": 1, "location_id": 0, "location_url": 0}));
        // InfluxDB: branches that differ only in what their list items hold.
        let dashboards = json!({"oneOf": [
            {"type": "object", "properties": {"cells": {"type": "array", "items": {"$ref": "#/components/schemas/Cell"}}}},
            {"type": "object", "properties": {"cells": {"type": "array", "items": {"$ref": "#/components/schemas/View"}}}}]});
        let value = sample_with(&spec, &set, &dashboards, Direction::Response);
        assert_eq!(value, json!({"cells": [{"x": 1, "view": "value"}]}));
        // Vonage: the item must rule out several other branches at once.
        let reports = json!({"oneOf": [
            {"type": "object", "properties": {"cells": {"type": "array", "items": {"$ref": "#/components/schemas/Cell"}}}},
            {"type": "object", "properties": {"cells": {"type": "array", "items": {"$ref": "#/components/schemas/View"}}}},
            {"type": "object", "properties": {"cells": {"type": "array", "items": {"$ref": "#/components/schemas/Kind"}}}}]});
        let value = sample_with(&spec, &set, &reports, Direction::Response);
        assert_eq!(value, json!({"cells": [{"x": 1, "view": "value", "kind": 0}]}));
        // InfluxDB: branches that are only `required` lists, beside the
        // properties they name.
        let dbrp = json!({"type": "object", "oneOf": [{"required": ["orgID", "bucket"]}, {"required": ["org", "bucket"]}],
            "properties": {"orgID": {"type": "string"}, "org": {"type": "string"}, "bucket": {"type": "string"}}});
        let value = sample_with(&spec, &set, &dbrp, Direction::Response);
        assert_eq!(value, json!({"orgID": "orgID", "bucket": "bucket"}));
    }

    /// AWS patterns the plain draws cannot meet: Java's POSIX classes,
    /// back-references, lookaheads that say what comes next, anchors after
    /// `.*`, exact lengths.
    #[test]
    fn aws_patterns_are_met() {
        let spec = spec_with(json!({}));
        let set = SchemaSet::new(&spec);
        let patterns = [
            (
                r"^urn:tdm:(([a-z]{2}-(gov-)?[a-z]{4,9}-[0-9]{1,3}/[0-9]+/)*[\p{Alnum}_]+(/[\p{Alnum}_]+)*):([\p{Alpha}]*):([\p{Alnum}_]+(/[\p{Alnum}_]+)*)$",
                0,
                None,
            ),
            (r"arn:[\p{Alnum}\-]+:lambda:[\p{Alnum}\-]+:[0-9]{12}:function:.*", 0, None),
            (r"^([0-9]{4})(-?)([0-9]{2})\2([0-9]{2})$", 0, None),
            (
                r"^arn:(?=[^:]+:fsx:[^:]+:\d{12}:)((|(?=[a-z0-9-.]{1,63})(?!\d{1,3}(\.\d{1,3}){3})(?![^:]*-{2})(?![^:]*-\.)(?![^:]*\.-)[a-z0-9].*(?<!-)):){4}(?!/).{0,1024}$",
                8,
                None,
            ),
            (r".*(^arn:((aws)|(aws-cn)|(aws-us-gov)):s3:::)([a-zA-Z0-9_-]+$).*", 0, None),
            (r"^(?=^\$)(?=^\S+$).*$", 1, None),
            (r"^[a-f0-9\-]+$", 36, Some(36)),
        ];
        for (pattern, min, max) in patterns {
            let mut schema = json!({"type": "string", "pattern": pattern, "minLength": min});
            if let Some(max) = max {
                schema["maxLength"] = json!(max);
            }
            let value = sample(&spec, &schema, Direction::Response);
            assert!(set.validator(&spec, &schema).unwrap().is_valid(&value), "{pattern}: {value}");
        }
        // AWS: a Java class intersection, which the validator reads its own
        // way (a class, then a literal `]`).
        let spec = spec_with(json!({"Name": {"type": "string", "pattern": r"[\p{Print}&&[^|:/]]+"}}));
        let name = json!({"$ref": "#/components/schemas/Name"});
        let value = sample(&spec, &name, Direction::Response);
        assert!(SchemaSet::new(&spec).validator(&spec, &name).unwrap().is_valid(&value), "{value}");
        assert_eq!(expand_backreferences(r"^(a)(?:b)(?<n>c)\2\1[\1]$"), r"^(a)(?:b)(?<n>c)(?:c)(?:a)[\1]$");
        assert_eq!(ecma_classes(r"[\p{Print}&&[^|:/]]+"), r"[\&\&\[^|:/]\]+");
        assert_eq!(posix_classes(r"[\p{Alnum}_]\p{Digit}\p{L}"), r"[A-Za-z0-9_][0-9]\p{L}");
    }

    /// BBC, ShipEngine: optional properties whose closed schemas require
    /// names they do not admit are left out (no value could be answered).
    #[test]
    fn optional_closed_contradictions_are_left_out() {
        let spec = spec_with(json!({
            "Reference": {"type": "object", "additionalProperties": false, "required": ["href"],
                "properties": {"href": {"type": "string"}}},
            "Deprecation": {"type": "object", "additionalProperties": false, "required": ["deprecated"],
                "properties": {"deprecated": {"type": "boolean"}}},
            "Groups": {"allOf": [{"$ref": "#/components/schemas/Reference"}, {"$ref": "#/components/schemas/Deprecation"}]},
            "Optional": {"type": "object", "additionalProperties": false, "properties": {"href": {"type": "string"}}},
            "Link": {"type": "object", "additionalProperties": false, "required": ["href"],
                "allOf": [{"$ref": "#/components/schemas/Optional"}]}
        }));
        let schema = json!({"type": "object", "required": ["id"], "properties": {
            "id": {"type": "integer"},
            "groups": {"$ref": "#/components/schemas/Groups"},
            "first": {"allOf": [{"$ref": "#/components/schemas/Link"}]},
            "image": {"type": "object", "additionalProperties": false,
                "anyOf": [{"$ref": "#/components/schemas/Deprecation"}, {"required": ["url"]}]},
            // Open members and schema-valued `additionalProperties` stay.
            "open": {"allOf": [{"type": "object", "properties": {"id": {"type": "integer"}}},
                {"type": "object", "additionalProperties": {"type": "string"}, "required": ["name"]}]}
        }});
        let value = sample(&spec, &schema, Direction::Response);
        assert_eq!(value.as_object().unwrap().keys().collect::<Vec<_>>(), ["id", "open"], "{value}");
    }

    /// Apple: a `oneOf` naming the same schema twice under an optional list;
    /// Linode: a label pattern whose `..` forbids the minimum length;
    /// Vercel: a `oneOf` whose sibling `type` no branch has.
    #[test]
    fn unmet_optional_values_are_left_out() {
        let spec = spec_with(json!({
            "Category": {"type": "object", "properties": {"id": {"type": "string"}}}
        }));
        let twice =
            json!({"oneOf": [{"$ref": "#/components/schemas/Category"}, {"$ref": "#/components/schemas/Category"}]});
        let label = json!({"type": "string", "minLength": 3, "pattern": "^[a-zA-Z]((?!--|__|..)[a-zA-Z0-9-_.])+$"});
        let schema = json!({"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "integer"},
            "included": {"type": "array", "items": twice},
            "label": label,
            "name": label,
            // Vercel (3.1): `type: null` beside branches of other types.
            "assignedAt": {"type": "null", "oneOf": [{"type": "number"}, {"type": "boolean"}]}
        }});
        let value = sample(&spec, &schema, Direction::Response);
        assert_eq!(value["included"], json!([]), "{value}");
        assert!(value.get("label").is_none() && value.get("assignedAt").is_none(), "{value}");
        assert!(value.get("name").is_some(), "a required value is answered even so: {value}");
        let nullable = json!({"type": "object", "required": ["code"],
            "properties": {"code": {"type": "string", "nullable": true, "minLength": 3, "pattern": "^[a-zA-Z]((?!--|__|..)[a-zA-Z0-9-_.])+$"}}});
        assert_eq!(sample(&spec, &nullable, Direction::Response), json!({"code": null}), "or null where it may be");
        // Sinao: members of types that share none; BBC: a required
        // property whose closed schema admits none of its branches.
        let spec = spec_with(json!({
            "Discount": {"type": "object", "properties": {"amount": {"type": "integer"}}},
            "Deprecation": {"type": "object", "additionalProperties": false, "required": ["deprecated"],
                "properties": {"deprecated": {"type": "boolean"}}}
        }));
        let invoice = json!({"type": "object", "required": ["id"], "properties": {
            "id": {"type": "integer"},
            "discount": {"allOf": [{"$ref": "#/components/schemas/Discount"}, {"type": "integer"}]},
            "image_link": {"type": "object", "additionalProperties": false, "required": ["image"], "properties": {
                "image": {"type": "object", "additionalProperties": false,
                    "anyOf": [{"$ref": "#/components/schemas/Deprecation"}, {"required": ["url"]}]}}}
        }});
        assert_eq!(sample(&spec, &invoice, Direction::Response), json!({"id": 1}));
        // Nullable members of different types admit null alone.
        let either = json!({"allOf": [{"type": "string", "nullable": true}, {"type": "integer", "nullable": true}]});
        assert_eq!(sample(&spec, &either, Direction::Response), Value::Null);
        let listed = json!({"allOf": [{"type": ["string", "null"]}, {"type": ["integer", "null"]}]});
        assert_eq!(sample(&spec, &listed, Direction::Response), Value::Null);
        // One nullable member beside a plain one keeps the plain type.
        let plain = json!({"allOf": [{"type": "string", "nullable": true}, {"type": "string", "minLength": 2}]});
        assert!(sample(&spec, &plain, Direction::Response).as_str().is_some_and(|s| s.len() >= 2));
        // Codat: `additionalProperties: false` written inside `properties`;
        // EPA: a required property declared past the cap on properties.
        let mut many = serde_json::Map::new();
        many.insert("additionalProperties".to_owned(), json!(false));
        many.extend((0..MAX_PROPERTIES + 5).map(|i| (format!("p{i}"), json!({"type": "integer"}))));
        let last = format!("p{}", MAX_PROPERTIES + 4);
        let wide = json!({"type": "object", "required": [last], "properties": many});
        let wide = sample(&spec, &wide, Direction::Response);
        assert!(wide.get("additionalProperties").is_none(), "{wide}");
        assert_eq!(wide[&last], 1);
        // Mercedes-Benz: a string enum under `type: object`.
        let groups = json!({"type": "array", "items": {"type": "object", "enum": ["PKW", "VAN"]}});
        assert_eq!(sample(&spec, &groups, Direction::Response), json!([]));
        // Airbyte: a closed object requiring a name it does not declare.
        let streams = json!({"type": "array", "items": {"type": "object", "additionalProperties": false,
            "required": ["json_schema"], "properties": {"jsonSchema": {"type": "object"}}}});
        assert_eq!(sample(&spec, &streams, Direction::Response), json!([]));
        // Wealthreader: a name required beside an `anyOf` that nothing declares.
        let entity = json!({"type": "object", "required": ["success", "user_information"],
            "anyOf": [{"properties": {"cards": {"type": "array", "items": {}}}}],
            "properties": {"success": {"type": "boolean"}}});
        let entity = sample(&spec, &entity, Direction::Response);
        assert!(entity.get("user_information").is_some(), "{entity}");
    }

    /// Oxford Dictionaries: a closed object with `minProperties` deep in
    /// the body gets a declared property, not a made-up one.
    #[test]
    fn closed_min_properties_use_declared_names() {
        let spec = spec_with(json!({}));
        let mut schema = json!({"type": "object", "additionalProperties": false, "minProperties": 1,
            "properties": {"notes": {"type": "string"}}});
        for _ in 0..SOFT_DEPTH + 1 {
            schema = json!({"type": "object", "required": ["n"], "properties": {"n": schema}});
        }
        let mut value = sample(&spec, &schema, Direction::Response);
        while let Some(inner) = value.get("n") {
            value = inner.clone();
        }
        assert_eq!(value, json!({"notes": "Looks good to me, thanks for the quick fix!"}));
    }

    #[test]
    fn schemas_asking_for_gigabytes_answer_the_placeholder() {
        let spec = spec_with(json!({}));
        let schemas = OnceLock::new();
        for schema in [
            json!({"type": "string", "minLength": 1_000_000_000_000_u64}),
            json!({"type": "string", "pattern": "^(x{100000}){100000}$"}),
            json!({"type": "string", "pattern": "^((a{0,4096}){0,4096}){0,4096}$", "minLength": 70000}),
            json!({"type": "array", "minItems": 1_000_000_000, "items": {"type": "array", "minItems": 1_000_000, "items": {"type": "string", "minLength": 60000}}}),
        ] {
            let started = std::time::Instant::now();
            assert_eq!(bounded_sample_with(&spec, &schemas, &schema, Direction::Response), None, "{schema}");
            assert!(
                sample_with(&spec, &schemas, &schema, Direction::Response)["message"]
                    .as_str()
                    .unwrap()
                    .contains("64 KiB")
            );
            assert!(started.elapsed() < std::time::Duration::from_secs(5), "{schema} took {:?}", started.elapsed());
        }
        // Patterns whose longest draw is huge but whose shortest fits are narrowed, not refused.
        let narrowed =
            sample(&spec, &json!({"type": "string", "pattern": "^(ab{0,100000}){1,100000}$"}), Direction::Response);
        let text = narrowed.as_str().unwrap();
        assert!(text.starts_with('a') && text.len() <= SAMPLE_BYTE_BUDGET, "{}", text.len());
        // Ordinary lengths are untouched.
        let ordinary = sample(&spec, &json!({"type": "string", "minLength": 300}), Direction::Response);
        assert_eq!(ordinary.as_str().unwrap().len(), 300);
    }

    #[test]
    fn large_examples_repeated_in_lists_stop_at_the_budget() {
        let big = "y".repeat(20_000);
        let spec = spec_with(json!({}));
        let schema = json!({"type": "array", "minItems": 64, "items": {"type": "array", "minItems": 64,
            "items": {"type": "object", "properties": {"t": {"type": "string", "example": big}}, "required": ["t"]}}});
        assert_eq!(bounded_sample_with(&spec, &OnceLock::new(), &schema, Direction::Response), None);
    }

    #[test]
    fn empty_schema_is_recognised() {
        let spec = spec_with(json!({"Any": {"description": "anything"}}));
        assert!(is_empty_schema(&spec, &json!({})));
        assert!(is_empty_schema(&spec, &json!({"$ref": "#/components/schemas/Any"})));
        assert!(!is_empty_schema(&spec, &json!({"type": "string"})));
    }
}
