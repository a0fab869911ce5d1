//! The Python SDK: one module, standard library only (Python 3.11+),
//! checked by `mypy --strict`. Objects become `TypedDict`s (functional syntax
//! when a key is not an identifier), everything else a `TypeAlias`.

use std::fmt::Write as _;

use indexmap::IndexMap;
use serde_json::Value;
use spec::{ApiKeyLocation, ParameterLocation, Spec, schema_types};

use crate::names::{self, Namer, doc_line, is_py_identifier, py_quote, quote};
use crate::plan::{self, Auth, BodyKind, Outcome, PathPiece};
use crate::{MAX_INLINE_DEPTH, is_object_like, required_names, schema_key};

const RUNTIME: &str = include_str!("py_runtime.py");

const CLIENT_MEMBERS: &[&str] =
    &["base_url", "timeout", "max_retries", "headers", "_credentials", "_choose_security", "_request"];

struct Gen<'a> {
    spec: &'a Spec,
    type_names: IndexMap<&'a str, String>,
    namer: Namer,
    /// Class and alias definitions in the order they were made.
    blocks: Vec<String>,
}

/// A type expression as a Python string, for places evaluated at run time
/// (aliases, functional TypedDict fields, `cast`).
fn quote_expr(expr: &str) -> String {
    if expr.contains('"') || expr.contains('\\') { quote(expr) } else { format!("\"{expr}\"") }
}

fn union(members: Vec<String>) -> String {
    let mut unique: Vec<String> = Vec::new();
    for member in members {
        if member == "Any" {
            return member;
        }
        if !unique.contains(&member) {
            unique.push(member);
        }
    }
    // `None` last reads best and keeps `X | None` idiomatic.
    if let Some(at) = unique.iter().position(|m| m == "None") {
        let none = unique.remove(at);
        unique.push(none);
    }
    if unique.is_empty() { "Any".to_owned() } else { unique.join(" | ") }
}

fn literal(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(py_quote(s)),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        Value::Bool(true) => Some("True".to_owned()),
        Value::Bool(false) => Some("False".to_owned()),
        _ => None,
    }
}

/// `Literal[...]` for the literal values, plain types for the rest.
fn enum_type(values: &[Value]) -> String {
    let mut literals = Vec::new();
    let mut others = Vec::new();
    for value in values {
        match (value, literal(value)) {
            (Value::Null, _) => others.push("None".to_owned()),
            (_, Some(text)) => {
                if !literals.contains(&text) {
                    literals.push(text);
                }
            }
            (Value::Number(_), None) => others.push("float".to_owned()),
            _ => others.push("Any".to_owned()),
        }
    }
    let mut members = Vec::new();
    if !literals.is_empty() {
        members.push(format!("Literal[{}]", literals.join(", ")));
    }
    members.extend(others);
    union(members)
}

struct Field {
    key: String,
    ty: String,
    required: bool,
    doc: Option<String>,
}

impl<'a> Gen<'a> {
    fn new(spec: &'a Spec) -> Self {
        let mut namer = Namer::for_types();
        let type_names = spec
            .schemas
            .keys()
            .map(|key| (key.as_str(), namer.claim_or_suffix(&names::pascal(key, "Schema"), "Model")))
            .collect();
        Self { spec, type_names, namer, blocks: Vec::new() }
    }

