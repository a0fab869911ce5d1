//! GraphQL against GraphQL: types, fields, arguments, input fields, enum
//! values, union members and interfaces. Output positions (fields) may
//! tighten freely; input positions (arguments, input fields) may loosen.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use spec::{GraphQlField, GraphQlInputValue, GraphQlModel, GraphQlType, GraphQlTypeKind, Spec, TypeRef};

use crate::Change;
use crate::rules::{self, Rule};
use crate::schema::Differ;

pub(crate) fn diff(old: &Spec, new: &Spec) -> Vec<Change> {
    let empty = GraphQlModel::default();
    let old_model = old.graphql.as_ref().unwrap_or(&empty);
    let new_model = new.graphql.as_ref().unwrap_or(&empty);
    let mut differ = Differ::new(old, new);
    let roots: BTreeSet<&str> = [&new_model.query_type, &new_model.mutation_type, &new_model.subscription_type]
        .into_iter()
        .chain([&old_model.query_type, &old_model.mutation_type, &old_model.subscription_type])
        .filter_map(|name| name.as_deref())
        .collect();
    let old_types: BTreeMap<&String, &GraphQlType> = old_model.types.iter().collect();
    let new_types: BTreeMap<&String, &GraphQlType> = new_model.types.iter().collect();
    for (name, old_type) in &old_types {
        match new_types.get(name) {
            Some(new_type) => {
                let mut graph = Graph { differ: &mut differ, root: roots.contains(name.as_str()) };
                graph.ty(old_type, new_type);
            }
            None => differ.push(
                rules::GRAPHQL_TYPE_REMOVED,
                None,
                format!("type {name}"),
                None,
                Some(kind_name(old_type.kind).into()),
                None,
                format!("{} `{name}` removed", kind_name(old_type.kind)),
            ),
        }
    }
    for (name, new_type) in &new_types {
        if !old_types.contains_key(name) {
            differ.push(
                rules::GRAPHQL_TYPE_ADDED,
                None,
                format!("type {name}"),
                None,
                None,
                Some(kind_name(new_type.kind).into()),
                format!("{} `{name}` added", kind_name(new_type.kind)),
            );
        }
    }
    differ.out
}

fn kind_name(kind: GraphQlTypeKind) -> &'static str {
    match kind {
        GraphQlTypeKind::Scalar => "scalar",
        GraphQlTypeKind::Object => "object",
        GraphQlTypeKind::Interface => "interface",
        GraphQlTypeKind::Union => "union",
        GraphQlTypeKind::Enum => "enum",
        GraphQlTypeKind::InputObject => "input object",
    }
}

struct Graph<'d, 'a> {
    differ: &'d mut Differ<'a>,
    /// The type is Query, Mutation or Subscription: its fields are the
    /// schema's operations.
    root: bool,
}

/// How a type reference changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TypeChange {
    Changed,
    BecameNullable,
    BecameNonNull,
    Same,
}

impl TypeChange {
    /// The more serious of two changes. Spelled out rather than derived:
    /// `Ord::min` on a derived ordering of this enum was miscompiled in
    /// release builds by the toolchain this was written with.
    fn worst(self, other: Self) -> Self {
        let rank = |change: Self| match change {
            Self::Changed => 0,
            Self::BecameNullable => 1,
            Self::BecameNonNull => 2,
            Self::Same => 3,
        };
        if rank(other) < rank(self) { other } else { self }
    }
}

/// Walks both wrappers together and reports the most serious difference.
fn compare_refs(old: &TypeRef, new: &TypeRef) -> TypeChange {
    match (old, new) {
        (TypeRef::NonNull(o), TypeRef::NonNull(n)) | (TypeRef::List(o), TypeRef::List(n)) => compare_refs(o, n),
        (TypeRef::NonNull(o), n) => compare_refs(o, n).worst(TypeChange::BecameNullable),
        (o, TypeRef::NonNull(n)) => compare_refs(o, n).worst(TypeChange::BecameNonNull),
        (TypeRef::Named(o), TypeRef::Named(n)) if o == n => TypeChange::Same,
        _ => TypeChange::Changed,
    }
}

