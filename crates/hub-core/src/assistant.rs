//! The docs assistant: answers to questions about an API description, for
//! the docs' AI search, the chat drawer and the MCP `ask_docs` tool.
//!
//! Every answer starts from the docs' search index (see [`crate::search`]):
//! the best operations for the question are found first and are what the
//! answer may cite. With a model configured (`SVC_LLM_URL`, any
//! OpenAI-compatible endpoint) they are handed to the model as numbered
//! sources and the answer streams; without one, the offline engine composes
//! an extractive answer from the description alone: which operation, its
//! method and path, the required parameters, a curl request and the
//! response's shape. Neither can cite an operation the description lacks.
//!
//! Quotas, from the seed's Limits table, are counted per account (the
//! project owner's) on a ledger in the store, so every node sees the same
//! totals: chat tokens per UTC day (Free 0, Pro 25,000, Business 200,000),
//! AI searches per UTC month on Free (5), and a per-visitor hourly limit on
//! both. A conversation keeps its last 8 messages.

use std::fmt::Write as _;
use std::sync::Arc;

use chrono::{Datelike as _, TimeZone as _};
use kernel::Timestamp;
use platform::llm::{ChatChunk, ChatMessage, LlmConfig};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use spec::{Operation, Spec};
use tokio::sync::mpsc;

use crate::Hub;
use crate::docs::{SearchHit, SearchSection};
use crate::error::{HubError, HubResult};
use crate::plans::{Feature, Plan, fixed};

/// Messages a conversation keeps (the seed's "last 8 messages").
pub const CONVERSATION_MESSAGES: usize = 8;
/// A conversation idle this long is forgotten.
pub const CONVERSATION_IDLE_MS: i64 = 24 * 60 * 60 * 1000;
/// Characters of a question read; the rest is cut.
pub const MAX_QUESTION_CHARS: usize = 1000;
/// Characters of an answer a conversation keeps (a model's answer is read
/// up to 1 MiB; what is kept and sent back to it stays small).
pub const MAX_KEPT_ANSWER_CHARS: usize = 8000;
/// Tokens a chat answer may use.
pub const CHAT_ANSWER_TOKENS: u32 = 700;
/// Tokens an AI search answer may use.
pub const SEARCH_ANSWER_TOKENS: u32 = 300;
/// Operations handed to the model, and cited at most, per answer.
pub const SOURCES: usize = 4;

const HOUR_MS: i64 = 60 * 60 * 1000;
const DAY_MS: i64 = 24 * HOUR_MS;

/// A quota of the assistant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quota {
    /// Model tokens per account per UTC day.
    ChatTokensPerDay,
    /// AI searches per account per UTC month (Free).
    AiSearchesPerMonth,
    /// Questions per visitor per hour, chat and AI search together.
    QuestionsPerVisitorHour,
}

impl Quota {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ChatTokensPerDay => "chat_tokens_per_day",
            Self::AiSearchesPerMonth => "ai_searches_per_month",
            Self::QuestionsPerVisitorHour => "questions_per_visitor_hour",
        }
    }

    const fn meter(self) -> &'static str {
        match self {
            Self::ChatTokensPerDay => "chat_tokens",
            Self::AiSearchesPerMonth => "ai_searches",
            Self::QuestionsPerVisitorHour => "visitor_questions",
        }
    }
}

/// Which engine wrote an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Model,
    Offline,
}

/// A source an answer cites as `[n]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Citation {
    pub n: usize,
    /// The docs page, relative to the version (`op/<key>`, `schemas/<name>`).
    pub target: String,
    /// `METHOD /path`, or the page title.
    pub title: String,
}

/// A whole answer (AI search and MCP).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Answer {
    pub answer: String,
    pub citations: Vec<Citation>,
    pub engine: Engine,
}

/// What the assistant needs to know about the project and version asked.
pub struct AskScope<'a> {
    pub project_id: &'a str,
    pub owner_id: &'a str,
    pub owner_plan: Plan,
    pub spec_sha256: &'a str,
    pub spec: &'a Spec,
    /// Where requests go: the version's base URL, else the project's.
    pub base_url: Option<&'a str>,
    /// Who asks: a member's user id, else the client address; the hourly
    /// per-visitor limit counts per project and visitor.
    pub visitor: &'a str,
}

/// One event of a streamed chat answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChatEvent {
    Delta(String),
    /// The answer ended; `tokens` were charged to the account's day.
    Done {
        tokens: u64,
    },
    /// The model failed mid-answer; what was sent stays, nothing more comes.
    Failed(String),
}