    fn ty(&mut self, schema: &Value, hint: &str, depth: usize) -> String {
        if depth > MAX_INLINE_DEPTH {
            return "Any".to_owned();
        }
        let Value::Object(object) = schema else { return "Any".to_owned() };
        let types = schema_types(schema);
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let target = match schema_key(self.spec, reference) {
                Some(key) => self.type_names.get(key).cloned().unwrap_or_else(|| "Any".to_owned()),
                None => match self.spec.resolve(reference) {
                    Some(target) => self.ty(target, hint, depth + 1),
                    None => "Any".to_owned(),
                },
            };
            return if types.nullable { union(vec![target, "None".to_owned()]) } else { target };
        }
        let mut result = if let Some(constant) = object.get("const") {
            enum_type(std::slice::from_ref(constant))
        } else if let Some(values) = object.get("enum").and_then(Value::as_array) {
            enum_type(values)
        } else if object.contains_key("allOf") {
            self.all_of(schema, hint, depth)
        } else if let Some(members) = object.get("oneOf").or_else(|| object.get("anyOf")).and_then(Value::as_array)
            && object.get("properties").and_then(Value::as_object).is_none_or(|p| p.is_empty())
        {
            let members: Vec<String> = members
                .iter()
                .enumerate()
                .map(|(i, member)| self.ty(member, &format!("{hint}Option{}", i + 1), depth + 1))
                .collect();
            union(members)
        } else if !types.types.is_empty() {
            let members: Vec<String> = types.types.iter().map(|t| self.of_type(t, schema, hint, depth)).collect();
            union(members)
        } else if is_object_like(schema) {
            self.object(schema, hint, depth)
        } else if object.contains_key("items") {
            self.of_type("array", schema, hint, depth)
        } else {
            "Any".to_owned()
        };
        if types.nullable && result != "Any" {
            result = union(vec![result, "None".to_owned()]);
        }
        result
    }

    fn of_type(&mut self, ty: &str, schema: &Value, hint: &str, depth: usize) -> String {
        match ty {
            "string" if plan::is_binary(schema) => "bytes".to_owned(),
            "string" => "str".to_owned(),
            "integer" => "int".to_owned(),
            "number" => "float".to_owned(),
            "boolean" => "bool".to_owned(),
            "null" => "None".to_owned(),
            "array" => {
                let item_hint = format!("{hint}Item");
                let item = match schema.get("items") {
                    Some(Value::Array(items)) => {
                        let members = items.iter().map(|i| self.ty(i, &item_hint, depth + 1)).collect();
                        union(members)
                    }
                    Some(items) => self.ty(items, &item_hint, depth + 1),
                    None => "Any".to_owned(),
                };
                format!("list[{item}]")
            }
            "object" => self.object(schema, hint, depth),
            _ => "Any".to_owned(),
        }
    }

    /// Fields of an object schema, its own and those of its `allOf`
    /// members (followed through references), merged in order.
    fn collect_fields(
        &mut self,
        schema: &Value,
        hint: &str,
        depth: usize,
        fields: &mut Vec<Field>,
        extra_required: &mut Vec<String>,
    ) -> bool {
        if depth > MAX_INLINE_DEPTH {
            return false;
        }
        let Some(schema) = self.spec.resolve_value(schema) else { return false };
        let mut object_like = is_object_like(schema);
        let required = required_names(schema);
        extra_required.extend(required.iter().map(|s| (*s).to_owned()));
        for (name, property) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
            let ty = self.ty(property, &format!("{hint}{}", names::pascal(name, "Field")), depth + 1);
            let doc = property.get("description").and_then(Value::as_str).and_then(doc_line);
            let field = Field { key: name.clone(), ty, required: required.contains(&name.as_str()), doc };
            match fields.iter_mut().find(|f| f.key == *name) {
                Some(existing) => *existing = field,
                None => fields.push(field),
            }
        }
        for member in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            object_like |= self.collect_fields(member, hint, depth + 1, fields, extra_required);
        }
        object_like || schema.get("properties").is_some()
    }

    fn all_of(&mut self, schema: &Value, hint: &str, depth: usize) -> String {
        let members = schema.get("allOf").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let own = schema.get("properties").is_some();
        if let [single] = members
            && !own
        {
            return self.ty(single, hint, depth + 1);
        }
        let name = self.namer.claim(hint);
        self.emit_object(&name, schema, depth).unwrap_or_else(|| "Any".to_owned())
    }

    fn object(&mut self, schema: &Value, hint: &str, depth: usize) -> String {
        let has_properties = schema.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
        if !has_properties {
            return match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => "dict[str, Any]".to_owned(),
                Some(value @ Value::Object(_)) => {
                    let value = self.ty(value, &format!("{hint}Value"), depth + 1);
                    format!("dict[str, {value}]")
                }
                _ => "dict[str, Any]".to_owned(),
            };
        }
        let name = self.namer.claim(hint);
        self.emit_object(&name, schema, depth).unwrap_or_else(|| "dict[str, Any]".to_owned())
    }

    /// Emits a TypedDict called `name` for an object schema (with `allOf`
    /// merged); `None` when it has no fields after all.
    fn emit_object(&mut self, name: &str, schema: &Value, depth: usize) -> Option<String> {
        let mut fields = Vec::new();
        let mut required = Vec::new();
        self.collect_fields(schema, name, depth, &mut fields, &mut required);
        if fields.is_empty() {
            return None;
        }
        for field in &mut fields {
            field.required |= required.contains(&field.key);
        }
        let doc = schema.get("description").and_then(Value::as_str).and_then(doc_line);
        let mut block = String::new();
        if fields.iter().all(|f| is_py_identifier(&f.key)) {
            let _ = writeln!(block, "class {name}(TypedDict):");
            if let Some(doc) = doc {
                let _ = writeln!(block, "    \"\"\"{doc}\"\"\"\n");
            }
            for field in &fields {
                let ty = if field.required { field.ty.clone() } else { format!("NotRequired[{}]", field.ty) };
                let _ = writeln!(block, "    {}: {ty}", field.key);
                if let Some(doc) = &field.doc {
                    let _ = writeln!(block, "    \"\"\"{doc}\"\"\"");
                }
            }
        } else {
            if let Some(doc) = doc {
                let _ = writeln!(block, "# {doc}");
            }
            let _ = writeln!(block, "{name} = TypedDict({}, {{", quote(name));
            for field in &fields {
                let ty = if field.required { field.ty.clone() } else { format!("NotRequired[{}]", field.ty) };
                let _ = writeln!(block, "    {}: {},", quote(&field.key), quote_expr(&ty));
            }
            block.push_str("})\n");
        }
        self.blocks.push(block);
        Some(name.to_owned())
    }

    fn named(&mut self, key: &str, schema: &Value) {
        let Some(name) = self.type_names.get(key).cloned() else { return };
        let types = schema_types(schema);
        let plain_object = schema.get("$ref").is_none()
            && !types.nullable
            && schema.get("enum").is_none()
            && schema.get("const").is_none()
            && schema.get("oneOf").is_none()
            && schema.get("anyOf").is_none()
            && (types.types.is_empty() || types.types == ["object"])
            && (schema.get("properties").and_then(Value::as_object).is_some_and(|p| !p.is_empty())
                || (schema.get("allOf").is_some()
                    && (schema.get("properties").is_some()
                        || schema.get("allOf").and_then(Value::as_array).is_some_and(|m| m.len() > 1))));
        if plain_object && self.emit_object(&name, schema, 0).is_some() {
            return;
        }
        let expr = self.ty(schema, &format!("{name}Object"), 0);
        let mut block = String::new();
        if let Some(doc) = schema.get("description").and_then(Value::as_str).and_then(doc_line) {
            let _ = writeln!(block, "# {doc}");
        }
        let _ = writeln!(block, "{name}: TypeAlias = {}", quote_expr(&expr));
        self.blocks.push(block);
    }
}