fn is_required(input: &GraphQlInputValue) -> bool {
    input.ty.is_non_null() && input.default_value.is_none()
}

impl Graph<'_, '_> {
    fn push(
        &mut self,
        rule: Rule,
        operation: Option<&str>,
        location: String,
        before: Option<Value>,
        after: Option<Value>,
        message: String,
    ) {
        self.differ.push(rule, operation, location, None, before, after, message);
    }

    fn ty(&mut self, old: &GraphQlType, new: &GraphQlType) {
        let name = &new.name;
        if old.kind != new.kind {
            self.push(
                rules::GRAPHQL_TYPE_KIND_CHANGED,
                None,
                format!("type {name}"),
                Some(kind_name(old.kind).into()),
                Some(kind_name(new.kind).into()),
                format!("`{name}` changed from {} to {}", kind_name(old.kind), kind_name(new.kind)),
            );
            return;
        }
        if old.description != new.description {
            self.push(
                rules::GRAPHQL_DESCRIPTION_CHANGED,
                None,
                format!("type {name}"),
                old.description.clone().map(Value::from),
                new.description.clone().map(Value::from),
                "description changed".to_owned(),
            );
        }
        self.fields(name, &old.fields, &new.fields);
        self.input_values(name, None, &old.input_fields, &new.input_fields);
        self.members(name, "interface", &old.interfaces, &new.interfaces);
        self.members(name, "member", &old.members, &new.members);
        self.enum_values(name, old, new);
    }

    fn fields(&mut self, type_name: &str, old: &[GraphQlField], new: &[GraphQlField]) {
        let old_fields: BTreeMap<&str, &GraphQlField> = old.iter().map(|field| (field.name.as_str(), field)).collect();
        let new_fields: BTreeMap<&str, &GraphQlField> = new.iter().map(|field| (field.name.as_str(), field)).collect();
        for (name, old_field) in &old_fields {
            let path = format!("{type_name}.{name}");
            let operation = self.root.then_some(path.as_str());
            let Some(new_field) = new_fields.get(name) else {
                self.push(
                    rules::GRAPHQL_FIELD_REMOVED,
                    operation,
                    path.clone(),
                    Some(old_field.ty.to_string().into()),
                    None,
                    format!("field `{path}` removed"),
                );
                continue;
            };
            let (before, after) = (old_field.ty.to_string(), new_field.ty.to_string());
            let rule = match compare_refs(&old_field.ty, &new_field.ty) {
                TypeChange::Changed => Some(rules::GRAPHQL_FIELD_TYPE_CHANGED),
                TypeChange::BecameNullable => Some(rules::GRAPHQL_FIELD_BECAME_NULLABLE),
                TypeChange::BecameNonNull => Some(rules::GRAPHQL_FIELD_BECAME_NON_NULL),
                TypeChange::Same => None,
            };
            if let Some(rule) = rule {
                self.push(
                    rule,
                    operation,
                    path.clone(),
                    Some(before.as_str().into()),
                    Some(after.as_str().into()),
                    format!("type changed from `{before}` to `{after}`"),
                );
            }
            if old_field.deprecated != new_field.deprecated {
                self.deprecation(
                    operation,
                    path.clone(),
                    new_field.deprecated,
                    new_field.deprecation_reason.as_deref(),
                );
            }
            if old_field.description != new_field.description {
                self.push(
                    rules::GRAPHQL_DESCRIPTION_CHANGED,
                    operation,
                    path.clone(),
                    old_field.description.clone().map(Value::from),
                    new_field.description.clone().map(Value::from),
                    "description changed".to_owned(),
                );
            }
            self.input_values(&path, Some(operation.map(str::to_owned)), &old_field.args, &new_field.args);
        }
        for (name, new_field) in &new_fields {
            if !old_fields.contains_key(name) {
                let path = format!("{type_name}.{name}");
                let operation = self.root.then_some(path.as_str());
                self.push(
                    rules::GRAPHQL_FIELD_ADDED,
                    operation,
                    path.clone(),
                    None,
                    Some(new_field.ty.to_string().into()),
                    format!("field `{path}` added"),
                );
            }
        }
    }

