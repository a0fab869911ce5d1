//! Search that understands API descriptions: the words a section is
//! indexed under and the words a question is asked with, both normalised
//! the same way, so "how do I list the issues of a repository" meets
//! `GET /repos/{owner}/{repo}/issues` ("List repository issues").
//!
//! - Identifiers are split where people would split them: path segments,
//!   `camelCase`, `snake_case`, `kebab-case`, letters from digits
//!   (`listPetsByOwner` is `list pets by owner`).
//! - Every word is reduced to its English stem (Snowball, the stemmer
//!   search engines use), so `issues`, `issue` and `issued` meet.
//! - An operation is also indexed under what its method means: `GET` on a
//!   collection is *list*, on one item *get*; `POST` *create*; `PUT` and
//!   `PATCH` *update*; `DELETE` *delete*.
//! - A question loses its filler words (`how`, `do`, `I`, `the`) and each
//!   remaining word brings its synonyms (`remove` asks for `delete` too,
//!   `repo` for `repository`).
//!
//! The store keeps each document's sections with these words (one table on
//! either database, so every node answers alike); a node builds an inverted
//! index of a document in memory on its first search of it
//! ([`DocumentIndex`]), so a search costs the same however many documents
//! the hub holds. This module does no I/O.

use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

/// Words a question carries that say nothing about which operation it means.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "api", "are", "as", "at", "be", "by", "can", "could", "do", "does", "endpoint",
    "for", "from", "give", "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "one", "or", "please",
    "should", "some", "that", "the", "their", "there", "this", "to", "use", "using", "want", "way", "we", "what",
    "when", "where", "which", "who", "will", "with", "would", "you", "your",
];

/// The stems of the words [`intent`] adds.
const INTENT_STEMS: &[&str] = &["list", "get", "creat", "updat", "delet"];

/// Groups of words people use for one another in API questions; a question
/// word brings every word of its group. The first word of each group is
/// the one operations are indexed under.
const SYNONYMS: &[&[&str]] = &[
    &["list", "all", "index", "enumerate", "browse", "every"],
    &["get", "fetch", "retrieve", "read", "show", "view", "find", "lookup", "look"],
    &["create", "add", "new", "make", "post", "insert", "register", "open", "submit"],
    &["update", "edit", "modify", "change", "patch", "set", "rename", "replace"],
    &["delete", "remove", "destroy", "drop", "erase", "revoke", "cancel", "unregister"],
    &["search", "query", "filter", "lookup"],
    &["repository", "repo", "repos"],
    &["organization", "org", "orgs", "organisation"],
    &["user", "account", "member", "person", "people"],
    &["authenticated", "me", "current", "my", "own"],
    &["pull", "pr", "prs"],
    &["comment", "reply", "note"],
    &["star", "starred", "stargazer"],
    &["secret", "credential", "key"],
    &["webhook", "hook"],
    &["team", "group"],
    &["label", "tag"],
    &["download", "export", "archive"],
    &["upload", "import"],
    &["image", "picture", "photo", "avatar"],
    &["pet", "animal"],
    &["order", "purchase"],
];

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// One word, lowercased and stemmed.
fn stem(word: &str) -> String {
    stemmer().stem(&word.to_lowercase()).into_owned()
}