pub(crate) fn generate(spec: &Spec) -> String {
    let mut gen_ = Gen::new(spec);
    let reserved: Vec<String> = gen_.type_names.values().cloned().collect();
    for name in &reserved {
        gen_.namer.reserve(name);
    }
    for (key, schema) in &spec.schemas {
        gen_.named(key, schema);
    }

    // Credentials.
    let mut option_namer = Namer::with_reserved(names::PY_RESERVED);
    for taken in ["base_url", "max_retries", "headers"] {
        option_namer.reserve(taken);
    }
    let mut credentials = Vec::new();
    let mut schemes = String::new();
    for (key, scheme) in &spec.security_schemes {
        let Some(auth) = plan::auth_of(&scheme.kind) else { continue };
        let option = option_namer.claim_or_suffix(&names::snake(key, "auth"), "_");
        let (shape, entry) = match &auth {
            Auth::ApiKey { location, name } => {
                let location = match location {
                    ApiKeyLocation::Header => "header",
                    ApiKeyLocation::Query => "query",
                    ApiKeyLocation::Cookie => "cookie",
                };
                ("str", format!("(\"apiKey\", \"{location}\", {})", quote(name)))
            }
            Auth::Token { prefix } => ("str", format!("(\"token\", {}, \"\")", quote(prefix))),
            Auth::Basic => ("tuple[str, str]", "(\"basic\", \"\", \"\")".to_owned()),
        };
        let _ = writeln!(schemes, "    {}: {entry},", quote(key));
        credentials.push((key.as_str(), option, shape));
    }

    // Methods (their inline types are hoisted into blocks as they are made).
    let mut method_namer = Namer::with_reserved(names::PY_RESERVED);
    for taken in CLIENT_MEMBERS {
        method_namer.reserve(taken);
    }
    let mut methods = String::new();
    for operation in &spec.operations {
        let plan = plan::plan(spec, operation);
        let name = method_namer.claim_or_suffix(&names::snake(&plan::operation_base_name(operation), "operation"), "_");
        method(&mut gen_, &mut methods, &name, &plan);
    }

    let mut out = String::new();
    let title = if spec.title.is_empty() { "API" } else { spec.title.as_str() };
    let _ = writeln!(
        out,
        "\"\"\"Python client for {}.\n\nGenerated from the API description; do not edit. Standard library only (Python 3.11+).\n\"\"\"\n",
        doc_line(&format!("{title} {}", spec.api_version)).unwrap_or_default()
    );
    out.push_str(
        "from __future__ import annotations\n\nimport base64\nimport datetime\nimport email.utils\nimport json\nimport random\nimport time\nimport urllib.error\nimport urllib.parse\nimport urllib.request\nimport uuid\nfrom typing import Any, Literal, NotRequired, TypeAlias, TypedDict, cast\n\n",
    );
    let _ = writeln!(out, "DEFAULT_BASE_URL = {}\n", quote(&plan::default_base_url(spec)));
    let _ = writeln!(out, "_SCHEMES: dict[str, tuple[str, str, str]] = {{\n{schemes}}}\n\n");
    out.push_str(RUNTIME);
    out.push_str("\n\n# Types\n");
    for block in &gen_.blocks {
        out.push_str("\n\n");
        out.push_str(block);
    }
    out.push_str("\n\nclass Client(_BaseClient):\n    def __init__(\n        self,\n        base_url: str = DEFAULT_BASE_URL,\n        *,\n");
    for (_, option, shape) in &credentials {
        let _ = writeln!(out, "        {option}: {shape} | None = None,");
    }
    out.push_str("        timeout: float | None = None,\n        max_retries: int | None = None,\n        headers: dict[str, str] | None = None,\n    ) -> None:\n");
    let _ = writeln!(
        out,
        "        \"\"\"`timeout` is per attempt in seconds (default 60); `max_retries` counts retries after a 429, a 5xx or a network failure (default 2).\"\"\""
    );
    let entries: Vec<String> = credentials.iter().map(|(key, option, _)| format!("{}: {option}", quote(key))).collect();
    let _ = writeln!(out, "        credentials: dict[str, str | tuple[str, str] | None] = {{{}}}", entries.join(", "));
    out.push_str("        super().__init__(base_url, credentials, timeout, max_retries, headers)\n");
    out.push_str(&methods);
    out
}

