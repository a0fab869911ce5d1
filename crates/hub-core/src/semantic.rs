//! The re-ranking of the docs search by a sentence model: the one in the
//! binary (all-MiniLM-L6-v2, the `sentence` crate; `svc serve` uses it
//! unless `SVC_SEARCH_MODEL=off`), or an operator's embeddings model
//! (`SVC_LLM_URL` with `SVC_LLM_EMBEDDING_MODEL`). See `search::semantic`
//! for the fusion and docs/assistant.md for the settings.
//!
//! Never required and never in the way: a document's sections are embedded
//! off the request path when it is pushed, or on its first search on a
//! node that finds no vectors kept for it (one document at a time per
//! node, once across nodes sharing the store; the built-in model on one
//! blocking thread), and until its vectors
//! are ready, or whenever an operator's model does not answer a question in
//! [`QUESTION_TIMEOUT`], the word engine's ranking is the answer. A model
//! that failed is asked again only after a pause, so a missing endpoint
//! costs the searches nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use kernel::Timestamp;
use platform::document_cache::{DocumentCache, Poisoned};
use platform::embeddings::{self, EmbeddingConfig, MAX_BATCH, QUESTION_TIMEOUT};
use platform::llm::LlmError;
use sha2::{Digest as _, Sha256};

use crate::search::DocumentIndex;
use crate::search::semantic::{self as fusion, Meanings};
use crate::store::{KeptVectors, Store};

/// Documents whose vectors a node keeps at most.
const DOCUMENTS: usize = 256;
/// Bytes of vectors a node keeps at most (GitHub's REST description, 2,192
/// sections, takes 3.4 MB at 1,536 numbers a section).
const DOCUMENT_BYTES: usize = 64 * 1024 * 1024;
/// Questions whose vectors a node keeps (the same question asked again, or
/// by the quick search and then the assistant, is embedded once).
const QUESTIONS: usize = 2_048;
/// Bytes of question vectors kept at most.
const QUESTION_BYTES: usize = 16 * 1024 * 1024;
/// Sections of a document embedded at most; past them the document is
/// searched by words alone (GitHub's description has 2,192).
pub const MAX_SECTIONS: usize = 10_000;
/// How long after a failure the model is not asked again: for a document's
/// sections, and for questions (a search does not wait on a model that is
/// down).
const PAUSE_AFTER_FAILURE: Duration = Duration::from_secs(60);

/// How often a node waiting for another's encoding of a document looks
/// for the vectors it keeps.
const CLAIM_POLL: Duration = Duration::from_secs(1);

/// Sections the built-in model encodes per turn of the blocking pool (a
/// few seconds of one core), so a shutdown or a question waits for at most
/// one turn.
const BUILTIN_BATCH: usize = 64;

/// The least cosine of the built-in model between a question and a section
/// for the section to join the search by meaning alone, when no word of
/// the question is in the document: nonsense ("zyzzyva quux") and
/// questions about what a document does not hold ("how do I bake bread"
/// of a pet store) stay under 0.2 with every section. On the development
/// half of `bench/search-eval` any floor from 0.2 to 0.4 gives the same
/// recall (docs/decisions.md).
pub const BUILTIN_FLOOR: f32 = 0.3;

/// Questions the built-in model encodes at once per node (about 10 ms of
/// one core each).
const QUESTIONS_AT_ONCE: usize = 2;

/// Which model gives the search its meaning.
#[derive(Debug, Clone)]
pub enum SearchModel {
    /// all-MiniLM-L6-v2 in the binary (`sentence::Encoder`).
    Builtin,
    /// The operator's embeddings model (`SVC_LLM_EMBEDDING_MODEL`).
    Remote(EmbeddingConfig),
}