/// The words of `text` as people would read them: split at anything that
/// is not a letter or digit, at lower-to-upper case changes (`listPets`),
/// before the last capital of a run (`HTTPServer` is `http server`) and
/// between letters and digits. Lowercased, not stemmed; at most 64
/// characters per word.
#[must_use]
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for chunk in text.split(|c: char| !c.is_alphanumeric()) {
        let mut word = String::new();
        let mut chars = chunk.chars().peekable();
        let mut prev: Option<char> = None;
        while let Some(here) = chars.next() {
            if let Some(prev) = prev {
                let next_lower = chars.peek().is_some_and(|c| c.is_lowercase());
                let boundary = (prev.is_lowercase() && here.is_uppercase())
                    || (prev.is_uppercase() && here.is_uppercase() && next_lower)
                    || (prev.is_alphabetic() && here.is_ascii_digit())
                    || (prev.is_ascii_digit() && here.is_alphabetic());
                if boundary {
                    out.push(std::mem::take(&mut word));
                }
            }
            word.push(here);
            prev = Some(here);
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out.into_iter().filter(|w| !w.is_empty()).map(|w| w.chars().take(64).collect::<String>().to_lowercase()).collect()
}

/// `text` as the index stores it: each word's stem, space-separated, plus
/// the whole identifiers (`listpets`) so an exact operationId still wins.
#[must_use]
pub fn index_text(text: &str) -> String {
    let mut out: Vec<String> = words(text).iter().map(|w| stem(w)).collect();
    for identifier in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
        if identifier.chars().any(char::is_uppercase) || identifier.contains('_') {
            let joined: String = identifier.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
            if joined.len() > 2 {
                out.push(joined);
            }
        }
    }
    out.join(" ")
}

/// What an operation's method means, as words it is indexed under: `GET`
/// on a path ending in a parameter is *get*, on a collection *list*.
#[must_use]
pub fn intent(method: &str, path: &str) -> &'static str {
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let on_item = last.starts_with('{') || last.starts_with(':');
    match method.to_ascii_uppercase().as_str() {
        "GET" if on_item => "get",
        "GET" => "list get",
        "POST" => "create",
        "PUT" | "PATCH" => "update",
        "DELETE" => "delete",
        _ => "",
    }
}

/// The words an operation's title is indexed under: its method's intent,
/// and the path's literal segments (parameters left out, they name no
/// resource).
#[must_use]
pub fn operation_title_terms(method: &str, path: &str, summary: Option<&str>, operation_id: Option<&str>) -> String {
    let literal: Vec<&str> =
        path.split('/').filter(|s| !s.is_empty() && !s.starts_with('{') && !s.starts_with(':')).collect();
    let mut text = String::from(intent(method, path));
    for part in [literal.join(" ").as_str(), summary.unwrap_or(""), operation_id.unwrap_or("")] {
        text.push(' ');
        text.push_str(part);
    }
    index_text(&text)
}

/// The index words of one section of the docs (`title`, `body` as the
/// renderer extracts them): an operation's title is `METHOD /path` and its
/// body starts with its summary; anything else (a schema, a type, a tag) is
/// indexed by its name. Returns `(title terms, body terms)`.
#[must_use]
pub fn section_terms(title: &str, body: &str) -> (String, String) {
    let summary = body.lines().next();
    let title_terms = match title.split_once(' ') {
        Some((method, path)) if path.starts_with('/') && method.chars().all(|c| c.is_ascii_uppercase()) => {
            operation_title_terms(method, path, summary, None)
        }
        _ => index_text(title),
    };
    (title_terms, distinct(&index_text(body)))
}

/// Each word once, in first-seen order: the ranking asks only whether a
/// section holds a word, and long descriptions repeat theirs.
fn distinct(text: &str) -> String {
    let mut seen = std::collections::HashSet::new();
    text.split(' ').filter(|w| !w.is_empty() && seen.insert(*w)).collect::<Vec<_>>().join(" ")
}

/// A question as groups of alternatives: each group is one word of the
/// question (stemmed) with its synonyms; filler words are dropped. At most
/// 8 groups and 64 words in all, so a long question stays cheap.
#[must_use]
pub fn query_groups(question: &str) -> Vec<Vec<String>> {
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut total = 0;
    for word in words(question) {
        if STOP_WORDS.contains(&word.as_str()) || groups.len() >= 8 {
            continue;
        }
        let mut group = vec![stem(&word)];
        for synonyms in SYNONYMS {
            if synonyms.contains(&word.as_str()) {
                for other in *synonyms {
                    let other = stem(other);
                    if !group.contains(&other) {
                        group.push(other);
                    }
                }
            }
        }
        group.retain(|w| w.chars().all(char::is_alphanumeric) && !w.is_empty());
        group.truncate(64usize.saturating_sub(total).max(1));
        total += group.len();
        if !group.is_empty() && !groups.contains(&group) {
            groups.push(group);
        }
    }
    if groups.is_empty() {
        // Only filler ("how do I"): search what was typed after all.
        groups = words(question).into_iter().take(8).map(|w| vec![stem(&w)]).collect();
    }
    groups
}

