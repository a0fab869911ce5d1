//! The whole generated files for the end-to-end petstore fixture, reviewed by
//! hand: any change to the generated code shows up here as a diff.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test fails loudly")]

fn petstore() -> spec::Spec {
    let text = include_str!("e2e/petstore.yaml");
    spec::parse(text.as_bytes()).unwrap()
}

#[test]
fn petstore_typescript() {
    insta::assert_snapshot!(sdkgen::generate(&petstore(), sdkgen::Language::TypeScript).unwrap());
}

#[test]
fn petstore_python() {
    insta::assert_snapshot!(sdkgen::generate(&petstore(), sdkgen::Language::Python).unwrap());
}
