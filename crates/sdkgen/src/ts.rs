//! The TypeScript SDK: one module, `fetch` only, checked by `tsc --strict`.

use std::fmt::Write as _;

use indexmap::IndexMap;
use serde_json::Value;
use spec::{ApiKeyLocation, ParameterLocation, Spec, schema_types};

use crate::names::{self, Namer, doc_line, is_ts_identifier, quote};
use crate::plan::{self, Auth, BodyKind, Outcome, PathPiece};
use crate::{MAX_INLINE_DEPTH, is_object_like, required_names, schema_key};

const RUNTIME: &str = include_str!("ts_runtime.ts");

/// Members of the generated client (and its base class) that operation
/// methods must not take.
const CLIENT_MEMBERS: &[&str] =
    &["constructor", "request", "baseUrl", "settings", "credentials", "fetchImpl", "chooseSecurity"];

const OPTION_NAMES: &[&str] = &["baseUrl", "timeoutMs", "maxRetries", "headers", "fetch"];

struct Gen<'a> {
    spec: &'a Spec,
    /// Schema key -> type name.
    type_names: IndexMap<&'a str, String>,
}

fn wrap(ty: &str) -> String {
    if ty.contains(" | ") || ty.contains(" & ") { format!("({ty})") } else { ty.to_owned() }
}

fn union(members: Vec<String>) -> String {
    let mut unique: Vec<String> = Vec::new();
    for member in members {
        if member == "unknown" {
            return member;
        }
        if member != "never" && !unique.contains(&member) {
            unique.push(member);
        }
    }
    match unique.len() {
        0 => "never".to_owned(),
        1 => unique.pop().unwrap_or_default(),
        _ => unique.iter().map(|m| wrap(m)).collect::<Vec<_>>().join(" | "),
    }
}

fn intersection(members: Vec<String>) -> String {
    let mut unique: Vec<String> = Vec::new();
    for member in members {
        if member != "unknown" && !unique.contains(&member) {
            unique.push(member);
        }
    }
    match unique.len() {
        0 => "unknown".to_owned(),
        1 => unique.pop().unwrap_or_default(),
        _ => unique.iter().map(|m| wrap(m)).collect::<Vec<_>>().join(" & "),
    }
}

fn literal(value: &Value) -> String {
    match value {
        Value::String(s) => quote(s),
        Value::Number(n) => {
            let text = n.to_string();
            // Literals beyond f64 precision would be rejected as inexact.
            if text.len() > 15 { "number".to_owned() } else { text }
        }
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_owned(),
        _ => "unknown".to_owned(),
    }
}

fn property_key(name: &str) -> String {
    if is_ts_identifier(name) { name.to_owned() } else { quote(name) }
}

fn pad(indent: usize) -> String {
    "  ".repeat(indent)
}

impl<'a> Gen<'a> {
    fn new(spec: &'a Spec) -> Self {
        let mut namer = Namer::for_types();
        let type_names = spec
            .schemas
            .keys()
            .map(|key| (key.as_str(), namer.claim_or_suffix(&names::pascal(key, "Schema"), "Model")))
            .collect();
        Self { spec, type_names }
    }

