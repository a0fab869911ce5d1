//! Small hand-written documents, one per normalisation rule.

use serde_json::json;
use spec::{
    ApiKeyLocation, HttpMethod, OAuthFlowKind, ParameterLocation, SecuritySchemeKind, SpecErrorKind, SpecFormat,
    schema_types,
};

use crate::support::{parse_err, parse_ok};

const SWAGGER: &str = r##"
swagger: "2.0"
info: {title: Shop, version: 1.0}
host: api.example.com
basePath: /v2
schemes: [https, http]
consumes: [application/json]
produces: [application/json, application/xml]
securityDefinitions:
  key: {type: apiKey, name: X-Key, in: header}
  basic: {type: basic}
  oauth: {type: oauth2, flow: accessCode, authorizationUrl: "https://a/auth", tokenUrl: "https://a/token", scopes: {read: Read things}}
security: [{key: []}]
parameters:
  Limit: {name: limit, in: query, type: integer, maximum: 100}
responses:
  NotFound: {description: not found, schema: {$ref: "#/definitions/Error"}}
paths:
  /items/{id}:
    parameters:
      - {name: id, in: path, required: true, type: string}
      - {name: verbose, in: query, type: boolean}
    put:
      operationId: putItem
      parameters:
        - {name: verbose, in: query, type: string, description: overrides path level}
        - {$ref: "#/parameters/Limit"}
        - {name: tags, in: query, type: array, items: {type: string}, collectionFormat: multi}
        - {name: body, in: body, required: true, schema: {$ref: "#/definitions/Item"}}
      responses:
        "200": {description: ok, schema: {$ref: "#/definitions/Item"}, examples: {application/json: {id: "1"}}}
        "404": {$ref: "#/responses/NotFound"}
      security: [{oauth: [read]}, {basic: []}]
  /upload:
    post:
      consumes: [multipart/form-data]
      parameters:
        - {name: file, in: formData, type: file, required: true}
        - {name: note, in: formData, type: string}
      responses:
        default: {description: done, headers: {X-Rate: {type: integer, description: left}}}
definitions:
  Item:
    type: object
    discriminator: kind
    properties:
      id: {type: string}
      kind: {type: string}
      parent: {$ref: "#/definitions/Item", x-nullable: true}
      default: {$ref: "#/definitions/Error"}
  Error: {type: object, properties: {message: {type: string}}}
"##;

