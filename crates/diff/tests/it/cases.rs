//! One small case per rule, run in both directions: the table's second rule
//! list is what diffing new against old must report.

use crate::support::{check, oas, params, request, response};

struct Case {
    name: &'static str,
    old: String,
    new: String,
    forward: &'static [&'static str],
    backward: &'static [&'static str],
}

fn case(
    name: &'static str,
    old: String,
    new: String,
    forward: &'static [&'static str],
    backward: &'static [&'static str],
) -> Case {
    Case { name, old, new, forward, backward }
}

fn run(cases: Vec<Case>) {
    for case in cases {
        eprintln!("case: {}", case.name);
        check(&case.old, &case.new, case.forward);
        check(&case.new, &case.old, case.backward);
    }
}

const OBJ_AB: &str = "{type: object, properties: {a: {type: string}, b: {type: string}}}";
const OBJ_A: &str = "{type: object, properties: {a: {type: string}}}";

#[test]
fn schema_rules_in_responses() {
    run(vec![
        case(
            "property removed",
            response(OBJ_AB),
            response(OBJ_A),
            &["response-property-removed"],
            &["response-property-added"],
        ),
        case(
            "property became optional",
            response("{type: object, required: [a], properties: {a: {type: string}}}"),
            response(OBJ_A),
            &["response-property-became-optional"],
            &["response-property-became-required"],
        ),
        case(
            "type changed",
            response("{type: string}"),
            response("{type: integer}"),
            &["response-type-changed"],
            &["response-type-changed"],
        ),
        case(
            "type narrowed",
            response("{type: number}"),
            response("{type: integer}"),
            &["response-type-narrowed"],
            &["response-type-changed"],
        ),
        case(
            "format changed",
            response("{type: string, format: date}"),
            response("{type: string, format: date-time}"),
            &["response-format-changed"],
            &["response-format-changed"],
        ),
        case(
            "became nullable",
            response("{type: string}"),
            response("{type: string, nullable: true}"),
            &["response-became-nullable"],
            &["response-became-not-nullable"],
        ),
        case(
            "enum widened",
            response("{type: string, enum: [a]}"),
            response("{type: string, enum: [a, b]}"),
            &["response-enum-value-added"],
            &["response-enum-value-removed"],
        ),
        case(
            "maximum raised",
            response("{type: integer, maximum: 10}"),
            response("{type: integer, maximum: 20}"),
            &["response-constraint-loosened"],
            &["response-constraint-tightened"],
        ),
        case(
            "maxLength removed",
            response("{type: string, maxLength: 10}"),
            response("{type: string}"),
            &["response-constraint-loosened"],
            &["response-constraint-tightened"],
        ),
        case(
            "additionalProperties forbidden",
            response("{type: object}"),
            response("{type: object, additionalProperties: false}"),
            &["response-additional-properties-changed"],
            &["response-additional-properties-changed"],
        ),
        case(
            "additionalProperties value type",
            response("{type: object, additionalProperties: {type: string}}"),
            response("{type: object, additionalProperties: {type: integer}}"),
            &["response-type-changed"],
            &["response-type-changed"],
        ),
        case(
            "default of a response property changed",
            response("{type: object, properties: {size: {type: integer, default: 20}}}"),
            response("{type: object, properties: {size: {type: integer, default: 5}}}"),
            &["default-changed"],
            &["default-changed"],
        ),
        case(
            "exclusive minimum (3.1 number) raised",
            response("{type: integer, exclusiveMinimum: 0}").replace("3.0.3", "3.1.0"),
            response("{type: integer, exclusiveMinimum: 1}").replace("3.0.3", "3.1.0"),
            &["response-constraint-tightened"],
            &["response-constraint-loosened"],
        ),
        case(
            "property in array items removed",
            response("{type: array, items: {type: object, properties: {n: {type: string}, m: {type: string}}}}"),
            response("{type: array, items: {type: object, properties: {m: {type: string}}}}"),
            &["response-property-removed"],
            &["response-property-added"],
        ),
        case(
            "oneOf branch removed",
            response("{oneOf: [{type: string}, {type: integer}]}"),
            response("{oneOf: [{type: string}]}"),
            &["response-variant-removed"],
            &["response-variant-added"],
        ),
        case(
            "description",
            response("{type: string, description: one}"),
            response("{type: string, description: two}"),
            &["description-changed"],
            &["description-changed"],
        ),
        case(
            "property deprecated",
            response("{type: object, properties: {a: {type: string}}}"),
            response("{type: object, properties: {a: {type: string, deprecated: true}}}"),
            &["schema-deprecated"],
            &["schema-deprecated"],
        ),
        case(
            "write-only property removed is not a response change",
            response("{type: object, properties: {a: {type: string}, p: {type: string, writeOnly: true}}}"),
            response(OBJ_A),
            &[],
            &[],
        ),
    ]);
}