/// A chat answer on its way: the conversation to continue, the sources the
/// answer cites, and its text as it streams.
#[derive(Debug)]
pub struct ChatReply {
    pub conversation: String,
    pub citations: Vec<Citation>,
    pub engine: Engine,
    pub events: mpsc::Receiver<ChatEvent>,
}

/// A kept message of a conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub role: String,
    pub content: String,
}

/// An account's assistant usage, for the plan page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AiUsage {
    pub chat_tokens_today: u64,
    pub chat_tokens_per_day: u32,
    pub ai_searches_this_month: u64,
    pub ai_searches_per_month: Option<u32>,
}

/// The UTC day containing `now`: its start and the seconds left in it.
fn day_window(now: Timestamp) -> (i64, u64) {
    let start = now.as_millis() - now.as_millis().rem_euclid(DAY_MS);
    (start, seconds_until(now, start + DAY_MS))
}

/// The UTC month containing `now`: its start and the seconds left in it.
fn month_window(now: Timestamp) -> (i64, u64) {
    let at = chrono::Utc.timestamp_millis_opt(now.as_millis()).single().unwrap_or_default();
    let first = |year: i32, month: u32| {
        chrono::Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0).single().map_or(0, |d| d.timestamp_millis())
    };
    let start = first(at.year(), at.month());
    let next = if at.month() == 12 { first(at.year() + 1, 1) } else { first(at.year(), at.month() + 1) };
    (start, seconds_until(now, next))
}

fn seconds_until(now: Timestamp, end_ms: i64) -> u64 {
    u64::try_from((end_ms - now.as_millis() + 999) / 1000).unwrap_or(1).max(1)
}

impl Hub {
    /// The same hub answering with the operator's model.
    #[must_use]
    pub fn with_llm(mut self, llm: Option<LlmConfig>) -> Self {
        self.llm = llm.map(Arc::new);
        self
    }

    /// Whether answers come from a model.
    pub fn has_llm(&self) -> bool {
        self.llm.is_some()
    }

    /// The assistant's usage of an account in the current windows.
    pub async fn ai_usage(&self, account: &str, plan: Plan) -> HubResult<AiUsage> {
        let now = self.clock.now();
        let limits = plan.limits();
        let chat = self.store.usage(account, Quota::ChatTokensPerDay.meter(), day_window(now).0).await?;
        let searches = self.store.usage(account, Quota::AiSearchesPerMonth.meter(), month_window(now).0).await?;
        Ok(AiUsage {
            chat_tokens_today: u64::try_from(chat).unwrap_or(0),
            chat_tokens_per_day: limits.chat_tokens_per_day,
            ai_searches_this_month: u64::try_from(searches).unwrap_or(0),
            ai_searches_per_month: limits.ai_searches_per_month,
        })
    }

    /// Counts one question of a visitor; past the hourly limit, refused.
    async fn count_visitor_question(&self, scope: &AskScope<'_>) -> HubResult<()> {
        let now = self.clock.now();
        let bucket = format!("{}:{}:{}", Quota::QuestionsPerVisitorHour.meter(), scope.project_id, scope.visitor);
        let count = self.store.count_request(&bucket, HOUR_MS, now).await?;
        let limit = fixed::ASSISTANT_QUESTIONS_PER_VISITOR_HOUR;
        if count > i64::from(limit) {
            let window_end = now.as_millis() - now.as_millis().rem_euclid(HOUR_MS) + HOUR_MS;
            return Err(HubError::QuotaExceeded {
                quota: Quota::QuestionsPerVisitorHour,
                limit: u64::from(limit),
                retry_after_secs: seconds_until(now, window_end),
            });
        }
        Ok(())
    }

    /// Refuses when the account's chat tokens of the day are spent.
    async fn chat_tokens_left(&self, scope: &AskScope<'_>) -> HubResult<u64> {
        let cap = u64::from(scope.owner_plan.limits().chat_tokens_per_day);
        let (start, left_secs) = day_window(self.clock.now());
        let used =
            u64::try_from(self.store.usage(scope.owner_id, Quota::ChatTokensPerDay.meter(), start).await?).unwrap_or(0);
        if used >= cap {
            return Err(HubError::QuotaExceeded {
                quota: Quota::ChatTokensPerDay,
                limit: cap,
                retry_after_secs: left_secs,
            });
        }
        Ok(cap - used)
    }