#[test]
fn swagger_is_upgraded_to_openapi_shapes() {
    let spec = parse_ok(SWAGGER);
    assert_eq!(spec.format, SpecFormat::Swagger2);
    assert_eq!(spec.source_version, "2.0");
    assert_eq!(spec.api_version, "1.0");
    let urls: Vec<_> = spec.servers.iter().map(|s| s.url.as_str()).collect();
    assert_eq!(urls, ["https://api.example.com/v2", "http://api.example.com/v2"]);

    let put = spec.operation_by_id("putItem").expect("putItem");
    assert_eq!(put.method, HttpMethod::Put);
    let names: Vec<_> = put.parameters.iter().map(|p| (p.name.as_str(), p.location)).collect();
    assert_eq!(
        names,
        [
            ("id", ParameterLocation::Path),
            ("verbose", ParameterLocation::Query),
            ("limit", ParameterLocation::Query),
            ("tags", ParameterLocation::Query),
        ]
    );
    let verbose = &put.parameters[1];
    assert_eq!(verbose.description.as_deref(), Some("overrides path level"));
    assert_eq!(verbose.schema, Some(json!({"type": "string"})));
    assert_eq!(put.parameters[2].schema, Some(json!({"type": "integer", "maximum": 100})));
    assert_eq!(put.parameters[3].explode, Some(true));

    let body = put.request_body.as_ref().expect("body parameter becomes a request body");
    assert!(body.required);
    assert_eq!(body.content["application/json"].schema, Some(json!({"$ref": "#/components/schemas/Item"})));
    let ok = &put.responses["200"];
    assert_eq!(ok.content.keys().collect::<Vec<_>>(), ["application/json", "application/xml"]);
    assert_eq!(ok.content["application/json"].example, Some(json!({"id": "1"})));
    let not_found = &put.responses["404"];
    assert_eq!(not_found.description, "not found");
    assert_eq!(not_found.content["application/xml"].schema, Some(json!({"$ref": "#/components/schemas/Error"})));

    let upload = &spec.operations[1];
    let form = upload.request_body.as_ref().expect("form parameters become a request body");
    let multipart = &form.content["multipart/form-data"];
    assert_eq!(
        multipart.schema,
        Some(json!({
            "type": "object",
            "properties": {"file": {"type": "string", "format": "binary"}, "note": {"type": "string"}},
            "required": ["file"]
        }))
    );
    assert_eq!(upload.responses["default"].headers["X-Rate"].schema, Some(json!({"type": "integer"})));

    let item = &spec.schemas["Item"];
    assert_eq!(item["discriminator"], json!({"propertyName": "kind"}));
    assert_eq!(item["properties"]["parent"]["$ref"], "#/components/schemas/Item");
    assert_eq!(item["properties"]["default"]["$ref"], "#/components/schemas/Error");
    assert!(schema_types(&item["properties"]["parent"]).nullable);

    assert_eq!(
        spec.security_schemes["key"].kind,
        SecuritySchemeKind::ApiKey { name: "X-Key".into(), location: ApiKeyLocation::Header }
    );
    assert_eq!(
        spec.security_schemes["basic"].kind,
        SecuritySchemeKind::Http { scheme: "basic".into(), bearer_format: None }
    );
    let SecuritySchemeKind::OAuth2 { flows } = &spec.security_schemes["oauth"].kind else {
        panic!("oauth2 expected");
    };
    assert_eq!(flows[0].kind, OAuthFlowKind::AuthorizationCode);
    assert_eq!(flows[0].scopes["read"], "Read things");
    assert!(spec.resolve("#/components/schemas/Error").is_some());
    assert!(spec.resolve("#/components/responses/NotFound").is_some());
}

#[test]
fn swagger_missing_definition_is_named_as_written() {
    let doc = "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\ndefinitions:\n  A: {$ref: '#/definitions/Missing'}\n";
    let err = parse_err(doc);
    assert_eq!(err.kind, SpecErrorKind::InvalidReference);
    assert!(err.message.contains("#/definitions/Missing"), "{err}");
}

#[test]
fn nullable_and_type_arrays_are_both_read() {
    let v30 = json!({"type": "string", "nullable": true});
    let v31 = json!({"type": ["string", "null"]});
    let multi = json!({"type": ["integer", "string"]});
    for schema in [&v30, &v31] {
        let types = schema_types(schema);
        assert_eq!(types.types, ["string"]);
        assert!(types.nullable);
    }
    assert_eq!(schema_types(&multi).types, ["integer", "string"]);
    assert!(!schema_types(&multi).nullable);

    let doc = r##"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
      "components": {"schemas": {
        "A": {"type": ["string", "null"]},
        "B": {"type": "string", "nullable": true}}}}"##;
    let spec = parse_ok(doc);
    assert!(schema_types(&spec.schemas["A"]).nullable);
    assert!(schema_types(&spec.schemas["B"]).nullable);
}

