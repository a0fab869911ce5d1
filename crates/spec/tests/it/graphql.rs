//! The GraphQL model: types of every kind, wrappers, and root operations.

use spec::{GraphQlTypeKind, SpecErrorKind, SpecFormat, TypeRef};

use crate::support::{parse_err, parse_ok};

const SDL: &str = r#"
"""The shop"""
schema { query: Query, mutation: Mutation, subscription: Subscription }

scalar DateTime @specifiedBy(url: "https://tools.ietf.org/html/rfc3339")

interface Node { id: ID! }

"A pet"
type Pet implements Node {
  id: ID!
  name: String!
  tags: [String!]
  owners: [Person]!
  born: DateTime
  kind: Kind @deprecated(reason: "use species")
}

type Person implements Node { id: ID! pets(first: Int = 10, after: String): [Pet!]! }

union SearchResult = Pet | Person

enum Kind { CAT DOG @deprecated }

input PetInput { name: String!, kind: Kind = CAT, tags: [String!] = [] }

type Query {
  pet(id: ID!): Pet
  search(term: String!): [SearchResult!]!
}

type Mutation { addPet(input: PetInput!): Pet! }

type Subscription { petAdded: Pet! }
"#;

#[test]
fn model_has_every_kind_of_type() {
    let spec = parse_ok(SDL);
    assert_eq!(spec.format, SpecFormat::GraphQl);
    assert_eq!(spec.source_version, "");
    assert_eq!(spec.operation_count(), 4);
    let model = spec.graphql.as_ref().expect("graphql model");
    assert_eq!(model.query_type.as_deref(), Some("Query"));
    assert_eq!(model.queries.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["pet", "search"]);
    assert_eq!(model.mutations[0].name, "addPet");
    assert_eq!(model.subscriptions[0].name, "petAdded");
    assert!(!model.types.contains_key("String"), "built-in scalars are left out");

    let kinds: Vec<_> = model.types.values().map(|t| (t.name.as_str(), t.kind)).collect();
    for expected in [
        ("DateTime", GraphQlTypeKind::Scalar),
        ("Node", GraphQlTypeKind::Interface),
        ("Pet", GraphQlTypeKind::Object),
        ("SearchResult", GraphQlTypeKind::Union),
        ("Kind", GraphQlTypeKind::Enum),
        ("PetInput", GraphQlTypeKind::InputObject),
    ] {
        assert!(kinds.contains(&expected), "{expected:?} missing from {kinds:?}");
    }

    let pet = &model.types["Pet"];
    assert_eq!(pet.description.as_deref(), Some("A pet"));
    assert_eq!(pet.interfaces, ["Node"]);
    let ty = |name: &str| pet.fields.iter().find(|f| f.name == name).expect("field").ty.clone();
    assert_eq!(ty("id"), TypeRef::NonNull(Box::new(TypeRef::Named("ID".into()))));
    assert_eq!(ty("tags").to_string(), "[String!]");
    assert_eq!(ty("owners").to_string(), "[Person]!");
    assert!(ty("owners").is_list() && ty("owners").is_non_null());
    assert_eq!(ty("owners").named(), "Person");
    let kind = pet.fields.iter().find(|f| f.name == "kind").expect("kind");
    assert!(kind.deprecated);
    assert_eq!(kind.deprecation_reason.as_deref(), Some("use species"));

    let person = &model.types["Person"];
    let pets = &person.fields[1];
    assert_eq!(pets.args[0].name, "first");
    assert_eq!(pets.args[0].default_value.as_deref(), Some("10"));
    assert_eq!(model.types["SearchResult"].members, ["Pet", "Person"]);
    let kind = &model.types["Kind"];
    assert_eq!(kind.enum_values.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["CAT", "DOG"]);
    assert!(kind.enum_values[1].deprecated);
    let input = &model.types["PetInput"];
    assert_eq!(input.input_fields[1].default_value.as_deref(), Some("CAT"));
    assert_eq!(model.types["DateTime"].specified_by.as_deref(), Some("https://tools.ietf.org/html/rfc3339"));
    assert_eq!(spec.description.as_deref(), Some("The shop"));
}

#[test]
fn invalid_schemas_name_the_problem() {
    let err = parse_err("type Query { a: Int\n a: String }\n");
    assert_eq!(err.kind, SpecErrorKind::InvalidGraphQl);
    assert!(err.message.contains("`a`") && err.message.contains("Query"), "{err}");
    assert_eq!(err.line, Some(2));

    let err = parse_err("type Query { a: Missing }\n");
    assert_eq!(err.kind, SpecErrorKind::InvalidGraphQl);
    assert!(err.message.contains("Missing"), "{err}");

    let err = parse_err("type Query {\n  a: Int\n");
    assert_eq!(err.kind, SpecErrorKind::Syntax);
    assert!(err.line.is_some() && err.column.is_some());
}

#[test]
fn deeply_nested_sdl_is_refused_without_overflow() {
    let sdl = format!("type Query {{ a: {}Int{} }}", "[".repeat(5_000), "]".repeat(5_000));
    let err = parse_err(&sdl);
    assert!(matches!(err.kind, SpecErrorKind::Syntax | SpecErrorKind::TooDeep), "{err}");
}