    fn deprecation(&mut self, operation: Option<&str>, path: String, deprecated: bool, reason: Option<&str>) {
        let message = match (deprecated, reason) {
            (true, Some(reason)) => format!("deprecated: {reason}"),
            (true, None) => "deprecated".to_owned(),
            (false, _) => "no longer deprecated".to_owned(),
        };
        self.push(
            rules::GRAPHQL_DEPRECATION_CHANGED,
            operation,
            path,
            Some((!deprecated).into()),
            Some(deprecated.into()),
            message,
        );
    }

    /// Arguments of a field (`field` is `Some(operation)`) or fields of an
    /// input object (`field` is `None`).
    fn input_values(
        &mut self,
        owner: &str,
        field: Option<Option<String>>,
        old: &[GraphQlInputValue],
        new: &[GraphQlInputValue],
    ) {
        let is_argument = field.is_some();
        let operation = field.flatten();
        let operation = operation.as_deref();
        let old_values: BTreeMap<&str, &GraphQlInputValue> =
            old.iter().map(|value| (value.name.as_str(), value)).collect();
        let new_values: BTreeMap<&str, &GraphQlInputValue> =
            new.iter().map(|value| (value.name.as_str(), value)).collect();
        let (noun, path_of): (&str, fn(&str, &str) -> String) = if is_argument {
            ("argument", |owner, name| format!("{owner}({name})"))
        } else {
            ("input field", |owner, name| format!("{owner}.{name}"))
        };
        for (name, old_value) in &old_values {
            let path = path_of(owner, name);
            let Some(new_value) = new_values.get(name) else {
                let rule =
                    if is_argument { rules::GRAPHQL_ARGUMENT_REMOVED } else { rules::GRAPHQL_INPUT_FIELD_REMOVED };
                self.push(
                    rule,
                    operation,
                    path.clone(),
                    Some(old_value.ty.to_string().into()),
                    None,
                    format!("{noun} `{path}` removed"),
                );
                continue;
            };
            let (before, after) = (old_value.ty.to_string(), new_value.ty.to_string());
            let change = compare_refs(&old_value.ty, &new_value.ty);
            let rule = match change {
                TypeChange::Changed => Some(rules::GRAPHQL_INPUT_TYPE_CHANGED),
                TypeChange::BecameNonNull => Some(rules::GRAPHQL_INPUT_BECAME_NON_NULL),
                TypeChange::BecameNullable => Some(rules::GRAPHQL_INPUT_BECAME_NULLABLE),
                TypeChange::Same => None,
            };
            if let Some(rule) = rule {
                self.push(
                    rule,
                    operation,
                    path.clone(),
                    Some(before.as_str().into()),
                    Some(after.as_str().into()),
                    format!("type changed from `{before}` to `{after}`"),
                );
            }
            if old_value.deprecated != new_value.deprecated {
                self.deprecation(operation, path.clone(), new_value.deprecated, None);
            }
            if old_value.description != new_value.description {
                self.push(
                    rules::GRAPHQL_DESCRIPTION_CHANGED,
                    operation,
                    path,
                    old_value.description.clone().map(Value::from),
                    new_value.description.clone().map(Value::from),
                    "description changed".to_owned(),
                );
            }
        }
        for (name, new_value) in &new_values {
            if old_values.contains_key(name) {
                continue;
            }
            let path = path_of(owner, name);
            let required = is_required(new_value);
            let rule = match (is_argument, required) {
                (true, true) => rules::GRAPHQL_REQUIRED_ARGUMENT_ADDED,
                (true, false) => rules::GRAPHQL_OPTIONAL_ARGUMENT_ADDED,
                (false, true) => rules::GRAPHQL_REQUIRED_INPUT_FIELD_ADDED,
                (false, false) => rules::GRAPHQL_OPTIONAL_INPUT_FIELD_ADDED,
            };
            let adjective = if required { "required" } else { "optional" };
            self.push(
                rule,
                operation,
                path.clone(),
                None,
                Some(new_value.ty.to_string().into()),
                format!("{adjective} {noun} `{path}` added"),
            );
        }
    }