#[test]
fn schema_rules_in_requests() {
    run(vec![
        case(
            "required property added",
            request(OBJ_A),
            request("{type: object, required: [b], properties: {a: {type: string}, b: {type: string}}}"),
            &["request-required-property-added"],
            &["request-property-removed"],
        ),
        case(
            "optional property added",
            request(OBJ_A),
            request(OBJ_AB),
            &["request-optional-property-added"],
            &["request-property-removed"],
        ),
        case(
            "property became required",
            request(OBJ_A),
            request("{type: object, required: [a], properties: {a: {type: string}}}"),
            &["request-property-became-required"],
            &["request-property-became-optional"],
        ),
        case(
            "type changed",
            request("{type: string}"),
            request("{type: boolean}"),
            &["request-type-changed"],
            &["request-type-changed"],
        ),
        case(
            "type widened",
            request("{type: integer}"),
            request("{type: number}"),
            &["request-type-widened"],
            &["request-type-changed"],
        ),
        case(
            "format changed",
            request("{type: string, format: date}"),
            request("{type: string, format: date-time}"),
            &["request-format-changed"],
            &["request-format-changed"],
        ),
        case(
            "format added",
            request("{type: string}"),
            request("{type: string, format: uuid}"),
            &["request-constraint-tightened"],
            &["request-constraint-loosened"],
        ),
        case(
            "no longer nullable",
            request("{type: string, nullable: true}"),
            request("{type: string}"),
            &["request-became-not-nullable"],
            &["request-became-nullable"],
        ),
        case(
            "enum narrowed",
            request("{type: string, enum: [a, b]}"),
            request("{type: string, enum: [a]}"),
            &["request-enum-value-removed"],
            &["request-enum-value-added"],
        ),
        case(
            "enum introduced",
            request("{type: string}"),
            request("{type: string, enum: [a]}"),
            &["request-constraint-tightened"],
            &["request-constraint-loosened"],
        ),
        case(
            "maxLength lowered",
            request("{type: string, maxLength: 10}"),
            request("{type: string, maxLength: 5}"),
            &["request-constraint-tightened"],
            &["request-constraint-loosened"],
        ),
        case(
            "minimum raised",
            request("{type: integer, minimum: 1}"),
            request("{type: integer, minimum: 2}"),
            &["request-constraint-tightened"],
            &["request-constraint-loosened"],
        ),
        case(
            "minLength added",
            request("{type: string}"),
            request("{type: string, minLength: 3}"),
            &["request-constraint-tightened"],
            &["request-constraint-loosened"],
        ),
        case(
            "pattern added",
            request("{type: string}"),
            request("{type: string, pattern: '^[a-z]+$'}"),
            &["request-constraint-tightened"],
            &["request-constraint-loosened"],
        ),
        case(
            "pattern changed",
            request("{type: string, pattern: '^a'}"),
            request("{type: string, pattern: '^b'}"),
            &["request-constraint-tightened"],
            &["request-constraint-tightened"],
        ),
        case(
            "maxItems lowered",
            request("{type: array, items: {type: string}, maxItems: 10}"),
            request("{type: array, items: {type: string}, maxItems: 2}"),
            &["request-constraint-tightened"],
            &["request-constraint-loosened"],
        ),
        case(
            "additionalProperties false",
            request("{type: object}"),
            request("{type: object, additionalProperties: false}"),
            &["request-additional-properties-forbidden"],
            &["request-additional-properties-allowed"],
        ),
        case(
            "oneOf branch removed",
            request("{oneOf: [{type: string}, {type: integer}]}"),
            request("{oneOf: [{type: string}]}"),
            &["request-variant-removed"],
            &["request-variant-added"],
        ),
        case(
            "plain schema became a oneOf",
            request("{type: string}"),
            request("{oneOf: [{type: string}, {type: integer}]}"),
            &["request-variant-added"],
            &["request-variant-removed"],
        ),
        case(
            "exclusive maximum set (3.0 flag)",
            request("{type: integer, maximum: 10}"),
            request("{type: integer, maximum: 10, exclusiveMaximum: true}"),
            &["request-constraint-tightened"],
            &["request-constraint-loosened"],
        ),
        case(
            "const replaced an enum of two",
            request("{type: string, enum: [a, b]}"),
            request("{type: string, const: a}"),
            &["request-enum-value-removed"],
            &["request-enum-value-added"],
        ),
        case(
            "default of an optional property changed",
            request("{type: object, properties: {size: {type: integer, default: 20}}}"),
            request("{type: object, properties: {size: {type: integer, default: 5}}}"),
            &["request-default-changed"],
            &["request-default-changed"],
        ),
        case(
            "default of an optional property removed",
            request("{type: object, properties: {size: {type: integer, default: 20}}}"),
            request("{type: object, properties: {size: {type: integer}}}"),
            &["request-default-changed"],
            &["default-changed"],
        ),
        case(
            "default of a required property changed",
            request("{type: object, required: [size], properties: {size: {type: integer, default: 20}}}"),
            request("{type: object, required: [size], properties: {size: {type: integer, default: 5}}}"),
            &["default-changed"],
            &["default-changed"],
        ),
        case(
            "read-only property removed is not a request change",
            request("{type: object, properties: {a: {type: string}, id: {type: string, readOnly: true}}}"),
            request(OBJ_A),
            &[],
            &[],
        ),
        case(
            "nested property through $ref in allOf",
            oas(
                "/pets: {post: {requestBody: {content: {application/json: {schema: {allOf: [{$ref: '#/components/schemas/Pet'}]}}}}, responses: {'204': {description: ok}}}}",
                "schemas: {Pet: {type: object, properties: {name: {type: string}}}}",
            ),
            oas(
                "/pets: {post: {requestBody: {content: {application/json: {schema: {allOf: [{$ref: '#/components/schemas/Pet'}]}}}}, responses: {'204': {description: ok}}}}",
                "schemas: {Pet: {type: object, required: [tag], properties: {name: {type: string}, tag: {type: string}}}}",
            ),
            &["request-required-property-added"],
            &["request-property-removed"],
        ),
    ]);
}

