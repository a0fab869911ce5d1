//! `{{...}}` tokens in override bodies, headers and Content-Type (rule 5).
//!
//! A JSON string that is exactly one token takes the token's own type, so
//! `"{{$randomInt:1:10}}"` becomes a number and JSON stays valid; tokens
//! inside longer strings are replaced by their text. An unknown token is
//! left as written, and request data that is absent becomes `null` (or an
//! empty string inside text), so a typo shows up in the response rather
//! than failing it. The full list is in `TOKENS` and in docs/mock.md.
//!
//! The fake-data lists are small and built in: a faker crate would add a
//! large dependency (and a second `rand`) for thirty words.

use chrono::{DateTime, Duration, SecondsFormat, Utc};
use rand::{Rng, RngCore};
use serde_json::{Map, Value, json};

/// Every token, for documentation and the tests that keep it true.
pub const TOKENS: &[&str] = &[
    "$uuid",
    "$now",
    "$timestamp",
    "$timestampMs",
    "$isoDate",
    "$randomInt:<min>:<max>",
    "$randomFloat:<min>:<max>",
    "$randomBoolean",
    "$randomEmail",
    "$randomFullName",
    "$randomFirstName",
    "$randomLastName",
    "$randomUserName",
    "$randomCity",
    "$randomCountry",
    "$randomCountryCode",
    "$randomStreetAddress",
    "$randomPhoneNumber",
    "$randomCompanyName",
    "$randomJobTitle",
    "$randomWord",
    "$randomWords:<n>",
    "$randomSentence",
    "$randomUrl",
    "$randomIPv4",
    "$randomHexColor",
    "$randomAlphaNumeric:<n>",
    "$randomPrice",
    "$randomDatePast",
    "$randomDateFuture",
    "request.method",
    "request.url",
    "request.body.<dotted.path>",
    "request.path.<name>",
    "request.headers.<name>",
    "request.query.<name>",
];

const FIRST: &[&str] =
    &["Ada", "Grace", "Alan", "Katherine", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Frances"];
const LAST: &[&str] =
    &["Lovelace", "Hopper", "Turing", "Johnson", "Torvalds", "Hamilton", "Ritchie", "Liskov", "Thompson", "Allen"];
const CITIES: &[&str] =
    &["London", "Lagos", "Lima", "Osaka", "Oslo", "Toronto", "Melbourne", "Nairobi", "Lisbon", "Seoul"];
const COUNTRIES: &[(&str, &str)] = &[
    ("United Kingdom", "GB"),
    ("Nigeria", "NG"),
    ("Peru", "PE"),
    ("Japan", "JP"),
    ("Norway", "NO"),
    ("Canada", "CA"),
    ("Australia", "AU"),
    ("Kenya", "KE"),
    ("Portugal", "PT"),
    ("South Korea", "KR"),
];
const STREETS: &[&str] = &["Market Street", "High Street", "Elm Avenue", "Harbour Road", "Station Lane"];
const COMPANIES: &[&str] =
    &["Acme Corp", "Globex", "Initech", "Umbrella Labs", "Stark Industries", "Wayne Enterprises"];
const JOBS: &[&str] = &["Engineer", "Designer", "Product Manager", "Analyst", "Support Lead", "Researcher"];
const WORDS: &[&str] = &[
    "alpha", "bravo", "cobalt", "delta", "ember", "falcon", "granite", "harbor", "iris", "juniper", "kepler", "lumen",
];

/// The request a template reads from.
pub struct RequestData<'a> {
    pub method: &'a str,
    pub url: &'a str,
    pub body: Option<&'a Value>,
    pub path: &'a [(String, String)],
    pub headers: &'a http::HeaderMap,
    pub query: &'a [(String, String)],
}

/// Renders tokens with randomness from `rng` and time from `now`.
pub struct Renderer<'a> {
    pub request: RequestData<'a>,
    pub now: DateTime<Utc>,
    pub rng: &'a mut dyn RngCore,
}

