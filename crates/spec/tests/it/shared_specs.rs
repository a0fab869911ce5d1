//! Every real description in the shared collection parses with the right
//! format and a plausible number of operations.

use spec::SpecFormat;

use crate::support::{files_in, shared_specs};

fn parse_file(path: &std::path::Path) -> spec::Spec {
    let bytes = std::fs::read(path).expect("readable spec file");
    spec::parse(&bytes).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn expected_format(path: &std::path::Path) -> SpecFormat {
    let name = path.to_string_lossy();
    if name.ends_with(".graphql") {
        SpecFormat::GraphQl
    } else if name.contains("/swagger2/") || name.contains("netlify") || name.contains("kubernetes") {
        SpecFormat::Swagger2
    } else {
        SpecFormat::OpenApi3
    }
}

#[test]
fn every_shared_spec_parses_with_its_format() {
    let Some(root) = shared_specs() else { return };
    for folder in ["openapi3", "swagger2", "graphql", "pairs"] {
        for path in files_in(&root.join(folder)) {
            let parsed = parse_file(&path);
            assert_eq!(parsed.format, expected_format(&path), "{}", path.display());
            assert_eq!(spec::sniff(&std::fs::read(&path).expect("readable")), Some(parsed.format));
            let webhooks_only = path.ends_with("oai-webhook-example.yaml");
            if webhooks_only {
                assert_eq!(parsed.webhooks.len(), 1);
            } else {
                assert!(parsed.operation_count() > 0, "{} has no operations", path.display());
            }
        }
    }
}

#[test]
fn exact_counts_of_well_known_specs() {
    let Some(root) = shared_specs() else { return };
    let cases: &[(&str, usize, usize)] = &[
        // (file, operations, named schemas or graphql types)
        ("openapi3/oai-petstore.yaml", 3, 3),
        ("openapi3/oai-petstore-expanded.json", 4, 3),
        ("openapi3/spotify-web-api.fixed.yml", 97, 90),
        ("swagger2/oai-petstore.json", 3, 3),
        ("swagger2/netlify.swagger.yml", 174, 100),
        ("pairs/spotify.v1.yml", 89, 90),
        ("pairs/kubernetes.v1.json", 865, 570),
        ("pairs/kubernetes.v2.json", 878, 577),
        // 58 named types counting the five built-in scalars, which the model leaves out.
        ("graphql/swapi.schema.graphql", 13, 53),
    ];
    for (file, operations, named) in cases {
        let parsed = parse_file(&root.join(file));
        assert_eq!(parsed.operation_count(), *operations, "{file}");
        let named_count = match &parsed.graphql {
            Some(model) => model.types.len(),
            None => parsed.schemas.len(),
        };
        assert_eq!(named_count, *named, "{file}");
    }
}

#[test]
fn petstore_is_normalised_in_detail() {
    let Some(root) = shared_specs() else { return };
    let parsed = parse_file(&root.join("openapi3/oai-petstore.yaml"));
    assert_eq!(parsed.source_version, "3.0.0");
    assert_eq!(parsed.title, "Swagger Petstore");
    assert_eq!(parsed.servers[0].url, "http://petstore.swagger.io/v1");
    let list = parsed.operation_by_id("listPets").expect("listPets");
    assert_eq!(list.method, spec::HttpMethod::Get);
    assert_eq!(list.path, "/pets");
    assert_eq!(list.parameters[0].name, "limit");
    assert_eq!(list.parameters[0].location, spec::ParameterLocation::Query);
    let ok = &list.responses["200"];
    assert_eq!(ok.content["application/json"].schema.as_ref().unwrap()["$ref"], "#/components/schemas/Pets");
    assert!(ok.headers.contains_key("x-next"));
    assert!(parsed.resolve("#/components/schemas/Pets").is_some());

    // The swagger 2.0 petstore normalises to the same operations.
    let swagger = parse_file(&root.join("swagger2/oai-petstore.json"));
    assert_eq!(swagger.format, SpecFormat::Swagger2);
    assert_eq!(swagger.servers[0].url, "http://petstore.swagger.io/v1");
    let ids = |s: &spec::Spec| s.operations.iter().map(|o| o.operation_id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&swagger), ids(&parsed));
}

#[test]
fn external_ref_inside_extension_is_ignored() {
    let Some(root) = shared_specs() else { return };
    let parsed = parse_file(&root.join("openapi3/spotify-web-api.official.yml"));
    assert!(parsed.operation_count() > 90);
}

#[test]
fn openai_keeps_webhooks_and_both_nullable_styles() {
    let Some(root) = shared_specs() else { return };
    let parsed = parse_file(&root.join("openapi3/openai.openapi.yaml"));
    assert_eq!(parsed.source_version, "3.1.0");
    assert_eq!(parsed.webhooks.len(), 16);
    assert_eq!(parsed.schemas.len(), 1422);
}

#[test]
fn utf16_with_bom_is_decoded() {
    let Some(root) = shared_specs() else { return };
    // The collection's notes move this file to edge/, but it may still sit in bad/.
    let path =
        ["edge", "bad"].iter().map(|folder| root.join(folder).join("utf16le-bom.yaml")).find(|path| path.is_file());
    let Some(path) = path else { return };
    let utf16 = parse_file(&path);
    let utf8 = parse_file(&root.join("openapi3/oai-petstore.yaml"));
    assert_eq!(utf16, utf8);
}
