//! Loading JSON and YAML text into a `serde_json::Value` tree.
//!
//! Both formats go through one serde visitor so they share two guarantees
//! the stock `Value` visitor does not give: nesting deeper than the limit is
//! refused before the stack is at risk, and a key repeated in one mapping is
//! an error (JSON parsers silently keep the last one; YAML forbids it).

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::Limits;
use crate::error::{SpecError, SpecErrorKind};

/// Shared state of one load: the depth limit, and which of our own checks
/// failed, because serde only lets a visitor return a string message.
struct LoadContext {
    max_depth: usize,
    failure: Cell<Option<SpecErrorKind>>,
}

impl LoadContext {
    fn fail<E: de::Error>(&self, kind: SpecErrorKind, message: String) -> E {
        self.failure.set(Some(kind));
        E::custom(message)
    }
}

#[derive(Clone, Copy)]
struct ValueSeed<'a> {
    depth: usize,
    context: &'a LoadContext,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl ValueSeed<'_> {
    fn nested<E: de::Error>(self) -> Result<Self, E> {
        let depth = self.depth.saturating_add(1);
        if depth > self.context.max_depth {
            return Err(self.context.fail(
                SpecErrorKind::TooDeep,
                format!("document is nested more than {} levels deep", self.context.max_depth),
            ));
        }
        Ok(Self { depth, context: self.context })
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any json or yaml value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        // Out-of-range integers keep their digits rather than losing precision.
        Ok(i64::try_from(v).map(Value::from).unwrap_or_else(|_| Value::String(v.to_string())))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(u64::try_from(v).map(Value::from).unwrap_or_else(|_| Value::String(v.to_string())))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::String(String::from_utf8_lossy(v).into_owned()))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            match map.entry(key) {
                serde_json::map::Entry::Occupied(entry) => {
                    return Err(self
                        .context
                        .fail(SpecErrorKind::DuplicateKey, format!("duplicate key `{}` in one mapping", entry.key())));
                }
                serde_json::map::Entry::Vacant(entry) => {
                    entry.insert(access.next_value_seed(inner)?);
                }
            }
        }
        Ok(Value::Object(map))
    }
}

/// Parses JSON text into a value tree.
pub(crate) fn load_json(text: &str, limits: &Limits) -> Result<Value, SpecError> {
    let context = LoadContext { max_depth: limits.max_depth, failure: Cell::new(None) };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let seed = ValueSeed { depth: 0, context: &context };
    let result = seed.deserialize(&mut deserializer).and_then(|value| deserializer.end().map(|()| value));
    result.map_err(|err| {
        let full = err.to_string();
        let suffix = format!(" at line {} column {}", err.line(), err.column());
        let bare = full.strip_suffix(&suffix).unwrap_or(&full);
        let kind = context.failure.get().unwrap_or_else(|| {
            // serde_json has its own fixed recursion limit that may trip
            // before ours; it is the same problem to the user.
            if bare.contains("recursion limit exceeded") { SpecErrorKind::TooDeep } else { SpecErrorKind::Syntax }
        });
        let message = match kind {
            SpecErrorKind::Syntax => format!("invalid json: {}", lowercase_first(bare)),
            SpecErrorKind::TooDeep if context.failure.get().is_none() => {
                format!("document is nested more than {} levels deep", limits.max_depth.min(127))
            }
            _ => bare.to_owned(),
        };
        SpecError::new(kind, message).at(Some(err.line() as u64), Some(err.column() as u64))
    })
}

fn yaml_options(limits: &Limits) -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = limits.max_depth;
    budget.max_reader_input_bytes = Some(limits.max_bytes);
    // The stock budget is sized for configuration files; a large spec has
    // millions of events. Every real node costs at least a byte of input, so
    // the byte limit already bounds them; aliases are bounded separately.
    budget.max_events = limits.max_bytes.saturating_mul(2).max(1_000_000);
    budget.max_nodes = limits.max_bytes.max(250_000);
    budget.max_total_scalar_bytes = limits.max_bytes;
    budget.max_documents = 1;

    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    // YAML 1.1 booleans would turn enum values such as `yes`, `no`, `on` and
    // `off` into `true`/`false`, silently changing the API description.
    options.strict_booleans = true;
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::Error;
    options.alias_limits.max_total_replayed_events = limits.max_yaml_alias_events;
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::AsString;
    options.with_snippet = false;
    options.crop_radius = 0;
    options
}

/// Parses YAML text into a value tree.
pub(crate) fn load_yaml(text: &str, limits: &Limits) -> Result<Value, SpecError> {
    let context = LoadContext { max_depth: limits.max_depth, failure: Cell::new(None) };
    let seed = ValueSeed { depth: 0, context: &context };
    let options = yaml_options(limits);
    let result = serde_saphyr::with_deserializer_from_str_with_options(text, options, |de| seed.deserialize(de));
    result.map_err(|err| yaml_error(&err, context.failure.get()))
}