    /// Reserves up to `want` of the day's chat tokens before the model is
    /// called: what is left under the cap, taken by one conditional upsert,
    /// so concurrent answers on any number of nodes never pass the cap
    /// together. `None` when nothing is left.
    async fn reserve_chat_tokens(&self, owner_id: &str, cap: u64, want: u64) -> HubResult<Option<Reservation>> {
        let (start, _) = day_window(self.clock.now());
        let meter = Quota::ChatTokensPerDay.meter();
        let cap_i = i64::try_from(cap).unwrap_or(i64::MAX);
        // Another answer may take tokens between the read and the upsert:
        // read again and ask for what is left then, a few times.
        for _ in 0..RESERVE_ATTEMPTS {
            let used = u64::try_from(self.store.usage(owner_id, meter, start).await?).unwrap_or(0);
            let left = cap.saturating_sub(used);
            if left == 0 {
                return Ok(None);
            }
            let amount = want.clamp(1, left);
            let take = i64::try_from(amount).unwrap_or(i64::MAX);
            if self.store.take_usage(owner_id, meter, start, take, cap_i).await?.is_some() {
                return Ok(Some(Reservation { window_start: start, tokens: amount }));
            }
        }
        Ok(None)
    }

    /// Settles a reservation once the answer is done: an answer is charged
    /// what it used, never more than it reserved, and the rest goes back to
    /// the day it was taken from.
    async fn settle_chat_tokens(&self, owner_id: &str, reservation: Reservation, used: u64) -> HubResult<u64> {
        let charged = used.min(reservation.tokens);
        let unused = reservation.tokens - charged;
        if unused > 0 {
            let refund = -i64::try_from(unused).unwrap_or(i64::MAX);
            self.store.add_usage(owner_id, Quota::ChatTokensPerDay.meter(), reservation.window_start, refund).await?;
        }
        Ok(charged)
    }

    /// The sources of an answer: the search index's best operations (and
    /// schemas) for the question.
    async fn sources(
        &self,
        scope: &AskScope<'_>,
        question: &str,
        sections: impl FnOnce() -> Vec<SearchSection>,
    ) -> HubResult<Vec<SearchHit>> {
        let hits = self.docs_search(scope.spec_sha256, question, sections).await?;
        Ok(hits.into_iter().filter(|h| citable(&h.target)).take(SOURCES).collect())
    }

    /// The offline answer to `question`, with no quota: the MCP `ask_docs`
    /// tool (metered as an MCP call) and the fallbacks below use it.
    pub async fn ask_offline(
        &self,
        scope: &AskScope<'_>,
        question: &str,
        sections: impl FnOnce() -> Vec<SearchSection>,
    ) -> HubResult<Answer> {
        let question = clip(question);
        let hits = self.sources(scope, &question, sections).await?;
        Ok(offline_answer(scope.spec, &hits, scope.base_url, &question))
    }

    /// AI search: one answer to a question typed in the docs' search, from
    /// the model when one is configured, else offline. Free accounts have 5
    /// a month; every plan has the per-visitor hourly limit. On paid plans
    /// a model's tokens count against the day's chat tokens, and when those
    /// are spent the answer is the offline one.
    pub async fn ai_search(
        &self,
        scope: &AskScope<'_>,
        question: &str,
        sections: impl FnOnce() -> Vec<SearchSection>,
    ) -> HubResult<Answer> {
        let question = clip(question);
        if question.trim().is_empty() {
            return Err(HubError::validation("q", "ask a question"));
        }
        self.count_visitor_question(scope).await?;
        if let Some(limit) = scope.owner_plan.limits().ai_searches_per_month {
            let (start, left_secs) = month_window(self.clock.now());
            let meter = Quota::AiSearchesPerMonth.meter();
            if self.store.take_usage(scope.owner_id, meter, start, 1, i64::from(limit)).await?.is_none() {
                return Err(HubError::QuotaExceeded {
                    quota: Quota::AiSearchesPerMonth,
                    limit: u64::from(limit),
                    retry_after_secs: left_secs,
                });
            }
        }
        let hits = self.sources(scope, &question, sections).await?;
        let offline = offline_answer(scope.spec, &hits, scope.base_url, &question);
        let Some(llm) = self.llm.clone() else { return Ok(offline) };
        if hits.is_empty() {
            return Ok(offline);
        }
        let cap = u64::from(scope.owner_plan.limits().chat_tokens_per_day);
        let messages = model_messages(scope.spec, &hits, scope.base_url, &[], &question);
        let prompt_tokens = estimate_prompt(&messages);
        let mut max_tokens = SEARCH_ANSWER_TOKENS;
        let reservation = if cap > 0 {
            let want = prompt_tokens + u64::from(SEARCH_ANSWER_TOKENS);
            let Some(reservation) = self.reserve_chat_tokens(scope.owner_id, cap, want).await? else {
                return Ok(offline);
            };
            max_tokens = answer_budget(reservation.tokens, prompt_tokens, SEARCH_ANSWER_TOKENS);
            Some(reservation)
        } else {
            None
        };
        let collected = collect(&llm, &messages, max_tokens).await;
        let used = collected.as_ref().map_or(0, |(_, tokens)| *tokens);
        if let Some(reservation) = reservation {
            self.settle_chat_tokens(scope.owner_id, reservation, used).await?;
        }
        match collected {
            Ok((text, _)) => Ok(Answer { answer: text, citations: offline.citations, engine: Engine::Model }),
            Err(error) => {
                tracing::warn!(%error, "the model failed; answering offline");
                Ok(offline)
            }
        }
    }

