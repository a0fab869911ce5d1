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

pub mod semantic;

/// Words a question carries that say nothing about which operation it means.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "api", "are", "as", "at", "be", "by", "can", "could", "do", "does", "endpoint",
    "for", "from", "give", "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "one", "or", "please",
    "should", "some", "that", "the", "their", "there", "this", "to", "use", "using", "want", "way", "we", "what",
    "when", "where", "which", "who", "will", "with", "would", "you", "your",
];

/// The stems of the words [`intent`] adds.
const INTENT_STEMS: &[&str] = &["list", "get", "creat", "updat", "delet"];

/// Verbs that ask for what a method means: a question's verb brings the
/// intent (the first word, which operations are indexed under) as a full
/// alternative, but not the other verbs (an operation titled "invite" is no
/// answer to "make").
const VERBS: &[&[&str]] = &[
    &["list", "all", "index", "enumerate", "browse", "every"],
    &["get", "fetch", "retrieve", "read", "show", "view", "find", "lookup", "look", "see", "check"],
    &[
        "create",
        "add",
        "new",
        "make",
        "post",
        "insert",
        "register",
        "open",
        "submit",
        "start",
        "begin",
        "launch",
        "publish",
        "send",
        "generate",
        "schedule",
        "invite",
        "provision",
        "trigger",
        "compose",
        "write",
        "spawn",
        "initiate",
        "establish",
    ],
    &[
        "update",
        "edit",
        "modify",
        "change",
        "patch",
        "set",
        "rename",
        "replace",
        "mark",
        "move",
        "toggle",
        "enable",
        "disable",
        "switch",
        "adjust",
        "configure",
        "assign",
    ],
    &[
        "delete",
        "remove",
        "destroy",
        "drop",
        "erase",
        "revoke",
        "cancel",
        "unregister",
        "wipe",
        "purge",
        "kill",
        "terminate",
        "uninstall",
    ],
];