#[test]
fn parameter_rules() {
    let limit = "{name: limit, in: query, schema: {type: integer}}";
    run(vec![
        case(
            "default of an optional query parameter changed",
            params("[{name: limit, in: query, schema: {type: integer, default: 20}}]"),
            params("[{name: limit, in: query, schema: {type: integer, default: 5}}]"),
            &["request-default-changed"],
            &["request-default-changed"],
        ),
        case(
            "optional parameter removed",
            params(&format!("[{limit}]")),
            params("[]"),
            &["request-parameter-removed"],
            &["request-optional-parameter-added"],
        ),
        case(
            "required parameter added",
            params("[]"),
            params("[{name: X-Key, in: header, required: true, schema: {type: string}}]"),
            &["request-required-parameter-added"],
            &["request-parameter-removed"],
        ),
        case(
            "became required",
            params(&format!("[{limit}]")),
            params("[{name: limit, in: query, required: true, schema: {type: integer}}]"),
            &["request-parameter-became-required"],
            &["request-parameter-became-optional"],
        ),
        case(
            "moved from query to header",
            params(&format!("[{limit}]")),
            params("[{name: limit, in: header, schema: {type: integer}}]"),
            &["request-parameter-location-changed"],
            &["request-parameter-location-changed"],
        ),
        case(
            "style changed",
            params("[{name: ids, in: query, schema: {type: array, items: {type: string}}}]"),
            params("[{name: ids, in: query, explode: false, schema: {type: array, items: {type: string}}}]"),
            &["request-parameter-style-changed"],
            &["request-parameter-style-changed"],
        ),
        case(
            "explicit default style is no change",
            params("[{name: ids, in: query, schema: {type: string}}]"),
            params("[{name: ids, in: query, style: form, explode: true, schema: {type: string}}]"),
            &[],
            &[],
        ),
        case(
            "enum value removed",
            params("[{name: sort, in: query, schema: {type: string, enum: [asc, desc]}}]"),
            params("[{name: sort, in: query, schema: {type: string, enum: [asc]}}]"),
            &["request-enum-value-removed"],
            &["request-enum-value-added"],
        ),
        case(
            "type changed",
            params("[{name: id, in: query, schema: {type: string}}]"),
            params("[{name: id, in: query, schema: {type: integer}}]"),
            &["request-type-changed"],
            &["request-type-changed"],
        ),
        case(
            "deprecated",
            params(&format!("[{limit}]")),
            params("[{name: limit, in: query, deprecated: true, schema: {type: integer}}]"),
            &["request-parameter-deprecated"],
            &["request-parameter-deprecated"],
        ),
        case(
            "description",
            params("[{name: limit, in: query, description: a, schema: {type: integer}}]"),
            params("[{name: limit, in: query, description: b, schema: {type: integer}}]"),
            &["description-changed"],
            &["description-changed"],
        ),
        case(
            "header names ignore case",
            params("[{name: X-Rate, in: header, schema: {type: integer}}]"),
            params("[{name: x-rate, in: header, schema: {type: integer}}]"),
            &[],
            &[],
        ),
        case(
            "path variable renamed",
            oas(
                "/pets/{id}: {get: {parameters: [{name: id, in: path, required: true, schema: {type: string}}], responses: {'204': {description: ok}}}}",
                "",
            ),
            oas(
                "/pets/{petId}: {get: {parameters: [{name: petId, in: path, required: true, schema: {type: string}}], responses: {'204': {description: ok}}}}",
                "",
            ),
            &["path-parameter-renamed"],
            &["path-parameter-renamed"],
        ),
    ]);
}