/// A section the index found, with the words it was indexed under.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Candidate {
    pub target: String,
    pub title: String,
    pub body: String,
    pub title_terms: String,
    pub terms: String,
}

/// Bytes of documents kept per node by [`DocumentIndexes`] (GitHub's REST
/// description, 2,192 sections, holds about 4 MB).
const CACHED_INDEX_BYTES: usize = 64 * 1024 * 1024;

/// One document's sections with an inverted index of the words they are
/// indexed under (title words and description words apart), built on a
/// node's first search of the document from the rows the store keeps.
///
/// Hand-written rather than a search engine crate's: the words are already
/// normalised by this module, the index is per document and read-only, and
/// what a search needs from it is which question groups each section holds
/// (a bitmask per section), which a general engine's scoring does not give.
#[derive(Debug)]
pub struct DocumentIndex {
    sections: Vec<Candidate>,
    operation: Vec<bool>,
    title_words: Vec<usize>,
    /// Every word with its id, sorted, for exact and prefix lookups.
    vocabulary: Vec<(String, usize)>,
    title_postings: Vec<Vec<usize>>,
    body_postings: Vec<Vec<usize>>,
    bytes: usize,
}

impl DocumentIndex {
    /// Indexes `sections` (in document order: ties keep it).
    #[must_use]
    pub fn new(sections: Vec<Candidate>) -> Self {
        let mut ids: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut title_postings: Vec<Vec<usize>> = Vec::new();
        let mut body_postings: Vec<Vec<usize>> = Vec::new();
        let mut bytes = 0;
        for (n, section) in sections.iter().enumerate() {
            bytes += section.target.len() + section.title.len() + section.body.len();
            bytes += section.title_terms.len() + section.terms.len();
            for (text, title) in [(&section.title_terms, true), (&section.terms, false)] {
                for word in text.split(' ').filter(|w| !w.is_empty()) {
                    let next = ids.len();
                    let id = *ids.entry(word.to_owned()).or_insert(next);
                    if id == title_postings.len() {
                        title_postings.push(Vec::new());
                        body_postings.push(Vec::new());
                    }
                    let postings = if title { title_postings.get_mut(id) } else { body_postings.get_mut(id) };
                    if let Some(postings) = postings
                        && postings.last() != Some(&n)
                    {
                        postings.push(n);
                        bytes += std::mem::size_of::<usize>();
                    }
                }
            }
        }
        let mut vocabulary: Vec<(String, usize)> = ids.into_iter().collect();
        vocabulary.sort_unstable();
        bytes += vocabulary.iter().map(|(w, _)| w.len() + 32).sum::<usize>();
        Self {
            operation: sections.iter().map(|c| is_operation(&c.title)).collect(),
            title_words: sections.iter().map(|c| c.title_terms.split(' ').filter(|w| !w.is_empty()).count()).collect(),
            sections,
            vocabulary,
            title_postings,
            body_postings,
            bytes,
        }
    }

    /// Roughly the memory the index holds.
    #[must_use]
    pub const fn bytes(&self) -> usize {
        self.bytes
    }

    /// The ids of `word`, or of every word it begins when `prefix`.
    fn ids<'a>(&'a self, word: &'a str, prefix: bool) -> impl Iterator<Item = usize> + 'a {
        let from = self.vocabulary.partition_point(|(w, _)| w.as_str() < word);
        self.vocabulary
            .get(from..)
            .unwrap_or_default()
            .iter()
            .take_while(move |(w, _)| if prefix { w.starts_with(word) } else { w == word })
            .map(|(_, id)| *id)
    }

