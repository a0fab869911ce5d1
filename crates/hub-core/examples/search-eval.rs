//! The ranking half of the search evaluation (`bench/search-eval`), without
//! the hub around it: each API's description is indexed the way the hub
//! indexes it and every question is ranked, printing recall@1, recall@3
//! and MRR per API and half, the time a search takes (p50, p99), and the
//! development half's misses. Quick to
//! rebuild while working on `search.rs`; `bench/search-eval.sh` runs the
//! whole evaluation through the hub (MCP `ask_docs` included), and its
//! test-half figures are the ones quoted.
//!
//! Prints the development half only, unless `SEARCH_EVAL_REPORT` is set.
//! `SEARCH_EVAL_FLOORS=0,0.2,0.3` also prints the development half's
//! totals with other floors of closeness for the model's finds (how
//! `semantic::BUILTIN_FLOOR` was chosen).
//!
//! The ranking is the hub's, re-ranked by the sentence model the same
//! settings as `svc serve` choose (`hub_core::semantic`, the code the hub
//! runs): the built-in all-MiniLM-L6-v2 by default, the operator's
//! embeddings model with `SVC_LLM_URL` and `SVC_LLM_EMBEDDING_MODEL`
//! (`bench/search-eval/peer/serve.py` serves one), the engine alone with
//! `SVC_SEARCH_MODEL=off`. The search times are then the search's with the
//! question's vector at hand; the time to embed each document's sections
//! is printed beside its API. The vectors are kept as the hub keeps them
//! (`docs_search_vectors`), in an SQLite store in `SEARCH_EVAL_STORE`
//! (default `~/.cache/svc-test/bench/search-eval`), so a second run reads
//! them instead of encoding again.
//!
//! Usage: `cargo run -p hub-core --example search-eval -- bench/search-eval [github description]`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hub_core::search::{self, Candidate, DocumentIndex};
use hub_core::semantic::{SearchModel, Semantic};
use serde_json::Value;

#[path = "../../../bench/search-eval/tally.rs"]
mod tally;
use tally::Tally;

/// A field of a JSON object, `null` when absent.
fn field<'a>(value: &'a Value, key: &str) -> &'a Value {
    value.get(key).unwrap_or(&Value::Null)
}

/// What `search_endpoints` answers of a ranking: operations and GraphQL
/// root fields.
fn operations(index: &DocumentIndex, found: Vec<usize>) -> Vec<&Candidate> {
    found
        .into_iter()
        .filter_map(|n| index.sections().get(n))
        .filter(|h| h.target.starts_with("op/") || h.target.starts_with("graphql/"))
        .collect()
}