#[test]
fn request_body_rules() {
    let no_body = oas("/pets: {post: {responses: {'204': {description: ok}}}}", "");
    let body = |required: bool, media: &str| {
        oas(
            &format!(
                "/pets: {{post: {{requestBody: {{required: {required}, content: {{{media}}}}}, responses: {{'204': {{description: ok}}}}}}}}"
            ),
            "",
        )
    };
    let json = "application/json: {schema: {type: object}}";
    let json_xml = "application/json: {schema: {type: object}}, application/xml: {schema: {type: object}}";
    run(vec![
        case(
            "required body added",
            no_body.clone(),
            body(true, json),
            &["request-required-body-added"],
            &["request-body-removed"],
        ),
        case(
            "optional body added",
            no_body,
            body(false, json),
            &["request-optional-body-added"],
            &["request-body-removed"],
        ),
        case(
            "became required",
            body(false, json),
            body(true, json),
            &["request-body-became-required"],
            &["request-body-became-optional"],
        ),
        case(
            "media type removed",
            body(true, json_xml),
            body(true, json),
            &["request-media-type-removed"],
            &["request-media-type-added"],
        ),
        case(
            "media type names ignore case and spacing",
            body(true, "application/json; charset=utf-8: {schema: {type: object}}"),
            body(true, "Application/JSON;charset=utf-8: {schema: {type: object}}"),
            &[],
            &[],
        ),
    ]);
}

#[test]
fn response_and_endpoint_rules() {
    let op = |responses: &str| oas(&format!("/pets: {{get: {{responses: {{{responses}}}}}}}"), "");
    let ok_json = "'200': {description: ok, content: {application/json: {schema: {type: object}}}}";
    run(vec![
        case(
            "status removed",
            op(&format!("{ok_json}, '404': {{description: missing}}")),
            op(ok_json),
            &["response-status-removed"],
            &["response-status-added"],
        ),
        case(
            "media type removed",
            op(
                "'200': {description: ok, content: {application/json: {schema: {type: object}}, text/csv: {schema: {type: string}}}}",
            ),
            op(ok_json),
            &["response-media-type-removed"],
            &["response-media-type-added"],
        ),
        case(
            "header removed",
            op("'200': {description: ok, headers: {X-Rate: {schema: {type: integer}}}}"),
            op("'200': {description: ok}"),
            &["response-header-removed"],
            &["response-header-added"],
        ),
        case(
            "description",
            op("'200': {description: ok}"),
            op("'200': {description: fine}"),
            &["description-changed"],
            &["description-changed"],
        ),
        case(
            "example",
            op("'200': {description: ok, content: {application/json: {schema: {type: object}, example: {a: 1}}}}"),
            op("'200': {description: ok, content: {application/json: {schema: {type: object}, example: {a: 2}}}}"),
            &["example-changed"],
            &["example-changed"],
        ),
        case(
            "endpoint removed",
            oas(
                "/pets: {get: {responses: {'204': {description: ok}}}, delete: {responses: {'204': {description: ok}}}}",
                "",
            ),
            oas("/pets: {get: {responses: {'204': {description: ok}}}}", ""),
            &["endpoint-removed"],
            &["endpoint-added"],
        ),
        case(
            "deprecated",
            oas("/pets: {get: {responses: {'204': {description: ok}}}}", ""),
            oas("/pets: {get: {deprecated: true, responses: {'204': {description: ok}}}}", ""),
            &["endpoint-deprecated"],
            &["endpoint-undeprecated"],
        ),
        case(
            "summary, description and operationId",
            oas(
                "/pets: {get: {operationId: a, summary: a, description: a, responses: {'204': {description: ok}}}}",
                "",
            ),
            oas(
                "/pets: {get: {operationId: b, summary: b, description: b, responses: {'204': {description: ok}}}}",
                "",
            ),
            &["operation-id-changed", "operation-summary-changed", "operation-description-changed"],
            &["operation-id-changed", "operation-summary-changed", "operation-description-changed"],
        ),
    ]);
}

