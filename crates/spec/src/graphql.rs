//! GraphQL SDL: parse and validate with apollo-compiler, then copy what the
//! consumers need into plain owned types, so they never depend on
//! apollo-compiler's API (which changes across majors).

use std::fmt;

use apollo_compiler::ast;
use apollo_compiler::schema::ExtendedType;
use apollo_compiler::validation::DiagnosticList;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::Limits;
use crate::error::{SpecError, SpecErrorKind};
use crate::model::{Spec, SpecFormat};

/// The types and root operations of a GraphQL schema. Built-in scalars and
/// introspection types are left out.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GraphQlModel {
    /// Named types in document order.
    pub types: IndexMap<String, GraphQlType>,
    pub query_type: Option<String>,
    pub mutation_type: Option<String>,
    pub subscription_type: Option<String>,
    /// Fields of the query root type.
    pub queries: Vec<GraphQlField>,
    /// Fields of the mutation root type.
    pub mutations: Vec<GraphQlField>,
    /// Fields of the subscription root type.
    pub subscriptions: Vec<GraphQlField>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GraphQlTypeKind {
    Scalar,
    Object,
    Interface,
    Union,
    Enum,
    InputObject,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphQlType {
    pub name: String,
    pub kind: GraphQlTypeKind,
    pub description: Option<String>,
    /// Fields of objects and interfaces.
    pub fields: Vec<GraphQlField>,
    /// Fields of input objects.
    pub input_fields: Vec<GraphQlInputValue>,
    /// Interfaces an object or interface implements.
    pub interfaces: Vec<String>,
    /// Member types of a union.
    pub members: Vec<String>,
    pub enum_values: Vec<GraphQlEnumValue>,
    /// `@specifiedBy(url:)` of a custom scalar.
    pub specified_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphQlField {
    pub name: String,
    pub description: Option<String>,
    pub args: Vec<GraphQlInputValue>,
    pub ty: TypeRef,
    pub deprecated: bool,
    pub deprecation_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphQlInputValue {
    pub name: String,
    pub description: Option<String>,
    pub ty: TypeRef,
    /// The default as GraphQL source text (`10`, `"a"`, `[RED]`).
    pub default_value: Option<String>,
    pub deprecated: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphQlEnumValue {
    pub name: String,
    pub description: Option<String>,
    pub deprecated: bool,
    pub deprecation_reason: Option<String>,
}

/// A GraphQL type reference with its list and non-null wrappers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeRef {
    Named(String),
    List(Box<TypeRef>),
    NonNull(Box<TypeRef>),
}

impl TypeRef {
    /// The innermost named type (`User` for `[User!]!`).
    #[must_use]
    pub fn named(&self) -> &str {
        match self {
            Self::Named(name) => name,
            Self::List(inner) | Self::NonNull(inner) => inner.named(),
        }
    }

    #[must_use]
    pub fn is_non_null(&self) -> bool {
        matches!(self, Self::NonNull(_))
    }

    /// True when the outermost non-null-stripped wrapper is a list.
    #[must_use]
    pub fn is_list(&self) -> bool {
        match self {
            Self::List(_) => true,
            Self::NonNull(inner) => inner.is_list(),
            Self::Named(_) => false,
        }
    }

    fn from_ast(ty: &ast::Type) -> Self {
        match ty {
            ast::Type::Named(name) => Self::Named(name.to_string()),
            ast::Type::NonNullNamed(name) => Self::NonNull(Box::new(Self::Named(name.to_string()))),
            ast::Type::List(inner) => Self::List(Box::new(Self::from_ast(inner))),
            ast::Type::NonNullList(inner) => Self::NonNull(Box::new(Self::List(Box::new(Self::from_ast(inner))))),
        }
    }
}

impl fmt::Display for TypeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Named(name) => f.write_str(name),
            Self::List(inner) => write!(f, "[{inner}]"),
            Self::NonNull(inner) => write!(f, "{inner}!"),
        }
    }
}

const SOURCE_NAME: &str = "schema.graphql";

/// Parses and validates SDL and builds a [`Spec`] holding its model.
pub(crate) fn parse(text: &str, limits: &Limits) -> Result<Spec, SpecError> {
    let document = ast::Document::parser()
        .recursion_limit(limits.max_depth)
        .parse_ast(text, SOURCE_NAME)
        .map_err(|with_errors| diagnostics_error(SpecErrorKind::Syntax, &with_errors.errors))?;
    let schema = document
        .to_schema_validate()
        .map_err(|with_errors| diagnostics_error(SpecErrorKind::InvalidGraphQl, &with_errors.errors))?;

    let mut model = GraphQlModel::default();
    for (name, ty) in &schema.types {
        if ty.is_built_in() {
            continue;
        }
        model.types.insert(name.to_string(), convert_type(ty));
    }
    let roots = &schema.schema_definition;
    model.query_type = roots.query.as_ref().map(|n| n.to_string());
    model.mutation_type = roots.mutation.as_ref().map(|n| n.to_string());
    model.subscription_type = roots.subscription.as_ref().map(|n| n.to_string());
    let root_fields = |root: &Option<String>| {
        root.as_ref().and_then(|name| model.types.get(name)).map(|ty| ty.fields.clone()).unwrap_or_default()
    };
    let queries = root_fields(&model.query_type);
    let mutations = root_fields(&model.mutation_type);
    let subscriptions = root_fields(&model.subscription_type);
    model.queries = queries;
    model.mutations = mutations;
    model.subscriptions = subscriptions;

    let description = roots.description.as_ref().map(|d| d.to_string());
    Ok(Spec {
        format: SpecFormat::GraphQl,
        source_version: String::new(),
        title: String::new(),
        api_version: String::new(),
        description,
        summary: None,
        terms_of_service: None,
        contact: None,
        license: None,
        external_docs: None,
        servers: Vec::new(),
        operations: Vec::new(),
        webhooks: Vec::new(),
        schemas: IndexMap::new(),
        components: IndexMap::new(),
        security_schemes: IndexMap::new(),
        security: Vec::new(),
        tags: Vec::new(),
        graphql: Some(model),
        detached_targets: IndexMap::new(),
    })
}