/// The rank (from 1, within 10) of the first expected operation.
fn rank_of(index: &DocumentIndex, found: Vec<usize>, expect: &[&str]) -> Option<usize> {
    operations(index, found).iter().take(10).position(|h| expect.contains(&h.title.as_str())).map(|p| p + 1)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "bench/search-eval".to_owned()));
    let github = args.next().map(PathBuf::from);
    let root = dir.join("../..");
    // The test half is measured only to report, never while tuning.
    let report = std::env::var_os("SEARCH_EVAL_REPORT").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut totals: BTreeMap<String, Tally> = BTreeMap::new();
    let floors: Vec<f32> = std::env::var("SEARCH_EVAL_FLOORS")
        .unwrap_or_default()
        .split(',')
        .filter_map(|f| f.trim().parse().ok())
        .collect();
    let mut by_floor: Vec<Tally> = floors.iter().map(|_| Tally::default()).collect();
    let mut misses = Vec::new();
    let semantic = SearchModel::from_vars(|name| std::env::var(name).ok())?.map(Semantic::new);
    let kept = std::env::var_os("SEARCH_EVAL_STORE").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/svc-test/bench/search-eval")
    });
    std::fs::create_dir_all(&kept)?;
    let db = platform::db::Db::open_sqlite(&kept.join("vectors.db")).await?;
    db.migrate(&hub_core::MIGRATIONS).await?;
    let store = hub_core::store::Store::new(db);
    let now = kernel::Timestamp::from_millis(0);
    match &semantic {
        Some(semantic) => println!("re-ranked by the sentence model {}", semantic.model()),
        None => println!("the engine alone (SVC_SEARCH_MODEL=off)"),
    }
    println!("{}", Tally::header());
    for file in files {
        let set: Value = serde_json::from_slice(&std::fs::read(&file)?)?;
        let api = field(&set, "api").as_str().unwrap_or("?").to_owned();
        let source = field(&set, "source").as_str().unwrap_or("");
        let path: Option<PathBuf> = if source.starts_with("npm:") {
            github.clone()
        } else {
            source.strip_prefix("../shared/").map(|rest| root.join("../shared").join(rest))
        };
        let Some(path) = path.filter(|p| Path::is_file(p)) else {
            println!("{api:<12} skipped: {source} is not here");
            continue;
        };
        let source = std::fs::read(&path)?;
        let sha256 = platform::crypto::sha256_hex(&source);
        let site = docs_render::Site::new(spec::parse(&source)?);
        let rows: Vec<Candidate> = site
            .sections()
            .into_iter()
            .map(|s| {
                // As the hub stores a section: its words from the whole
                // description, its body cut as hits show it (the text the
                // model encodes is read from it).
                let (title_terms, terms) = search::section_terms(&s.title, &s.body);
                let body = s.body.chars().take(search::SNIPPET_CHARS).collect();
                Candidate { target: s.target, title: s.title, body, title_terms, terms }
            })
            .collect();
        let index = DocumentIndex::new(rows);
        let key = sha256;
        if let Some(semantic) = &semantic {
            let started = std::time::Instant::now();
            semantic.build(&key, &index, &store, now).await?;
            println!("{api:<12} {} sections embedded in {:.1} s", index.len(), started.elapsed().as_secs_f64());
        }
        let mut halves: BTreeMap<String, Tally> = BTreeMap::new();
        let mut times = Vec::new();
        for question in field(&set, "questions").as_array().map(Vec::as_slice).unwrap_or_default() {
            let q = field(question, "q").as_str().unwrap_or("");
            let expect: Vec<&str> = field(question, "expect")
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(Value::as_str)
                .collect();
            if let Some(semantic) = &semantic {
                // Ask the model first, so the time below is the search's
                // own with the question's vector at hand, as for a
                // question asked before.
                semantic.rerank(&key, &index, q, &[], 0).await.ok_or("the model gave no vector")?;
            }
            let half = field(question, "half").as_str().unwrap_or("?").to_owned();
            if let Some(semantic) = semantic.as_ref().filter(|_| half == "dev") {
                let engine = index.positions(q, search::CANDIDATES);
                let closeness = semantic.closeness(&key, &index, q).await.ok_or("the model gave no vector")?;
                for (floor, tally) in floors.iter().zip(by_floor.iter_mut()) {
                    let fused = search::semantic::fuse(&engine, &closeness, *floor, search::CANDIDATES);
                    tally.add(rank_of(&index, fused, &expect), None);
                }
            }
            let started = std::time::Instant::now();
            let mut found = index.positions(q, search::CANDIDATES);
            if let Some(semantic) = &semantic {
                found = semantic
                    .rerank(&key, &index, q, &found, search::CANDIDATES)
                    .await
                    .ok_or("the model gave no vector")?;
            }
            times.push(started.elapsed());
            let hits = operations(&index, found.clone());
            let rank = rank_of(&index, found, &expect);
            if half == "dev" && rank.is_none_or(|r| r > 3) {
                let top: Vec<&str> = hits.iter().take(3).map(|h| h.title.as_str()).collect();
                misses.push(format!(
                    "{api} {q:?} [{}]: expected {expect:?}, got {top:?}",
                    rank.map_or("-".to_owned(), |r| r.to_string())
                ));
            }
            if half == "test" && !report {
                continue;
            }
            halves.entry(half).or_default().add(rank, None);
        }
        times.sort();
        let at = |q: f64| times.get(((times.len() as f64 * q) as usize).min(times.len().saturating_sub(1))).copied();
        println!(
            "{api:<12} search time per question, {} sections: p50 {:?}, p99 {:?}",
            index.len(),
            at(0.5).unwrap_or_default(),
            at(0.99).unwrap_or_default()
        );
        for (half, tally) in &halves {
            println!("{}", tally.row(&api, half));
            totals.entry(half.clone()).or_default().merge(tally);
        }
    }
    for (half, tally) in &totals {
        println!("{}", tally.row("all", half));
    }
    for (floor, tally) in floors.iter().zip(&by_floor) {
        println!("{}", tally.row(&format!("floor {floor}"), "dev"));
    }
    // Misses of the development half only: the test half is never looked at.
    for miss in &misses {
        println!("dev miss: {miss}");
    }
    Ok(())
}