#[test]
fn security_and_server_rules() {
    let schemes = "securitySchemes: {key: {type: apiKey, in: header, name: X-Key}, basic: {type: http, scheme: basic}, o: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://a.test/token', scopes: {read: r, write: w}}}}}";
    let with = |security: &str| {
        let mut doc = oas("/pets: {get: {responses: {'204': {description: ok}}}}", schemes);
        if !security.is_empty() {
            doc.push_str(&format!("security: {security}\n"));
        }
        doc
    };
    let servers =
        |list: &str| format!("{}servers: {list}\n", oas("/pets: {get: {responses: {'204': {description: ok}}}}", ""));
    run(vec![
        case("security added", with(""), with("[{key: []}]"), &["security-added"], &["security-removed"]),
        case(
            "alternative added",
            with("[{key: []}]"),
            with("[{key: []}, {basic: []}]"),
            &["security-alternative-added"],
            &["security-alternative-removed"],
        ),
        case(
            "scope added",
            with("[{o: [read]}]"),
            with("[{o: [read, write]}]"),
            &["security-scope-added"],
            &["security-scope-removed"],
        ),
        case("alternatives reordered", with("[{key: []}, {basic: []}]"), with("[{basic: []}, {key: []}]"), &[], &[]),
        case(
            "scheme removed",
            oas(
                "/pets: {get: {responses: {'204': {description: ok}}}}",
                "securitySchemes: {a: {type: http, scheme: basic}, b: {type: http, scheme: bearer}}",
            ),
            oas(
                "/pets: {get: {responses: {'204': {description: ok}}}}",
                "securitySchemes: {a: {type: http, scheme: basic}}",
            ),
            &["security-scheme-removed"],
            &["security-scheme-added"],
        ),
        case(
            "scheme changed",
            oas(
                "/pets: {get: {responses: {'204': {description: ok}}}}",
                "securitySchemes: {k: {type: apiKey, in: header, name: X-Key}}",
            ),
            oas(
                "/pets: {get: {responses: {'204': {description: ok}}}}",
                "securitySchemes: {k: {type: apiKey, in: header, name: X-Api-Key}}",
            ),
            &["security-scheme-changed"],
            &["security-scheme-changed"],
        ),
        case(
            "server removed",
            servers("[{url: 'https://a.test'}, {url: 'https://b.test'}]"),
            servers("[{url: 'https://a.test'}]"),
            &["server-removed"],
            &["server-added"],
        ),
        case(
            "every server replaced",
            servers("[{url: 'https://a.test'}]"),
            servers("[{url: 'https://c.test'}]"),
            &["servers-all-removed"],
            &["servers-all-removed"],
        ),
    ]);
}

#[test]
fn locations_and_pointers_name_the_place() {
    let report = check(
        &response("{type: array, items: {type: object, properties: {name: {type: string}}}}"),
        &response("{type: array, items: {type: object, properties: {}}}"),
        &["response-property-removed"],
    );
    let change = &report.changes[0];
    assert_eq!(change.operation.as_deref(), Some("GET /pets"));
    assert_eq!(change.location, "response 200 application/json body[].name");
    assert_eq!(
        change.pointer.as_deref(),
        Some("/paths/~1pets/get/responses/200/content/application~1json/schema/items/properties/name")
    );

    let with_ref = |props: &str| {
        oas(
            "/pets: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}}}}",
            &format!("schemas: {{Pet: {{type: object, properties: {props}}}}}"),
        )
    };
    let report =
        check(&with_ref("{id: {type: string}}"), &with_ref("{id: {type: integer}}"), &["response-type-changed"]);
    assert_eq!(report.changes[0].pointer.as_deref(), Some("/components/schemas/Pet/properties/id"));
    assert_eq!(report.changes[0].before, Some(serde_json::json!(["string"])));
    assert_eq!(report.changes[0].after, Some(serde_json::json!(["integer"])));
}

