//! The encoder against the original model: `tests/reference.json` holds
//! what Hugging Face's tokenizer and the model's float weights make of a
//! few texts (written by `pack.py`). Token ids must match exactly; the
//! packed model's vectors must keep a cosine of at least 0.99 (the 4- and
//! 8-bit weights move them by about 0.002).

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use sentence::{Encoder, WIDTH};

fn reference() -> serde_json::Value {
    serde_json::from_str(include_str!("reference.json")).unwrap()
}

#[test]
fn token_ids_match_the_hugging_face_tokenizer() {
    let model = Encoder::builtin().unwrap();
    let reference = reference();
    let cases = reference["cases"].as_array().unwrap();
    assert!(cases.len() >= 8);
    for case in cases {
        let text = case["text"].as_str().unwrap();
        let expected: Vec<u32> = case["ids"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        assert_eq!(model.tokenize(text), expected, "{text}");
    }
}

#[test]
fn vectors_stay_close_to_the_original_model() {
    let model = Encoder::builtin().unwrap();
    let reference = reference();
    let cases = reference["cases"].as_array().unwrap();
    let texts: Vec<&str> = cases.iter().map(|c| c["text"].as_str().unwrap()).collect();
    let vectors = model.embed(&texts);
    let mut cosines = Vec::new();
    for (case, vector) in cases.iter().zip(&vectors) {
        let expected: Vec<f32> =
            case["vector"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
        assert_eq!(expected.len(), WIDTH);
        let cosine: f32 = expected.iter().zip(vector).map(|(a, b)| a * b).sum();
        assert!(cosine > 0.99, "{}: cosine {cosine}", case["text"]);
        cosines.push(cosine);
    }
    // And the texts are told apart: each is closest to its own reference.
    for (i, vector) in vectors.iter().enumerate() {
        let best = cases
            .iter()
            .map(|c| {
                c["vector"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .zip(vector)
                    .map(|(a, b)| a.as_f64().unwrap() as f32 * b)
                    .sum::<f32>()
            })
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap()
            .0;
        assert_eq!(best, i, "{cosines:?}");
    }
}

#[test]
fn batching_does_not_change_a_vector() {
    let model = Encoder::builtin().unwrap();
    let alone = model.embed(&["restart my pods"]);
    // Past 32 tokens together: on a CPU without AVX2 the batch is
    // multiplied in floats and the question alone in integers (`direct`);
    // with it, both in integers, the tokens stacked in other blocks.
    let long = "a much longer text about the rate limit of the API and what it allows ".repeat(3);
    let together = model.embed(&[long.as_str(), "restart my pods", "x"]);
    let cosine: f32 = alone[0].iter().zip(&together[1]).map(|(a, b)| a * b).sum();
    assert!(cosine > 0.9999, "{cosine}");
}