#[test]
fn path_level_parameters_merge_and_refs_resolve() {
    let doc = r##"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /users/{id}:
    parameters:
      - $ref: '#/components/parameters/Id'
      - {name: trace, in: header, schema: {type: string}}
    get:
      parameters:
        - {name: trace, in: header, required: true, schema: {type: integer}}
        - {name: trace, in: query, schema: {type: boolean}}
      responses:
        "200": {$ref: '#/components/responses/User'}
    delete:
      responses:
        "204": {description: gone}
components:
  parameters:
    Id: {name: id, in: path, required: true, schema: {type: string}}
  responses:
    User:
      description: a user
      content:
        application/json:
          schema: {$ref: '#/components/schemas/User'}
  schemas:
    User: {type: object}
"##;
    let spec = parse_ok(doc);
    assert_eq!(spec.operation_count(), 2);
    let get = &spec.operations[0];
    let params: Vec<_> = get.parameters.iter().map(|p| (p.name.as_str(), p.location.as_str(), p.required)).collect();
    assert_eq!(params, [("id", "path", true), ("trace", "header", true), ("trace", "query", false)]);
    assert_eq!(get.parameters[1].schema, Some(json!({"type": "integer"})));
    assert_eq!(get.responses["200"].description, "a user");
    let delete = &spec.operations[1];
    assert_eq!(delete.parameters.len(), 2, "path-level parameters apply to every method");
    assert_eq!(delete.method.as_str(), "DELETE");
}

#[test]
fn recursive_schemas_are_fine() {
    let doc = r##"
openapi: 3.0.3
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    Node:
      type: object
      properties:
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
        parent: {$ref: '#/components/schemas/Node'}
    Alias: {$ref: '#/components/schemas/Node'}
"##;
    let spec = parse_ok(doc);
    let alias = spec.resolve_value(&spec.schemas["Alias"]).expect("alias resolves");
    assert_eq!(alias["type"], "object");
    assert_eq!(
        spec.resolve("#/components/schemas/Node/properties/children/items"),
        Some(&json!({"$ref": "#/components/schemas/Node"}))
    );
}

#[test]
fn reference_cycles_and_missing_targets_are_refused() {
    let cyclic = r##"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      parameters: [{$ref: '#/components/parameters/P1'}]
      responses: {"200": {description: ok}}
components:
  parameters:
    P1: {$ref: '#/components/parameters/P2'}
    P2: {$ref: '#/components/parameters/P1'}
"##;
    let err = parse_err(cyclic);
    assert_eq!(err.kind, SpecErrorKind::CyclicReference);
    assert!(err.message.contains("#/components/parameters/P1 -> #/components/parameters/P2"), "{err}");

    let missing = cyclic.replace("P2: {$ref: '#/components/parameters/P1'}", "P3: {name: x, in: query}");
    let err = parse_err(&missing);
    assert_eq!(err.kind, SpecErrorKind::InvalidReference);
    assert!(err.message.contains("#/components/parameters/P2"), "{err}");
}

#[test]
fn refs_into_paths_stay_resolvable() {
    let doc = r##"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    get:
      parameters: [{name: q, in: query, schema: {type: string, enum: [x, y]}}]
      responses: {"200": {description: ok}}
  /b:
    get:
      parameters:
        - $ref: '#/paths/~1a/get/parameters/0'
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/paths/~1a/get/parameters/0/schema'}
"##;
    let spec = parse_ok(doc);
    assert_eq!(spec.operations[1].parameters[0].name, "q");
    assert_eq!(
        spec.resolve("#/paths/~1a/get/parameters/0/schema"),
        Some(&json!({"type": "string", "enum": ["x", "y"]}))
    );
}

#[test]
fn named_examples_are_kept_and_resolved() {
    let doc = r##"
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets:
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object}
            examples:
              cat: {summary: A cat, value: {name: Tom}}
              dog: {$ref: '#/components/examples/Dog'}
      responses:
        "201":
          description: created
          content:
            application/json:
              example: {id: 1}
components:
  examples:
    Dog: {summary: A dog, value: {name: Rex, $ref: not-a-reference}}
"##;
    let spec = parse_ok(doc);
    let post = &spec.operations[0];
    let body = post.request_body.as_ref().expect("body");
    assert!(body.required);
    let examples = &body.content["application/json"].examples;
    assert_eq!(examples.keys().collect::<Vec<_>>(), ["cat", "dog"]);
    assert_eq!(examples["cat"].summary.as_deref(), Some("A cat"));
    assert_eq!(examples["dog"].value, Some(json!({"name": "Rex", "$ref": "not-a-reference"})));
    assert_eq!(post.responses["201"].content["application/json"].example, Some(json!({"id": 1})));
}