    fn ty(&self, schema: &Value, depth: usize, indent: usize) -> String {
        if depth > MAX_INLINE_DEPTH {
            return "unknown".to_owned();
        }
        let object = match schema {
            Value::Object(object) => object,
            Value::Bool(false) => return "never".to_owned(),
            _ => return "unknown".to_owned(),
        };
        let types = schema_types(schema);
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let target = match schema_key(self.spec, reference) {
                Some(key) => self.type_names.get(key).cloned().unwrap_or_else(|| "unknown".to_owned()),
                None => match self.spec.resolve(reference) {
                    Some(target) => self.ty(target, depth + 1, indent),
                    None => "unknown".to_owned(),
                },
            };
            return if types.nullable { union(vec![target, "null".to_owned()]) } else { target };
        }
        let mut nullable = types.nullable;
        let base: Option<String> = if let Some(constant) = object.get("const") {
            Some(literal(constant))
        } else if let Some(values) = object.get("enum").and_then(Value::as_array) {
            nullable |= values.iter().any(Value::is_null);
            Some(union(values.iter().filter(|v| !v.is_null()).map(literal).collect()))
        } else if !types.types.is_empty() {
            Some(union(types.types.iter().map(|t| self.of_type(t, schema, depth, indent)).collect()))
        } else if is_object_like(schema) {
            Some(self.object(schema, depth, indent))
        } else if object.contains_key("items") {
            Some(self.of_type("array", schema, depth, indent))
        } else {
            None
        };
        let mut parts = Vec::new();
        let composed = ["allOf", "oneOf", "anyOf"].iter().any(|k| object.contains_key(*k));
        let bare_object = types.types == ["object"]
            && !object.contains_key("properties")
            && !object.contains_key("additionalProperties");
        if let Some(base) = base
            && !(composed && bare_object)
        {
            parts.push(base);
        }
        for member in object.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            parts.push(self.ty(member, depth + 1, indent));
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(members) = object.get(key).and_then(Value::as_array) {
                parts.push(union(members.iter().map(|m| self.ty(m, depth + 1, indent)).collect()));
            }
        }
        let result = intersection(parts);
        if nullable && result != "unknown" { union(vec![result, "null".to_owned()]) } else { result }
    }

    fn of_type(&self, ty: &str, schema: &Value, depth: usize, indent: usize) -> String {
        match ty {
            "string" if plan::is_binary(schema) => "Blob".to_owned(),
            "string" => "string".to_owned(),
            "integer" | "number" => "number".to_owned(),
            "boolean" => "boolean".to_owned(),
            "null" => "null".to_owned(),
            "array" => {
                let item = match schema.get("items") {
                    Some(Value::Array(items)) => union(items.iter().map(|i| self.ty(i, depth + 1, indent)).collect()),
                    Some(items) => self.ty(items, depth + 1, indent),
                    None => "unknown".to_owned(),
                };
                format!("Array<{item}>")
            }
            "object" => self.object(schema, depth, indent),
            _ => "unknown".to_owned(),
        }
    }

    fn object(&self, schema: &Value, depth: usize, indent: usize) -> String {
        let required = required_names(schema);
        let properties = schema.get("properties").and_then(Value::as_object);
        let mut out = String::new();
        for (name, property) in properties.into_iter().flatten() {
            if let Some(doc) = property.get("description").and_then(Value::as_str).and_then(doc_line) {
                let _ = writeln!(out, "{}/** {doc} */", pad(indent + 1));
            }
            let optional = if required.contains(&name.as_str()) { "" } else { "?" };
            let ty = self.ty(property, depth + 1, indent + 1);
            let _ = writeln!(out, "{}{}{optional}: {ty};", pad(indent + 1), property_key(name));
        }
        let has_properties = properties.is_some_and(|p| !p.is_empty());
        let index = match schema.get("additionalProperties") {
            None if has_properties => None,
            None | Some(Value::Bool(true)) => Some("unknown".to_owned()),
            Some(Value::Bool(false)) => None,
            Some(_) if has_properties => Some("unknown".to_owned()),
            Some(value) => Some(self.ty(value, depth + 1, indent + 1)),
        };
        match (has_properties, index) {
            (false, None) => "Record<string, never>".to_owned(),
            (false, Some(value)) => format!("Record<string, {value}>"),
            (true, index) => {
                if let Some(value) = index {
                    let _ = writeln!(out, "{}[key: string]: {value};", pad(indent + 1));
                }
                format!("{{\n{out}{}}}", pad(indent))
            }
        }
    }
}

struct Method<'a> {
    name: String,
    params_type: Option<String>,
    plan: plan::OperationPlan<'a>,
}