impl SearchModel {
    /// The model of the settings `var` reads: the operator's embeddings
    /// model when `SVC_LLM_EMBEDDING_MODEL` names one (with `SVC_LLM_URL`),
    /// else the built-in one unless `SVC_SEARCH_MODEL` is `off`. An
    /// unknown `SVC_SEARCH_MODEL` is an error (a typo must not silently
    /// turn the model off or on).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, String> {
        let choice = var("SVC_SEARCH_MODEL").map(|v| v.trim().to_ascii_lowercase()).unwrap_or_default();
        let builtin = match choice.as_str() {
            "" | "builtin" | "on" => true,
            "off" | "none" => false,
            other => return Err(format!("SVC_SEARCH_MODEL is {other:?}: it is `builtin` (the default) or `off`")),
        };
        if let Some(remote) = EmbeddingConfig::from_vars(&var) {
            return Ok(Some(Self::Remote(remote)));
        }
        Ok(builtin.then_some(Self::Builtin))
    }

    /// The model's name, for logs.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Self::Builtin => "all-MiniLM-L6-v2 (built in)",
            Self::Remote(config) => &config.model,
        }
    }

    /// The name its vectors are kept under (`docs_search_vectors`): the
    /// built-in model's with a fingerprint of its weights, an operator's
    /// with its endpoint, so vectors of one model are never read as
    /// another's.
    #[must_use]
    pub fn key(&self) -> String {
        match self {
            Self::Builtin => {
                static FINGERPRINT: OnceLock<String> = OnceLock::new();
                let fingerprint = FINGERPRINT.get_or_init(|| {
                    platform::crypto::sha256_hex(sentence::builtin_weights()).chars().take(16).collect()
                });
                format!("{}@{fingerprint}", sentence::BUILTIN_NAME)
            }
            Self::Remote(config) => format!("{}@{}", config.model, config.url),
        }
    }

    /// The least closeness for a section to join the search by meaning
    /// alone ([`fusion::fuse`]): for the built-in model [`BUILTIN_FLOOR`];
    /// an operator's model, whose cosines may run on any scale, brings its
    /// nearest sections whatever their closeness.
    #[must_use]
    pub const fn floor(&self) -> f32 {
        match self {
            Self::Builtin => BUILTIN_FLOOR,
            Self::Remote(_) => f32::MIN,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SemanticError {
    #[error(transparent)]
    Model(#[from] LlmError),
    #[error(transparent)]
    Builtin(#[from] sentence::SentenceError),
    #[error("the built-in model's work stopped: {0}")]
    Stopped(String),
    #[error("the built-in model is encoding as many questions as it may")]
    Busy,
    #[error("a document of {0} sections is past the {MAX_SECTIONS} embedded")]
    TooLarge(usize),
    #[error("the model's vectors are of different widths")]
    Widths,
    #[error("a cache's lock was poisoned")]
    Poisoned,
}

impl From<Poisoned> for SemanticError {
    fn from(_: Poisoned) -> Self {
        Self::Poisoned
    }
}

/// See the module documentation.
pub struct Semantic {
    model: SearchModel,
    documents: DocumentCache<Meanings>,
    questions: DocumentCache<Vec<f32>>,
    /// When each document's embedding was last started (a failed one is
    /// tried again after [`PAUSE_AFTER_FAILURE`]).
    started: Mutex<HashMap<String, Instant>>,
    /// Until when questions are not sent (after a failure).
    paused_until: Mutex<Option<Instant>>,
    /// One document embedded at a time per node.
    builds: tokio::sync::Semaphore,
    /// This node's name in claims on a document's encoding.
    holder: String,
    /// Questions the built-in model encodes at once per node; a search
    /// finding none free ranks by words rather than wait (a flood of new
    /// questions costs at most this many cores).
    encoding: Arc<tokio::sync::Semaphore>,
}

impl std::fmt::Debug for Semantic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Semantic").field("model", &self.model.name()).field("documents", &self.documents).finish()
    }
}

impl Semantic {
    #[must_use]
    pub fn new(model: SearchModel) -> Self {
        Self {
            model,
            documents: DocumentCache::new(DOCUMENTS, DOCUMENT_BYTES),
            questions: DocumentCache::new(QUESTIONS, QUESTION_BYTES),
            started: Mutex::new(HashMap::new()),
            paused_until: Mutex::new(None),
            builds: tokio::sync::Semaphore::new(1),
            holder: uuid::Uuid::now_v7().to_string(),
            encoding: Arc::new(tokio::sync::Semaphore::new(QUESTIONS_AT_ONCE)),
        }
    }

    /// The model's name.
    #[must_use]
    pub fn model(&self) -> &str {
        self.model.name()
    }

    /// Whether the vectors of document `key`'s sections are ready.
    #[must_use]
    pub fn ready(&self, key: &str) -> bool {
        self.documents.ready(key).is_some()
    }

    /// Whether the document `key`'s sections should be embedded now: its
    /// vectors are not ready and no embedding of it started lately. Marks
    /// it started.
    pub fn claim(&self, key: &str) -> bool {
        if self.documents.ready(key).is_some() {
            return false;
        }
        let Ok(mut started) = self.started.lock() else { return false };
        let now = Instant::now();
        if started.get(key).is_some_and(|at| now.duration_since(*at) < PAUSE_AFTER_FAILURE) {
            return false;
        }
        if started.len() >= DOCUMENTS * 4 {
            started.retain(|_, at| now.duration_since(*at) < PAUSE_AFTER_FAILURE);
        }
        started.insert(key.to_owned(), now);
        true
    }

    /// Embeds the sections of document `key` and keeps their vectors: read
    /// from `store` when this model gave them for the same texts before
    /// (after a restart, or on another node), else encoded and written
    /// there. Nodes sharing the store encode a document once: while
    /// another node's claim on it runs, this one waits for the vectors
    /// that node keeps, and takes the claim over once it expires. The
    /// store is a cache: when it fails, the vectors are encoded and kept
    /// in memory alone.
    pub async fn build(
        &self,
        key: &str,
        index: &DocumentIndex,
        store: &Store,
        now: Timestamp,
    ) -> Result<(), SemanticError> {
        let started = Instant::now();
        let mut from = "model";
        let meanings = self
            .documents
            .get_or_build(key, || async {
                let texts: Vec<String> = index.sections().iter().map(fusion::section_text).collect();
                let texts_sha256 = texts_digest(&texts);
                let model = self.model.key();
                loop {
                    if let Some(meanings) = kept(store, key, &model, &texts_sha256, texts.len()).await {
                        from = "store";
                        let bytes = meanings.bytes();
                        return Ok((meanings, bytes));
                    }
                    let at = now.plus_millis(i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX));
                    let until = at.plus_millis(claim_millis(texts.len()));
                    match store.claim_docs_vectors(key, &model, &self.holder, at, until).await {
                        Ok(true) => break,
                        Ok(false) => tokio::time::sleep(CLAIM_POLL).await,
                        Err(error) => {
                            tracing::warn!(%error, document = %key, "the encoding could not be claimed; encoding");
                            break;
                        }
                    }
                }
                let encoded = {
                    let _turn = self.builds.acquire().await.map_err(|_| SemanticError::Poisoned)?;
                    embed_texts(&self.model, texts).await
                };
                let meanings = match encoded {
                    Ok(meanings) => meanings,
                    Err(error) => {
                        // Another node may try at once rather than wait for the claim to expire.
                        let _ = store.release_docs_vectors(key, &model, &self.holder).await;
                        return Err(error);
                    }
                };
                let kept = KeptVectors {
                    texts_sha256,
                    sections: meanings.len(),
                    width: meanings.width(),
                    bytes: meanings.to_bytes(),
                };
                if let Err(error) = store.put_docs_vectors(key, &model, &kept, now).await {
                    tracing::warn!(%error, document = %key, "the vectors could not be kept; they are kept in memory alone");
                }
                if let Err(error) = store.release_docs_vectors(key, &model, &self.holder).await {
                    tracing::warn!(%error, document = %key, "the encoding's claim could not be released; it expires");
                }
                let bytes = meanings.bytes();
                Ok::<_, SemanticError>((meanings, bytes))
            })
            .await?;
        tracing::info!(
            document = %key,
            sections = meanings.len(),
            width = meanings.width(),
            from,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "embedded a document's sections for the search"
        );
        Ok(())
    }

    /// The engine's ranking `engine` of `question` over `index` (places of
    /// sections) fused with the model's, when document `key`'s vectors are
    /// ready and the model answers in time; `None` otherwise.
    pub async fn rerank(
        &self,
        key: &str,
        index: &DocumentIndex,
        question: &str,
        engine: &[usize],
        limit: usize,
    ) -> Option<Vec<usize>> {
        let closeness = self.closeness(key, index, question).await?;
        Some(fusion::fuse(engine, &closeness, self.model.floor(), limit))
    }

    /// How close each section of document `key` (`index`) is to
    /// `question`, when the document's vectors are ready and the model
    /// answers in time; `None` otherwise.
    pub async fn closeness(&self, key: &str, index: &DocumentIndex, question: &str) -> Option<Vec<f32>> {
        let meanings = self.documents.ready(key)?;
        if meanings.len() != index.len() {
            return None;
        }
        let vector = self.question(question).await?;
        meanings.closeness(&vector)
    }

    /// The vector of a question, from the cache or the model; `None` while
    /// the model is paused after a failure, or when it fails now.
    async fn question(&self, question: &str) -> Option<Arc<Vec<f32>>> {
        let question: String = question.trim().chars().take(embeddings::MAX_INPUT_CHARS).collect();
        if self.paused_until.lock().ok().and_then(|p| *p).is_some_and(|until| Instant::now() < until) {
            return self.questions.ready(&question);
        }
        let found = self
            .questions
            .get_or_build(&question, || async {
                let mut vectors = match &self.model {
                    SearchModel::Builtin => {
                        let turn = self.encoding.clone().try_acquire_owned().map_err(|_| SemanticError::Busy)?;
                        encode(vec![question.clone()], Some(turn)).await?
                    }
                    SearchModel::Remote(config) => {
                        embeddings::embed(config, std::slice::from_ref(&question), QUESTION_TIMEOUT).await?
                    }
                };
                let vector = vectors.pop().ok_or(SemanticError::Widths)?;
                let bytes = vector.len() * 4 + question.len();
                Ok::<_, SemanticError>((vector, bytes))
            })
            .await;
        match found {
            Ok(vector) => Some(vector),
            Err(SemanticError::Busy) => {
                tracing::debug!("the built-in model is busy with other questions; this search ranks by words");
                None
            }
            Err(error) => {
                tracing::warn!(%error, model = %self.model.name(), "the embeddings model did not answer; searching by words alone for a minute");
                if let Ok(mut paused) = self.paused_until.lock() {
                    *paused = Some(Instant::now() + PAUSE_AFTER_FAILURE);
                }
                None
            }
        }
    }
}

/// The SHA-256 of a document's section texts, one after another, each
/// ended by a newline (no text holds one: `section_text` joins its words
/// with spaces).
fn texts_digest(texts: &[String]) -> String {
    let mut digest = Sha256::new();
    for text in texts {
        digest.update(text.as_bytes());
        digest.update(b"\n");
    }
    hex::encode(digest.finalize())
}

/// The vectors `model` gave for document `key`'s `sections` section
/// texts of digest `texts_sha256`, when the store keeps them.
async fn kept(store: &Store, key: &str, model: &str, texts_sha256: &str, sections: usize) -> Option<Meanings> {
    match store.docs_vectors(key, model).await {
        Ok(Some(kept)) if kept.texts_sha256 == texts_sha256 && kept.sections == sections => {
            let meanings = Meanings::from_bytes(&kept.bytes, kept.sections, kept.width);
            if meanings.is_none() {
                tracing::warn!(document = %key, %model, "the kept vectors are not of their shape; encoding again");
            }
            meanings
        }
        Ok(_) => None,
        Err(error) => {
            tracing::warn!(%error, document = %key, "the kept vectors could not be read; encoding");
            None
        }
    }
}

/// How long a claim on a document of `sections` sections lasts: a minute,
/// and 100 ms a section (the built-in model encodes about 50 a second on
/// one core), so a claim outlives its encoding and a stopped node's is
/// taken over in minutes at most.
fn claim_millis(sections: usize) -> i64 {
    60_000 + i64::try_from(sections).unwrap_or(i64::MAX / 200).saturating_mul(100)
}

/// The vectors of a document's section `texts`: asked of an operator's
/// model [`MAX_BATCH`] at a time, or encoded by the built-in one
/// [`BUILTIN_BATCH`] at a time.
pub async fn embed_texts(model: &SearchModel, texts: Vec<String>) -> Result<Meanings, SemanticError> {
    if texts.len() > MAX_SECTIONS {
        return Err(SemanticError::TooLarge(texts.len()));
    }
    let mut vectors = Vec::with_capacity(texts.len());
    match model {
        SearchModel::Builtin => {
            for batch in texts.chunks(BUILTIN_BATCH) {
                vectors.extend(encode(batch.to_vec(), None).await?);
            }
        }
        SearchModel::Remote(config) => {
            let timeout = Duration::from_secs(config.timeout_secs.max(1));
            for batch in texts.chunks(MAX_BATCH) {
                vectors.extend(embeddings::embed(config, batch, timeout).await?);
            }
        }
    }
    Meanings::new(&vectors).ok_or(SemanticError::Widths)
}

/// The built-in model's vectors of `texts`, encoded on the blocking pool;
/// `turn` is held until the encoding ends, even when the search that
/// asked for it is gone.
async fn encode(
    texts: Vec<String>,
    turn: Option<tokio::sync::OwnedSemaphorePermit>,
) -> Result<Vec<Vec<f32>>, SemanticError> {
    let encoder = sentence::Encoder::builtin()?;
    tokio::task::spawn_blocking(move || {
        let vectors = encoder.embed(&texts);
        drop(turn);
        vectors
    })
    .await
    .map_err(|error| SemanticError::Stopped(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Candidate;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn the_built_in_model_is_the_default_and_can_be_turned_off() {
        assert!(matches!(SearchModel::from_vars(vars(&[])), Ok(Some(SearchModel::Builtin))));
        assert!(matches!(SearchModel::from_vars(vars(&[("SVC_SEARCH_MODEL", " Off ")])), Ok(None)));
        let error = SearchModel::from_vars(vars(&[("SVC_SEARCH_MODEL", "minilm")])).unwrap_err();
        assert!(error.contains("`builtin` (the default) or `off`"), "{error}");
    }

    #[test]
    fn an_operators_model_takes_the_place_of_the_built_in_one() {
        let remote = SearchModel::from_vars(vars(&[
            ("SVC_LLM_URL", "http://127.0.0.1:11434/v1"),
            ("SVC_LLM_EMBEDDING_MODEL", "nomic-embed-text"),
        ]));
        assert!(matches!(&remote, Ok(Some(SearchModel::Remote(c))) if c.model == "nomic-embed-text"), "{remote:?}");
        // Without the URL the name means nothing, and the built-in one stays.
        let alone = SearchModel::from_vars(vars(&[("SVC_LLM_EMBEDDING_MODEL", "nomic-embed-text")]));
        assert!(matches!(alone, Ok(Some(SearchModel::Builtin))));
    }

    #[tokio::test]
    async fn a_busy_model_leaves_the_question_to_words_without_a_pause() {
        let semantic = Semantic::new(SearchModel::Builtin);
        let held: Vec<_> =
            (0..QUESTIONS_AT_ONCE).map(|_| semantic.encoding.clone().try_acquire_owned().unwrap()).collect();
        assert!(semantic.question("how many calls do I have left").await.is_none(), "every turn is taken");
        drop(held);
        assert!(semantic.paused_until.lock().unwrap().is_none(), "busy is no failure");
        let vector = semantic.question("how many calls do I have left").await.unwrap();
        assert_eq!(vector.len(), sentence::WIDTH);
    }

    #[tokio::test]
    async fn the_built_in_model_embeds_sections_and_questions() {
        let section = |title: &str, body: &str| Candidate {
            target: format!("op/{title}"),
            title: title.to_owned(),
            body: body.to_owned(),
            title_terms: String::new(),
            terms: String::new(),
        };
        let sections = [
            section("GET /rate_limit", "Get rate limit status for the authenticated user"),
            section("POST /user/repos", "Create a repository for the authenticated user"),
            section("DELETE /gists/{gist_id}", "Delete a gist"),
        ];
        let texts = sections.iter().map(fusion::section_text).collect();
        let meanings = embed_texts(&SearchModel::Builtin, texts).await.unwrap();
        assert_eq!((meanings.len(), meanings.width()), (3, sentence::WIDTH));
        let question = encode(vec!["how many API calls do I have left".to_owned()], None).await.unwrap();
        let closeness = meanings.closeness(&question[0]).unwrap();
        let closest = (0..closeness.len()).max_by(|a, b| closeness[*a].total_cmp(&closeness[*b]));
        assert_eq!(closest, Some(0), "{closeness:?}");
    }

    /// A migrated store in a temporary directory (kept while the directory is).
    async fn sqlite_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let db = platform::db::Db::open_sqlite(&dir.path().join("hub.db")).await.unwrap();
        db.migrate(&crate::MIGRATIONS).await.unwrap();
        (dir, Store::new(db))
    }

    #[tokio::test]
    async fn vectors_are_kept_and_read_back_for_the_same_model_and_texts_only() {
        let (_dir, store) = sqlite_store().await;
        let now = Timestamp::from_millis(1);
        let section = |title: &str, body: &str| {
            let (title_terms, terms) = crate::search::section_terms(title, body);
            Candidate {
                target: format!("op/{title}"),
                title: title.to_owned(),
                body: body.to_owned(),
                title_terms,
                terms,
            }
        };
        let index = DocumentIndex::new(vec![
            section("GET /rate_limit", "Get rate limit status for the authenticated user"),
            section("DELETE /gists/{gist_id}", "Delete a gist"),
        ]);
        let model = SearchModel::Builtin;
        let question = "how many API calls do I have left";
        // Encoded on the first build and kept.
        let first = Semantic::new(model.clone());
        first.build("doc", &index, &store, now).await.unwrap();
        let kept = store.docs_vectors("doc", &model.key()).await.unwrap().unwrap();
        assert_eq!((kept.sections, kept.width), (2, sentence::WIDTH));
        let encoded = first.closeness("doc", &index, question).await.unwrap();
        assert!(encoded[0] > encoded[1], "{encoded:?}");
        // Another node (or a restart) reads what is kept: planted vectors
        // that put the gist first show it did not encode again.
        let mut planted = vec![vec![0.0; sentence::WIDTH]; 2];
        planted[0][0] = 1.0;
        let question_vector = encode(vec![question.to_owned()], None).await.unwrap().remove(0);
        planted[1].clone_from(&question_vector);
        let planted = Meanings::new(&planted).unwrap();
        let plant = |texts_sha256: String, bytes: Vec<u8>| KeptVectors {
            texts_sha256,
            sections: 2,
            width: sentence::WIDTH,
            bytes,
        };
        store
            .put_docs_vectors("doc", &model.key(), &plant(kept.texts_sha256.clone(), planted.to_bytes()), now)
            .await
            .unwrap();
        let second = Semantic::new(model.clone());
        second.build("doc", &index, &store, now).await.unwrap();
        let read = second.closeness("doc", &index, question).await.unwrap();
        assert!(read[1] > 0.99 && read[0].abs() < 0.2, "{read:?}");
        // Vectors of other texts, or bytes not of their shape, are encoded
        // again (and kept in their place).
        for (texts_sha256, bytes) in [("0".repeat(64), planted.to_bytes()), (kept.texts_sha256.clone(), vec![0; 7])] {
            store.put_docs_vectors("doc", &model.key(), &plant(texts_sha256, bytes), now).await.unwrap();
            let again = Semantic::new(model.clone());
            again.build("doc", &index, &store, now).await.unwrap();
            let closeness = again.closeness("doc", &index, question).await.unwrap();
            assert!((closeness[0] - encoded[0]).abs() < 1e-3, "{closeness:?} against {encoded:?}");
            assert_eq!(store.docs_vectors("doc", &model.key()).await.unwrap(), Some(kept.clone()));
        }
        // Another model's vectors are kept under its own name.
        let remote = SearchModel::Remote(EmbeddingConfig {
            url: "http://127.0.0.1:9/v1".to_owned(),
            model: "nomic-embed-text".to_owned(),
            api_key: None,
            timeout_secs: 1,
        });
        assert_ne!(remote.key(), model.key());
        assert_eq!(store.docs_vectors("doc", &remote.key()).await.unwrap(), None);
    }

    #[tokio::test]
    async fn nodes_sharing_a_store_encode_a_document_once() {
        let (_dir, store) = sqlite_store().await;
        let now = Timestamp::from_millis(1_000);
        let candidate = |title: &str| {
            let (title_terms, terms) = crate::search::section_terms(title, "");
            Candidate { target: title.to_owned(), title: title.to_owned(), body: String::new(), title_terms, terms }
        };
        let index = DocumentIndex::new(vec![candidate("GET /rate_limit"), candidate("DELETE /gists/{gist_id}")]);
        let model = SearchModel::Builtin;
        let key = model.key();

        // One holder at a time, until the claim expires.
        assert!(store.claim_docs_vectors("a", &key, "one", now, now.plus_millis(10)).await.unwrap());
        assert!(store.claim_docs_vectors("a", &key, "one", now, now.plus_millis(20)).await.unwrap(), "renewed");
        assert!(!store.claim_docs_vectors("a", &key, "two", now.plus_millis(19), now.plus_millis(99)).await.unwrap());
        assert!(store.claim_docs_vectors("a", &key, "two", now.plus_millis(20), now.plus_millis(99)).await.unwrap());
        store.release_docs_vectors("a", &key, "one").await.unwrap();
        assert!(!store.claim_docs_vectors("a", &key, "one", now, now).await.unwrap(), "only its holder releases it");
        store.release_docs_vectors("a", &key, "two").await.unwrap();
        assert!(store.claim_docs_vectors("a", &key, "one", now, now).await.unwrap());

        // Another node encodes the document: this one waits for the
        // vectors it keeps (planted ones, which no encoding gives).
        assert!(store.claim_docs_vectors("doc", &key, "other", now, now.plus_millis(60_000)).await.unwrap());
        let texts: Vec<String> = index.sections().iter().map(fusion::section_text).collect();
        let mut planted = vec![vec![0.0; sentence::WIDTH]; 2];
        planted[0][0] = 1.0;
        planted[1][1] = 1.0;
        let planted = Meanings::new(&planted).unwrap();
        let other_node = async {
            tokio::time::sleep(Duration::from_millis(1_500)).await;
            let kept = KeptVectors {
                texts_sha256: texts_digest(&texts),
                sections: 2,
                width: sentence::WIDTH,
                bytes: planted.to_bytes(),
            };
            store.put_docs_vectors("doc", &key, &kept, now).await.unwrap();
            store.release_docs_vectors("doc", &key, "other").await.unwrap();
        };
        let waiting = Semantic::new(model.clone());
        let (built, ()) = tokio::join!(waiting.build("doc", &index, &store, now), other_node);
        built.unwrap();
        assert_eq!(waiting.documents.ready("doc").unwrap().to_bytes(), planted.to_bytes(), "read, not encoded");

        // A claim whose holder stopped is taken over once it expires.
        assert!(store.claim_docs_vectors("stale", &key, "stopped", now, now.plus_millis(1)).await.unwrap());
        let taking = Semantic::new(model.clone());
        tokio::time::timeout(Duration::from_secs(30), taking.build("stale", &index, &store, now.plus_millis(2)))
            .await
            .unwrap()
            .unwrap();
        let kept = store.docs_vectors("stale", &key).await.unwrap().unwrap();
        assert_ne!(kept.bytes, planted.to_bytes(), "encoded here");
        assert!(store.claim_docs_vectors("stale", &key, "third", now, now).await.unwrap(), "and released");
    }
}