#[test]
fn recursive_schemas_terminate_and_still_report() {
    let tree = |extra: &str| {
        oas(
            "/nodes: {get: {responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Node'}}}}}}}",
            &format!(
                "schemas: {{Node: {{type: object, properties: {{children: {{type: array, items: {{$ref: '#/components/schemas/Node'}}}}{extra}}}}}}}"
            ),
        )
    };
    check(&tree(""), &tree(""), &[]);
    check(&tree(""), &tree(", label: {type: string}"), &["response-property-added"]);
}

#[test]
fn markdown_for_a_pull_request_comment() {
    let report = check(
        &oas(
            "/pets: {get: {responses: {'204': {description: ok}}}, delete: {responses: {'204': {description: ok}}}}",
            "",
        ),
        &oas(
            "/pets: {get: {summary: List pets, responses: {'204': {description: ok}}}, post: {responses: {'204': {description: ok}}}}",
            "",
        ),
        &["endpoint-removed", "endpoint-added", "operation-summary-changed"],
    );
    let expected = "## Pets API\n\n\
**Suggested bump: major.** 1 breaking, 1 additive, 1 cosmetic.\n\n\
### Breaking (1)\n\n\
| Rule | Operation | Location | Change |\n|---|---|---|---|\n\
| `endpoint-removed` | `DELETE /pets` | endpoint | DELETE /pets removed |\n\n\
### Additive (1)\n\n\
| Rule | Operation | Location | Change |\n|---|---|---|---|\n\
| `endpoint-added` | `POST /pets` | endpoint | POST /pets added |\n\n\
### Cosmetic (1)\n\n\
| Rule | Operation | Location | Change |\n|---|---|---|---|\n\
| `operation-summary-changed` | `GET /pets` | summary | summary changed |\n";
    assert_eq!(report.to_markdown("Pets API"), expected);

    let empty = check(&response("{type: string}"), &response("{type: string}"), &[]);
    assert_eq!(empty.to_markdown("Pets API"), "## Pets API\n\n**Suggested bump: patch.** No changes.\n");
    assert_eq!(empty.bump.as_str(), "patch");
}

#[test]
fn report_serialises_with_snake_case_enums() {
    let report = check(&response(OBJ_AB), &response(OBJ_A), &["response-property-removed"]);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["bump"], "major");
    assert_eq!(json["summary"]["breaking"], 1);
    assert_eq!(json["changes"][0]["kind"], "breaking");
    assert_eq!(json["changes"][0]["rule"], "response-property-removed");
}

#[test]
fn every_rule_id_is_unique_kebab_case() {
    let mut seen = std::collections::BTreeSet::new();
    for rule in diff::RULES {
        assert!(seen.insert(rule.id), "duplicate rule {}", rule.id);
        assert!(rule.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", rule.id);
    }
}

#[test]
fn readme_lists_every_rule_with_its_kind() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for rule in diff::RULES {
        let row = format!("| `{}` | {} |", rule.id, rule.kind.as_str());
        assert!(readme.contains(&row), "README lacks {row}");
    }
}

#[test]
fn renamed_oneof_branches_and_shared_schemas() {
    let pets = |cat: &str, extra: &str| {
        oas(
            &format!(
                "/pets: {{get: {{responses: {{'200': {{description: ok, content: {{application/json: {{schema: {{oneOf: [{{$ref: '#/components/schemas/{cat}'}}, {{$ref: '#/components/schemas/Dog'}}]}}}}}}}}}}}}, post: {{requestBody: {{content: {{application/json: {{schema: {{$ref: '#/components/schemas/Dog'}}}}}}}}, responses: {{'201': {{description: ok, content: {{application/json: {{schema: {{$ref: '#/components/schemas/Dog'}}}}}}}}}}}}}}"
            ),
            &format!(
                "schemas: {{{cat}: {{type: object, properties: {{purrs: {{type: boolean}}}}}}, Dog: {{type: object, properties: {{barks: {{type: boolean}}{extra}}}}}}}"
            ),
        )
    };
    // A branch renamed to a component with the same content is no change.
    check(&pets("Cat", ""), &pets("Feline", ""), &[]);
    // A change in a shared schema is reported at every place that uses it,
    // in that place's direction.
    let report = check(
        &pets("Cat", ""),
        &pets("Cat", ", name: {type: string}"),
        &["response-property-added", "response-property-added", "request-optional-property-added"],
    );
    let places: Vec<(&str, &str)> =
        report.changes.iter().map(|change| (change.operation.as_deref().unwrap(), change.location.as_str())).collect();
    assert_eq!(
        places,
        [
            ("GET /pets", "response 200 application/json body<Dog>.name"),
            ("POST /pets", "request body application/json body.name"),
            ("POST /pets", "response 201 application/json body.name"),
        ]
    );
}