    /// Interfaces an object implements, or members of a union.
    fn members(&mut self, type_name: &str, noun: &str, old: &[String], new: &[String]) {
        let old_set: BTreeSet<&String> = old.iter().collect();
        let new_set: BTreeSet<&String> = new.iter().collect();
        let (removed, added) = if noun == "interface" {
            (rules::GRAPHQL_INTERFACE_REMOVED, rules::GRAPHQL_INTERFACE_ADDED)
        } else {
            (rules::GRAPHQL_UNION_MEMBER_REMOVED, rules::GRAPHQL_UNION_MEMBER_ADDED)
        };
        for name in old_set.difference(&new_set) {
            self.push(
                removed,
                None,
                format!("type {type_name}"),
                Some(name.as_str().into()),
                None,
                format!("{noun} `{name}` removed from `{type_name}`"),
            );
        }
        for name in new_set.difference(&old_set) {
            self.push(
                added,
                None,
                format!("type {type_name}"),
                None,
                Some(name.as_str().into()),
                format!("{noun} `{name}` added to `{type_name}`"),
            );
        }
    }

    fn enum_values(&mut self, type_name: &str, old: &GraphQlType, new: &GraphQlType) {
        let old_values: BTreeMap<&str, _> = old.enum_values.iter().map(|value| (value.name.as_str(), value)).collect();
        let new_values: BTreeMap<&str, _> = new.enum_values.iter().map(|value| (value.name.as_str(), value)).collect();
        for (name, old_value) in &old_values {
            let path = format!("{type_name}.{name}");
            match new_values.get(name) {
                None => self.push(
                    rules::GRAPHQL_ENUM_VALUE_REMOVED,
                    None,
                    path,
                    Some((*name).into()),
                    None,
                    format!("enum value `{name}` removed from `{type_name}`"),
                ),
                Some(new_value) => {
                    if old_value.deprecated != new_value.deprecated {
                        self.deprecation(None, path, new_value.deprecated, new_value.deprecation_reason.as_deref());
                    }
                }
            }
        }
        for name in new_values.keys() {
            if !old_values.contains_key(name) {
                self.push(
                    rules::GRAPHQL_ENUM_VALUE_ADDED,
                    None,
                    format!("{type_name}.{name}"),
                    None,
                    Some((*name).into()),
                    format!(
                        "enum value `{name}` added to `{type_name}`; clients that switch exhaustively over it need a new case"
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_references_are_the_same() {
        let named = TypeRef::Named("A".to_owned());
        assert_eq!(compare_refs(&named, &named.clone()), TypeChange::Same);
        let list = TypeRef::List(Box::new(TypeRef::NonNull(Box::new(named.clone()))));
        assert_eq!(compare_refs(&list, &list.clone()), TypeChange::Same);
        let non_null = TypeRef::NonNull(Box::new(named.clone()));
        assert_eq!(compare_refs(&named, &non_null), TypeChange::BecameNonNull);
        assert_eq!(compare_refs(&non_null, &named), TypeChange::BecameNullable);
        assert_eq!(compare_refs(&named, &TypeRef::Named("B".to_owned())), TypeChange::Changed);
        assert_eq!(compare_refs(&named, &list), TypeChange::Changed);
    }
}