pub(crate) fn generate(spec: &Spec) -> String {
    let gen_ = Gen::new(spec);
    let mut type_namer = Namer::for_types();
    for name in gen_.type_names.values() {
        type_namer.reserve(name);
    }
    let mut method_namer = Namer::with_reserved(CLIENT_MEMBERS);
    let methods: Vec<Method<'_>> = spec
        .operations
        .iter()
        .map(|operation| {
            let plan = plan::plan(spec, operation);
            let name =
                method_namer.claim_or_suffix(&names::camel(&plan::operation_base_name(operation), "operation"), "_");
            let params_type = (!plan.other_params.is_empty())
                .then(|| type_namer.claim(&format!("{}Params", names::pascal(&name, "Operation"))));
            Method { name, params_type, plan }
        })
        .collect();

    let mut out = String::new();
    let title = if spec.title.is_empty() { "API" } else { spec.title.as_str() };
    let _ = writeln!(
        out,
        "// TypeScript client for {}",
        doc_line(&format!("{title} {}", spec.api_version)).unwrap_or_default()
    );
    out.push_str(
        "// Generated from the API description; do not edit. Needs only `fetch` (ES2020 + DOM lib, or Node 18+).\n\n",
    );
    let _ = writeln!(out, "export const DEFAULT_BASE_URL = {};\n", quote(&plan::default_base_url(spec)));

    // Credentials, one option per scheme the client can apply.
    let mut option_namer = Namer::with_reserved(OPTION_NAMES);
    let mut credentials = Vec::new();
    let mut schemes = String::new();
    for (key, scheme) in &spec.security_schemes {
        let Some(auth) = plan::auth_of(&scheme.kind) else { continue };
        let option = option_namer.claim_or_suffix(&names::camel(key, "auth"), "_");
        let (shape, what, literal) = match &auth {
            Auth::ApiKey { location, name } => {
                let location = match location {
                    ApiKeyLocation::Header => "header",
                    ApiKeyLocation::Query => "query",
                    ApiKeyLocation::Cookie => "cookie",
                };
                (
                    "string",
                    format!("API key sent in the {location} `{name}`"),
                    format!("{{ kind: \"apiKey\", in: \"{location}\", name: {} }}", quote(name)),
                )
            }
            Auth::Token { prefix } => (
                "string",
                format!("token sent as `Authorization: {prefix} <token>`"),
                format!("{{ kind: \"token\", prefix: {} }}", quote(prefix)),
            ),
            Auth::Basic => (
                "{ username: string; password: string }",
                "HTTP basic credentials".to_owned(),
                "{ kind: \"basic\" }".to_owned(),
            ),
        };
        let _ = writeln!(schemes, "  {}: {literal},", quote(key));
        credentials.push((key.as_str(), option, shape, what));
    }

    out.push_str("export interface ClientOptions {\n  /** Base URL of the API; defaults to DEFAULT_BASE_URL. */\n  baseUrl?: string;\n");
    for (key, option, shape, what) in &credentials {
        let _ = writeln!(
            out,
            "  /** Security scheme `{}`: {}. */\n  {option}?: {shape};",
            key.replace("*/", "* /"),
            what.replace("*/", "* /")
        );
    }
    out.push_str(
        "  /** Per-attempt timeout in milliseconds (default 60000). */\n  timeoutMs?: number;\n  /** Retries after a 429, a 5xx, a timeout or a network failure (default 2). */\n  maxRetries?: number;\n  /** Headers sent with every request. */\n  headers?: Record<string, string>;\n  /** A fetch implementation (default: the global fetch). */\n  fetch?: typeof fetch;\n}\n\n",
    );
    let _ = writeln!(out, "const SCHEMES: Record<string, Scheme> = {{\n{schemes}}};\n");
    out.push_str(RUNTIME);
    out.push('\n');

    // Named schemas.
    for (key, schema) in &spec.schemas {
        let Some(name) = gen_.type_names.get(key.as_str()) else { continue };
        if let Some(doc) = schema.get("description").and_then(Value::as_str).and_then(doc_line) {
            let _ = writeln!(out, "/** {doc} */");
        }
        let _ = writeln!(out, "export type {name} = {};\n", gen_.ty(schema, 0, 0));
    }

    // Parameter objects.
    for method in &methods {
        let Some(params_type) = &method.params_type else { continue };
        let _ = writeln!(out, "export interface {params_type} {{");
        for (key, parameter) in param_keys(&method.plan) {
            if let Some(doc) = parameter.description.as_deref().and_then(doc_line) {
                let _ = writeln!(out, "  /** {doc} */");
            }
            let optional = if parameter.required { "" } else { "?" };
            let _ = writeln!(out, "  {}{optional}: {};", property_key(&key), gen_.param_type(parameter, 1));
        }
        out.push_str("}\n\n");
    }

    out.push_str("export class Client extends BaseClient {\n  constructor(options: ClientOptions = {}) {\n    super(options.baseUrl ?? DEFAULT_BASE_URL, {");
    for (i, (key, option, _, _)) in credentials.iter().enumerate() {
        let _ = write!(out, "{} {}: options.{option}", if i == 0 { "" } else { "," }, quote(key));
    }
    out.push_str(if credentials.is_empty() { "}, options);\n  }\n" } else { " }, options);\n  }\n" });
    for method in &methods {
        gen_.method(&mut out, method);
    }
    out.push_str("}\n");
    out
}