/// A 3.1 document whose only webhook `newPet` has this POST operation (a
/// flow mapping), plus `extra` webhooks.
fn webhook(operation: &str, extra: &str) -> String {
    format!("openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\nwebhooks:\n  newPet:\n    post: {operation}\n{extra}")
}

/// `POST /subscriptions` with a callback `onEvent` whose POST is this
/// operation.
fn callback(operation: &str) -> String {
    oas(
        &format!(
            "/subscriptions: {{post: {{responses: {{'201': {{description: ok}}}}, callbacks: {{onEvent: {{'{{$request.body#/url}}': {{post: {operation}}}}}}}}}}}"
        ),
        "",
    )
}

fn event(body: &str, params: &str, replies: &str) -> String {
    format!("{{parameters: {params}, requestBody: {body}, responses: {replies}}}")
}

const OK: &str = "{'200': {description: ok}}";

fn json_body(schema: &str) -> String {
    format!("{{required: true, content: {{application/json: {{schema: {schema}}}}}}}")
}

#[test]
fn webhook_callback_and_link_rules() {
    let sig = "[{name: X-Signature, in: header, required: true, schema: {type: string}}]";
    let body_ab = json_body(OBJ_AB);
    let body_a = json_body(OBJ_A);
    run(vec![
        case(
            "webhook removed",
            webhook(&event(&body_a, "[]", OK), "  oldPet:\n    post: {responses: {'200': {description: ok}}}\n"),
            webhook(&event(&body_a, "[]", OK), ""),
            &["webhook-removed"],
            &["webhook-added"],
        ),
        case(
            "callback operation removed",
            oas(
                "/s: {post: {responses: {'201': {description: ok}}, callbacks: {onEvent: {'{$request.body#/url}': {post: {responses: {'200': {description: ok}}}, put: {responses: {'200': {description: ok}}}}}}}}",
                "",
            ),
            oas(
                "/s: {post: {responses: {'201': {description: ok}}, callbacks: {onEvent: {'{$request.body#/url}': {post: {responses: {'200': {description: ok}}}}}}}}",
                "",
            ),
            &["callback-removed"],
            &["callback-added"],
        ),
        // What the API sends is what the consumer reads: response rules.
        case(
            "webhook body property removed",
            webhook(&event(&body_ab, "[]", OK), ""),
            webhook(&event(&body_a, "[]", OK), ""),
            &["response-property-removed"],
            &["response-property-added"],
        ),
        case(
            "callback body gains a required property (not breaking for the consumer)",
            callback(&event(&body_a, "[]", OK)),
            callback(&event(
                &json_body("{type: object, required: [b], properties: {a: {type: string}, b: {type: string}}}"),
                "[]",
                OK,
            )),
            &["response-property-added"],
            &["response-property-removed"],
        ),
        case(
            "callback body property became optional",
            callback(&event(&json_body("{type: object, required: [a], properties: {a: {type: string}}}"), "[]", OK)),
            callback(&event(&body_a, "[]", OK)),
            &["response-property-became-optional"],
            &["response-property-became-required"],
        ),
        case(
            "webhook body enum value added",
            webhook(&event(&json_body("{type: string, enum: [created]}"), "[]", OK), ""),
            webhook(&event(&json_body("{type: string, enum: [created, deleted]}"), "[]", OK), ""),
            &["response-enum-value-added"],
            &["response-enum-value-removed"],
        ),
        case(
            "webhook header no longer sent",
            webhook(&event(&body_a, sig, OK), ""),
            webhook(&event(&body_a, "[]", OK), ""),
            &["event-parameter-removed"],
            &["event-parameter-added"],
        ),
        case(
            "webhook header no longer always sent",
            webhook(&event(&body_a, sig, OK), ""),
            webhook(&event(&body_a, &sig.replace("required: true", "required: false"), OK), ""),
            &["event-parameter-became-optional"],
            &["event-parameter-became-required"],
        ),
        case(
            "webhook header type changed",
            webhook(&event(&body_a, sig, OK), ""),
            webhook(&event(&body_a, &sig.replace("type: string", "type: integer"), OK), ""),
            &["response-type-changed"],
            &["response-type-changed"],
        ),
        case(
            "callback body removed",
            callback(&event(&body_a, "[]", OK)),
            callback(&format!("{{responses: {OK}}}")),
            &["event-body-removed"],
            &["event-body-added"],
        ),
        case(
            "callback body no longer always sent",
            callback(&event(&body_a, "[]", OK)),
            callback(&event(&body_a.replace("required: true", "required: false"), "[]", OK)),
            &["event-body-became-optional"],
            &["event-body-became-required"],
        ),
        case(
            "webhook body may come as XML too",
            webhook(&event("{content: {application/json: {schema: {type: object}}}}", "[]", OK), ""),
            webhook(
                &event(
                    "{content: {application/json: {schema: {type: object}}, application/xml: {schema: {type: object}}}}",
                    "[]",
                    OK,
                ),
                "",
            ),
            &["event-media-type-added"],
            &["event-media-type-removed"],
        ),
        // The consumer's answer is what the API reads: request rules.
        case(
            "webhook answer status no longer accepted",
            webhook(&event(&body_a, "[]", "{'200': {description: ok}, '202': {description: later}}"), ""),
            webhook(&event(&body_a, "[]", OK), ""),
            &["event-reply-status-removed"],
            &["event-reply-status-added"],
        ),
        case(
            "callback answer media type no longer accepted",
            callback(&event(
                &body_a,
                "[]",
                "{'200': {description: ok, content: {application/json: {schema: {type: object}}, text/plain: {schema: {type: string}}}}}",
            )),
            callback(&event(
                &body_a,
                "[]",
                "{'200': {description: ok, content: {application/json: {schema: {type: object}}}}}",
            )),
            &["event-reply-media-type-removed"],
            &["event-reply-media-type-added"],
        ),
        case(
            "callback answer gains a required property (breaking for the consumer)",
            callback(&event(
                &body_a,
                "[]",
                &format!("{{'200': {{description: ok, content: {{application/json: {{schema: {OBJ_A}}}}}}}}}"),
            )),
            callback(&event(
                &body_a,
                "[]",
                "{'200': {description: ok, content: {application/json: {schema: {type: object, required: [b], properties: {a: {type: string}, b: {type: string}}}}}}}",
            )),
            &["request-required-property-added"],
            &["request-property-removed"],
        ),
        case(
            "webhook deprecated",
            webhook(&event(&body_a, "[]", OK), ""),
            webhook(&format!("{{deprecated: true, requestBody: {body_a}, responses: {OK}}}"), ""),
            &["event-deprecated"],
            &["event-deprecated"],
        ),
        case(
            "response link removed",
            oas(
                "/pets: {post: {responses: {'201': {description: ok, links: {GetPet: {operationId: getPet, parameters: {id: '$response.body#/id'}}}}}}}",
                "",
            ),
            oas("/pets: {post: {responses: {'201': {description: ok}}}}", ""),
            &["link-removed"],
            &["link-added"],
        ),
        case(
            "response link passes another value",
            oas(
                "/pets: {post: {responses: {'201': {description: ok, links: {GetPet: {operationId: getPet, parameters: {id: '$response.body#/id'}}}}}}}",
                "",
            ),
            oas(
                "/pets: {post: {responses: {'201': {description: ok, links: {GetPet: {operationId: getPet, parameters: {id: '$response.body#/petId'}}}}}}}",
                "",
            ),
            &["link-changed"],
            &["link-changed"],
        ),
        case(
            "response link description only",
            oas(
                "/pets: {post: {responses: {'201': {description: ok, links: {GetPet: {operationId: getPet, description: a}}}}}}",
                "",
            ),
            oas(
                "/pets: {post: {responses: {'201': {description: ok, links: {GetPet: {operationId: getPet, description: b}}}}}}",
                "",
            ),
            &[],
            &[],
        ),
    ]);
}

#[test]
fn event_changes_name_the_webhook_or_callback() {
    let report = check(
        &webhook(&event(&json_body(OBJ_AB), "[]", OK), ""),
        &webhook(&event(&json_body(OBJ_A), "[]", OK), ""),
        &["response-property-removed"],
    );
    let change = &report.changes[0];
    assert_eq!(change.operation.as_deref(), Some("POST webhook newPet"));
    assert_eq!(change.location, "request body application/json body.b");
    assert_eq!(
        change.pointer.as_deref(),
        Some("/webhooks/newPet/post/requestBody/content/application~1json/schema/properties/b")
    );
    let report = check(
        &callback(&event(&json_body(OBJ_AB), "[]", OK)),
        &callback(&event(&json_body(OBJ_A), "[]", OK)),
        &["response-property-removed"],
    );
    let change = &report.changes[0];
    assert_eq!(change.operation.as_deref(), Some("POST /subscriptions"));
    assert_eq!(change.location, "callback onEvent POST {$request.body#/url} request body application/json body.b");
}
