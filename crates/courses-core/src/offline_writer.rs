//! The built-in course writer, used without a model: it reads the prompt
//! and, when the author gives one, a source text (Markdown or plain text),
//! and writes a course extractively, so every sentence it teaches and every
//! answer it scores comes from what the author wrote.
//!
//! 1. Segment: the source's Markdown headings (else its paragraphs, else the
//!    prompt's sentences) give the topics; Markdown syntax is stripped.
//! 2. Summarise: sentences are ranked by the document frequency of their
//!    content words (a classic extractive score), and each topic keeps its
//!    best sentences in their original order.
//! 3. Outline: an introduction with one objective per topic, teaching
//!    screens (text, then a list of further key points or flip cards for
//!    definitions), a knowledge check after every two teaching screens, and
//!    a summary made of each topic's key sentence.
//! 4. Questions come only from sentences shown on the teaching screens
//!    before them: a sentence with a key term blanked out (the options are
//!    key terms of the course the sentence does not contain), and a
//!    true/false statement that is either a taught sentence or that
//!    sentence with its key term swapped for another term of the course.
//!
//! Pure and deterministic: the same input gives the same course.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Value, json};

use crate::content::{MAX_STACK_CARDS, MAX_TEXT_CHARS, MAX_TITLE_CHARS};

/// The longest source text taken (about 25 pages): at most 12 bytes a
/// character when JSON-escaped, so any request within this limit also fits
/// the 1 MiB body limit, and one just above it is refused as invalid (400),
/// not as too large.
pub const MAX_SOURCE_CHARS: usize = 80_000;

const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "again", "all", "also", "among", "an", "and", "any", "are", "as", "at", "be", "because",
    "been", "before", "being", "between", "both", "but", "by", "can", "could", "course", "create", "did", "do", "does",
    "each", "every", "few", "for", "from", "had", "has", "have", "help", "here", "how", "if", "in", "into", "is", "it",
    "its", "just", "learn", "learners", "make", "many", "may", "more", "most", "much", "must", "need", "new", "no",
    "not", "now", "of", "on", "once", "one", "only", "or", "other", "our", "out", "over", "own", "people", "same",
    "should", "so", "some", "such", "teach", "team", "teams", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "through", "to", "too", "two", "under", "until", "up", "using", "very", "want",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "why", "will", "with", "within", "without",
    "would", "you", "your",
];

/// Common verbs: poor blanks, distractors and topic titles ("Pedestrians
/// keep"), so they never become key terms on their own.
const COMMON_VERBS: &[&str] = &[
    "answer",
    "answers",
    "ask",
    "asks",
    "become",
    "becomes",
    "bring",
    "call",
    "calls",
    "carry",
    "carries",
    "check",
    "checks",
    "come",
    "comes",
    "escalate",
    "escalates",
    "follow",
    "follows",
    "get",
    "gets",
    "give",
    "gives",
    "goes",
    "inspect",
    "inspects",
    "keep",
    "keeps",
    "know",
    "knows",
    "let",
    "look",
    "looks",
    "move",
    "moves",
    "put",
    "puts",
    "read",
    "reads",
    "report",
    "reports",
    "run",
    "runs",
    "say",
    "says",
    "see",
    "sees",
    "send",
    "sends",
    "set",
    "sets",
    "show",
    "shows",
    "sound",
    "sounds",
    "stay",
    "stays",
    "stop",
    "stops",
    "tag",
    "tags",
    "take",
    "takes",
    "tell",
    "tells",
    "test",
    "tests",
    "try",
    "tries",
    "turn",
    "turns",
    "use",
    "uses",
    "wear",
    "wears",
    "work",
    "works",
    "write",
    "writes",
];

fn is_term_word(word: &str) -> bool {
    is_content_word(word) && !COMMON_VERBS.contains(&word)
}

/// One topic of the source: its title and its sentences in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topic {
    pub title: String,
    pub sentences: Vec<String>,
}

fn is_content_word(word: &str) -> bool {
    word.chars().count() >= 3 && !STOP_WORDS.contains(&word) && !word.chars().all(|c| c.is_ascii_digit())
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'').filter(|w| !w.is_empty()).map(str::to_lowercase)
}