/// Query, header and cookie parameters with their key in the params object;
/// a name used in two locations gets the location appended the second time.
fn param_keys<'p>(plan: &plan::OperationPlan<'p>) -> Vec<(String, &'p spec::Parameter)> {
    let mut namer = Namer::default();
    plan.other_params
        .iter()
        .map(|parameter| {
            let key = namer.claim(&parameter.name);
            (key, *parameter)
        })
        .collect()
}

impl Gen<'_> {
    fn param_schema(parameter: &spec::Parameter) -> Option<&Value> {
        parameter.schema.as_ref().or_else(|| parameter.content.values().next().and_then(|m| m.schema.as_ref()))
    }

    fn param_type(&self, parameter: &spec::Parameter, indent: usize) -> String {
        Self::param_schema(parameter).map_or_else(|| "unknown".to_owned(), |schema| self.ty(schema, 1, indent))
    }

    fn method(&self, out: &mut String, method: &Method<'_>) {
        let plan = &method.plan;
        let operation = plan.operation;
        let mut arg_namer = Namer::with_reserved(names::TS_RESERVED);
        // (declaration, required)
        let mut args: Vec<(String, String, bool)> = Vec::new();
        let mut path_vars = Vec::new();
        for path_param in &plan.path_params {
            let var = arg_namer.claim_or_suffix(&names::camel(&path_param.name, "param"), "_");
            let ty = path_param.parameter.map_or_else(|| "string".to_owned(), |p| self.param_type(p, 2));
            let ty = if ty == "unknown" { "string | number".to_owned() } else { ty };
            args.push((var.clone(), ty, true));
            path_vars.push((path_param.name.as_str(), var));
        }
        if let Some(body) = &plan.body {
            let ty = match body.kind {
                BodyKind::Binary => "Blob | ArrayBuffer | Uint8Array | string".to_owned(),
                BodyKind::Text => "string".to_owned(),
                _ => body.schema.map_or_else(|| "unknown".to_owned(), |s| self.ty(s, 1, 2)),
            };
            args.push(("body".to_owned(), ty, body.required));
        }
        let params_required = plan.other_params.iter().any(|p| p.required);
        let mut signature = Vec::new();
        let later_required: Vec<bool> = (0..args.len())
            .map(|i| args.iter().skip(i + 1).any(|a| a.2) || (method.params_type.is_some() && params_required))
            .collect();
        for ((name, ty, required), later) in args.iter().zip(later_required) {
            signature.push(match (required, later) {
                (true, _) => format!("{name}: {ty}"),
                (false, true) => format!("{name}: {} | undefined", wrap(ty)),
                (false, false) => format!("{name}?: {ty}"),
            });
        }
        if let Some(params_type) = &method.params_type {
            signature.push(if params_required {
                format!("params: {params_type}")
            } else {
                format!("params: {params_type} = {{}}")
            });
        }
        signature.push("options: RequestOptions = {}".to_owned());
        let result = self.result_type(plan);

        let summary = operation.summary.as_deref().or(operation.description.as_deref()).and_then(doc_line);
        let mut doc = vec![format!("`{} {}`", operation.method.as_str(), operation.path.replace("*/", "* /"))];
        if let Some(summary) = summary {
            doc.insert(0, summary);
        }
        if operation.deprecated {
            doc.push("@deprecated".to_owned());
        }
        let _ = writeln!(out, "\n  /**\n{}   */", doc.iter().map(|l| format!("   * {l}\n")).collect::<String>());
        let _ = writeln!(out, "  async {}({}): Promise<{result}> {{", method.name, signature.join(", "));
        let mut path_expr = Vec::new();
        for piece in plan::path_pieces(&operation.path) {
            match piece {
                PathPiece::Literal(text) => path_expr.push(quote(text)),
                PathPiece::Param(name) => match path_vars.iter().find(|(n, _)| *n == name) {
                    Some((_, var)) => path_expr.push(format!("encodePath({var})")),
                    None => path_expr.push(quote(&format!("{{{name}}}"))),
                },
            }
        }
        if path_expr.is_empty() {
            path_expr.push("\"\"".to_owned());
        }
        let _ = writeln!(out, "    return this.request<{result}>({{");
        let _ = writeln!(out, "      method: {},", quote(operation.method.as_str()));
        let _ = writeln!(out, "      path: {},", path_expr.join(" + "));
        for (location, field) in [
            (ParameterLocation::Query, "query"),
            (ParameterLocation::Header, "headers"),
            (ParameterLocation::Cookie, "cookies"),
        ] {
            let entries: Vec<String> = param_keys(plan)
                .into_iter()
                .filter(|(_, p)| p.location == location)
                .map(|(key, p)| {
                    let access = if is_ts_identifier(&key) {
                        format!("params.{key}")
                    } else {
                        format!("params[{}]", quote(&key))
                    };
                    let mut entry = format!("{{ name: {}, value: {access}", quote(&p.name));
                    if p.schema.is_none() && !p.content.is_empty() {
                        entry.push_str(", style: \"json\"");
                    } else if let Some(style) = &p.style {
                        let _ = write!(entry, ", style: {}", quote(style));
                    }
                    if let Some(explode) = p.explode {
                        let _ = write!(entry, ", explode: {explode}");
                    }
                    entry + " }"
                })
                .collect();
            if !entries.is_empty() {
                let _ = writeln!(out, "      {field}: [{}],", entries.join(", "));
            }
        }
        if let Some(body) = &plan.body {
            let _ = writeln!(
                out,
                "      body,\n      bodyKind: \"{}\",\n      contentType: {},",
                body.kind.as_str(),
                quote(&body.media_type)
            );
        }
        let security: Vec<String> = plan
            .security
            .iter()
            .map(|alternative| format!("[{}]", alternative.iter().map(|k| quote(k)).collect::<Vec<_>>().join(", ")))
            .collect();
        let _ = writeln!(out, "      security: [{}],", security.join(", "));
        out.push_str("    }, options);\n  }\n");
    }

    fn result_type(&self, plan: &plan::OperationPlan<'_>) -> String {
        if plan.outcomes.iter().all(|o| matches!(o, Outcome::Empty)) {
            return "void".to_owned();
        }
        union(
            plan.outcomes
                .iter()
                .map(|outcome| match outcome {
                    Outcome::Empty => "undefined".to_owned(),
                    Outcome::Json(Some(schema)) => self.ty(schema, 1, 1),
                    Outcome::Json(None) => "unknown".to_owned(),
                    Outcome::Text => "string".to_owned(),
                    Outcome::Binary => "Blob".to_owned(),
                })
                .collect(),
        )
    }
}