    /// The chat drawer: answers `message` in conversation `conversation`
    /// (a new one when absent, unknown or forgotten), streamed. Plans
    /// without chat tokens are refused (their drawer offers search only).
    pub async fn chat(
        &self,
        scope: &AskScope<'_>,
        conversation: Option<&str>,
        message: &str,
        sections: impl FnOnce() -> Vec<SearchSection>,
    ) -> HubResult<ChatReply> {
        let message = clip(message);
        if message.trim().is_empty() {
            return Err(HubError::validation("message", "write a question"));
        }
        if !scope.owner_plan.allows(Feature::DocsChat) {
            return Err(HubError::PlanRequired { feature: Feature::DocsChat, current: scope.owner_plan });
        }
        self.count_visitor_question(scope).await?;
        // A spent day is refused before any work; the tokens themselves are
        // reserved below, once the prompt is known.
        self.chat_tokens_left(scope).await?;
        let now = self.clock.now();
        let since = Timestamp::from_millis(now.as_millis() - CONVERSATION_IDLE_MS);
        let known = match conversation.filter(|c| valid_conversation_id(c)) {
            Some(id) => self.store.conversation(id, scope.project_id, since).await?.map(|kept| (id.to_owned(), kept)),
            None => None,
        };
        let (conversation, mut history) = match known {
            Some((id, kept)) => (id, serde_json::from_str::<Vec<Kept>>(&kept).unwrap_or_default()),
            None => (hex::encode(rand::random::<[u8; 16]>()), Vec::new()),
        };
        // A follow-up ("and how do I delete it?") searches with the
        // previous question too, so "it" finds its operation.
        let mut query = message.clone();
        if let Some(previous) = history.iter().rev().find(|k| k.role == "user") {
            query = format!("{message} {}", previous.content.chars().take(200).collect::<String>());
        }
        let mut hits = self.sources(scope, &message, sections).await?;
        if hits.is_empty() && query != message {
            hits = self.docs_search(scope.spec_sha256, &query, Vec::new).await?;
            hits.retain(|h| citable(&h.target));
            hits.truncate(SOURCES);
        }
        let offline = offline_answer(scope.spec, &hits, scope.base_url, &message);
        let engine = if self.llm.is_some() { Engine::Model } else { Engine::Offline };
        let prompt = match engine {
            Engine::Model => model_messages(scope.spec, &hits, scope.base_url, &history, &message),
            Engine::Offline => Vec::new(),
        };
        let offline_text = offline.answer;
        let prompt_tokens = match engine {
            Engine::Model => estimate_prompt(&prompt),
            Engine::Offline => platform::llm::estimate_tokens(&message),
        };
        let want = match engine {
            Engine::Model => prompt_tokens + u64::from(CHAT_ANSWER_TOKENS),
            Engine::Offline => prompt_tokens + platform::llm::estimate_tokens(&offline_text),
        };
        let cap = u64::from(scope.owner_plan.limits().chat_tokens_per_day);
        let (_, left_secs) = day_window(now);
        let reservation =
            self.reserve_chat_tokens(scope.owner_id, cap, want).await?.ok_or(HubError::QuotaExceeded {
                quota: Quota::ChatTokensPerDay,
                limit: cap,
                retry_after_secs: left_secs,
            })?;
        let max_tokens = answer_budget(reservation.tokens, prompt_tokens, CHAT_ANSWER_TOKENS);
        let (events_tx, events) = mpsc::channel(64);
        let hub = self.clone();
        let owner_id = scope.owner_id.to_owned();
        let project_id = scope.project_id.to_owned();
        let id = conversation.clone();
        // The answer is produced by its own task: a visitor who closes the
        // drawer mid-answer still has the tokens the model spent charged,
        // and the conversation keeps the whole answer.
        tokio::spawn(async move {
            let (text, tokens, failed) = match (engine, hub.llm.clone()) {
                (Engine::Model, Some(llm)) => stream_to(&llm, &prompt, max_tokens, Some(&events_tx)).await,
                _ => {
                    for line in offline_text.split_inclusive('\n') {
                        let _ = events_tx.send(ChatEvent::Delta(line.to_owned())).await;
                    }
                    let tokens =
                        platform::llm::estimate_tokens(&message) + platform::llm::estimate_tokens(&offline_text);
                    (offline_text, tokens, None)
                }
            };
            history.push(Kept { role: "user".to_owned(), content: message });
            history.push(Kept {
                role: "assistant".to_owned(),
                content: text.chars().take(MAX_KEPT_ANSWER_CHARS).collect(),
            });
            let keep_from = history.len().saturating_sub(CONVERSATION_MESSAGES);
            history.drain(..keep_from);
            let now = hub.clock.now();
            let kept = serde_json::to_string(&history).unwrap_or_else(|_| "[]".to_owned());
            let forget = Timestamp::from_millis(now.as_millis() - CONVERSATION_IDLE_MS);
            if let Err(error) = hub.store.save_conversation(&id, &project_id, &kept, now, forget).await {
                tracing::warn!(%error, "could not keep the conversation");
            }
            let tokens = match hub.settle_chat_tokens(&owner_id, reservation, tokens).await {
                Ok(charged) => charged,
                Err(error) => {
                    // The whole reservation stays charged: the cap holds.
                    tracing::error!(%error, tokens, "could not settle chat tokens");
                    reservation.tokens
                }
            };
            let last = match failed {
                Some(error) => ChatEvent::Failed(error),
                None => ChatEvent::Done { tokens },
            };
            let _ = events_tx.send(last).await;
        });
        Ok(ChatReply { conversation, citations: offline.citations, engine, events })
    }