    /// At most `limit` sections most likely to answer the question, for
    /// [`rank`]: those holding a question word (any of its group, the last
    /// group's first word also as a prefix) in their title or description,
    /// the sections holding more groups in their titles first. Each search
    /// touches only the postings of the question's words.
    #[must_use]
    pub fn candidates(&self, groups: &[Vec<String>], limit: usize) -> Vec<Candidate> {
        let last = groups.len().saturating_sub(1);
        let mut title = vec![0u8; self.sections.len()];
        let mut body = vec![0u8; self.sections.len()];
        // `query_groups` makes at most 8 groups: one bit each.
        for (g, group) in groups.iter().enumerate().take(8) {
            let bit = 1u8 << g;
            for (j, word) in group.iter().enumerate() {
                for id in self.ids(word, g == last && j == 0) {
                    let mark = |postings: Option<&Vec<usize>>, held: &mut Vec<u8>| {
                        for &n in postings.map(Vec::as_slice).unwrap_or_default() {
                            if let Some(slot) = held.get_mut(n) {
                                *slot |= bit;
                            }
                        }
                    };
                    mark(self.title_postings.get(id), &mut title);
                    mark(self.body_postings.get(id), &mut body);
                }
            }
        }
        let all = u32::try_from(groups.len().min(8)).unwrap_or(8);
        let mut scored: Vec<(i32, usize, usize)> = title
            .iter()
            .zip(&body)
            .enumerate()
            .filter(|(_, (t, b))| **t | **b != 0)
            .map(|(n, (t, b))| {
                let in_title = t.count_ones();
                // In tenths, so the order is exact integer arithmetic.
                let mut score = i32::try_from(30 * in_title + 10 * (b & !t).count_ones()).unwrap_or(0);
                if in_title == all {
                    score += 20;
                }
                if !self.operation.get(n).copied().unwrap_or(false) {
                    score -= 15;
                }
                (score, self.title_words.get(n).copied().unwrap_or(0), n)
            })
            .collect();
        scored.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        scored.into_iter().take(limit).filter_map(|(_, _, n)| self.sections.get(n).cloned()).collect()
    }
}

/// The indexes of the documents this node searched lately. A document's
/// sections never change once indexed (documents are content-addressed),
/// so the copy is exact on every node.
#[derive(Debug, Default)]
pub struct DocumentIndexes {
    documents: std::sync::Mutex<(std::collections::HashMap<String, std::sync::Arc<DocumentIndex>>, usize)>,
}

impl DocumentIndexes {
    pub fn get(&self, spec_sha256: &str) -> Option<std::sync::Arc<DocumentIndex>> {
        self.documents.lock().ok().and_then(|d| d.0.get(spec_sha256).cloned())
    }

    /// Indexes a document's sections and keeps the index, forgetting the
    /// others when the bytes kept would pass the bound.
    pub fn insert(&self, spec_sha256: &str, rows: Vec<Candidate>) -> std::sync::Arc<DocumentIndex> {
        let index = std::sync::Arc::new(DocumentIndex::new(rows));
        if let Ok(mut documents) = self.documents.lock() {
            if documents.1 + index.bytes() > CACHED_INDEX_BYTES {
                documents.0.clear();
                documents.1 = 0;
            }
            if index.bytes() <= CACHED_INDEX_BYTES {
                documents.1 += index.bytes();
                documents.0.insert(spec_sha256.to_owned(), index.clone());
            }
        }
        index
    }
}

/// Characters of a section's description a search hit shows.
pub const SNIPPET_CHARS: usize = 240;

/// How many candidates the index hands to [`rank`].
pub const CANDIDATES: usize = 250;

fn is_operation(title: &str) -> bool {
    title
        .split_once(' ')
        .is_some_and(|(method, path)| path.starts_with('/') && method.chars().all(|c| c.is_ascii_uppercase()))
}

