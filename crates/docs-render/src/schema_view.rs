//! A JSON Schema flattened into table rows for the templates: one row per
//! property, nested objects and array items indented, named schemas shown as
//! links to their own page instead of being inlined (huge descriptions stay
//! small and recursive schemas terminate).

use serde::Serialize;
use serde_json::Value;
use spec::{Spec, schema_types};

/// Nesting shown inline before the rest is cut.
const MAX_DEPTH: usize = 5;
/// Rows per schema at most.
const MAX_ROWS: usize = 400;
/// Enum values listed at most.
const MAX_ENUM: usize = 30;

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Row {
    pub name: String,
    pub depth: usize,
    pub ty: String,
    /// Name of the referenced schema, when the type is one.
    pub ref_name: Option<String>,
    pub required: bool,
    pub deprecated: bool,
    pub read_only: bool,
    pub write_only: bool,
    pub description_html: String,
    pub constraints: Vec<String>,
    /// `oneOf`/`anyOf` branches, shown as tabs (`name` then says which).
    pub variants: Vec<Variant>,
    /// The radio group of the variants' tabs, unique on a page.
    pub group: String,
    /// The fields of the named schema this row refers to, shown in place
    /// on request (small schemas only; see [`EXPAND_MAX_ROWS`]).
    pub expand: Vec<Row>,
}

/// A referenced schema is expandable in place when it has at most this
/// many rows.
pub const EXPAND_MAX_ROWS: usize = 25;
/// Rows expanded in place per table at most (pages stay small).
const EXPAND_BUDGET: usize = 150;

/// One branch of a `oneOf`/`anyOf`: its label and its own rows.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Variant {
    pub label: String,
    pub rows: Vec<Row>,
}

/// Branches shown per `oneOf`/`anyOf` at most.
const MAX_VARIANTS: usize = 12;

/// A radio group name no other variant table of the page shares.
fn group_name() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    format!("v{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// The rows of a schema: the top level first (`name` empty for the root).
#[must_use]
pub fn rows(spec: &Spec, schema: &Value) -> Vec<Row> {
    let mut out = Vec::new();
    let mut walker = Walker { spec, out: &mut out, budget: EXPAND_BUDGET };
    walker.node("", schema, 0, false);
    out
}

/// The schema's name when `value` is a `$ref` to a named schema.
#[must_use]
pub fn ref_name(value: &Value) -> Option<&str> {
    value.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/"))
}

/// A short type label: `string (uuid)`, `array of Pet`, `integer | null`.
#[must_use]
pub fn type_label(spec: &Spec, schema: &Value) -> String {
    label(spec, schema, 0)
}

fn label(spec: &Spec, schema: &Value, depth: usize) -> String {
    if let Some(name) = ref_name(schema) {
        return name.to_owned();
    }
    if schema.get("$ref").is_some() {
        return spec.resolve_value(schema).map_or_else(|| "object".to_owned(), |s| label(spec, s, depth + 1));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(list) = schema.get(key).and_then(Value::as_array) {
            let parts: Vec<String> = list.iter().take(8).map(|s| label(spec, s, depth + 1)).collect();
            return format!("{} {}", if key == "oneOf" { "one of" } else { "any of" }, parts.join(" | "));
        }
    }
    if let Some(list) = schema.get("allOf").and_then(Value::as_array) {
        let parts: Vec<String> = list.iter().take(8).map(|s| label(spec, s, depth + 1)).collect();
        return format!("all of {}", parts.join(" & "));
    }
    let types = schema_types(schema);
    let mut names: Vec<String> = types
        .types
        .iter()
        .map(|ty| match *ty {
            "array" if depth < 6 => match schema.get("items") {
                Some(items) => format!("array of {}", label(spec, items, depth + 1)),
                None => "array".to_owned(),
            },
            other => other.to_owned(),
        })
        .collect();
    if names.is_empty() {
        if schema.get("properties").is_some() {
            names.push("object".to_owned());
        } else if schema.get("enum").is_some() {
            names.push("enum".to_owned());
        } else {
            names.push("any".to_owned());
        }
    }
    let mut text = names.join(" | ");
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        text.push_str(&format!(" ({format})"));
    }
    if types.nullable {
        text.push_str(" | null");
    }
    text
}

struct Walker<'a, 'o> {
    spec: &'a Spec,
    out: &'o mut Vec<Row>,
    /// Rows this table may still expand in place (0: none).
    budget: usize,
}

