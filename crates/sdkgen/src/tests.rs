#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, reason = "tests fail loudly")]

use super::*;

const PETSTORE: &str = r#"
openapi: 3.0.3
info: {title: Pet Store, version: 1.0.0}
servers:
  - url: https://{region}.pets.example/v1/
    variables: {region: {default: eu}}
security: [{api_key: []}, {bearer: []}]
components:
  securitySchemes:
    api_key: {type: apiKey, in: header, name: X-API-Key}
    bearer: {type: http, scheme: bearer}
    basic: {type: http, scheme: basic}
    oauth: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://x/token', scopes: {}}}}
    mtls: {type: mutualTLS}
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties:
        id: {type: integer, format: int64}
        name: {type: string}
        tag: {type: string, nullable: true}
        status: {type: string, enum: [available, pending, sold]}
        x-rate: {type: number}
        class: {type: string}
        children: {type: array, items: {$ref: '#/components/schemas/Pet'}}
        owner:
          type: object
          properties:
            name: {type: string}
    Pets: {type: array, items: {$ref: '#/components/schemas/Pet'}}
    Error:
      type: object
      required: [code]
      properties:
        code: {type: integer}
        message: {type: string}
    Labels:
      type: object
      additionalProperties: {type: string}
    Shape:
      oneOf:
        - {$ref: '#/components/schemas/Circle'}
        - {$ref: '#/components/schemas/Square'}
    Circle: {type: object, properties: {radius: {type: number}}}
    Square: {type: object, properties: {side: {type: number}}}
    NamedPet:
      allOf:
        - {$ref: '#/components/schemas/Pet'}
        - type: object
          properties: {nickname: {type: string}}
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
        - {name: class, in: query, schema: {type: string}}
        - {name: X-Trace, in: header, schema: {type: string}}
      responses:
        '200':
          description: ok
          content: {application/json: {schema: {$ref: '#/components/schemas/Pets'}}}
        default:
          description: error
          content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
    post:
      operationId: createPet
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
      responses:
        '201': {description: created}
  /pets/{petId}:
    get:
      operationId: listPets
      parameters:
        - {name: petId, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: ok
          content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
    delete:
      security: []
      parameters:
        - {name: petId, in: path, required: true, schema: {type: string}}
      responses:
        '204': {description: gone}
"#;

fn petstore() -> Spec {
    spec::parse(PETSTORE.as_bytes()).unwrap()
}

#[test]
fn output_is_deterministic() {
    let spec = petstore();
    for language in Language::ALL {
        let first = generate(&spec, language).unwrap();
        let again = generate(&spec::parse(PETSTORE.as_bytes()).unwrap(), language).unwrap();
        assert_eq!(first, again, "{language:?}");
    }
}

#[test]
fn typescript_client_has_types_methods_and_auth() {
    let ts = generate(&petstore(), Language::TypeScript).unwrap();
    assert!(ts.contains("export const DEFAULT_BASE_URL = \"https://eu.pets.example/v1\";"), "{ts}");
    assert!(ts.contains("export type Pet = {\n  id: number;\n  name: string;\n  tag?: string | null;\n  status?: \"available\" | \"pending\" | \"sold\";\n  \"x-rate\"?: number;\n  class?: string;\n  children?: Array<Pet>;\n  owner?: {\n    name?: string;\n  };\n};"), "{ts}");
    assert!(ts.contains("export type Pets = Array<Pet>;"));
    assert!(ts.contains("export type ErrorModel = {"), "Error is a global and is renamed");
    assert!(ts.contains("export type Labels = Record<string, string>;"));
    assert!(ts.contains("export type Shape = Circle | Square;"));
    assert!(ts.contains("export type NamedPet = Pet & {\n  nickname?: string;\n};"), "{ts}");
    // Duplicate operationIds are de-duplicated; a missing one comes from the method and path.
    assert!(ts.contains("async listPets(params: ListPetsParams = {}, options: RequestOptions = {}): Promise<Pets>"));
    assert!(ts.contains("async listPets2(petId: string, options: RequestOptions = {}): Promise<Pet>"));
    assert!(ts.contains("async deletePetsPetId(petId: string, options: RequestOptions = {}): Promise<void>"));
    assert!(ts.contains("async createPet(body: Pet, options: RequestOptions = {}): Promise<void>"));
    assert!(ts.contains("query: [{ name: \"limit\", value: params.limit }, { name: \"class\", value: params.class }]"));
    assert!(ts.contains("headers: [{ name: \"X-Trace\", value: params[\"X-Trace\"] }]"));
    assert!(ts.contains("security: [[\"api_key\"], [\"bearer\"]],"));
    assert!(ts.contains("security: [],"), "the delete opts out");
    assert!(ts.contains("  apiKey?: string;") && ts.contains("  basic?: { username: string; password: string };"));
    assert!(ts.contains("\"oauth\": { kind: \"token\", prefix: \"Bearer\" }"));
    assert!(!ts.contains("mtls"), "mutual TLS is not something a fetch client can apply");
}

#[test]
fn python_client_has_typed_dicts_methods_and_auth() {
    let py = generate(&petstore(), Language::Python).unwrap();
    assert!(py.contains("DEFAULT_BASE_URL = \"https://eu.pets.example/v1\""));
    // A key that is not an identifier (or is a keyword) needs the functional syntax.
    assert!(py.contains("Pet = TypedDict(\"Pet\", {\n    \"id\": \"int\",\n    \"name\": \"str\",\n    \"tag\": \"NotRequired[str | None]\",\n    \"status\": \"NotRequired[Literal['available', 'pending', 'sold']]\",\n    \"x-rate\": \"NotRequired[float]\",\n    \"class\": \"NotRequired[str]\",\n    \"children\": \"NotRequired[list[Pet]]\",\n    \"owner\": \"NotRequired[PetOwner]\",\n})"), "{py}");
    assert!(py.contains("class PetOwner(TypedDict):\n    name: NotRequired[str]\n"));
    assert!(py.contains("class ErrorModel(TypedDict):\n    code: int\n    message: NotRequired[str]\n"));
    assert!(py.contains("Labels: TypeAlias = \"dict[str, str]\""));
    assert!(py.contains("Shape: TypeAlias = \"Circle | Square\""));
    // allOf is merged into one TypedDict.
    assert!(
        py.contains("NamedPet = TypedDict(\"NamedPet\", {")
            && py.contains("    \"nickname\": \"NotRequired[str]\",\n})")
    );
    assert!(py.contains("    def list_pets(\n        self,\n        *,\n        limit: int | None = None,\n        class_: str | None = None,\n        x_trace: str | None = None,\n        timeout: float | None = None,\n    ) -> Pets:"), "{py}");
    assert!(py.contains("query=[(\"limit\", limit, None, None), (\"class\", class_, None, None)],"));
    assert!(py.contains("    def list_pets2(\n        self,\n        pet_id: str,\n"));
    assert!(py.contains("    def delete_pets_pet_id("));
    assert!(py.contains("    def create_pet(\n        self,\n        body: Pet,\n"));
    assert!(py.contains("        basic: tuple[str, str] | None = None,"));
    assert!(py.contains("\"oauth\": (\"token\", \"Bearer\", \"\"),"));
}

#[test]
fn graphql_is_refused() {
    let spec = spec::parse(b"type Query { a: Int }").unwrap();
    assert_eq!(generate(&spec, Language::TypeScript), Err(SdkError::GraphQl));
}

#[test]
fn deep_inline_schemas_are_bounded() {
    let mut schema = serde_json::json!({"type": "string"});
    for _ in 0..50 {
        schema = serde_json::json!({"type": "object", "properties": {"next": schema}});
    }
    let doc = serde_json::json!({
        "openapi": "3.1.0",
        "info": {"title": "deep", "version": "1"},
        "paths": {},
        "components": {"schemas": {"Deep": schema, "Loop": {"type": ["object", "null"], "properties": {"self": {"$ref": "#/components/schemas/Loop"}}}}}
    });
    let limits = spec::Limits { max_depth: 128, ..spec::Limits::default() };
    let spec = spec::parse_with(serde_json::to_string(&doc).unwrap().as_bytes(), &limits).unwrap();
    let ts = generate(&spec, Language::TypeScript).unwrap();
    assert!(ts.contains("next?: unknown;"), "the walk stops at a fixed depth");
    assert!(ts.contains("export type Loop = {\n  self?: Loop;\n} | null;"), "{ts}");
    let py = generate(&spec, Language::Python).unwrap();
    assert!(py.contains("Loop: TypeAlias = \"LoopObject | None\""), "{py}");
}

#[test]
fn file_names_and_languages() {
    assert_eq!(Language::parse("TypeScript"), Some(Language::TypeScript));
    assert_eq!(Language::parse("py"), Some(Language::Python));
    assert_eq!(Language::parse("go"), None);
    assert_eq!(Language::TypeScript.file_name("Swagger Petstore"), "swagger-petstore.ts");
    assert_eq!(Language::Python.file_name("Swagger Petstore"), "swagger_petstore.py");
    assert_eq!(Language::Python.file_name("123"), "api_123.py");
}

#[test]
fn typescript_types_of_one_schema_or_operation_bring_their_references() {
    let spec = petstore();
    let shape = typescript_types(&spec, TypesOf::Schema("Shape")).unwrap().unwrap();
    assert!(shape.starts_with("export type Shape = "), "{shape}");
    assert!(shape.contains("export type Circle = ") && shape.contains("export type Square = "), "{shape}");
    assert!(!shape.contains("export type Pet ="), "only what it references: {shape}");
    let list = typescript_types(&spec, TypesOf::Operation("GET", "/pets")).unwrap().unwrap();
    assert!(list.contains("export interface ListPetsParams {") && list.contains("limit?: number;"), "{list}");
    assert!(list.contains("export type ListPetsResponse = Pets;"), "{list}");
    assert!(list.contains("export type Pets = ") && list.contains("export type Pet = "), "{list}");
    let create = typescript_types(&spec, TypesOf::Operation("post", "/pets")).unwrap().unwrap();
    assert!(create.contains("export type CreatePetBody = Pet;"), "{create}");
    assert!(typescript_types(&spec, TypesOf::Schema("Nope")).unwrap().is_none());
    assert!(typescript_types(&spec, TypesOf::Operation("GET", "/nope")).unwrap().is_none());
}