/// Orders what the index found the way a person means a question: every
/// question word found in a section's title (its intent, path and summary)
/// counts three, in its body one; a title that holds all of them counts
/// more; each title word the question did not ask for costs a little (so
/// "List repository issues" beats "List repository issue events"), and
/// sections that are not operations (schemas, webhooks) come after
/// operations that answer as well. Ties keep the index's order.
#[must_use]
pub fn rank(groups: &[Vec<String>], candidates: Vec<Candidate>) -> Vec<Candidate> {
    let last = groups.len().saturating_sub(1);
    // Each question word names its group: one pass over a section's words
    // marks the groups it holds (a few hundred words, one hash lookup each).
    let mut group_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, group) in groups.iter().enumerate() {
        for word in group {
            group_of.entry(word.as_str()).or_insert(i);
        }
    }
    let prefix = groups.last().and_then(|g| g.first()).map(String::as_str);
    let held = |words: &[&str]| -> Vec<bool> {
        let mut found = vec![false; groups.len()];
        for word in words {
            if let Some(&i) = group_of.get(word)
                && let Some(slot) = found.get_mut(i)
            {
                *slot = true;
            }
            if let (Some(prefix), Some(slot)) = (prefix, found.get_mut(last))
                && word.starts_with(prefix)
            {
                *slot = true;
            }
        }
        found
    };
    let mut scored: Vec<(f64, usize, usize, Candidate)> = candidates
        .into_iter()
        .enumerate()
        .map(|(order, candidate)| {
            let title: Vec<&str> = candidate.title_terms.split(' ').filter(|w| !w.is_empty()).collect();
            let body: Vec<&str> = candidate.terms.split(' ').filter(|w| !w.is_empty()).collect();
            let (in_title_groups, in_body_groups) = (held(&title), held(&body));
            let mut score = 0.0;
            let mut in_title = 0;
            for (t, b) in in_title_groups.iter().zip(&in_body_groups) {
                if *t {
                    score += 3.0;
                    in_title += 1;
                } else if *b {
                    score += 1.0;
                }
            }
            if in_title == groups.len() && !groups.is_empty() {
                score += 2.0;
            }
            // Words the method implies (`list`, `get`, ...) are not the
            // author's: they never count as unasked.
            let mut unasked: Vec<&str> = title
                .iter()
                .copied()
                .filter(|w| !STOP_WORDS.contains(w) && !INTENT_STEMS.contains(w))
                .filter(|w| !group_of.contains_key(w))
                .collect();
            unasked.sort_unstable();
            unasked.dedup();
            score -= 0.25 * unasked.len() as f64;
            if !is_operation(&candidate.title) {
                score -= 1.5;
            }
            // "get a commit" means one item, "list the commits" a collection.
            if let Some((method, path)) = candidate.title.split_once(' ') {
                let asks = |verb: &str| groups.iter().any(|g| g.first().is_some_and(|w| w == verb));
                match intent(method, path) {
                    "get" if asks("get") && !asks("list") => score += 0.5,
                    "list get" if asks("list") => score += 0.5,
                    _ => {}
                }
            }
            // Among equals, the shorter path is the more general endpoint.
            let depth = candidate.title.matches('/').count();
            (score, depth, order, candidate)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    scored.into_iter().map(|(_, _, _, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_as_people_read_them() {
        assert_eq!(words("listPetsByOwner"), ["list", "pets", "by", "owner"]);
        assert_eq!(words("/repos/{owner}/{repo}/pull_requests"), ["repos", "owner", "repo", "pull", "requests"]);
        assert_eq!(words("HTTPServer v2beta"), ["http", "server", "v", "2", "beta"]);
        assert_eq!(words("get-all-items"), ["get", "all", "items"]);
    }

    #[test]
    fn the_index_holds_stems_and_whole_identifiers() {
        let text = index_text("listPets returns repositories");
        assert!(text.split(' ').any(|w| w == "list"), "{text}");
        assert!(text.split(' ').any(|w| w == "pet"), "{text}");
        assert!(text.split(' ').any(|w| w == "repositori"), "{text}");
        assert!(text.split(' ').any(|w| w == "listpets"), "{text}");
    }

    #[test]
    fn methods_mean_what_people_ask_for() {
        assert_eq!(intent("GET", "/repos/{owner}/{repo}/issues"), "list get");
        assert_eq!(intent("GET", "/repos/{owner}/{repo}/issues/{issue_number}"), "get");
        assert_eq!(intent("post", "/pets"), "create");
        assert_eq!(intent("PATCH", "/pets/{id}"), "update");
        assert_eq!(intent("DELETE", "/pets/{id}"), "delete");
        let terms = operation_title_terms("DELETE", "/repos/{owner}/{repo}", Some("Delete a repository"), None);
        assert!(terms.contains("delet") && terms.contains("repo") && terms.contains("repositori"), "{terms}");
        assert!(!terms.contains("owner"), "parameters name no resource: {terms}");
    }

    fn candidate(title: &str, summary: &str) -> Candidate {
        let (title_terms, terms) = section_terms(title, summary);
        Candidate { target: title.to_owned(), title: title.to_owned(), body: summary.to_owned(), title_terms, terms }
    }

    #[test]
    fn the_operation_that_answers_the_whole_question_comes_first() {
        let found = rank(
            &query_groups("how do I list the issues of a repository"),
            vec![
                candidate("GET /repos/{owner}/{repo}/issues/events", "List issue events for a repository"),
                candidate("issue", "Issues are a great way to keep track of tasks"),
                candidate("GET /issues", "List issues assigned to the authenticated user"),
                candidate("GET /repos/{owner}/{repo}/issues", "List repository issues"),
            ],
        );
        let titles: Vec<&str> = found.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(titles[0], "GET /repos/{owner}/{repo}/issues", "{titles:?}");
        assert_eq!(titles[3], "issue", "a schema comes after operations: {titles:?}");
        let found = rank(
            &query_groups("remove a pet"),
            vec![candidate("GET /pets/{id}", "Show a pet"), candidate("DELETE /pets/{id}", "Delete a pet")],
        );
        assert_eq!(found[0].title, "DELETE /pets/{id}");
    }

    #[test]
    fn the_index_hands_over_sections_holding_the_question_words() {
        let index = DocumentIndex::new(vec![
            candidate("GET /repos/{owner}/{repo}/issues", "List repository issues"),
            candidate("GET /gists", "List gists"),
            candidate("issue", "Issues are a great way to keep track of tasks"),
            candidate("POST /repos/{owner}/{repo}/forks", "Create a fork"),
        ]);
        let found = index.candidates(&query_groups("list the issues of a repository"), 10);
        let titles: Vec<&str> = found.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(titles.first(), Some(&"GET /repos/{owner}/{repo}/issues"), "{titles:?}");
        assert!(titles.contains(&"issue") && titles.contains(&"GET /gists"), "any question word admits: {titles:?}");
        // The last word counts as a prefix while it is typed.
        let typed = index.candidates(&query_groups("create a for"), 10);
        assert_eq!(typed.first().map(|c| c.title.as_str()), Some("POST /repos/{owner}/{repo}/forks"));
        assert!(index.candidates(&query_groups("zyzzyva"), 10).is_empty());
        assert_eq!(index.candidates(&query_groups("list"), 1).len(), 1, "the limit holds");
    }

    #[test]
    fn questions_lose_filler_and_gain_synonyms() {
        let groups = query_groups("How do I remove a repo?");
        assert_eq!(groups.len(), 2, "{groups:?}");
        assert!(groups[0].contains(&"delet".to_owned()), "{groups:?}");
        assert!(groups[1].contains(&"repositori".to_owned()), "{groups:?}");
        let only_filler = query_groups("how do I");
        assert!(!only_filler.is_empty(), "a question of filler words still searches");
        let long = query_groups(&"word ".repeat(100));
        assert!(long.len() <= 8 && long.iter().map(Vec::len).sum::<usize>() <= 64);
        let odd = query_groups("\"); DROP TABLE x; -- *");
        assert!(odd.iter().flatten().all(|w| w.chars().all(char::is_alphanumeric)), "{odd:?}");
    }
}