    /// Forgets counters whose windows have ended: rate windows (at most an
    /// hour long) after a day, the ledger's days and months after 62 days.
    /// Run hourly with the session pruning.
    pub async fn prune_counters(&self) -> HubResult<u64> {
        let now = self.clock.now().as_millis();
        let windows_before = Timestamp::from_millis(now - DAY_MS);
        let ledger_before = Timestamp::from_millis(now - 62 * DAY_MS);
        self.store.prune_counters(windows_before, ledger_before).await
    }

    /// The kept messages of a conversation (oldest first), for tests and
    /// for a drawer reopened on another page.
    pub async fn conversation(&self, project_id: &str, conversation: &str) -> HubResult<Vec<Kept>> {
        if !valid_conversation_id(conversation) {
            return Ok(Vec::new());
        }
        let since = Timestamp::from_millis(self.clock.now().as_millis() - CONVERSATION_IDLE_MS);
        let kept = self.store.conversation(conversation, project_id, since).await?;
        Ok(kept.and_then(|k| serde_json::from_str(&k).ok()).unwrap_or_default())
    }
}

/// Conversation ids are minted here: 32 hex characters.
fn valid_conversation_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

fn clip(text: &str) -> String {
    text.chars().take(MAX_QUESTION_CHARS).collect()
}

/// Reads a model answer, passing each part to `events` when there is a
/// listener; the text, the tokens to charge (the model's own count, else an
/// estimate) and the failure, if any.
async fn stream_to(
    llm: &LlmConfig,
    prompt: &[ChatMessage],
    max_tokens: u32,
    events: Option<&mpsc::Sender<ChatEvent>>,
) -> (String, u64, Option<String>) {
    use futures_util::StreamExt as _;
    let prompt_estimate: u64 = prompt.iter().map(|m| platform::llm::estimate_tokens(&m.content)).sum();
    let stream = match platform::llm::stream_chat(llm, prompt, max_tokens).await {
        Ok(stream) => stream,
        Err(error) => {
            tracing::warn!(%error, "the model failed");
            return (String::new(), 0, Some("the assistant's model is unavailable; try again later".to_owned()));
        }
    };
    futures_util::pin_mut!(stream);
    let mut text = String::new();
    let mut usage = None;
    let mut failed = None;
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(ChatChunk::Delta(delta)) => {
                text.push_str(&delta);
                if let Some(events) = events {
                    let _ = events.send(ChatEvent::Delta(delta)).await;
                }
            }
            Ok(ChatChunk::Usage { prompt_tokens, completion_tokens }) => {
                usage = Some(prompt_tokens.saturating_add(completion_tokens));
            }
            Err(error) => {
                tracing::warn!(%error, "the model's answer broke off");
                failed = Some("the answer broke off; ask again".to_owned());
                break;
            }
        }
    }
    let tokens = usage.unwrap_or_else(|| prompt_estimate + platform::llm::estimate_tokens(&text));
    (text, tokens, failed)
}

/// Tries at reserving tokens against concurrent answers before giving up.
const RESERVE_ATTEMPTS: usize = 8;

/// Chat tokens taken from an account's day before an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Reservation {
    /// The day the tokens were taken from (refunds go back to it).
    window_start: i64,
    tokens: u64,
}