impl Walker<'_, '_> {
    fn node(&mut self, name: &str, schema: &Value, depth: usize, required: bool) {
        if self.out.len() >= MAX_ROWS {
            return;
        }
        let resolved_inline = if ref_name(schema).is_none() { self.spec.resolve_value(schema) } else { None };
        let body = resolved_inline.unwrap_or(schema);
        let flag = |key: &str| body.get(key).and_then(Value::as_bool).unwrap_or(false);
        let row = Row {
            name: name.to_owned(),
            depth,
            ty: type_label(self.spec, schema),
            ref_name: ref_name(schema).or_else(|| body.get("items").and_then(ref_name)).map(str::to_owned),
            required,
            deprecated: flag("deprecated"),
            read_only: flag("readOnly"),
            write_only: flag("writeOnly"),
            description_html: body
                .get("description")
                .and_then(Value::as_str)
                .map(crate::markdown::render)
                .unwrap_or_default(),
            constraints: constraints(body),
            variants: Vec::new(),
            group: String::new(),
            expand: Vec::new(),
        };
        let is_root = name.is_empty();
        let referenced = row.ref_name.clone().filter(|_| !is_root);
        self.out.push(row);
        if let Some(target) = referenced.as_deref().and_then(|n| self.spec.schemas.get(n))
            && self.budget > 0
        {
            let mut rows = Vec::new();
            Walker { spec: self.spec, out: &mut rows, budget: 0 }.children(target, 0);
            rows.retain(|r| !r.name.is_empty() || !r.variants.is_empty());
            if !rows.is_empty() && rows.len() <= EXPAND_MAX_ROWS.min(self.budget) {
                self.budget -= rows.len();
                if let Some(last) = self.out.last_mut() {
                    last.expand = rows;
                }
            }
        }
        if ref_name(schema).is_some() && !is_root {
            return;
        }
        if depth >= MAX_DEPTH {
            return;
        }
        let target = if let Some(name) = ref_name(schema) {
            match self.spec.schemas.get(name) {
                Some(target) => target,
                None => return,
            }
        } else {
            body
        };
        self.children(target, depth + 1);
    }

    fn children(&mut self, schema: &Value, depth: usize) {
        let schema = self.spec.resolve_value(schema).unwrap_or(schema);
        if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
            for part in all {
                if ref_name(part).is_some() {
                    if let Some(target) = ref_name(part).and_then(|n| self.spec.schemas.get(n)) {
                        self.children(target, depth);
                    }
                } else {
                    self.children(part, depth);
                }
            }
        }
        self.variants(schema, depth);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                self.node(name, property, depth, required.contains(&name.as_str()));
            }
        }
        if let Some(items) = schema.get("items")
            && ref_name(items).is_none()
        {
            let items = self.spec.resolve_value(items).unwrap_or(items);
            if items.get("properties").is_some() || items.get("allOf").is_some() {
                self.children(items, depth);
            }
        }
        if let Some(additional) = schema.get("additionalProperties").filter(|v| v.is_object()) {
            self.node("{key}", additional, depth, false);
        }
    }
}

impl Walker<'_, '_> {
    /// A `oneOf`/`anyOf` as one row of tabs, a branch per tab with the
    /// branch's own properties.
    fn variants(&mut self, schema: &Value, depth: usize) {
        if depth >= MAX_DEPTH || self.out.len() >= MAX_ROWS {
            return;
        }
        for (key, caption) in [("oneOf", "one of"), ("anyOf", "any of")] {
            let Some(list) = schema.get(key).and_then(Value::as_array).filter(|l| l.len() > 1) else { continue };
            let variants = list
                .iter()
                .take(MAX_VARIANTS)
                .enumerate()
                .map(|(i, branch)| {
                    let mut rows = Vec::new();
                    let target = ref_name(branch).and_then(|n| self.spec.schemas.get(n)).unwrap_or(branch);
                    Walker { spec: self.spec, out: &mut rows, budget: 0 }.children(target, depth + 1);
                    rows.truncate(MAX_ROWS / 4);
                    if rows.is_empty() {
                        // A scalar or empty branch: one row with its type.
                        Walker { spec: self.spec, out: &mut rows, budget: 0 }.node("", branch, depth + 1, false);
                    }
                    let title = self.spec.resolve_value(branch).and_then(|b| b.get("title")).and_then(Value::as_str);
                    let label = match (ref_name(branch), title) {
                        (Some(name), _) => name.to_owned(),
                        (None, Some(title)) => title.to_owned(),
                        (None, None) => format!("{} {}", i + 1, label(self.spec, branch, 0)),
                    };
                    Variant { label, rows }
                })
                .collect();
            self.out.push(Row {
                name: caption.to_owned(),
                depth,
                ty: String::new(),
                ref_name: None,
                required: false,
                deprecated: false,
                read_only: false,
                write_only: false,
                description_html: String::new(),
                constraints: Vec::new(),
                variants,
                group: group_name(),
                expand: Vec::new(),
            });
        }
    }
}

