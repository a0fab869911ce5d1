//! GraphQL against GraphQL, one small SDL case per rule in both directions.

use crate::support::check;

/// Name, old SDL, new SDL, rules forward, rules backward.
type SdlCase<'a> = (&'a str, &'a str, &'a str, &'a [&'a str], &'a [&'a str]);

fn run(cases: &[SdlCase<'_>]) {
    for (name, old, new, forward, backward) in cases {
        eprintln!("case: {name}");
        check(old, new, forward);
        check(new, old, backward);
    }
}

#[test]
fn graphql_rules() {
    run(&[
        (
            "type removed",
            "type Query { a: Int }\ntype User { id: ID }",
            "type Query { a: Int }",
            &["graphql-type-removed"],
            &["graphql-type-added"],
        ),
        (
            "type kind changed",
            "type Query { a: Int }\ntype User { id: ID }",
            "type Query { a: Int }\ninterface User { id: ID }",
            &["graphql-type-kind-changed"],
            &["graphql-type-kind-changed"],
        ),
        (
            "root field removed",
            "type Query { a: Int\n b: Int }",
            "type Query { a: Int }",
            &["graphql-field-removed"],
            &["graphql-field-added"],
        ),
        (
            "output field nullable to non-null",
            "type Query { a: Int }",
            "type Query { a: Int! }",
            &["graphql-field-became-non-null"],
            &["graphql-field-became-nullable"],
        ),
        (
            "output field list item non-null",
            "type Query { a: [Int] }",
            "type Query { a: [Int!] }",
            &["graphql-field-became-non-null"],
            &["graphql-field-became-nullable"],
        ),
        (
            "output field type changed",
            "type Query { a: Int }",
            "type Query { a: String }",
            &["graphql-field-type-changed"],
            &["graphql-field-type-changed"],
        ),
        (
            "required argument added",
            "type Query { a: Int }",
            "type Query { a(x: Int!): Int }",
            &["graphql-required-argument-added"],
            &["graphql-argument-removed"],
        ),
        (
            "optional argument added",
            "type Query { a: Int }",
            "type Query { a(x: Int, y: Int! = 3): Int }",
            &["graphql-optional-argument-added", "graphql-optional-argument-added"],
            &["graphql-argument-removed", "graphql-argument-removed"],
        ),
        (
            "argument became non-null",
            "type Query { a(x: Int): Int }",
            "type Query { a(x: Int!): Int }",
            &["graphql-input-became-non-null"],
            &["graphql-input-became-nullable"],
        ),
        (
            "argument type changed",
            "type Query { a(x: Int): Int }",
            "type Query { a(x: [Int]): Int }",
            &["graphql-input-type-changed"],
            &["graphql-input-type-changed"],
        ),
        (
            "required input field added",
            "type Query { a(f: F): Int }\ninput F { x: Int }",
            "type Query { a(f: F): Int }\ninput F { x: Int\n y: String! }",
            &["graphql-required-input-field-added"],
            &["graphql-input-field-removed"],
        ),
        (
            "optional input field added",
            "type Query { a(f: F): Int }\ninput F { x: Int }",
            "type Query { a(f: F): Int }\ninput F { x: Int\n y: String }",
            &["graphql-optional-input-field-added"],
            &["graphql-input-field-removed"],
        ),
        (
            "enum value removed",
            "type Query { a: E }\nenum E { A B }",
            "type Query { a: E }\nenum E { A }",
            &["graphql-enum-value-removed"],
            &["graphql-enum-value-added"],
        ),
        (
            "union member removed",
            "type Query { a: U }\nunion U = A | B\ntype A { x: Int }\ntype B { y: Int }",
            "type Query { a: U }\nunion U = A\ntype A { x: Int }\ntype B { y: Int }",
            &["graphql-union-member-removed"],
            &["graphql-union-member-added"],
        ),
        (
            "interface implementation removed",
            "type Query { a: A }\ninterface N { id: ID }\ntype A implements N { id: ID }",
            "type Query { a: A }\ninterface N { id: ID }\ntype A { id: ID }",
            &["graphql-interface-removed"],
            &["graphql-interface-added"],
        ),
        (
            "field deprecated",
            "type Query { a: Int }",
            "type Query { a: Int @deprecated(reason: \"use b\") }",
            &["graphql-deprecation-changed"],
            &["graphql-deprecation-changed"],
        ),
        (
            "description",
            "type Query { \"one\" a: Int }",
            "type Query { \"two\" a: Int }",
            &["graphql-description-changed"],
            &["graphql-description-changed"],
        ),
        (
            "reordered fields, values and members",
            "type Query { a: Int\n b(x: Int, y: Int): E }\nenum E { A B }",
            "type Query { b(y: Int, x: Int): E\n a: Int }\nenum E { B A }",
            &[],
            &[],
        ),
    ]);
}

#[test]
fn root_fields_are_operations() {
    let report = check("type Query { user: Int }", "type Query { user: String }", &["graphql-field-type-changed"]);
    assert_eq!(report.changes[0].operation.as_deref(), Some("Query.user"));
    assert_eq!(report.changes[0].location, "Query.user");
}