/// The tokens the prompt will cost, by the same estimate the ledger uses
/// when the model reports none.
fn estimate_prompt(prompt: &[ChatMessage]) -> u64 {
    prompt.iter().map(|m| platform::llm::estimate_tokens(&m.content)).sum()
}

/// How many tokens the model may write within a reservation: what the
/// prompt leaves, at most `ceiling`, at least one.
fn answer_budget(reserved: u64, prompt_tokens: u64, ceiling: u32) -> u32 {
    u32::try_from(reserved.saturating_sub(prompt_tokens).min(u64::from(ceiling))).unwrap_or(ceiling).max(1)
}

/// A whole model answer and the tokens it cost.
async fn collect(llm: &LlmConfig, prompt: &[ChatMessage], max_tokens: u32) -> Result<(String, u64), String> {
    let (text, tokens, failed) = stream_to(llm, prompt, max_tokens, None).await;
    match failed {
        Some(error) => Err(error),
        None if text.trim().is_empty() => Err("the model answered nothing".to_owned()),
        None => Ok((text, tokens)),
    }
}

const SYSTEM_PROMPT: &str = "You answer questions about one HTTP API, using only the numbered sources given, which \
    come from its API description. Cite the sources you use as [1], [2] in the text. Name the operation's method and \
    path, the parameters that matter and a short request example when it helps. If the sources do not answer the \
    question, say so and suggest the closest source; never invent an endpoint, parameter or field. Be brief.";

/// The model's prompt: the instructions, the numbered sources, the kept
/// history and the question.
fn model_messages(
    spec: &Spec,
    hits: &[SearchHit],
    base_url: Option<&str>,
    history: &[Kept],
    question: &str,
) -> Vec<ChatMessage> {
    let mut sources = format!("API: {}\n\n", if spec.title.is_empty() { "(untitled)" } else { spec.title.as_str() });
    for (i, hit) in hits.iter().enumerate() {
        let n = i + 1;
        match operation_of(spec, &hit.title) {
            Some(op) => {
                let _ = writeln!(
                    sources,
                    "[{n}] {} {}{}\n{}\n{}",
                    op.method,
                    op.path,
                    op.summary.as_deref().map(|s| format!(": {s}")).unwrap_or_default(),
                    op.description.as_deref().map(|d| d.chars().take(600).collect::<String>()).unwrap_or_default(),
                    describe(spec, op, base_url)
                );
            }
            None => {
                let _ = writeln!(sources, "[{n}] {}\n{}\n", hit.title, hit.body.chars().take(600).collect::<String>());
            }
        }
    }
    let mut messages = vec![ChatMessage { role: "system", content: format!("{SYSTEM_PROMPT}\n\nSources:\n{sources}") }];
    for kept in history {
        let role = if kept.role == "assistant" { "assistant" } else { "user" };
        messages.push(ChatMessage { role, content: kept.content.clone() });
    }
    messages.push(ChatMessage { role: "user", content: question.to_owned() });
    messages
}

/// What a cited page other than a REST operation is: a schema, a GraphQL
/// type or a GraphQL query, mutation or subscription.
fn page_kind(target: &str) -> Option<&'static str> {
    if target.starts_with("schemas/") {
        Some("schema")
    } else if target.starts_with("types/") {
        Some("type")
    } else if let Some(rest) = target.strip_prefix("graphql/") {
        Some(match rest.split('/').next() {
            Some("mutation") => "mutation",
            Some("subscription") => "subscription",
            _ => "query",
        })
    } else {
        None
    }
}

/// Whether a search hit can be a source: an operation or a page of the
/// reference (prose sections are not cited).
fn citable(target: &str) -> bool {
    target.starts_with("op/") || page_kind(target).is_some()
}

/// The operation a search hit titled `METHOD /path` is about.
pub fn operation_of<'s>(spec: &'s Spec, title: &str) -> Option<&'s Operation> {
    let (method, path) = title.split_once(' ')?;
    spec.operations.iter().find(|op| op.method.as_str() == method && op.path == path)
}