fn param_schema(parameter: &spec::Parameter) -> Option<&Value> {
    parameter.schema.as_ref().or_else(|| parameter.content.values().next().and_then(|m| m.schema.as_ref()))
}

fn method(gen_: &mut Gen<'_>, out: &mut String, name: &str, plan: &plan::OperationPlan<'_>) {
    let operation = plan.operation;
    let hint_base = names::pascal(name, "Operation");
    let mut arg_namer = Namer::with_reserved(names::PY_RESERVED);
    let mut positional = Vec::new();
    let mut path_vars = Vec::new();
    for path_param in &plan.path_params {
        let var = arg_namer.claim_or_suffix(&names::snake(&path_param.name, "param"), "_");
        let ty = match path_param.parameter.and_then(param_schema) {
            Some(schema) => gen_.ty(schema, &format!("{hint_base}{}", names::pascal(&path_param.name, "Param")), 1),
            None => "str".to_owned(),
        };
        let ty = if ty == "Any" { "str | int".to_owned() } else { ty };
        positional.push(format!("{var}: {ty}"));
        path_vars.push((path_param.name.as_str(), var));
    }
    if let Some(body) = &plan.body {
        let ty = match body.kind {
            BodyKind::Binary => "bytes".to_owned(),
            BodyKind::Text => "str".to_owned(),
            _ => body.schema.map_or_else(|| "Any".to_owned(), |s| gen_.ty(s, &format!("{hint_base}Body"), 1)),
        };
        positional.push(if body.required {
            format!("body: {ty}")
        } else {
            format!("body: {} = None", union(vec![ty, "None".to_owned()]))
        });
    }
    let mut keyword = Vec::new();
    let mut param_vars = Vec::new();
    for parameter in &plan.other_params {
        let var = arg_namer.claim_or_suffix(&names::snake(&parameter.name, "param"), "_");
        let ty = match param_schema(parameter) {
            Some(schema) => gen_.ty(schema, &format!("{hint_base}{}", names::pascal(&parameter.name, "Param")), 1),
            None => "Any".to_owned(),
        };
        keyword.push(if parameter.required {
            format!("{var}: {ty}")
        } else {
            format!("{var}: {} = None", union(vec![ty, "None".to_owned()]))
        });
        param_vars.push((*parameter, var));
    }
    keyword.push("timeout: float | None = None".to_owned());
    let result = if plan.outcomes.iter().all(|o| matches!(o, Outcome::Empty)) {
        "None".to_owned()
    } else {
        let members: Vec<String> = plan
            .outcomes
            .iter()
            .map(|outcome| match outcome {
                Outcome::Empty => "None".to_owned(),
                Outcome::Json(Some(schema)) => gen_.ty(schema, &format!("{hint_base}Response"), 1),
                Outcome::Json(None) => "Any".to_owned(),
                Outcome::Text => "str".to_owned(),
                Outcome::Binary => "bytes".to_owned(),
            })
            .collect();
        union(members)
    };

    let mut args = vec!["self".to_owned()];
    args.extend(positional);
    args.push("*".to_owned());
    args.extend(keyword);
    let _ = writeln!(
        out,
        "\n    def {name}(\n{}    ) -> {result}:",
        args.iter().map(|a| format!("        {a},\n")).collect::<String>()
    );
    let summary = operation.summary.as_deref().or(operation.description.as_deref()).and_then(doc_line);
    let route =
        format!("`{} {}`", operation.method.as_str(), operation.path.replace('\\', "/").replace("\"\"\"", "'''"));
    let deprecated = if operation.deprecated { "\n\n        Deprecated." } else { "" };
    match summary {
        Some(summary) => {
            let _ = writeln!(out, "        \"\"\"{summary}\n\n        {route}{deprecated}\n        \"\"\"");
        }
        None => {
            let _ = writeln!(out, "        \"\"\"{route}{deprecated}\"\"\"");
        }
    }
    let mut path_expr = Vec::new();
    for piece in plan::path_pieces(&operation.path) {
        match piece {
            PathPiece::Literal(text) => path_expr.push(quote(text)),
            PathPiece::Param(param) => match path_vars.iter().find(|(n, _)| *n == param) {
                Some((_, var)) => path_expr.push(format!("_path({var})")),
                None => path_expr.push(quote(&format!("{{{param}}}"))),
            },
        }
    }
    if path_expr.is_empty() {
        path_expr.push("\"\"".to_owned());
    }
    let mut call = vec![quote(operation.method.as_str()), path_expr.join(" + ")];
    for (location, field) in [
        (ParameterLocation::Query, "query"),
        (ParameterLocation::Header, "header_params"),
        (ParameterLocation::Cookie, "cookie_params"),
    ] {
        let entries: Vec<String> = param_vars
            .iter()
            .filter(|(p, _)| p.location == location)
            .map(|(p, var)| {
                let style = if p.schema.is_none() && !p.content.is_empty() {
                    "\"json\"".to_owned()
                } else {
                    p.style.as_deref().map_or_else(|| "None".to_owned(), quote)
                };
                let explode = match p.explode {
                    Some(true) => "True",
                    Some(false) => "False",
                    None => "None",
                };
                format!("({}, {var}, {style}, {explode})", quote(&p.name))
            })
            .collect();
        if !entries.is_empty() {
            call.push(format!("{field}=[{}]", entries.join(", ")));
        }
    }
    if let Some(body) = &plan.body {
        call.push(format!("body=body, body_kind=\"{}\", content_type={}", body.kind.as_str(), quote(&body.media_type)));
    }
    let security: Vec<String> = plan
        .security
        .iter()
        .map(|alternative| format!("[{}]", alternative.iter().map(|k| quote(k)).collect::<Vec<_>>().join(", ")))
        .collect();
    call.push(format!("security=[{}]", security.join(", ")));
    call.push("timeout=timeout".to_owned());
    let call =
        format!("self._request(\n{}        )", call.iter().map(|a| format!("            {a},\n")).collect::<String>());
    if result == "None" {
        let _ = writeln!(out, "        {call}");
    } else {
        let _ = writeln!(out, "        return cast({}, {call})", quote_expr(&result));
    }
}