fn yaml_error(err: &serde_saphyr::Error, ours: Option<SpecErrorKind>) -> SpecError {
    use serde_saphyr::Error as E;
    use serde_saphyr::budget::BudgetBreach as B;

    // Alias and snippet wrappers hide the variant that says what happened.
    let mut inner = err;
    while let E::AliasError { error, .. } | E::WithSnippet { error, .. } = inner {
        inner = error;
    }
    let kind = ours.unwrap_or(match inner {
        E::DuplicateMappingKey { .. } => SpecErrorKind::DuplicateKey,
        E::AliasReplayLimitExceeded { .. }
        | E::AliasExpansionLimitExceeded { .. }
        | E::AliasReplayStackDepthExceeded { .. }
        | E::AliasReplayCounterOverflow { .. } => SpecErrorKind::TooManyAliases,
        E::Budget { breach, .. } => match breach {
            B::Depth { .. } => SpecErrorKind::TooDeep,
            B::Aliases { .. }
            | B::Anchors { .. }
            | B::AliasAnchorRatio { .. }
            | B::RecordedAnchorEvents { .. }
            | B::RecordedAnchorBytes { .. } => SpecErrorKind::TooManyAliases,
            B::Documents { .. } => SpecErrorKind::Syntax,
            _ => SpecErrorKind::TooLarge,
        },
        // The YAML parser has its own nesting limits for flow and block
        // collections, reported as plain messages.
        other if other.to_string().contains("recursion limit") || other.to_string().contains("nesting") => {
            SpecErrorKind::TooDeep
        }
        _ => SpecErrorKind::Syntax,
    });
    let location = err.location();
    let rendered = inner.to_string();
    let bare = strip_yaml_location(&rendered);
    let message = match kind {
        SpecErrorKind::Syntax => format!("invalid yaml: {}", lowercase_first(bare)),
        SpecErrorKind::TooManyAliases => format!(
            "yaml aliases expand beyond the allowed budget (possible alias bomb): {}",
            lowercase_first(strip_yaml_location(bare))
        ),
        SpecErrorKind::DuplicateKey if ours.is_none() => match inner {
            E::DuplicateMappingKey { key: Some(key), .. } => {
                format!("duplicate key `{key}` in one mapping")
            }
            _ => "duplicate key in one mapping".to_owned(),
        },
        SpecErrorKind::TooDeep if ours.is_none() => {
            format!("document is nested too deeply: {}", lowercase_first(bare))
        }
        _ => lowercase_first(bare),
    };
    SpecError::new(kind, message).at(location.map(|l| l.line()), location.map(|l| l.column()))
}

/// serde-saphyr appends " at line L, column C" to most messages; the location
/// is carried separately, so drop it to avoid printing it twice.
fn strip_yaml_location(message: &str) -> &str {
    message.find(" at line ").and_then(|at| message.get(..at)).unwrap_or(message).trim_end_matches(['.', ' '])
}

fn lowercase_first(message: &str) -> String {
    let trimmed = message.trim_end_matches('.');
    let mut chars = trimmed.chars();
    match chars.next() {
        // Keep acronyms such as "EOF" as they are.
        Some(first) if chars.clone().next().is_some_and(char::is_lowercase) => {
            first.to_lowercase().chain(chars).collect()
        }
        _ => trimmed.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits::default()
    }

    #[test]
    fn json_duplicate_keys_are_refused_with_location() {
        let err = load_json("{\n \"a\": 1,\n \"a\": 2\n}", &limits()).err();
        assert_eq!(err.as_ref().map(|e| e.kind), Some(SpecErrorKind::DuplicateKey));
        assert_eq!(err.as_ref().and_then(|e| e.line), Some(3));
    }

    #[test]
    fn yaml_keeps_yes_and_on_as_strings() {
        let value = load_yaml("a: yes\nb: on\nc: true\n200: x\n", &limits()).ok();
        assert_eq!(value, Some(serde_json::json!({"a": "yes", "b": "on", "c": true, "200": "x"})));
    }

    #[test]
    fn depth_is_bounded_in_both_formats() {
        let small = Limits { max_depth: 4, ..Limits::default() };
        let json = load_json("[[[[[1]]]]]", &small).err();
        assert_eq!(json.map(|e| e.kind), Some(SpecErrorKind::TooDeep));
        let yaml = load_yaml("a:\n b:\n  c:\n   d:\n    e: 1\n", &small).err();
        assert_eq!(yaml.map(|e| e.kind), Some(SpecErrorKind::TooDeep));
    }
}