/// The offline engine: the best operation described in full, the next ones
/// listed, each cited; schemas are cited by name.
pub fn offline_answer(spec: &Spec, hits: &[SearchHit], base_url: Option<&str>, question: &str) -> Answer {
    let mut citations = Vec::new();
    let mut answer = String::new();
    let mut related = String::new();
    for hit in hits {
        let n = citations.len() + 1;
        let first = citations.is_empty();
        let summary = |s: Option<&str>| s.map(|s| format!(": {}", s.trim())).unwrap_or_default();
        if let Some(op) = operation_of(spec, &hit.title) {
            let (method, path, summary) = (op.method.as_str(), op.path.as_str(), summary(op.summary.as_deref()));
            if first {
                let _ = writeln!(answer, "Use `{method} {path}`{summary} [{n}].");
                answer.push_str(&describe(spec, op, base_url));
            } else {
                let _ = writeln!(related, "- `{method} {path}`{summary} [{n}]");
            }
        } else if let Some(kind) = page_kind(&hit.target) {
            let title = hit.title.as_str();
            if first {
                let _ = writeln!(answer, "The {kind} `{title}` [{n}] describes this.");
                let snippet: String = hit.body.split_whitespace().take(60).collect::<Vec<_>>().join(" ");
                if !snippet.is_empty() {
                    let _ = writeln!(answer, "{snippet}");
                }
            } else {
                let _ = writeln!(related, "- {kind} `{title}` [{n}]");
            }
        } else {
            continue;
        }
        citations.push(Citation { n, target: hit.target.clone(), title: hit.title.clone() });
    }
    if citations.is_empty() {
        let api = if spec.title.is_empty() { "this API" } else { spec.title.as_str() };
        answer = format!("No endpoint of {api} matches \"{}\". The reference lists every endpoint.", question.trim());
    } else if !related.is_empty() {
        let _ = write!(answer, "\nRelated:\n{related}");
    }
    Answer { answer, citations, engine: Engine::Offline }
}

/// Required parameters, a curl request and the success response's shape.
pub fn describe(spec: &Spec, op: &Operation, base_url: Option<&str>) -> String {
    let mut out = String::new();
    let required: Vec<String> = op
        .parameters
        .iter()
        .filter(|p| p.required)
        .map(|p| format!("`{}` ({})", p.name, p.location.as_str()))
        .collect();
    if !required.is_empty() {
        let _ = writeln!(out, "Required parameters: {}.", required.join(", "));
    }
    let base = base_url
        .map(str::to_owned)
        .or_else(|| spec.servers.first().map(|s| s.url.clone()))
        .unwrap_or_else(|| "https://api.example.com".to_owned());
    let mut curl = format!("curl -X {} '{}{}'", op.method, base.trim_end_matches('/'), op.path);
    let body = op.request_body.as_ref().and_then(|b| b.content.iter().next()).and_then(|(media, content)| {
        mock::sample::media_example(spec, content, mock::sample::Direction::Request).map(|e| (media.clone(), e))
    });
    if let Some((media, example)) = body {
        let text = serde_json::to_string(&example).unwrap_or_default();
        if text.len() < 2000 {
            let _ = write!(curl, " \\\n  -H 'Content-Type: {media}' \\\n  -d '{}'", text.replace('\'', "'\\''"));
        }
    }
    let _ = writeln!(out, "```sh\n{curl}\n```");
    let success = op.responses.iter().find(|(status, _)| status.starts_with('2'));
    if let Some((status, response)) = success {
        let shape = response
            .content
            .values()
            .next()
            .and_then(|m| m.schema.as_ref())
            .map(|schema| shape(spec, schema))
            .unwrap_or_default();
        let description = response.description.trim();
        let _ = writeln!(
            out,
            "It answers {status}{}{shape}.",
            if description.is_empty() { String::new() } else { format!(" ({description})") }
        );
    }
    out
}