#[test]
fn security_requirements_follow_openapi_rules() {
    let doc = r##"
openapi: 3.0.3
info: {title: t, version: "1"}
security: [{bearer: []}, {api_key: [], oauth: ["read", "write"]}]
paths:
  /open:
    get:
      security: []
      responses: {"200": {description: ok}}
  /inherit:
    get:
      responses: {"200": {description: ok}}
  /optional:
    get:
      security: [{}, {bearer: []}]
      responses: {"200": {description: ok}}
components:
  securitySchemes:
    bearer: {type: http, scheme: Bearer, bearerFormat: JWT}
    api_key: {type: apiKey, name: key, in: query}
    oauth:
      type: oauth2
      flows:
        clientCredentials: {tokenUrl: "https://t", scopes: {read: r, write: w}}
    oidc: {type: openIdConnect, openIdConnectUrl: "https://id/.well-known/openid-configuration"}
"##;
    let spec = parse_ok(doc);
    assert_eq!(spec.security.len(), 2);
    assert_eq!(spec.security[1].schemes["oauth"], ["read", "write"]);
    let open = &spec.operations[0];
    assert_eq!(open.security.as_deref(), Some(&[][..]));
    assert!(spec.effective_security(open).is_empty());
    let inherit = &spec.operations[1];
    assert_eq!(inherit.security, None);
    assert_eq!(spec.effective_security(inherit).len(), 2);
    let optional = spec.effective_security(&spec.operations[2]);
    assert!(optional[0].is_anonymous());
    assert_eq!(
        spec.security_schemes["bearer"].kind,
        SecuritySchemeKind::Http { scheme: "bearer".into(), bearer_format: Some("JWT".into()) }
    );
    assert!(matches!(spec.security_schemes["oidc"].kind, SecuritySchemeKind::OpenIdConnect { .. }));
}

#[test]
fn yaml_one_one_booleans_stay_strings_in_enums() {
    let doc = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Answer: {type: string, enum: [yes, no, on, off]}\n";
    let spec = parse_ok(doc);
    assert_eq!(spec.schemas["Answer"]["enum"], json!(["yes", "no", "on", "off"]));
}

#[test]
fn webhooks_are_operations_named_after_the_hook() {
    let doc = r##"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
      "webhooks": {"newPet": {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
        "responses": {"200": {"description": "ok"}}}}}}"##;
    let spec = parse_ok(doc);
    assert_eq!(spec.operation_count(), 0);
    assert_eq!(spec.webhooks[0].path, "newPet");
    assert_eq!(spec.webhooks[0].method, HttpMethod::Post);
}

#[test]
fn sniff_guesses_without_parsing() {
    assert_eq!(spec::sniff(b"{\"openapi\": \"3.0.0\"}"), Some(SpecFormat::OpenApi3));
    assert_eq!(spec::sniff(b"# c\nswagger: '2.0'\n"), Some(SpecFormat::Swagger2));
    assert_eq!(spec::sniff(b"type Query { a: Int }"), Some(SpecFormat::GraphQl));
    assert_eq!(spec::sniff(b"services:\n  web: {}\n"), None);
    assert_eq!(spec::sniff(b"\x89PNG\r\n"), None);
    assert_eq!(SpecFormat::OpenApi3.to_string(), "openapi3");
    assert_eq!(serde_json::to_value(SpecFormat::Swagger2).ok(), Some(json!("swagger2")));
    assert_eq!(serde_json::to_value(SpecFormat::GraphQl).ok(), Some(json!("graphql")));
}

#[test]
fn errors_display_their_location() {
    let err = parse_err("openapi: 3.0.0\ninfo: [\n");
    assert_eq!(err.kind, SpecErrorKind::Syntax);
    let shown = err.to_string();
    assert!(shown.contains("line ") && shown.contains("column "), "{shown}");
}