/// What [`types`] declares.
#[derive(Debug, Clone, Copy)]
pub enum TypesOf<'a> {
    /// A named schema (`components.schemas` key).
    Schema(&'a str),
    /// An operation, by method and path template.
    Operation(&'a str, &'a str),
}

/// Most schemas one declaration pulls in by reference.
const MAX_REFERENCED: usize = 60;

/// TypeScript declarations for one schema or one operation (its parameters,
/// body and successful response), with every named schema they reference,
/// exactly as the generated SDK declares them. `None` when the schema or
/// operation is not in the description.
pub(crate) fn types(spec: &Spec, of: TypesOf<'_>) -> Option<String> {
    let gen_ = Gen::new(spec);
    let mut out = String::new();
    let mut roots: Vec<&Value> = Vec::new();
    match of {
        TypesOf::Schema(key) => {
            let (key, schema) = spec.schemas.get_key_value(key)?;
            let name = gen_.type_names.get(key.as_str())?;
            let _ = writeln!(out, "export type {name} = {};\n", gen_.ty(schema, 0, 0));
            roots.push(schema);
        }
        TypesOf::Operation(method, path) => {
            let operation =
                spec.operations.iter().find(|o| o.method.as_str().eq_ignore_ascii_case(method) && o.path == path)?;
            let plan = plan::plan(spec, operation);
            let base = names::pascal(&plan::operation_base_name(operation), "Operation");
            if !plan.path_params.is_empty() || !plan.other_params.is_empty() {
                let _ = writeln!(out, "export interface {base}Params {{");
                for path_param in &plan.path_params {
                    let ty = path_param.parameter.map_or_else(|| "string".to_owned(), |p| gen_.param_type(p, 1));
                    let _ = writeln!(out, "  {}: {ty};", property_key(&path_param.name));
                    if let Some(schema) = path_param.parameter.and_then(Gen::param_schema) {
                        roots.push(schema);
                    }
                }
                for parameter in &plan.other_params {
                    if let Some(doc) = parameter.description.as_deref().and_then(doc_line) {
                        let _ = writeln!(out, "  /** {doc} */");
                    }
                    let optional = if parameter.required { "" } else { "?" };
                    let _ = writeln!(
                        out,
                        "  {}{optional}: {};",
                        property_key(&parameter.name),
                        gen_.param_type(parameter, 1)
                    );
                    if let Some(schema) = Gen::param_schema(parameter) {
                        roots.push(schema);
                    }
                }
                out.push_str("}\n\n");
            }
            if let Some(schema) =
                operation.request_body.as_ref().and_then(|b| b.content.values().next()).and_then(|m| m.schema.as_ref())
            {
                let _ = writeln!(out, "export type {base}Body = {};\n", gen_.ty(schema, 0, 0));
                roots.push(schema);
            }
            let success = operation
                .responses
                .iter()
                .find(|(status, _)| status.starts_with('2'))
                .and_then(|(_, r)| r.content.values().next())
                .and_then(|m| m.schema.as_ref());
            if let Some(schema) = success {
                let _ = writeln!(out, "export type {base}Response = {};\n", gen_.ty(schema, 0, 0));
                roots.push(schema);
            }
        }
    }
    // Every named schema reached by reference, once, in description order.
    let mut wanted: Vec<&str> = Vec::new();
    let mut queue: Vec<&Value> = roots;
    let own = match of {
        TypesOf::Schema(key) => Some(key),
        TypesOf::Operation(..) => None,
    };
    while let Some(value) = queue.pop() {
        match value {
            Value::Object(map) => {
                if let Some(key) = map.get("$ref").and_then(Value::as_str).and_then(|r| schema_key(spec, r))
                    && Some(key) != own
                    && !wanted.contains(&key)
                    && wanted.len() < MAX_REFERENCED
                {
                    wanted.push(key);
                    if let Some(schema) = spec.schemas.get(key) {
                        queue.push(schema);
                    }
                }
                queue.extend(map.values());
            }
            Value::Array(items) => queue.extend(items.iter()),
            _ => {}
        }
    }
    for (key, schema) in &spec.schemas {
        if wanted.contains(&key.as_str())
            && let Some(name) = gen_.type_names.get(key.as_str())
        {
            let _ = writeln!(out, "export type {name} = {};\n", gen_.ty(schema, 0, 0));
        }
    }
    Some(out.trim_end().to_owned() + "\n")
}