/// A schema's top level in a few words: `with an array of Pet`, `with
/// fields id, name, status`.
fn shape(spec: &Spec, schema: &Value) -> String {
    let resolved = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.rsplit('/').next())
        .and_then(|name| spec.schemas.get(name).map(|s| (name, s)));
    let (name, schema) = match resolved {
        Some((name, s)) => (Some(name), s),
        None => (None, schema),
    };
    if schema.get("type").and_then(Value::as_str) == Some("array") {
        let item =
            schema.get("items").and_then(|i| i.get("$ref")).and_then(Value::as_str).and_then(|r| r.rsplit('/').next());
        return format!(" with an array of {}", item.unwrap_or("items"));
    }
    let fields: Vec<&String> =
        schema.get("properties").and_then(Value::as_object).map(|p| p.keys().take(8).collect()).unwrap_or_default();
    let listed = || fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ");
    match (name, fields.is_empty()) {
        (Some(name), true) => format!(" with a {name}"),
        (Some(name), false) => format!(" with a {name}: {}", listed()),
        (None, false) => format!(" with {}", listed()),
        (None, true) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn petstore() -> Spec {
        let text = r##"{"openapi":"3.0.3","info":{"title":"Pets","version":"1"},
          "servers":[{"url":"https://pets.example/v1"}],
          "paths":{"/pets":{
            "get":{"summary":"List pets","parameters":[{"name":"limit","in":"query","schema":{"type":"integer"}}],
                   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"array","items":{"$ref":"#/components/schemas/Pet"}}}}}}},
            "post":{"summary":"Create a pet","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}},
                   "responses":{"201":{"description":"created","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}}}}},
           "/pets/{id}":{"get":{"summary":"Get a pet","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
                   "responses":{"200":{"description":"ok"}}}}},
          "components":{"schemas":{"Pet":{"type":"object","required":["name"],"properties":{"id":{"type":"string"},"name":{"type":"string"}}}}}}"##;
        spec::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
    }

    fn hit(target: &str, title: &str) -> SearchHit {
        SearchHit { target: target.to_owned(), title: title.to_owned(), body: String::new() }
    }

    #[test]
    fn the_offline_answer_describes_the_best_operation_and_cites_each_source() {
        let spec = petstore();
        let hits = [hit("op/createPet", "POST /pets"), hit("op/listPets", "GET /pets"), hit("schemas/Pet", "Pet")];
        let answer = offline_answer(&spec, &hits, None, "add a pet");
        assert!(answer.answer.starts_with("Use `POST /pets`: Create a pet [1]."), "{}", answer.answer);
        assert!(answer.answer.contains("curl -X POST 'https://pets.example/v1/pets'"), "{}", answer.answer);
        assert!(answer.answer.contains("-H 'Content-Type: application/json'"), "{}", answer.answer);
        assert!(answer.answer.contains("It answers 201 (created) with a Pet: `id`, `name`."), "{}", answer.answer);
        assert!(answer.answer.contains("- `GET /pets`: List pets [2]"), "{}", answer.answer);
        assert!(answer.answer.contains("- schema `Pet` [3]"), "{}", answer.answer);
        let cited: Vec<_> = answer.citations.iter().map(|c| (c.n, c.target.as_str())).collect();
        assert_eq!(cited, [(1, "op/createPet"), (2, "op/listPets"), (3, "schemas/Pet")]);
        assert_eq!(answer.engine, Engine::Offline);
    }

    #[test]
    fn required_parameters_and_the_base_url_are_named() {
        let spec = petstore();
        let answer = offline_answer(&spec, &[hit("op/getPet", "GET /pets/{id}")], Some("http://local:9/"), "a pet");
        assert!(answer.answer.contains("Required parameters: `id` (path)."), "{}", answer.answer);
        assert!(answer.answer.contains("curl -X GET 'http://local:9/pets/{id}'"), "{}", answer.answer);
    }

    #[test]
    fn nothing_found_is_said_and_nothing_is_cited() {
        let spec = petstore();
        let answer = offline_answer(&spec, &[hit("op/gone", "DELETE /owners")], None, "remove an owner");
        assert!(answer.citations.is_empty());
        assert_eq!(
            answer.answer,
            "No endpoint of Pets matches \"remove an owner\". The reference lists every endpoint."
        );
    }

    #[test]
    fn the_model_sees_numbered_sources_history_and_the_question() {
        let spec = petstore();
        let history = [
            Kept { role: "user".into(), content: "how do I list pets?".into() },
            Kept { role: "assistant".into(), content: "Use GET /pets [1].".into() },
        ];
        let messages = model_messages(&spec, &[hit("op/createPet", "POST /pets")], None, &history, "and add one?");
        assert_eq!(messages.len(), 4);
        assert_eq!(messages[0].role, "system");
        assert!(messages[0].content.contains("[1] POST /pets: Create a pet"), "{}", messages[0].content);
        assert_eq!((messages[1].role, messages[2].role, messages[3].role), ("user", "assistant", "user"));
        assert_eq!(messages[3].content, "and add one?");
    }

    #[test]
    fn windows_are_utc_days_and_months() {
        // 2026-11-24T21:50:00Z
        let now = Timestamp::from_millis(1_795_557_000_000);
        let (day, left) = day_window(now);
        assert_eq!(day % DAY_MS, 0);
        assert_eq!(left, 2 * 3600 + 10 * 60);
        let (month, left) = month_window(now);
        let start = chrono::Utc.timestamp_millis_opt(month).single().map(|d| (d.year(), d.month(), d.day()));
        assert_eq!(start, Some((2026, 11, 1)));
        assert_eq!(left, 6 * 86_400 + 2 * 3600 + 10 * 60);
        // December rolls over into January.
        let december = Timestamp::from_millis(1_798_761_599_000); // 2026-12-31T23:59:59Z
        assert_eq!(month_window(december).1, 1);
    }

    #[test]
    fn conversation_ids_are_only_ours() {
        assert!(valid_conversation_id(&"a".repeat(32)));
        assert!(!valid_conversation_id("../../etc"));
        assert!(!valid_conversation_id(&"g".repeat(32)));
    }
}