/// Groups of words people use for one another in API questions; a question
/// word brings every word of its group.
const SYNONYMS: &[&[&str]] = &[
    &["count", "number", "total"],
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
#[must_use]
pub fn stem(word: &str) -> String {
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

/// One word of a question with the words that may stand for it, each with
/// how much finding it counts (1 for the word itself, its synonyms and the
/// words of its phrase; meaning is the sentence model's, `crate::semantic`).
pub type Group = Vec<(String, f32)>;

/// Words a question may use together for one word, read before any other:
/// "get rid of a repository" deletes it, "how many" counts.
const PHRASES: &[(&[&str], &str)] = &[
    (&["get", "rid", "of"], "delete"),
    (&["how", "many"], "count"),
    (&["how", "much"], "count"),
    (&["number", "of"], "count"),
    (&["set", "up"], "create"),
    (&["spin", "up"], "create"),
    (&["kick", "off"], "start"),
    (&["look", "up"], "find"),
    (&["turn", "off"], "disable"),
    (&["turn", "on"], "enable"),
    (&["sign", "in"], "login"),
    (&["log", "in"], "login"),
    (&["sign", "out"], "logout"),
    (&["log", "out"], "logout"),
    (&["sign", "up"], "register"),
    (&["up", "to", "date"], "current"),
];

/// Words a question may start with before what it asks ("how do I ...").
const LEAD_INS: &[&str] = &[
    "how", "do", "does", "i", "to", "can", "could", "want", "need", "please", "we", "you", "should", "would", "let",
    "me", "is", "there", "a", "way",
];

/// Words that follow a verb in the imperative ("star a repository",
/// "comment on an issue") and rarely a noun.
const AFTER_A_VERB: &[&str] = &[
    "a", "an", "the", "my", "our", "your", "this", "these", "those", "every", "all", "some", "one", "two", "three",
    "it", "them", "up", "on", "off",
];

/// Whether a question asks for a change rather than a reading: it says a
/// verb of change ("create", "remove"), or it is an imperative of a verb
/// that is not one of reading ("star a repository", "comment on an
/// issue"). A question that asks for a change prefers the methods that
/// change (`POST`, `PUT`, `PATCH`, `DELETE`); any other reads (`GET`).
#[must_use]
pub fn asks_for_change(question: &str) -> bool {
    let typed = words(question);
    let start = typed.iter().take_while(|w| LEAD_INS.contains(&w.as_str())).count();
    let rest = typed.get(start..).unwrap_or_default();
    // A phrase is its one verb ("get rid of a pet" deletes).
    let phrase = PHRASES
        .iter()
        .find(|(parts, _)| parts.len() <= rest.len() && parts.iter().zip(rest).all(|(part, w)| part == w));
    let (first, next) = match phrase {
        Some((parts, meaning)) => ((*meaning).to_owned(), rest.get(parts.len())),
        None => match rest.first() {
            Some(first) => (first.clone(), rest.get(1)),
            None => return false,
        },
    };
    let of = |verbs: &[&str]| verbs.contains(&first.as_str());
    let reads = VERBS.iter().take(2).any(|verbs| of(verbs))
        || ["search", "download", "export", "tell", "give", "return", "display", "print"].contains(&first.as_str());
    if reads {
        return false;
    }
    VERBS.iter().skip(2).any(|verbs| of(verbs)) || next.is_some_and(|n| AFTER_A_VERB.contains(&n.as_str()))
}

/// The most words a question is searched with, so a long question stays
/// cheap: at most 8 groups, and this many alternatives in all.
const MAX_QUESTION_WORDS: usize = 128;

/// A question as groups of alternatives: each group is one word of the
/// question (stemmed) with its synonyms; filler words are dropped. At most
/// 8 groups.
#[must_use]
pub fn query_groups(question: &str) -> Vec<Group> {
    let typed = words(question);
    // Each word as read, with the words of the phrase it stands for.
    let mut read: Vec<(String, &[&str])> = Vec::new();
    let mut at = 0;
    while let Some(word) = typed.get(at) {
        let phrase = PHRASES
            .iter()
            .find(|(parts, _)| parts.iter().enumerate().all(|(k, part)| typed.get(at + k).is_some_and(|w| w == part)));
        match phrase {
            Some((parts, meaning)) => {
                read.push(((*meaning).to_owned(), parts));
                at += parts.len();
            }
            None => {
                read.push((word.clone(), &[]));
                at += 1;
            }
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut total = 0;
    for (word, phrase) in read {
        if STOP_WORDS.contains(&word.as_str()) || groups.len() >= 8 {
            continue;
        }
        let own = stem(&word);
        if word.chars().count() < 2 {
            // What is left of "what's" or "user's".
            continue;
        }
        let verb = VERBS.iter().find(|verbs| verbs.contains(&word.as_str()));
        if let Some(intent) = verb.and_then(|verbs| verbs.first()).map(|w| stem(w))
            && intent != own
            && groups.iter().any(|g| g.iter().any(|(w, weight)| *w == intent && *weight >= 1.0))
        {
            // "make a new ...": one verb of creation is enough.
            continue;
        }
        let mut group: Group = vec![(own.clone(), 1.0)];
        let add = |group: &mut Group, word: String, weight: f32| {
            if word.is_empty() || !word.chars().all(char::is_alphanumeric) {
                return;
            }
            match group.iter_mut().find(|(w, _)| *w == word) {
                Some(found) => found.1 = found.1.max(weight),
                None => group.push((word, weight)),
            }
        };
        if let Some(intent) = verb.and_then(|verbs| verbs.first()) {
            add(&mut group, stem(intent), 1.0);
        }
        // "how many" also finds "How many items to return"; a verb of a
        // phrase is not asked for ("get rid of" asks for no `GET`).
        for part in phrase.iter().filter(|w| !STOP_WORDS.contains(w) && !VERBS.iter().any(|v| v.contains(w))) {
            add(&mut group, stem(part), 1.0);
        }
        for synonyms in SYNONYMS {
            if synonyms.contains(&word.as_str()) {
                for other in *synonyms {
                    add(&mut group, stem(other), 1.0);
                }
            }
        }
        group.retain(|(w, _)| !w.is_empty());
        group.truncate(MAX_QUESTION_WORDS.saturating_sub(total).max(1));
        total += group.len();
        if !group.is_empty() && !groups.iter().any(|g| g.first() == group.first()) {
            groups.push(group);
        }
    }
    if groups.is_empty() {
        // Only filler ("how do I"): search what was typed after all.
        groups = typed.into_iter().take(8).map(|w| vec![(stem(&w), 1.0)]).collect();
    }
    groups
}

/// Whether `stem` is a filler word's or a method intent's stem: words that
/// say nothing about which operation a question means.
#[must_use]
pub fn is_filler_stem(stem_: &str) -> bool {
    INTENT_STEMS.contains(&stem_) || STOP_WORDS.iter().any(|w| stem(w) == stem_)
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
/// what a search needs from it is how well each section holds each question
/// group (the best alternative's weight, in its title and in its
/// description apart), which a general engine's scoring does not give.
/// Meaning is the sentence model's (`crate::semantic`), fused with this
/// ranking.
#[derive(Debug)]
pub struct DocumentIndex {
    sections: Vec<Candidate>,
    /// Every word with its id, sorted, for exact and prefix lookups.
    vocabulary: Vec<(String, usize)>,
    title_postings: Vec<Vec<usize>>,
    body_postings: Vec<Vec<usize>>,
    /// What ranking asks of each section, worked out once.
    shapes: Vec<Shape>,
    bytes: usize,
}

/// What ranking asks of a section besides its words.
#[derive(Debug)]
struct Shape {
    /// The ids of its title's words, each once, the method's intent aside.
    title_ids: Vec<usize>,
    /// Its method's intent ([`intent`]), empty for a section that is not
    /// an operation.
    intent: &'static str,
    /// Whether it is a `GET`.
    reads: bool,
    /// Segments of its path: among equals the shorter path is the more
    /// general endpoint.
    depth: usize,
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
        let shapes: Vec<Shape> = sections
            .iter()
            .map(|section| {
                let mut title_ids: Vec<usize> = section
                    .title_terms
                    .split(' ')
                    .filter(|w| !w.is_empty() && !INTENT_STEMS.contains(w))
                    .filter_map(|w| {
                        let at = vocabulary.binary_search_by(|(v, _)| v.as_str().cmp(w)).ok()?;
                        vocabulary.get(at).map(|(_, id)| *id)
                    })
                    .collect();
                title_ids.sort_unstable();
                title_ids.dedup();
                let (intent, reads) = match section.title.split_once(' ') {
                    Some((method, path)) if is_operation(&section.title) => {
                        (intent(method, path), method.eq_ignore_ascii_case("GET"))
                    }
                    _ => ("", false),
                };
                Shape { title_ids, intent, reads, depth: section.title.matches('/').count() }
            })
            .collect();
        bytes += shapes.iter().map(|s| s.title_ids.len() * 8 + 64).sum::<usize>();
        Self { shapes, sections, vocabulary, title_postings, body_postings, bytes }
    }

    /// How many sections the index holds.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.sections.len()
    }

    /// Whether the index holds no section.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.sections.is_empty()
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

    /// The sections that answer `question` best, best first, at most
    /// `limit` of them.
    #[must_use]
    pub fn search(&self, question: &str, limit: usize) -> Vec<Candidate> {
        self.positions(question, limit).into_iter().filter_map(|n| self.sections.get(n).cloned()).collect()
    }

    /// [`DocumentIndex::search`] as places in [`DocumentIndex::sections`].
    #[must_use]
    pub fn positions(&self, question: &str, limit: usize) -> Vec<usize> {
        self.ranked(&query_groups(question), asks_for_change(question), limit)
    }

    /// The sections, in document order.
    #[must_use]
    pub fn sections(&self) -> &[Candidate] {
        &self.sections
    }

    /// Orders the sections holding any word of the question the way a
    /// person means it. For each question word (group), the best of its
    /// alternatives found in a section's title (its method's intent, path
    /// and summary) counts three, in its description one, each scaled by
    /// the alternative's weight and by how rare the word is in this
    /// document (a word every operation holds tells them apart least).
    /// Then: a title holding every question word counts more; each title
    /// word the question did not ask for costs a little (so "List
    /// repository issues" beats "List repository issue events"); a question
    /// without a verb of change reads (`GET` first); sections that are not
    /// operations (schemas, webhooks) come after operations that answer as
    /// well; among equals the shorter path and then document order win.
    /// Touches only the postings of the question's words.
    fn ranked(&self, groups: &[Group], imperative: bool, limit: usize) -> Vec<usize> {
        let count = groups.len().min(8);
        let sections = self.sections.len();
        let mut title = vec![0f32; sections * count];
        let mut body = vec![0f32; sections * count];
        let mut direct = vec![0u8; sections];
        let mut touched: Vec<usize> = Vec::new();
        let mut seen = vec![false; sections];
        let scale = ((sections + 1) as f32).ln().max(1.0);
        for (g, group) in groups.iter().enumerate().take(count) {
            for (j, (word, weight)) in group.iter().enumerate() {
                // The last word also as a prefix, while it is typed.
                for id in self.ids(word, g + 1 == count && j == 0) {
                    let titles = self.title_postings.get(id).map(Vec::as_slice).unwrap_or_default();
                    let bodies = self.body_postings.get(id).map(Vec::as_slice).unwrap_or_default();
                    let held = titles.len().max(bodies.len());
                    let rarity = ((sections + 1) as f32 / (held + 1) as f32).ln() / scale;
                    let strength = weight * (COMMON_WORD + (1.0 - COMMON_WORD) * rarity);
                    for (postings, slots) in [(titles, &mut title), (bodies, &mut body)] {
                        for &n in postings {
                            if let Some(slot) = slots.get_mut(n * count + g) {
                                if let Some(seen) = seen.get_mut(n)
                                    && !*seen
                                {
                                    *seen = true;
                                    touched.push(n);
                                }
                                *slot = slot.max(strength);
                            }
                        }
                    }
                    if *weight >= 1.0 {
                        for &n in titles {
                            if let Some(bits) = direct.get_mut(n) {
                                *bits |= 1 << g;
                            }
                        }
                    }
                }
            }
        }
        let mut asked: Vec<usize> = groups.iter().flatten().flat_map(|(w, _)| self.ids(w, false)).collect();
        asked.sort_unstable();
        asked.dedup();
        let asks = |verb: &str| groups.iter().any(|g| g.iter().any(|(w, weight)| w == verb && *weight >= 1.0));
        let changes = imperative || asks("creat") || asks("updat") || asks("delet");
        let every = if count >= 8 { u8::MAX } else { (1u8 << count) - 1 };
        let mut scored: Vec<(f32, usize, usize)> = touched
            .into_iter()
            .map(|n| {
                let mut score = 0.0;
                for g in 0..count {
                    let t = title.get(n * count + g).copied().unwrap_or(0.0);
                    let b = body.get(n * count + g).copied().unwrap_or(0.0);
                    score += (3.0 * t).max(b);
                }
                if count > 0 && direct.get(n).is_some_and(|bits| bits & every == every) {
                    score += 1.5;
                }
                let Some(shape) = self.shapes.get(n) else { return (f32::MIN, 0, n) };
                // Words the method implies (`list`, `get`, ...) are not the
                // author's: they never count as unasked.
                let unasked = shape.title_ids.iter().filter(|id| asked.binary_search(id).is_err()).count();
                score -= 0.2 * unasked as f32;
                if shape.intent.is_empty() {
                    score -= 1.5;
                } else {
                    match shape.intent {
                        // "get a commit" means one item, "list the commits"
                        // a collection.
                        "get" if asks("get") && !asks("list") => score += 0.5,
                        "list get" if asks("list") => score += 0.5,
                        _ => {}
                    }
                    if changes != shape.reads {
                        score += 0.5;
                    }
                }
                (score, shape.depth, n)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        scored.into_iter().take(limit).map(|(_, _, n)| n).collect()
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

/// How many sections a search ranks and hands on.
pub const CANDIDATES: usize = 250;

/// How much a match on a word every section holds counts, against 1 for a
/// word only one section holds.
const COMMON_WORD: f32 = 0.4;

fn is_operation(title: &str) -> bool {
    title
        .split_once(' ')
        .is_some_and(|(method, path)| path.starts_with('/') && method.chars().all(|c| c.is_ascii_uppercase()))
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

    fn titles(found: &[Candidate]) -> Vec<&str> {
        found.iter().map(|c| c.title.as_str()).collect()
    }

    #[test]
    fn the_operation_that_answers_the_whole_question_comes_first() {
        let index = DocumentIndex::new(vec![
            candidate("GET /repos/{owner}/{repo}/issues/events", "List issue events for a repository"),
            candidate("issue", "Issues are a great way to keep track of tasks"),
            candidate("GET /issues", "List issues assigned to the authenticated user"),
            candidate("GET /repos/{owner}/{repo}/issues", "List repository issues"),
            candidate("GET /gists", "List gists"),
        ]);
        let found = index.search("how do I list the issues of a repository", 10);
        let titles = titles(&found);
        assert_eq!(titles[0], "GET /repos/{owner}/{repo}/issues", "{titles:?}");
        let position = |t: &str| titles.iter().position(|x| *x == t);
        assert!(
            position("GET /gists") > position("GET /issues"),
            "a list that is not of issues comes after: {titles:?}"
        );
        assert_eq!(titles.last(), Some(&"issue"), "a schema comes after operations: {titles:?}");
        let pets = DocumentIndex::new(vec![
            candidate("GET /pets/{id}", "Show a pet"),
            candidate("DELETE /pets/{id}", "Delete a pet"),
        ]);
        assert_eq!(pets.search("remove a pet", 10)[0].title, "DELETE /pets/{id}");
        assert_eq!(pets.search("get rid of a pet", 10)[0].title, "DELETE /pets/{id}", "a phrase means one verb");
        let listed = DocumentIndex::new(vec![
            candidate("GET /pets", "List pets\nlimit How many items to return"),
            candidate("GET /owners", "List owners"),
        ]);
        assert_eq!(listed.search("how many", 10)[0].title, "GET /pets", "a phrase keeps its own words");
        assert_eq!(pets.search("the pet with id 4", 10)[0].title, "GET /pets/{id}", "a question without a verb reads");
    }

    #[test]
    fn imperatives_ask_for_changes() {
        for question in [
            "star a repository",
            "comment on an issue",
            "how do I fork a repo",
            "remove the label",
            "mark all as read",
            "get rid of a pet",
        ] {
            assert!(asks_for_change(question), "{question}");
        }
        for question in [
            "list the issues",
            "who starred a repository",
            "bands that sound like Radiohead",
            "details of the user",
            "show my repos",
            "",
        ] {
            assert!(!asks_for_change(question), "{question}");
        }
    }

    #[test]
    fn verbs_of_creation_reach_the_post() {
        let index = DocumentIndex::new(vec![
            candidate("GET /repos/{owner}/{repo}/deployments", "List deployments"),
            candidate("POST /repos/{owner}/{repo}/deployments", "Create a deployment"),
        ]);
        for question in ["start a deployment", "make a deployment", "kick off a deployment"] {
            assert_eq!(index.search(question, 10)[0].title, "POST /repos/{owner}/{repo}/deployments", "{question}");
        }
        assert_eq!(index.search("deployments", 10)[0].title, "GET /repos/{owner}/{repo}/deployments");
    }

    #[test]
    fn rare_words_tell_operations_apart_more_than_common_ones() {
        let mut sections: Vec<Candidate> =
            (0..20).map(|i| candidate(&format!("GET /things/{i}/repositories"), "List repositories")).collect();
        sections.push(candidate("GET /rate_limit", "Get rate limit status for the repositories"));
        let index = DocumentIndex::new(sections);
        assert_eq!(index.search("rate of the repositories", 10)[0].title, "GET /rate_limit");
    }

    #[test]
    fn the_index_finds_sections_holding_the_question_words() {
        let index = DocumentIndex::new(vec![
            candidate("GET /repos/{owner}/{repo}/issues", "List repository issues"),
            candidate("GET /gists", "List gists"),
            candidate("issue", "Issues are a great way to keep track of tasks"),
            candidate("POST /repos/{owner}/{repo}/forks", "Create a fork"),
        ]);
        let found = index.search("list the issues of a repository", 10);
        let titles = titles(&found);
        assert_eq!(titles.first(), Some(&"GET /repos/{owner}/{repo}/issues"), "{titles:?}");
        assert!(titles.contains(&"issue") && titles.contains(&"GET /gists"), "any question word admits: {titles:?}");
        // The last word counts as a prefix while it is typed.
        let typed = index.search("create a for", 10);
        assert_eq!(typed.first().map(|c| c.title.as_str()), Some("POST /repos/{owner}/{repo}/forks"));
        assert!(index.search("zyzzyva", 10).is_empty());
        let far = index.search("near", 10);
        assert!(
            far.is_empty(),
            "a word far from every section finds nothing: {:?}",
            far.iter().map(|c| &c.title).collect::<Vec<_>>()
        );
        assert_eq!(index.search("list", 1).len(), 1, "the limit holds");
    }

    #[test]
    fn questions_lose_filler_and_gain_synonyms() {
        let groups = query_groups("How do I remove a repo?");
        assert_eq!(groups.len(), 2, "{groups:?}");
        let holds = |g: &Group, word: &str| g.iter().any(|(w, weight)| w == word && *weight >= 1.0);
        assert!(holds(&groups[0], "delet"), "{groups:?}");
        assert!(holds(&groups[1], "repositori"), "{groups:?}");
        let only_filler = query_groups("how do I");
        assert!(!only_filler.is_empty(), "a question of filler words still searches");
        let long = query_groups(&"word song track artist album user repository ".repeat(100));
        assert!(long.len() <= 8 && long.iter().map(Vec::len).sum::<usize>() <= MAX_QUESTION_WORDS);
        let odd = query_groups("\"); DROP TABLE x; -- *");
        assert!(odd.iter().flatten().all(|(w, _)| w.chars().all(char::is_alphanumeric)), "{odd:?}");
    }
}
