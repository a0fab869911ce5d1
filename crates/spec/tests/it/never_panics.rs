//! Property tests: parsing never panics, whatever the bytes.

use proptest::prelude::*;

const SEEDS: &[&str] = &[
    "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a/{id}:\n    parameters: [{name: id, in: path, schema: {type: string}}]\n    get:\n      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}}}\ncomponents:\n  schemas:\n    A: {type: object, properties: {b: {$ref: '#/components/schemas/A'}}}\n",
    "{\"swagger\":\"2.0\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{\"/x\":{\"post\":{\"parameters\":[{\"name\":\"b\",\"in\":\"body\",\"schema\":{\"$ref\":\"#/definitions/D\"}}],\"responses\":{\"200\":{\"description\":\"ok\"}}}}},\"definitions\":{\"D\":{\"type\":\"object\"}}}",
    "type Query { a(x: Int = 1): [String!]! }\nunion U = Query\nenum E { A B }\n",
    "a: &x [1, 2]\nb: *x\nc: {<<: {d: 1}}\n",
];

fn mutate(seed: &str, edits: &[(usize, u8)]) -> Vec<u8> {
    let mut bytes = seed.as_bytes().to_vec();
    for (at, byte) in edits {
        if bytes.is_empty() {
            break;
        }
        let at = at % bytes.len();
        match byte % 3 {
            0 => bytes[at] = *byte,
            1 => {
                bytes.remove(at);
            }
            _ => bytes.insert(at, *byte),
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = spec::parse(&bytes);
        let _ = spec::sniff(&bytes);
    }

    #[test]
    fn mutated_documents_never_panic(
        seed in 0..SEEDS.len(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
    ) {
        let bytes = mutate(SEEDS[seed], &edits);
        let _ = spec::parse(&bytes);
        let _ = spec::sniff(&bytes);
    }

    #[test]
    fn truncated_documents_never_panic(seed in 0..SEEDS.len(), cut in any::<usize>()) {
        let bytes = SEEDS[seed].as_bytes();
        let _ = spec::parse(&bytes[..cut % (bytes.len() + 1)]);
    }
}

#[test]
fn seeds_parse() {
    for seed in &SEEDS[..3] {
        assert!(spec::parse(seed.as_bytes()).is_ok(), "{seed}");
    }
}
