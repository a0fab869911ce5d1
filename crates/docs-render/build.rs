//! Builds the small grammar set the highlighter loads: the syntaxes of the
//! languages the pages highlight, and the ones they embed or include,
//! taken from syntect's default set at build time and written as a
//! compressed dump to `OUT_DIR` (see `src/highlight.rs`).
//!
//! syntect's default dump links contexts by index (`ContextId`: syntax
//! index and context index, the contexts of a syntax sorted by name, which
//! `SyntaxSetBuilder::build` keeps). Keeping a subset therefore means
//! renumbering the syntax index of every link; context indexes stay.

#![allow(clippy::expect_used, reason = "a build step over syntect's compiled-in data: a failure is a build error")]

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use syntect::parsing::syntax_definition::{Context, ContextId, ContextReference, MatchOperation, Pattern};
use syntect::parsing::{SyntaxDefinition, SyntaxSet, SyntaxSetBuilder};

/// The tokens the pages highlight (`highlight::html`'s `lang`): JSON
/// examples and the request samples' languages.
const TOKENS: [&str; 8] = ["json", "sh", "js", "py", "go", "rb", "php", "java"];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let full = SyntaxSet::load_defaults_newlines();
    let roots: Vec<usize> = TOKENS
        .iter()
        .map(|token| {
            let syntax = full.find_syntax_by_token(token).unwrap_or_else(|| panic!("no grammar for `{token}`"));
            full.syntaxes().iter().position(|s| s.name == syntax.name).expect("the syntax is in the set")
        })
        .collect();
    let plain = full.syntaxes().iter().position(|s| s.name == "Plain Text");
    let definitions: Vec<SyntaxDefinition> = full.into_builder().syntaxes().to_vec();

    // Every syntax reachable from the roots through links.
    let mut keep: BTreeSet<usize> = plain.into_iter().collect();
    let mut todo = roots;
    while let Some(index) = todo.pop() {
        if !keep.insert(index) {
            continue;
        }
        let Some(definition) = definitions.get(index) else { continue };
        for context in definition.contexts.values() {
            visit_ids(context, &mut |id| todo.push(syntax_index(id)));
        }
    }
    let renumber: HashMap<usize, usize> = keep.iter().enumerate().map(|(new, old)| (*old, new)).collect();

    let mut builder = SyntaxSetBuilder::new();
    for index in &keep {
        let Some(definition) = definitions.get(*index) else { continue };
        let mut definition = definition.clone();
        for context in definition.contexts.values_mut() {
            visit_ids_mut(context, &mut |id| {
                let (old, context_index) = (syntax_index(id), context_index(id));
                let new = renumber.get(&old).copied().expect("every linked syntax is kept");
                *id = context_id(new, context_index);
            });
        }
        builder.add(definition);
    }
    let set = builder.build();
    let unlinked = set.find_unlinked_contexts();
    assert!(unlinked.is_empty(), "the grammar subset has unlinked contexts: {unlinked:?}");
    syntect::dumps::dump_to_uncompressed_file(&set, out.join("syntaxes.packdump")).expect("OUT_DIR is writable");
    let names: Vec<&str> = set.syntaxes().iter().map(|s| s.name.as_str()).collect();
    std::fs::write(out.join("syntaxes.txt"), names.join("\n")).expect("OUT_DIR is writable");
}

fn fields(id: &ContextId) -> serde_json::Value {
    serde_json::to_value(id).expect("a ContextId serialises")
}

fn syntax_index(id: &ContextId) -> usize {
    fields(id).get("syntax_index").and_then(serde_json::Value::as_u64).expect("ContextId has syntax_index") as usize
}

fn context_index(id: &ContextId) -> usize {
    fields(id).get("context_index").and_then(serde_json::Value::as_u64).expect("ContextId has context_index") as usize
}

/// `ContextId`'s fields are private; it is built through its serde form.
fn context_id(syntax_index: usize, context_index: usize) -> ContextId {
    serde_json::from_value(serde_json::json!({"syntax_index": syntax_index, "context_index": context_index}))
        .expect("a ContextId deserialises")
}

fn visit_ids(context: &Context, f: &mut impl FnMut(&ContextId)) {
    let mut copy = context.clone();
    visit_ids_mut(&mut copy, &mut |id| f(id));
}

fn visit_ids_mut(context: &mut Context, f: &mut impl FnMut(&mut ContextId)) {
    if let Some(id) = context.prototype.as_mut() {
        f(id);
    }
    for pattern in &mut context.patterns {
        match pattern {
            Pattern::Include(reference) => visit_reference(reference, f),
            Pattern::Match(matcher) => {
                if let MatchOperation::Push(references) | MatchOperation::Set(references) = &mut matcher.operation {
                    for reference in references {
                        visit_reference(reference, f);
                    }
                }
                if let Some(reference) = matcher.with_prototype.as_mut() {
                    visit_reference(reference, f);
                }
            }
        }
    }
}

fn visit_reference(reference: &mut ContextReference, f: &mut impl FnMut(&mut ContextId)) {
    if let ContextReference::Direct { 0: id, .. } = reference {
        f(id);
    }
}