/// The first diagnostic (with its location) stands for the list; the count
/// tells the author how many more there are.
fn diagnostics_error(kind: SpecErrorKind, errors: &DiagnosticList) -> SpecError {
    let Some(first) = errors.iter().next() else {
        return SpecError::new(kind, "invalid graphql schema");
    };
    let more = errors.len().saturating_sub(1);
    let prefix = if kind == SpecErrorKind::Syntax { "invalid graphql syntax" } else { "invalid graphql schema" };
    let mut message = format!("{prefix}: {}", first.error);
    if more > 0 {
        message.push_str(&format!(" (and {more} more)"));
    }
    let start = first.line_column_range().map(|range| range.start);
    SpecError::new(kind, message).at(start.as_ref().map(|s| s.line as u64), start.as_ref().map(|s| s.column as u64))
}

fn text(description: Option<&apollo_compiler::Node<str>>) -> Option<String> {
    description.map(|d| d.to_string())
}

fn deprecation(directives: &ast::DirectiveList) -> (bool, Option<String>) {
    match directives.get("deprecated") {
        Some(directive) => {
            let reason = directive
                .specified_argument_by_name("reason")
                .and_then(|value| value.as_str().map(str::to_owned))
                .or_else(|| Some("No longer supported".to_owned()));
            (true, reason)
        }
        None => (false, None),
    }
}

fn input_value(value: &ast::InputValueDefinition) -> GraphQlInputValue {
    GraphQlInputValue {
        name: value.name.to_string(),
        description: text(value.description.as_ref()),
        ty: TypeRef::from_ast(&value.ty),
        default_value: value.default_value.as_ref().map(|v| v.to_string()),
        deprecated: value.directives.get("deprecated").is_some(),
    }
}

fn field(definition: &ast::FieldDefinition) -> GraphQlField {
    let (deprecated, deprecation_reason) = deprecation(&definition.directives);
    GraphQlField {
        name: definition.name.to_string(),
        description: text(definition.description.as_ref()),
        args: definition.arguments.iter().map(|a| input_value(a)).collect(),
        ty: TypeRef::from_ast(&definition.ty),
        deprecated,
        deprecation_reason,
    }
}

fn convert_type(ty: &ExtendedType) -> GraphQlType {
    let mut out = GraphQlType {
        name: ty.name().to_string(),
        kind: GraphQlTypeKind::Scalar,
        description: None,
        fields: Vec::new(),
        input_fields: Vec::new(),
        interfaces: Vec::new(),
        members: Vec::new(),
        enum_values: Vec::new(),
        specified_by: None,
    };
    match ty {
        ExtendedType::Scalar(scalar) => {
            out.description = text(scalar.description.as_ref());
            out.specified_by = scalar
                .directives
                .get("specifiedBy")
                .and_then(|d| d.specified_argument_by_name("url"))
                .and_then(|url| url.as_str().map(str::to_owned));
        }
        ExtendedType::Object(object) => {
            out.kind = GraphQlTypeKind::Object;
            out.description = text(object.description.as_ref());
            out.fields = object.fields.values().map(|f| field(f)).collect();
            out.interfaces = object.implements_interfaces.iter().map(|n| n.to_string()).collect();
        }
        ExtendedType::Interface(interface) => {
            out.kind = GraphQlTypeKind::Interface;
            out.description = text(interface.description.as_ref());
            out.fields = interface.fields.values().map(|f| field(f)).collect();
            out.interfaces = interface.implements_interfaces.iter().map(|n| n.to_string()).collect();
        }
        ExtendedType::Union(union) => {
            out.kind = GraphQlTypeKind::Union;
            out.description = text(union.description.as_ref());
            out.members = union.members.iter().map(|n| n.to_string()).collect();
        }
        ExtendedType::Enum(enumeration) => {
            out.kind = GraphQlTypeKind::Enum;
            out.description = text(enumeration.description.as_ref());
            out.enum_values = enumeration
                .values
                .values()
                .map(|value| {
                    let (deprecated, deprecation_reason) = deprecation(&value.directives);
                    GraphQlEnumValue {
                        name: value.value.to_string(),
                        description: text(value.description.as_ref()),
                        deprecated,
                        deprecation_reason,
                    }
                })
                .collect();
        }
        ExtendedType::InputObject(input) => {
            out.kind = GraphQlTypeKind::InputObject;
            out.description = text(input.description.as_ref());
            out.input_fields = input.fields.values().map(|v| input_value(v)).collect();
        }
    }
    out
}