/// Markdown inline syntax removed: emphasis, code, links (their text kept),
/// images, HTML tags.
fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' | '_' | '`' | '~' => {}
            '!' if chars.peek() == Some(&'[') => {}
            '[' => {}
            ']' => {
                // A link's target: skip "(...)".
                if chars.peek() == Some(&'(') {
                    for skipped in chars.by_ref() {
                        if skipped == ')' {
                            break;
                        }
                    }
                }
            }
            '<' => {
                for skipped in chars.by_ref() {
                    if skipped == '>' {
                        break;
                    }
                }
            }
            c => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The sentences of a text: split at `.`, `!`, `?` followed by a space (so
/// "e.g." and "3.5" stay whole), each of 4 to 60 words, capitalised and
/// ending with its punctuation.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        // "e.g.", "etc." and initials do not end a sentence. Only the last
        // few characters are looked at, so a text without spaces stays linear.
        let abbreviation = c == '.' && {
            let mut tail: Vec<char> = current.chars().rev().take(8).take_while(|ch| !ch.is_whitespace()).collect();
            tail.reverse();
            let last_word: String = tail.into_iter().collect::<String>().to_lowercase();
            ["e.g.", "i.e.", "etc.", "vs.", "approx.", "no.", "mr.", "ms.", "dr."].contains(&last_word.as_str())
                || (last_word.chars().count() <= 3 && last_word.chars().filter(|ch| ch.is_alphabetic()).count() == 1)
        };
        let ends = matches!(c, '.' | '!' | '?') && !abbreviation && chars.peek().is_none_or(|n| n.is_whitespace());
        if ends || chars.peek().is_none() {
            let sentence = current.trim().to_owned();
            current.clear();
            let count = sentence.split_whitespace().count();
            if (4..=60).contains(&count) {
                let mut s = sentence;
                if !s.ends_with(['.', '!', '?']) {
                    s.push('.');
                }
                let mut cs = s.chars();
                if let Some(first) = cs.next() {
                    out.push(first.to_uppercase().chain(cs).collect());
                }
            }
        }
    }
    out
}

/// The topics of a source text: sections under Markdown headings, else
/// groups of paragraphs; list items and lines become sentences.
pub fn segment(source: &str) -> Vec<Topic> {
    let source: String = source.chars().take(MAX_SOURCE_CHARS).collect();
    let mut topics: Vec<Topic> = Vec::new();
    let mut title = String::new();
    let mut body = String::new();
    let mut in_code = false;
    let flush = |title: &str, body: &str, topics: &mut Vec<Topic>| {
        let found = sentences(body);
        if !found.is_empty() {
            topics.push(Topic { title: title.to_owned(), sentences: found });
        }
    };
    let mut paragraphs_in_topic = 0;
    for raw in source.lines() {
        let line = raw.trim();
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code
            || line.starts_with('|')
            || line.chars().all(|c| matches!(c, '-' | '=' | '*' | '_' | ' ')) && !line.is_empty()
        {
            continue;
        }
        if let Some(heading) = line.strip_prefix('#') {
            flush(&title, &body, &mut topics);
            body.clear();
            paragraphs_in_topic = 0;
            title = plain(heading.trim_start_matches('#').trim());
            continue;
        }
        if line.is_empty() {
            paragraphs_in_topic += 1;
            // Without headings, every three paragraphs make a topic.
            if title.is_empty() && paragraphs_in_topic >= 3 && !body.trim().is_empty() {
                flush(&title, &body, &mut topics);
                body.clear();
                paragraphs_in_topic = 0;
            }
            continue;
        }
        let item = line.trim_start_matches(['-', '*', '+', '>']).trim_start();
        let item =
            item.split_once(". ").filter(|(n, _)| n.chars().all(|c| c.is_ascii_digit())).map_or(item, |(_, rest)| rest);
        let text = plain(item);
        body.push_str(&text);
        // A list item or a line without final punctuation is a sentence of its own.
        if item.len() != line.len() || !text.ends_with(['.', '!', '?', ',', ';', ':']) {
            body.push('.');
        }
        body.push(' ');
    }
    flush(&title, &body, &mut topics);
    topics
}

/// Document frequencies of content words over all sentences.
fn frequencies(topics: &[Topic]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for sentence in topics.iter().flat_map(|t| &t.sentences) {
        for word in words(sentence).filter(|w| is_content_word(w)) {
            *counts.entry(word).or_insert(0) += 1;
        }
    }
    counts
}

/// A sentence's weight: the mean frequency of its content words, a little
/// less for very short or very long sentences.
fn weight(sentence: &str, freq: &HashMap<String, usize>) -> f64 {
    let content: Vec<String> = words(sentence).filter(|w| is_content_word(w)).collect();
    if content.is_empty() {
        return 0.0;
    }
    let total: usize = content.iter().map(|w| freq.get(w).copied().unwrap_or(0)).sum();
    #[expect(clippy::cast_precision_loss, reason = "word counts are small")]
    let mean = total as f64 / content.len() as f64;
    let length = sentence.split_whitespace().count();
    if (6..=30).contains(&length) { mean } else { mean * 0.7 }
}

/// The `keep` best sentences of a topic, in their original order.
fn summarise(topic: &Topic, freq: &HashMap<String, usize>, keep: usize) -> Vec<String> {
    let mut ranked: Vec<(usize, f64)> = topic.sentences.iter().enumerate().map(|(i, s)| (i, weight(s, freq))).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut chosen: Vec<usize> = ranked.into_iter().take(keep).map(|(i, _)| i).collect();
    chosen.sort_unstable();
    chosen.into_iter().filter_map(|i| topic.sentences.get(i).cloned()).collect()
}

/// Key terms: content words (and two-word phrases of content words that
/// recur), most frequent first, then by first appearance.
fn key_terms(topics: &[Topic], max: usize) -> Vec<String> {
    let mut seen: HashMap<String, (usize, usize)> = HashMap::new();
    let mut position = 0;
    for sentence in topics.iter().flat_map(|t| &t.sentences) {
        let list: Vec<String> = words(sentence).collect();
        for (i, word) in list.iter().enumerate() {
            position += 1;
            if !is_term_word(word) {
                continue;
            }
            seen.entry(word.clone()).or_insert((0, position)).0 += 1;
            if let Some(next) = list.get(i + 1).filter(|n| is_term_word(n)) {
                let pair = format!("{word} {next}");
                seen.entry(pair).or_insert((0, position)).0 += 1;
            }
        }
    }
    let mut ranked: Vec<(String, (usize, usize))> =
        seen.into_iter().filter(|(term, (count, _))| !term.contains(' ') || *count >= 2).collect();
    // A recurring pair outranks its words; single words need two mentions
    // unless the text is short.
    ranked.sort_by(|a, b| {
        let score = |t: &(String, (usize, usize))| t.1.0 * if t.0.contains(' ') { 3 } else { 2 };
        score(b).cmp(&score(a)).then(a.1.1.cmp(&b.1.1))
    });
    let mut out: Vec<String> = Vec::new();
    for (term, _) in ranked {
        // Skip a word already covered by a chosen pair, and the reverse.
        if out.iter().any(|t| t.split(' ').any(|w| w == term) || term.split(' ').any(|w| w == t)) {
            continue;
        }
        out.push(term);
        if out.len() >= max {
            break;
        }
    }
    out
}

fn title_case(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

fn clip(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

/// The position of `term` in `sentence` as a whole word (any case).
fn find_term(sentence: &str, term: &str) -> Option<(usize, usize)> {
    let lower = sentence.to_lowercase();
    if lower.len() != sentence.len() {
        return None;
    }
    let mut from = 0;
    while let Some(found) = lower.get(from..)?.find(term) {
        let at = from + found;
        let end = at + term.len();
        let before = sentence.get(..at)?.chars().last();
        let after = sentence.get(end..)?.chars().next();
        if before.is_none_or(|c| !c.is_alphanumeric()) && after.is_none_or(|c| !c.is_alphanumeric()) {
            return Some((at, end));
        }
        from = at + 1;
    }
    None
}

/// The taught sentence and term a question is made from: the sentence with
/// the most frequent key term it contains.
fn question_source<'a>(
    taught: &'a [String],
    terms: &[String],
    used: &BTreeSet<(String, &'static str)>,
    kind: &'static str,
) -> Option<(&'a String, String)> {
    taught
        .iter()
        .filter(|s| !used.contains(&((*s).clone(), kind)))
        .find_map(|s| terms.iter().find(|t| find_term(s, t).is_some()).map(|t| (s, t.clone())))
}

/// A cloze question and a true/false statement from what `taught` holds.
fn check_blocks(
    taught: &[String],
    terms: &[String],
    used: &mut BTreeSet<(String, &'static str)>,
    seed: usize,
) -> Vec<Value> {
    let mut blocks = Vec::new();
    if let Some((sentence, term)) = question_source(taught, terms, used, "cloze") {
        used.insert((sentence.clone(), "cloze"));
        if let Some((at, end)) = find_term(sentence, &term) {
            let blank =
                format!("{}_____{}", sentence.get(..at).unwrap_or_default(), sentence.get(end..).unwrap_or_default());
            let lower = sentence.to_lowercase();
            let mut options: Vec<String> =
                terms.iter().filter(|t| **t != term && find_term(&lower, t).is_none()).take(3).cloned().collect();
            let position = seed % (options.len() + 1);
            options.insert(position, term.clone());
            if options.len() >= 2 {
                blocks.push(json!({
                    "type": "multiple_choice",
                    "question": clip(&format!("Complete the sentence: \u{201c}{blank}\u{201d}"), MAX_TEXT_CHARS),
                    "options": options,
                    "correctIndex": position,
                }));
            }
        }
    }
    // True/false from another taught sentence: as taught (true) on even
    // seeds, with its key term swapped for another term (false) on odd ones.
    if let Some((sentence, term)) = question_source(taught, terms, used, "statement") {
        used.insert((sentence.clone(), "statement"));
        let lower = sentence.to_lowercase();
        let swap = terms.iter().find(|t| {
            **t != term && find_term(&lower, t).is_none() && !t.contains(&term) && !term.contains(t.as_str())
        });
        match (seed % 2, swap, find_term(sentence, &term)) {
            (1, Some(other), Some((at, end))) => {
                let replaced = if at == 0 { title_case(other) } else { other.clone() };
                let statement = format!(
                    "{}{replaced}{}",
                    sentence.get(..at).unwrap_or_default(),
                    sentence.get(end..).unwrap_or_default()
                );
                blocks.push(json!({ "type": "true_false", "statement": statement, "answer": false }));
            }
            _ => blocks.push(json!({ "type": "true_false", "statement": sentence, "answer": true })),
        }
    }
    blocks
}

/// A definition card (`Term is ...`, `Term: ...`) from a sentence.
fn definition(sentence: &str) -> Option<Value> {
    let (front, back) =
        sentence.split_once(" is ").or_else(|| sentence.split_once(" are ")).or_else(|| sentence.split_once(": "))?;
    let front_words = front.split_whitespace().count();
    ((1..=5).contains(&front_words) && back.split_whitespace().count() >= 3)
        .then(|| json!({ "front": clip(front, MAX_TEXT_CHARS), "back": clip(sentence, MAX_TEXT_CHARS) }))
}

/// A topic's title when the source gives none: the two neighbouring
/// content words of its sentences that the whole text uses most.
fn untitled_topic(topic: &Topic, freq: &HashMap<String, usize>) -> String {
    let mut best: Option<(usize, String)> = None;
    for sentence in &topic.sentences {
        let list: Vec<String> = words(sentence).collect();
        for pair in list.windows(2) {
            if let [a, b] = pair
                && is_term_word(a)
                && is_term_word(b)
            {
                let score = freq.get(a).copied().unwrap_or(0) + freq.get(b).copied().unwrap_or(0);
                if best.as_ref().is_none_or(|(s, _)| score > *s) {
                    best = Some((score, format!("{a} {b}")));
                }
            }
        }
    }
    best.map_or_else(|| "Key points".to_owned(), |(_, t)| clip(&title_case(&t), MAX_TITLE_CHARS))
}

/// The course for `prompt` (and `source`, when given) in `target` screens.
pub fn write(prompt: &str, source: Option<&str>, target: usize) -> (String, Vec<Value>) {
    // Blanks around the prompt say nothing; a prompt of blanks only (and no
    // source to write from) still gets a course with something to read.
    let prompt = prompt.trim();
    let blank_prompt = prompt.is_empty();
    let prompt = if blank_prompt { "New course" } else { prompt };
    let title = course_title(prompt, &[]);
    let mut topics = source.map(segment).unwrap_or_default();
    if topics.is_empty() {
        // The prompt alone: each sentence is a topic, its first clause (the
        // title) excepted when there is more to teach.
        let mut from_prompt: Vec<Topic> = segment(prompt)
            .into_iter()
            .flat_map(|t| t.sentences)
            .map(|s| Topic { title: String::new(), sentences: vec![s] })
            .collect();
        if from_prompt.len() > 1 {
            from_prompt.retain(|t| t.sentences.first().is_none_or(|s| s.trim_end_matches('.') != title));
        }
        topics = from_prompt;
    }
    let title = if source.is_some() && blank_prompt { course_title("", &topics) } else { title };
    let freq = frequencies(&topics);
    let terms = key_terms(&topics, 12);
    // Teaching units: each topic's best sentences (at most six, in order),
    // two to a screen.
    let mut units: Vec<(String, Vec<String>)> = Vec::new();
    for topic in &topics {
        let name =
            if topic.title.is_empty() { untitled_topic(topic, &freq) } else { clip(&topic.title, MAX_TITLE_CHARS) };
        for chunk in summarise(topic, &freq, 6).chunks(3) {
            units.push((name.clone(), chunk.to_vec()));
        }
    }
    let n = target.max(1);
    let opening = units.first().and_then(|(_, s)| s.first().cloned()).unwrap_or_else(|| clip(prompt, MAX_TEXT_CHARS));
    // The introduction teaches the opening sentence; the screens go on
    // from there (unless it is all there is).
    if units.iter().map(|(_, s)| s.len()).sum::<usize>() > 1 {
        if let Some((_, first)) = units.first_mut() {
            first.retain(|s| *s != opening);
        }
        units.retain(|(_, s)| !s.is_empty());
    }
    if n == 1 {
        let all: Vec<String> = units.iter().flat_map(|(_, s)| s.iter().cloned()).take(6).collect();
        let mut blocks = vec![json!({ "type": "text", "text": opening })];
        if all.len() > 1 {
            blocks.push(json!({ "type": "list", "items": all.iter().skip(1).cloned().collect::<Vec<_>>() }));
        }
        blocks.extend(check_blocks(&all, &terms, &mut BTreeSet::new(), 0));
        return (
            title.clone(),
            vec![json!({ "title": clip(&title, MAX_TITLE_CHARS), "blocks": ensure_scored(blocks, &title) })],
        );
    }
    let middle = n.saturating_sub(2);
    // Middle screens: the units (merged when there are more units than
    // screens), a knowledge check after every two teaching screens, and
    // any slots left over as further practice questions.
    let wanted_checks = if middle == 0 { 0 } else { (middle / 3).max(1) };
    let teach = (middle - wanted_checks).min(units.len());
    let mut teaching: Vec<(String, Vec<String>)> = Vec::new();
    for i in 0..teach {
        let (from, to) = (i * units.len() / teach, (i + 1) * units.len() / teach);
        let group = units.get(from..to).unwrap_or_default();
        let name = group.first().map(|(t, _)| t.clone()).unwrap_or_default();
        teaching.push((name, group.iter().flat_map(|(_, s)| s.iter().cloned()).collect()));
    }
    let objectives: Vec<String> = {
        let mut seen = BTreeSet::new();
        units
            .iter()
            .map(|(t, _)| t.clone())
            .filter(|t| seen.insert(t.to_lowercase()))
            .take(5)
            .map(|t| clip(&format!("Explain {}", t.to_lowercase()), MAX_TEXT_CHARS))
            .collect()
    };
    let mut screens = Vec::with_capacity(n);
    screens.push(json!({
        "title": "Introduction",
        "blocks": [
            { "type": "heading", "text": clip(&title, MAX_TEXT_CHARS) },
            { "type": "text", "text": opening },
            { "type": "text", "text": "By the end of this course you can:" },
            { "type": "list", "items": if objectives.is_empty() { vec![format!("Explain {}", title.to_lowercase())] } else { objectives } },
        ],
    }));
    let mut used = BTreeSet::new();
    let mut taught_since_check: Vec<String> = vec![opening.clone()];
    let mut taught_all: Vec<String> = vec![opening];
    let mut teaching = teaching.into_iter().peekable();
    let mut since_check = 0;
    let mut checks_made = 0;
    for slot in 0..middle {
        let slots_left = middle - slot;
        let teaching_left = teaching.len();
        // A check after two teaching screens when the slots left allow it;
        // teaching takes fewer slots than there are, so the last is a check.
        let is_check = teaching_left == 0 || (since_check >= 2 && slots_left > teaching_left);
        if !is_check && let Some((heading, sentences)) = teaching.next() {
            since_check += 1;
            let mut blocks = Vec::new();
            let (first, rest) = sentences.split_first().map_or((None, &[][..]), |(f, r)| (Some(f), r));
            if let Some(first) = first {
                blocks.push(json!({ "type": "text", "text": first }));
            }
            let cards: Vec<Value> = rest.iter().filter_map(|s| definition(s)).take(MAX_STACK_CARDS).collect();
            if cards.len() >= 2 {
                blocks.push(json!({ "type": "stack", "stackCards": cards }));
            } else if !rest.is_empty() {
                blocks.push(json!({ "type": "list", "items": rest }));
            }
            if blocks.is_empty() {
                blocks.push(json!({ "type": "text", "text": format!("{heading} is part of {title}.") }));
            }
            taught_since_check.extend(sentences.iter().cloned());
            taught_all.extend(sentences);
            screens.push(json!({ "title": heading, "blocks": blocks }));
            continue;
        }
        since_check = 0;
        checks_made += 1;
        let pool = std::mem::take(&mut taught_since_check);
        let mut blocks = check_blocks(&pool, &terms, &mut used, checks_made);
        if blocks.len() < 2 {
            blocks.extend(check_blocks(&taught_all, &terms, &mut used, checks_made + 1));
        }
        let heading = if checks_made == 1 || teaching.peek().is_some() { "Knowledge check" } else { "Practice" };
        screens.push(json!({ "title": heading, "blocks": ensure_scored(blocks, &title) }));
    }
    let key_points: Vec<String> = {
        let mut seen = BTreeSet::new();
        topics
            .iter()
            .filter_map(|t| summarise(t, &freq, 1).into_iter().next())
            .filter(|s| seen.insert(s.clone()))
            .take(6)
            .collect()
    };
    let mut summary = vec![
        json!({ "type": "text", "text": clip(&format!("You have worked through {title}. The key points:"), MAX_TEXT_CHARS) }),
        json!({ "type": "list", "items": if key_points.is_empty() { vec![clip(prompt, MAX_TEXT_CHARS)] } else { key_points } }),
    ];
    if middle == 0 {
        // Two screens: the summary checks what the introduction taught.
        summary.extend(check_blocks(&taught_all, &terms, &mut used, 1));
        summary = ensure_scored(summary, &title);
    }
    screens.push(json!({ "title": "Summary", "blocks": summary }));
    (title, screens)
}

/// `blocks` with a scored question at the end when they have none (a text
/// too short to draw a question from still gets one about its title).
fn ensure_scored(mut blocks: Vec<Value>, title: &str) -> Vec<Value> {
    let scored =
        blocks.iter().any(|b| b.get("type").and_then(Value::as_str).is_some_and(crate::content::is_scored_type));
    if !scored {
        blocks.push(json!({ "type": "true_false", "statement": clip(&format!("This course is about {title}."), MAX_TEXT_CHARS), "answer": true }));
    }
    blocks
}

/// The course title: the source's first heading, else the prompt's first
/// clause (at most 10 words).
fn course_title(prompt: &str, topics: &[Topic]) -> String {
    let first = prompt.split(['.', '!', '?', '\n', ':']).next().unwrap_or(prompt).trim();
    let from_prompt = title_case(&first.split_whitespace().take(10).collect::<Vec<_>>().join(" "));
    let title =
        if from_prompt.is_empty() { topics.first().map(|t| t.title.clone()).unwrap_or_default() } else { from_prompt };
    // A title of blanks only (a prompt of Unicode spaces) is no title.
    if title.trim().is_empty() { "New course".to_owned() } else { clip(title.trim(), MAX_TITLE_CHARS) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content;
    use crate::issues::Issues;

    #[test]
    fn prompts_of_blanks_only_still_give_a_valid_course() {
        // Found by the property test: U+2000 is a space, so the prompt
        // gave an empty heading.
        for (prompt, source) in [
            ("\u{2000}", None),
            (" \u{3000} ", None),
            ("\t", None),
            ("\u{2000}", Some("?")),
            (" ", Some("\u{2000}.\n#")),
        ] {
            let (_, screens) = write(prompt, source, 2);
            let mut issues = Issues::default();
            content::validate_screens(&Value::Array(screens), &["screens".to_owned()], &mut issues);
            assert!(issues.is_empty(), "{prompt:?}: {:?}", issues.into_vec());
        }
    }

    const SOURCE: &str = "# Forklift safety\n\nForklifts cause serious injuries in warehouses every year.\n\n\
## Daily inspection\n\nOperators inspect the brakes before each shift. Operators test the horn and the lights before driving. \
A damaged forklift is tagged out of service until a mechanic repairs it.\n\n\
## Moving loads\n\n- Loads stay low and tilted back while the forklift moves.\n- Drivers look in the direction of travel at all times.\n\
- The load backrest is a frame that stops loads falling towards the driver.\n\n\
## Pedestrians\n\nPedestrians keep to the marked walkways near the loading dock. Drivers sound the horn at blind corners. \
A spotter is a person who guides the driver when the view is blocked.\n";

    fn taught(screens: &[Value]) -> Vec<String> {
        let mut out = Vec::new();
        for screen in screens {
            for block in screen["blocks"].as_array().into_iter().flatten() {
                match block["type"].as_str() {
                    Some("text") => out.push(block["text"].as_str().unwrap_or_default().to_owned()),
                    Some("list") => out.extend(
                        block["items"].as_array().into_iter().flatten().filter_map(|i| i.as_str().map(str::to_owned)),
                    ),
                    Some("stack") => out.extend(
                        block["stackCards"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|c| c["back"].as_str().map(str::to_owned)),
                    ),
                    _ => {}
                }
            }
        }
        out
    }

    #[test]
    fn the_longest_sources_are_written_quickly() {
        let started = std::time::Instant::now();
        for source in [
            "x".repeat(MAX_SOURCE_CHARS),
            ".".repeat(MAX_SOURCE_CHARS),
            "Forklifts stop at the line. ".repeat(MAX_SOURCE_CHARS / 28),
        ] {
            let (_, screens) = write("Forklifts", Some(&source), 20);
            assert_eq!(screens.len(), 20);
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
    }

    #[test]
    fn markdown_is_segmented_into_topics_of_plain_sentences() {
        let topics = segment(
            "# A **bold** title\n\nSee [the guide](https://x.example) for the `full` rules here.\n\n- A list item that is long enough\n```\nlet code = 1;\n```\n## Next\nShort.",
        );
        assert_eq!(topics.len(), 1, "a section without a sentence of four words is dropped");
        assert_eq!(topics[0].title, "A bold title");
        assert_eq!(topics[0].sentences, ["See the guide for the full rules here.", "A list item that is long enough."]);
        assert_eq!(
            sentences("Use e.g. the 3.5 t truck. Then stop right there now! Ok."),
            ["Use e.g. the 3.5 t truck.", "Then stop right there now!"]
        );
    }

    #[test]
    fn questions_are_answered_by_what_the_screens_teach() {
        for target in [3, 5, 6, 9, 12] {
            let (title, screens) = write("Forklift safety for new warehouse staff", Some(SOURCE), target);
            assert_eq!(title, "Forklift safety for new warehouse staff");
            assert_eq!(screens.len(), target, "target {target}");
            let mut issues = Issues::default();
            let stored =
                content::validate_screens(&Value::Array(screens.clone()), &["screens".to_owned()], &mut issues);
            assert!(issues.is_empty(), "{:?}", issues.into_vec());
            assert!(content::has_scored_blocks(&stored));
            let mut checked = 0;
            for (i, screen) in screens.iter().enumerate() {
                let before = taught(&screens[..i]);
                for block in screen["blocks"].as_array().into_iter().flatten() {
                    match block["type"].as_str() {
                        Some("multiple_choice") => {
                            let question = block["question"].as_str().unwrap();
                            let blank = question.split('\u{201c}').nth(1).unwrap().trim_end_matches('\u{201d}');
                            let options: Vec<&str> =
                                block["options"].as_array().unwrap().iter().map(|o| o.as_str().unwrap()).collect();
                            let right = options[block["correctIndex"].as_u64().unwrap() as usize];
                            let filled = blank.replacen("_____", right, 1);
                            assert!(
                                before.iter().any(|s| s.eq_ignore_ascii_case(&filled)),
                                "{filled:?} was not taught before screen {i}"
                            );
                            for wrong in options.iter().filter(|o| **o != right) {
                                let other = blank.replacen("_____", wrong, 1);
                                assert!(
                                    !before.iter().any(|s| s.eq_ignore_ascii_case(&other)),
                                    "{other:?} is also right"
                                );
                            }
                            checked += 1;
                        }
                        Some("true_false") => {
                            let statement = block["statement"].as_str().unwrap();
                            let shown = before.iter().any(|s| s == statement);
                            assert_eq!(block["answer"].as_bool().unwrap(), shown, "{statement:?}");
                            checked += 1;
                        }
                        _ => {}
                    }
                }
            }
            assert!(checked >= 2, "target {target}: {checked} questions");
        }
    }

    #[test]
    fn the_outline_teaches_each_topic_and_sums_up_with_sentences() {
        let (_, screens) = write("Forklift safety", Some(SOURCE), 6);
        let titles: Vec<&str> = screens.iter().map(|s| s["title"].as_str().unwrap()).collect();
        // The first section's one sentence opens the introduction; each
        // further section is taught once, with a check after two.
        assert_eq!(
            titles,
            ["Introduction", "Daily inspection", "Moving loads", "Knowledge check", "Pedestrians", "Summary"]
        );
        let objectives = &screens[0]["blocks"][3]["items"];
        assert_eq!(
            objectives,
            &json!(["Explain daily inspection", "Explain moving loads", "Explain pedestrians"]),
            "objectives name the topics"
        );
        let summary: Vec<&str> =
            screens[5]["blocks"][1]["items"].as_array().unwrap().iter().map(|i| i.as_str().unwrap()).collect();
        assert!(
            summary.iter().all(|s| s.split_whitespace().count() >= 4 && s.ends_with('.')),
            "sentences, not nouns: {summary:?}"
        );
        // Definitions become flip cards.
        let (_, long) = write("Forklift safety", Some(SOURCE), 12);
        assert!(
            long.iter()
                .flat_map(|s| s["blocks"].as_array().unwrap())
                .any(|b| b["type"] == "stack" || b["type"] == "list")
        );
    }

    #[test]
    fn a_prompt_alone_still_makes_a_course_and_nothing_repeats_the_prompt() {
        let prompt = "Onboarding for support agents. Agents answer tickets within four hours. \
            Escalate billing disputes to the finance queue. Tag every ticket with the product area.";
        for target in [1, 2, 3, 6, 20] {
            let (_, screens) = write(prompt, None, target);
            assert_eq!(screens.len(), target);
            let text = Value::Array(screens.clone()).to_string();
            assert!(text.matches("Escalate billing disputes to the finance queue.").count() <= 3, "{target}: {text}");
            let mut issues = Issues::default();
            let stored = content::validate_screens(&Value::Array(screens), &["screens".to_owned()], &mut issues);
            assert!(issues.is_empty() && content::has_scored_blocks(&stored), "{target}");
        }
    }
}
