//! Classes of false changes found while reviewing the real pairs and
//! probing the walker: each writes the same contract two ways, and each
//! must diff as nothing, in both directions and on both sides of the wire.

use crate::support::{check, oas, params, request, response};

/// Both spellings, as a request body and as a response body, both ways.
fn same(old: &str, new: &str) {
    for wrap in [request as fn(&str) -> String, response] {
        check(&wrap(old), &wrap(new), &[]);
        check(&wrap(new), &wrap(old), &[]);
    }
}

fn same_31(old: &str, new: &str) {
    for wrap in [request as fn(&str) -> String, response] {
        let (old, new) = (wrap(old).replace("3.0.3", "3.1.0"), wrap(new).replace("3.0.3", "3.1.0"));
        check(&old, &new, &[]);
        check(&new, &old, &[]);
    }
}

#[test]
fn keywords_written_at_their_inert_value() {
    same("{type: integer, minimum: 1}", "{type: integer, minimum: 1, exclusiveMinimum: false}");
    same("{type: integer, maximum: 9}", "{type: integer, maximum: 9, exclusiveMaximum: false}");
    same("{type: array, items: {type: string}}", "{type: array, uniqueItems: false, items: {type: string}}");
    same("{type: array, items: {type: string}}", "{type: array, minItems: 0, items: {type: string}}");
    same("{type: string}", "{type: string, minLength: 0}");
    same("{type: object}", "{type: object, minProperties: 0}");
}

#[test]
fn numbers_written_differently() {
    same("{type: number, maximum: 10}", "{type: number, maximum: 10.0}");
    same("{type: string, maxLength: 10}", "{type: string, maxLength: 10.0}");
    same("{type: number, enum: [1, 2]}", "{type: number, enum: [2.0, 1.0]}");
    same(
        "{type: object, properties: {n: {type: integer, default: 5}}}",
        "{type: object, properties: {n: {type: integer, default: 5.0}}}",
    );
}

#[test]
fn exclusive_bounds_in_openapi_30_and_31() {
    // 3.0 spells an exclusive bound as a flag beside the limit, 3.1 as the
    // limit itself; a 3.0 document upgraded to 3.1 has the same contract.
    for wrap in [request as fn(&str) -> String, response] {
        let old = wrap("{type: number, maximum: 10, exclusiveMaximum: true, minimum: 0, exclusiveMinimum: true}");
        let new = wrap("{type: number, exclusiveMaximum: 10, exclusiveMinimum: 0}").replace("3.0.3", "3.1.0");
        check(&old, &new, &[]);
        check(&new, &old, &[]);
    }
    // 3.1 allows both keywords; the tighter one is the limit.
    same_31("{type: number, exclusiveMaximum: 10}", "{type: number, maximum: 12, exclusiveMaximum: 10}");
}

#[test]
fn const_and_a_one_value_enum() {
    same_31("{type: string, enum: [a]}", "{type: string, const: a}");
}

#[test]
fn json_media_type_with_a_utf8_charset() {
    let body = |media: &str| {
        oas(
            &format!(
                "/pets: {{post: {{requestBody: {{content: {{'{media}': {{schema: {{type: string}}}}}}}}, responses: {{'200': {{description: ok, content: {{'{media}': {{schema: {{type: string}}}}}}}}}}}}}}"
            ),
            "",
        )
    };
    check(&body("application/json"), &body("application/json; charset=utf-8"), &[]);
    check(&body("application/json; charset=UTF-8"), &body("application/json"), &[]);
    // Another parameter is a different media type.
    check(
        &body("application/json"),
        &body("application/json; version=2"),
        &[
            "request-media-type-removed",
            "request-media-type-added",
            "response-media-type-removed",
            "response-media-type-added",
        ],
    );
}

#[test]
fn documentation_and_extensions_only() {
    same("{type: string, x-internal: true}", "{type: string, x-internal: false, x-go-name: Name}");
    same("{type: string, title: Old}", "{type: string, title: New}");
    same("{type: string, example: a}", "{type: string, example: b}");
    check(
        &params("[{name: a, in: query, x-order: 1, schema: {type: string}}]"),
        &params("[{name: a, in: query, x-order: 2, schema: {type: string}}]"),
        &[],
    );
}

#[test]
fn spellings_of_the_same_schema() {
    // allOf members merged by hand, oneOf renamed to anyOf over disjoint
    // types, `items: {}`, a one-type list.
    same(
        "{allOf: [{type: object, properties: {a: {type: string}}}, {type: object, properties: {b: {type: string}}}]}",
        "{type: object, properties: {a: {type: string}, b: {type: string}}}",
    );
    same("{oneOf: [{type: string}, {type: integer}]}", "{anyOf: [{type: integer}, {type: string}]}");
    same("{type: array, items: {}}", "{type: array}");
    same("{type: object, additionalProperties: true}", "{type: object, additionalProperties: {}}");
    same_31("{type: string}", "{type: [string]}");
    same_31("{type: [string, 'null']}", "{anyOf: [{type: string}, {type: 'null'}]}");
}