fn constraints(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let shown: Vec<String> = values.iter().take(MAX_ENUM).map(compact).collect();
        let more = if values.len() > MAX_ENUM { format!(" … (+{})", values.len() - MAX_ENUM) } else { String::new() };
        out.push(format!("one of: {}{more}", shown.join(", ")));
    }
    if let Some(value) = schema.get("const") {
        out.push(format!("const: {}", compact(value)));
    }
    if let Some(value) = schema.get("default") {
        out.push(format!("default: {}", compact(value)));
    }
    for (key, text) in [
        ("minimum", "min"),
        ("maximum", "max"),
        ("exclusiveMinimum", "> "),
        ("exclusiveMaximum", "< "),
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minItems", "min items"),
        ("maxItems", "max items"),
        ("multipleOf", "multiple of"),
        ("pattern", "pattern"),
    ] {
        if let Some(value) = schema.get(key).filter(|v| !v.is_boolean()) {
            out.push(format!("{text} {}", compact(value)));
        }
    }
    if let Some(example) = schema.get("example") {
        out.push(format!("example: {}", compact(example)));
    }
    out
}

fn compact(value: &Value) -> String {
    let text = match value {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    };
    if text.chars().count() > 80 { format!("{}…", text.chars().take(80).collect::<String>()) } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Spec {
        spec::parse(
            br"
openapi: 3.1.0
info: {title: t, version: '1'}
paths: {}
components:
  schemas:
    Pet:
      type: object
      required: [id]
      properties:
        id: {type: string, format: uuid}
        tags: {type: array, items: {type: string}}
        owner: {$ref: '#/components/schemas/Owner'}
        size: {type: [integer, 'null'], minimum: 1}
    Owner:
      type: object
      properties:
        pet: {$ref: '#/components/schemas/Pet'}
",
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn small_referenced_schemas_expand_in_place() {
        let spec = spec();
        let pet = spec.schemas.get("Pet").cloned().unwrap_or_default();
        let rows = rows(&spec, &pet);
        let owner = rows.iter().find(|r| r.name == "owner").unwrap_or_else(|| panic!("{rows:?}"));
        assert_eq!(owner.ref_name.as_deref(), Some("Owner"));
        let names: Vec<&str> = owner.expand.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["pet"], "Owner's own fields, one level");
        assert!(owner.expand.iter().all(|r| r.expand.is_empty()), "expansions do not nest");
    }

    #[test]
    fn one_of_branches_become_variants_with_their_own_rows() {
        let spec = spec::parse(
            br"
openapi: 3.1.0
info: {title: t, version: '1'}
paths: {}
components:
  schemas:
    Card: {type: object, properties: {last4: {type: string}}}
    Payment:
      type: object
      properties:
        method:
          oneOf:
            - {$ref: '#/components/schemas/Card'}
            - {title: Bank, type: object, properties: {iban: {type: string}}}
            - {type: string}
",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let schema = spec.schemas.get("Payment").cloned().unwrap_or_default();
        let rows = rows(&spec, &schema);
        let row = rows.iter().find(|r| !r.variants.is_empty()).unwrap_or_else(|| panic!("no variants: {rows:?}"));
        assert_eq!(row.name, "one of");
        let labels: Vec<&str> = row.variants.iter().map(|v| v.label.as_str()).collect();
        assert_eq!(labels, ["Card", "Bank", "3 string"]);
        let card = row.variants.first().map(|v| v.rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>());
        assert_eq!(card, Some(vec!["last4".to_owned()]));
        assert!(row.group.starts_with('v'));
    }

    #[test]
    fn rows_follow_properties_and_link_refs() {
        let spec = spec();
        let pet = spec.schemas.get("Pet").cloned().unwrap_or_default();
        let rows = rows(&spec, &pet);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["", "id", "tags", "owner", "size"]);
        let id = rows.iter().find(|r| r.name == "id").cloned();
        assert_eq!(id.map(|r| (r.ty, r.required)), Some(("string (uuid)".to_owned(), true)));
        let owner = rows.iter().find(|r| r.name == "owner").cloned();
        assert_eq!(owner.and_then(|r| r.ref_name), Some("Owner".to_owned()));
        let size = rows.iter().find(|r| r.name == "size").cloned();
        assert_eq!(size.map(|r| (r.ty, r.constraints)), Some(("integer | null".to_owned(), vec!["min 1".to_owned()])));
        assert_eq!(
            type_label(&spec, &serde_json::json!({"type": "array", "items": {"$ref": "#/components/schemas/Pet"}})),
            "array of Pet"
        );
    }

    #[test]
    fn a_reference_at_the_root_is_expanded_once() {
        let spec = spec();
        let rows = rows(&spec, &serde_json::json!({"$ref": "#/components/schemas/Owner"}));
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["", "pet"]);
    }
}