impl Renderer<'_> {
    /// Renders a JSON body: strings are templated, a string that is exactly
    /// one token takes the token's type.
    pub fn render_json(&mut self, value: &Value) -> Value {
        match value {
            Value::String(text) => {
                if let Some(token) = sole_token(text)
                    && let Some(value) = self.value(token)
                {
                    return value;
                }
                Value::String(self.render_text(text))
            }
            Value::Array(items) => Value::Array(items.iter().map(|item| self.render_json(item)).collect()),
            Value::Object(map) => {
                let mut out = Map::with_capacity(map.len());
                for (key, item) in map {
                    out.insert(self.render_text(key), self.render_json(item));
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }

    /// Renders tokens inside text.
    pub fn render_text(&mut self, text: &str) -> String {
        if !text.contains("{{") {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some((before, after)) = rest.split_once("{{") {
            out.push_str(before);
            let Some((token, tail)) = after.split_once("}}") else {
                out.push_str("{{");
                rest = after;
                continue;
            };
            match self.value(token.trim()) {
                Some(Value::String(s)) => out.push_str(&s),
                Some(Value::Null) => {}
                Some(other) => out.push_str(&other.to_string()),
                None => {
                    out.push_str("{{");
                    out.push_str(token);
                    out.push_str("}}");
                }
            }
            rest = tail;
        }
        out.push_str(rest);
        out
    }

    /// The value of one token, `None` when the token is unknown.
    fn value(&mut self, token: &str) -> Option<Value> {
        if let Some(rest) = token.strip_prefix("request.") {
            return Some(self.request_value(rest));
        }
        let (name, args) = match token.split_once(':') {
            Some((name, args)) => (name, args.split(':').collect::<Vec<_>>()),
            None => (token, Vec::new()),
        };
        let arg = |i: usize| args.get(i).and_then(|a| a.trim().parse::<i64>().ok());
        let pick = |rng: &mut dyn RngCore, list: &[&str]| -> String {
            list.get(rng.random_range(0..list.len().max(1))).copied().unwrap_or_default().to_owned()
        };
        let rng = &mut *self.rng;
        Some(match name {
            "$uuid" | "$guid" | "$randomUUID" => json!(uuid_from(rng)),
            "$now" => json!(self.now.to_rfc3339_opts(SecondsFormat::Millis, true)),
            "$timestamp" => json!(self.now.timestamp()),
            "$timestampMs" => json!(self.now.timestamp_millis()),
            "$isoDate" => json!(self.now.format("%Y-%m-%d").to_string()),
            "$randomInt" => {
                let (low, high) = ordered(arg(0).unwrap_or(0), arg(1).unwrap_or(1000));
                json!(rng.random_range(low..=high))
            }
            "$randomFloat" => {
                let (low, high) = ordered(arg(0).unwrap_or(0), arg(1).unwrap_or(1));
                #[allow(clippy::cast_precision_loss, reason = "sample bounds")]
                let (low, high) = (low as f64, high as f64);
                let value: f64 = low + rng.random::<f64>() * (high - low);
                json!((value * 100.0).round() / 100.0)
            }
            "$randomBoolean" | "$randomBool" => json!(rng.random::<bool>()),
            "$randomFirstName" => json!(pick(rng, FIRST)),
            "$randomLastName" => json!(pick(rng, LAST)),
            "$randomFullName" => json!(format!("{} {}", pick(rng, FIRST), pick(rng, LAST))),
            "$randomUserName" => json!(format!("{}{}", pick(rng, FIRST).to_lowercase(), rng.random_range(1..1000))),
            "$randomEmail" => {
                json!(format!("{}.{}@example.com", pick(rng, FIRST).to_lowercase(), pick(rng, LAST).to_lowercase()))
            }
            "$randomCity" => json!(pick(rng, CITIES)),
            "$randomCountry" | "$randomCountryCode" => {
                let (country, code) = COUNTRIES.get(rng.random_range(0..COUNTRIES.len())).copied().unwrap_or(("", ""));
                json!(if name == "$randomCountry" { country } else { code })
            }
            "$randomStreetAddress" => json!(format!("{} {}", rng.random_range(1..300), pick(rng, STREETS))),
            "$randomPhoneNumber" => {
                json!(format!("+1-555-{:03}-{:04}", rng.random_range(0..1000), rng.random_range(0..10000)))
            }
            "$randomCompanyName" => json!(pick(rng, COMPANIES)),
            "$randomJobTitle" => json!(pick(rng, JOBS)),
            "$randomWord" => json!(pick(rng, WORDS)),
            "$randomWords" => {
                let n = arg(0).unwrap_or(3).clamp(1, 100);
                json!((0..n).map(|_| pick(rng, WORDS)).collect::<Vec<_>>().join(" "))
            }
            "$randomSentence" => {
                let mut words: Vec<String> = (0..6).map(|_| pick(rng, WORDS)).collect();
                if let Some(first) = words.first_mut() {
                    *first = capitalise(first);
                }
                json!(format!("{}.", words.join(" ")))
            }
            "$randomUrl" => json!(format!("https://{}.example.com/{}", pick(rng, WORDS), pick(rng, WORDS))),
            "$randomIPv4" | "$randomIP" => {
                json!(format!("203.0.113.{}", rng.random_range(1..255)))
            }
            "$randomHexColor" => json!(format!("#{:06x}", rng.random_range(0..0x0100_0000))),
            "$randomAlphaNumeric" => {
                const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
                let n = arg(0).unwrap_or(8).clamp(1, 1024);
                let text: String = (0..n)
                    .map(|_| CHARS.get(rng.random_range(0..CHARS.len())).map_or('a', |b| char::from(*b)))
                    .collect();
                json!(text)
            }
            "$randomPrice" => json!(f64::from(rng.random_range(100..100_000_u32)) / 100.0),
            "$randomDatePast" => {
                let date = self.now - Duration::days(rng.random_range(1..365));
                json!(date.to_rfc3339_opts(SecondsFormat::Secs, true))
            }
            "$randomDateFuture" => {
                let date = self.now + Duration::days(rng.random_range(1..365));
                json!(date.to_rfc3339_opts(SecondsFormat::Secs, true))
            }
            _ => return None,
        })
    }

    fn request_value(&self, what: &str) -> Value {
        let request = &self.request;
        if what == "method" {
            return json!(request.method);
        }
        if what == "url" {
            return json!(request.url);
        }
        let lookup = |list: &[(String, String)], name: &str| {
            list.iter().find(|(key, _)| key == name).map_or(Value::Null, |(_, value)| json!(value))
        };
        if let Some(name) = what.strip_prefix("path.") {
            return lookup(request.path, name);
        }
        if let Some(name) = what.strip_prefix("query.") {
            return lookup(request.query, name);
        }
        if let Some(name) = what.strip_prefix("headers.") {
            return request.headers.get(name).and_then(|v| v.to_str().ok()).map_or(Value::Null, |v| json!(v));
        }
        if let Some(path) = what.strip_prefix("body") {
            let Some(mut node) = request.body else { return Value::Null };
            for key in path.split('.').filter(|k| !k.is_empty()) {
                let next = match node {
                    Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                    Value::Object(map) => map.get(key),
                    _ => None,
                };
                match next {
                    Some(found) => node = found,
                    None => return Value::Null,
                }
            }
            return node.clone();
        }
        Value::Null
    }
}

fn sole_token(text: &str) -> Option<&str> {
    let inner = text.strip_prefix("{{")?.strip_suffix("}}")?;
    (!inner.contains("{{") && !inner.contains("}}")).then(|| inner.trim())
}

fn ordered(a: i64, b: i64) -> (i64, i64) {
    if a <= b { (a, b) } else { (b, a) }
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// A version-4 UUID from the given RNG (so tests can seed it).
pub fn uuid_from(rng: &mut dyn RngCore) -> String {
    let mut bytes = [0_u8; 16];
    rng.fill_bytes(&mut bytes);
    uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng as _;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: if std::env::var("SVC_TEST_LONG").is_ok_and(|v| v == "1") { 25_600 } else { 256 },
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Override templates are tenant input: any text renders without a
        /// panic, and what a token adds is bounded (at most 1,024
        /// characters, the longest token's clamp).
        #[test]
        fn any_template_renders_bounded(text in "(\\{\\{|\\}\\}|\\$[a-zA-Z]{0,20}|:|-?[0-9]{0,20}|[ -~]){0,80}") {
            let rendered = render(&Value::String(text.clone()));
            let size = rendered.to_string().len();
            proptest::prop_assert!(size <= 64 + text.len() * 1100, "{} bytes from {text:?}", size);
        }
    }

    fn render(body: &Value) -> Value {
        let mut headers = http::HeaderMap::new();
        headers.insert("x-user", "ada".parse().unwrap());
        let request_body = json!({"user": {"name": "Ada", "tags": ["a", "b"], "age": 36}});
        let path = vec![("id".to_owned(), "42".to_owned())];
        let query = vec![("q".to_owned(), "cats".to_owned())];
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut renderer = Renderer {
            request: RequestData {
                method: "POST",
                url: "/users/42?q=cats",
                body: Some(&request_body),
                path: &path,
                headers: &headers,
                query: &query,
            },
            now: DateTime::parse_from_rfc3339("2026-01-02T03:04:05Z").unwrap().with_timezone(&Utc),
            rng: &mut rng,
        };
        renderer.render_json(body)
    }

    #[test]
    fn typed_tokens_keep_json_valid_and_request_data_flows() {
        let out = render(&json!({
            "n": "{{$randomInt:5:5}}",
            "ok": "{{$randomBoolean}}",
            "age": "{{request.body.user.age}}",
            "tag": "{{request.body.user.tags.1}}",
            "greeting": "Hello {{request.body.user.name}} #{{request.path.id}} ({{request.query.q}}, {{request.headers.x-user}})",
            "ts": "{{$timestamp}}",
            "when": "{{$now}}",
            "missing": "{{request.body.nope}}",
            "unknown": "{{$notAToken}} stays",
        }));
        assert_eq!(out["n"], json!(5));
        assert!(out["ok"].is_boolean());
        assert_eq!(out["age"], json!(36));
        assert_eq!(out["tag"], json!("b"));
        assert_eq!(out["greeting"], json!("Hello Ada #42 (cats, ada)"));
        assert_eq!(out["ts"], json!(1_767_323_045));
        assert_eq!(out["when"], json!("2026-01-02T03:04:05.000Z"));
        assert_eq!(out["missing"], Value::Null);
        assert_eq!(out["unknown"], json!("{{$notAToken}} stays"));
    }

    #[test]
    fn every_documented_token_renders() {
        for token in TOKENS {
            let token = token.replace("<min>", "1").replace("<max>", "9").replace("<n>", "3");
            let token = token.replace("<dotted.path>", "user.name").replace("<name>", "id");
            let out = render(&json!(format!("{{{{{token}}}}}")));
            assert!(!out.to_string().contains("{{"), "{token} did not render: {out}");
        }
    }
}
