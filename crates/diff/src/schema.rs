//! JSON Schema comparison in a direction.
//!
//! A request schema describes what clients send, so narrowing it breaks
//! them; a response schema describes what they receive, so widening it
//! breaks them. Both sides are walked together through `$ref`, `allOf`
//! (flattened, so wrapping a `$ref` in `allOf` changes nothing), `oneOf` and
//! `anyOf` (branches matched by reference name, then by shape), `items`,
//! `properties` and `additionalProperties`.
//!
//! Nodes are identified by their address in the two models. A pair that is
//! already being compared higher up the stack is a recursive schema and is
//! cut; what a pair of referenced nodes yielded is remembered with locations
//! relative to the pair, so a large description whose operations share
//! schemas is walked once, not once per operation and media type.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use indexmap::IndexMap;
use serde_json::Value;
use spec::Spec;

use crate::rules::{self, Rule};
use crate::{Change, ChangeKind};

/// Recursion guard for hand-built models; parsing already bounds nesting.
const MAX_DEPTH: usize = 96;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Direction {
    Request,
    Response,
}

/// Where the walk is: the operation, a human location and a JSON pointer on
/// each side. The strings grow and shrink as the walk descends and returns.
pub(crate) struct Cursor<'c> {
    pub operation: Option<&'c str>,
    pub direction: Direction,
    pub location: String,
    pub old_ptr: String,
    pub new_ptr: String,
}

impl Cursor<'_> {
    fn mark(&self) -> (usize, usize, usize) {
        (self.location.len(), self.old_ptr.len(), self.new_ptr.len())
    }

    fn reset(&mut self, mark: (usize, usize, usize)) {
        self.location.truncate(mark.0);
        self.old_ptr.truncate(mark.1);
        self.new_ptr.truncate(mark.2);
    }

    fn descend(&mut self, label: &str, old_segment: &str, new_segment: &str) {
        self.location.push_str(label);
        push_pointer(&mut self.old_ptr, old_segment);
        push_pointer(&mut self.new_ptr, new_segment);
    }
}

/// Appends `/`-separated segments, escaping each as RFC 6901 requires.
pub(crate) fn push_pointer(pointer: &mut String, segments: &str) {
    if segments.is_empty() {
        return;
    }
    for segment in segments.split('\u{0}') {
        pointer.push('/');
        escape_into(pointer, segment);
    }
}

pub(crate) fn escape_pointer(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    escape_into(&mut out, segment);
    out
}

fn escape_into(out: &mut String, segment: &str) {
    if !segment.contains(['~', '/']) {
        out.push_str(segment);
        return;
    }
    for c in segment.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            _ => out.push(c),
        }
    }
}

/// Joins pointer segments for [`push_pointer`] without escaping them twice.
fn segments(parts: &[&str]) -> String {
    parts.join("\u{0}")
}

/// Owns the output and the caches of one diff.
pub(crate) struct Differ<'a> {
    pub old: &'a Spec,
    pub new: &'a Spec,
    pub out: Vec<Change>,
    in_progress: HashSet<(usize, usize)>,
    /// Changes found under a pair of referenced nodes, with locations
    /// relative to the pair; replayed when another operation reaches it.
    memo: HashMap<(usize, usize, Direction, bool), Rc<Vec<Change>>>,
    cuts: usize,
}

impl<'a> Differ<'a> {
    pub fn new(old: &'a Spec, new: &'a Spec) -> Self {
        Self { old, new, out: Vec::new(), in_progress: HashSet::new(), memo: HashMap::new(), cuts: 0 }
    }

    /// A `required` flag that changed, reported with the rule and message
    /// of its direction: `[now required, no longer required]`.
    pub fn required_changed(
        &mut self,
        operation: Option<&str>,
        location: String,
        pointer: String,
        (old, new): (bool, bool),
        [became, relaxed]: [(Rule, &str); 2],
    ) {
        if old == new {
            return;
        }
        let (rule, message) = if new { became } else { relaxed };
        self.push(rule, operation, location, Some(pointer), Some(old.into()), Some(new.into()), message.to_owned());
    }

    #[expect(clippy::too_many_arguments, reason = "one flat constructor keeps every call site readable")]
    pub fn push(
        &mut self,
        rule: Rule,
        operation: Option<&str>,
        location: String,
        pointer: Option<String>,
        before: Option<Value>,
        after: Option<Value>,
        message: String,
    ) {
        self.out.push(Change {
            kind: rule.kind,
            rule: rule.id,
            operation: operation.map(str::to_owned),
            location,
            pointer,
            before,
            after,
            message,
        });
    }

    /// Emits a change at the cursor; `removal` points into the old document.
    fn at(
        &mut self,
        cur: &Cursor<'_>,
        rule: Rule,
        removal: bool,
        before: Option<Value>,
        after: Option<Value>,
        message: String,
    ) {
        let pointer = if removal { &cur.old_ptr } else { &cur.new_ptr };
        let location = if cur.location.is_empty() { "schema".to_owned() } else { cur.location.clone() };
        self.push(rule, cur.operation, location, Some(pointer.clone()), before, after, message);
    }

    /// Compares two schemas at the cursor.
    pub fn schema(&mut self, cur: &mut Cursor<'_>, old: &'a Value, new: &'a Value) {
        self.schema_at(cur, old, new, 0, false);
    }

    /// `stand_in`: one side is a plain schema compared with a branch of
    /// the other's oneOf, whose documentation and nullability the caller
    /// already compared.
    fn schema_at(&mut self, cur: &mut Cursor<'_>, old: &'a Value, new: &'a Value, depth: usize, stand_in: bool) {
        if depth > MAX_DEPTH {
            return;
        }
        let (Some(old_node), Some(new_node)) = (self.old.resolve_value(old), self.new.resolve_value(new)) else {
            return;
        };
        let old_ref = reference(old);
        let new_ref = reference(new);
        // Two equal subtrees without references cannot differ; most
        // parameter and leaf schemas end here.
        if old_ref.is_none() && new_ref.is_none() && old_node == new_node && !has_reference(old_node) {
            return;
        }
        let key = (std::ptr::from_ref(old_node) as usize, std::ptr::from_ref(new_node) as usize);
        if self.in_progress.contains(&key) {
            self.cuts += 1;
            return;
        }
        let through_ref = old_ref.is_some() || new_ref.is_some();
        let memo_key = (key.0, key.1, cur.direction, stand_in);
        if through_ref && let Some(found) = self.memo.get(&memo_key).cloned() {
            self.out.reserve(found.len());
            for change in found.iter() {
                let mut location = String::with_capacity(cur.location.len() + change.location.len());
                location.push_str(&cur.location);
                location.push_str(&change.location);
                self.out.push(Change {
                    kind: change.kind,
                    rule: change.rule,
                    operation: cur.operation.map(str::to_owned),
                    location,
                    pointer: change.pointer.clone(),
                    before: change.before.clone(),
                    after: change.after.clone(),
                    message: change.message.clone(),
                });
            }
            return;
        }
        let saved_old = old_ref.map(|r| std::mem::replace(&mut cur.old_ptr, ref_pointer(r)));
        let saved_new = new_ref.map(|r| std::mem::replace(&mut cur.new_ptr, ref_pointer(r)));
        let (emitted, cuts) = (self.out.len(), self.cuts);
        self.in_progress.insert(key);
        self.nodes(cur, old_node, new_node, depth, stand_in);
        self.in_progress.remove(&key);
        // A result that depended on a cut cycle is only right for this
        // stack, so it is not remembered.
        if through_ref && self.cuts == cuts && !cur.location.is_empty() {
            let relative: Option<Vec<Change>> = self
                .out
                .get(emitted..)
                .unwrap_or_default()
                .iter()
                .map(|change| {
                    let suffix = change.location.strip_prefix(cur.location.as_str())?;
                    Some(Change { operation: None, location: suffix.to_owned(), ..change.clone() })
                })
                .collect();
            if let Some(relative) = relative {
                self.memo.insert(memo_key, Rc::new(relative));
            }
        }
        if let Some(saved) = saved_old {
            cur.old_ptr = saved;
        }
        if let Some(saved) = saved_new {
            cur.new_ptr = saved;
        }
    }

    fn nodes(&mut self, cur: &mut Cursor<'_>, old_node: &'a Value, new_node: &'a Value, depth: usize, stand_in: bool) {
        let mut old = Flat::of(self.old, old_node, &cur.old_ptr);
        let mut new = Flat::of(self.new, new_node, &cur.new_ptr);
        // `anyOf: [X]` and 3.1's `oneOf: [X, {type: null}]` are just X.
        let (mut old_node, mut new_node) = (old_node, new_node);
        if let Some((node, flat)) = old.single_branch(self.old) {
            (old_node, old) = (node, flat);
        }
        if let Some((node, flat)) = new.single_branch(self.new) {
            (new_node, new) = (node, flat);
        }

        if !stand_in {
            self.documentation(cur, &old, &new);
            self.nullability(cur, &old, &new);
        }
        if old.variants.is_empty() != new.variants.is_empty() {
            // One side is a plain schema: it stands for a single branch, so
            // `string` -> `oneOf: [string, integer]` reads as a branch added
            // and the matching branch is compared with the plain schema.
            self.variants(cur, &old, &new, old_node, new_node, depth);
            return;
        }
        if !self.types(cur, &old, &new) {
            return;
        }
        self.format(cur, &old, &new);
        self.enums(cur, &old, &new);
        self.constraints(cur, &old, &new);
        self.properties(cur, &old, &new, depth);
        self.additional_properties(cur, &old, &new, depth);
        if let (Some(old_items), Some(new_items)) = (old.items, new.items) {
            let mark = cur.mark();
            cur.descend("[]", "items", "items");
            self.schema_at(cur, old_items, new_items, depth + 1, false);
            cur.reset(mark);
        }
        self.variants(cur, &old, &new, old_node, new_node, depth);
    }

    fn documentation(&mut self, cur: &Cursor<'_>, old: &Flat<'a>, new: &Flat<'a>) {
        if old.description != new.description && old.description.is_some() && new.description.is_some() {
            self.at(
                cur,
                rules::DESCRIPTION_CHANGED,
                false,
                old.description.map(Value::from),
                new.description.map(Value::from),
                "description changed".to_owned(),
            );
        }
        if old.deprecated != new.deprecated {
            let message = if new.deprecated { "deprecated" } else { "no longer deprecated" };
            self.at(
                cur,
                rules::SCHEMA_DEPRECATED,
                false,
                Some(old.deprecated.into()),
                Some(new.deprecated.into()),
                message.to_owned(),
            );
        }
    }

    /// Compares the `default` of a parameter's or property's schema. It
    /// matters only where a client may leave the value out: in a request,
    /// for a value that was optional.
    pub fn default_value(&mut self, cur: &Cursor<'_>, old: &'a Value, new: &'a Value, optional_before: bool) {
        let before = default_of(self.old, old);
        let after = default_of(self.new, new);
        let message = match (before, after) {
            (None, None) => return,
            (Some(b), Some(a)) if same_value(b, a) => return,
            (None, Some(a)) => format!("default {a} added"),
            (Some(b), None) => format!("default {b} removed"),
            (Some(b), Some(a)) => format!("default changed from {b} to {a}"),
        };
        let applies = cur.direction == Direction::Request && optional_before && before.is_some();
        let rule = if applies { rules::REQUEST_DEFAULT_CHANGED } else { rules::DEFAULT_CHANGED };
        self.at(cur, rule, before.is_some() && after.is_none(), before.cloned(), after.cloned(), message);
    }

    /// Reports a type change; false when the change makes descending
    /// pointless (an object became a string).
    fn types(&mut self, cur: &Cursor<'_>, old: &Flat<'a>, new: &Flat<'a>) -> bool {
        let request = cur.direction == Direction::Request;
        let (old_types, new_types) = (&old.types, &new.types);
        if old_types == new_types {
            return true;
        }
        let to_value = |types: &BTreeSet<&str>| Value::from(types.iter().map(|t| Value::from(*t)).collect::<Vec<_>>());
        match (old_types.is_empty(), new_types.is_empty()) {
            (false, false) => {
                let widened = is_wider(new_types, old_types);
                let narrowed = is_wider(old_types, new_types);
                let rule = match (request, widened, narrowed) {
                    (true, true, _) => rules::REQUEST_TYPE_WIDENED,
                    (false, _, true) => rules::RESPONSE_TYPE_NARROWED,
                    (true, _, _) => rules::REQUEST_TYPE_CHANGED,
                    (false, _, _) => rules::RESPONSE_TYPE_CHANGED,
                };
                let message = format!("type changed from {} to {}", join(old_types), join(new_types));
                self.at(cur, rule, false, Some(to_value(old_types)), Some(to_value(new_types)), message);
                rule.kind != ChangeKind::Breaking
            }
            (true, false) => {
                let message = format!("type is now constrained to {}", join(new_types));
                self.constraint(cur, true, None, Some(to_value(new_types)), message);
                true
            }
            (false, true) => {
                let message = format!("type is no longer constrained to {}", join(old_types));
                self.constraint(cur, false, Some(to_value(old_types)), None, message);
                true
            }
            (true, true) => true,
        }
    }

    fn constraint(
        &mut self,
        cur: &Cursor<'_>,
        tightened: bool,
        before: Option<Value>,
        after: Option<Value>,
        message: String,
    ) {
        let rule = match (cur.direction, tightened) {
            (Direction::Request, true) => rules::REQUEST_CONSTRAINT_TIGHTENED,
            (Direction::Request, false) => rules::REQUEST_CONSTRAINT_LOOSENED,
            (Direction::Response, true) => rules::RESPONSE_CONSTRAINT_TIGHTENED,
            (Direction::Response, false) => rules::RESPONSE_CONSTRAINT_LOOSENED,
        };
        self.at(cur, rule, false, before, after, message);
    }

    fn nullability(&mut self, cur: &Cursor<'_>, old: &Flat<'a>, new: &Flat<'a>) {
        if old.nullable == new.nullable {
            return;
        }
        let rule = match (cur.direction, new.nullable) {
            (Direction::Request, true) => rules::REQUEST_BECAME_NULLABLE,
            (Direction::Request, false) => rules::REQUEST_BECAME_NOT_NULLABLE,
            (Direction::Response, true) => rules::RESPONSE_BECAME_NULLABLE,
            (Direction::Response, false) => rules::RESPONSE_BECAME_NOT_NULLABLE,
        };
        let message = if new.nullable { "became nullable" } else { "is no longer nullable" };
        self.at(cur, rule, false, Some(old.nullable.into()), Some(new.nullable.into()), message.to_owned());
    }

    fn format(&mut self, cur: &Cursor<'_>, old: &Flat<'a>, new: &Flat<'a>) {
        match (old.format, new.format) {
            (Some(before), Some(after)) if before != after => {
                let rule = match cur.direction {
                    Direction::Request => rules::REQUEST_FORMAT_CHANGED,
                    Direction::Response => rules::RESPONSE_FORMAT_CHANGED,
                };
                let message = format!("format changed from `{before}` to `{after}`");
                self.at(cur, rule, false, Some(before.into()), Some(after.into()), message);
            }
            (None, Some(after)) => {
                self.constraint(cur, true, None, Some(after.into()), format!("format `{after}` added"));
            }
            (Some(before), None) => {
                self.constraint(cur, false, Some(before.into()), None, format!("format `{before}` removed"));
            }
            _ => {}
        }
    }

    fn enums(&mut self, cur: &Cursor<'_>, old: &Flat<'a>, new: &Flat<'a>) {
        match (&old.enumeration, &new.enumeration) {
            (Some(before), Some(after)) => {
                let old_values = enum_values(before);
                let new_values = enum_values(after);
                let request = cur.direction == Direction::Request;
                for (text, value) in &old_values {
                    if !new_values.contains_key(text) {
                        let rule = if request {
                            rules::REQUEST_ENUM_VALUE_REMOVED
                        } else {
                            rules::RESPONSE_ENUM_VALUE_REMOVED
                        };
                        self.at(cur, rule, true, Some((*value).clone()), None, format!("enum value {text} removed"));
                    }
                }
                for (text, value) in &new_values {
                    if !old_values.contains_key(text) {
                        let rule =
                            if request { rules::REQUEST_ENUM_VALUE_ADDED } else { rules::RESPONSE_ENUM_VALUE_ADDED };
                        self.at(cur, rule, false, None, Some((*value).clone()), format!("enum value {text} added"));
                    }
                }
            }
            (None, Some(after)) => {
                let after = Value::from(after.iter().map(|value| (*value).clone()).collect::<Vec<_>>());
                self.constraint(cur, true, None, Some(after), "values restricted to an enum".to_owned());
            }
            (Some(before), None) => {
                let before = Value::from(before.iter().map(|value| (*value).clone()).collect::<Vec<_>>());
                self.constraint(cur, false, Some(before), None, "enum restriction removed".to_owned());
            }
            (None, None) => {}
        }
    }

    fn constraints(&mut self, cur: &Cursor<'_>, old: &Flat<'a>, new: &Flat<'a>) {
        for upper in [true, false] {
            self.limit(cur, Limit::of(old, upper), Limit::of(new, upper), upper);
        }
        for (keyword, bound) in BOUNDS {
            let before = bound.effective(old.keyword(keyword));
            let after = bound.effective(new.keyword(keyword));
            let (tightened, message) = match (before, after) {
                (Some(b), Some(a)) if same_value(b, a) => continue,
                (None, None) => continue,
                (None, Some(a)) => (true, format!("{keyword} {a} added")),
                (Some(b), None) => (false, format!("{keyword} {b} removed")),
                (Some(b), Some(a)) => (bound.tightened(b, a), format!("{keyword} changed from {b} to {a}")),
            };
            self.constraint(cur, tightened, before.cloned(), after.cloned(), message);
        }
    }

    /// `maximum`/`exclusiveMaximum` or `minimum`/`exclusiveMinimum`,
    /// compared as the one limit they set together.
    fn limit(&mut self, cur: &Cursor<'_>, before: Option<Limit<'a>>, after: Option<Limit<'a>>, upper: bool) {
        let (tightened, message) = match (before, after) {
            (None, None) => return,
            (Some(b), Some(a)) if b.same(&a) => return,
            (None, Some(a)) => (true, format!("{} added", a.describe())),
            (Some(b), None) => (false, format!("{} removed", b.describe())),
            (Some(b), Some(a)) => {
                let message = if b.keyword == a.keyword {
                    format!("{} changed from {} to {}", a.keyword, b.written, a.written)
                } else {
                    format!("{} changed to {}", b.describe(), a.describe())
                };
                (a.tighter_than(&b, upper), message)
            }
        };
        let value = |limit: Limit<'a>| if limit.exclusive { limit.to_value() } else { limit.written.clone() };
        self.constraint(cur, tightened, before.map(value), after.map(value), message);
    }

    fn properties(&mut self, cur: &mut Cursor<'_>, old: &Flat<'a>, new: &Flat<'a>, depth: usize) {
        if old.properties.is_empty() && new.properties.is_empty() {
            return;
        }
        let request = cur.direction == Direction::Request;
        // Properties the other direction never carries are not part of
        // this contract.
        let hidden_flag = if request { "readOnly" } else { "writeOnly" };
        let hidden = |spec: &Spec, schema: &Value| {
            spec.resolve_value(schema).and_then(|node| node.get(hidden_flag)).and_then(Value::as_bool) == Some(true)
        };
        // A property's pointer starts at the node that declares it, which
        // for an `allOf` member is not the cursor's node.
        let saved = (cur.old_ptr.clone(), cur.new_ptr.clone());
        let at_property = |pointer: &mut String, base: &str, name: &str| {
            pointer.clear();
            pointer.push_str(base);
            pointer.push_str("/properties/");
            escape_into(pointer, name);
        };
        for (name, (old_schema, old_base)) in &old.properties {
            let was_required = old.required.contains(name);
            let Some((new_schema, new_base)) = new.properties.get(name) else {
                if hidden(self.old, old_schema) {
                    continue;
                }
                let mark = cur.mark();
                cur.location.push('.');
                cur.location.push_str(name);
                at_property(&mut cur.old_ptr, old.base(*old_base), name);
                let rule = if request { rules::REQUEST_PROPERTY_REMOVED } else { rules::RESPONSE_PROPERTY_REMOVED };
                let required = if was_required { "required " } else { "" };
                self.at(
                    cur,
                    rule,
                    true,
                    Some(undocumented(old_schema)),
                    None,
                    format!("{required}property `{name}` removed"),
                );
                cur.reset(mark);
                continue;
            };
            if hidden(self.old, old_schema) && hidden(self.new, new_schema) {
                continue;
            }
            let is_required = new.required.contains(name);
            let mark = cur.mark();
            cur.location.push('.');
            cur.location.push_str(name);
            at_property(&mut cur.old_ptr, old.base(*old_base), name);
            at_property(&mut cur.new_ptr, new.base(*new_base), name);
            if was_required != is_required {
                let rule = match (request, is_required) {
                    (true, true) => rules::REQUEST_PROPERTY_BECAME_REQUIRED,
                    (true, false) => rules::REQUEST_PROPERTY_BECAME_OPTIONAL,
                    (false, true) => rules::RESPONSE_PROPERTY_BECAME_REQUIRED,
                    (false, false) => rules::RESPONSE_PROPERTY_BECAME_OPTIONAL,
                };
                let message = if is_required {
                    format!("property `{name}` became required")
                } else {
                    format!("property `{name}` became optional")
                };
                self.at(cur, rule, false, Some(was_required.into()), Some(is_required.into()), message);
            }
            self.default_value(cur, old_schema, new_schema, !was_required);
            self.schema_at(cur, old_schema, new_schema, depth + 1, false);
            cur.reset(mark);
        }
        for (name, (new_schema, new_base)) in &new.properties {
            if old.properties.contains_key(name) || hidden(self.new, new_schema) {
                continue;
            }
            let is_required = new.required.contains(name);
            let rule = match (request, is_required) {
                (true, true) => rules::REQUEST_REQUIRED_PROPERTY_ADDED,
                (true, false) => rules::REQUEST_OPTIONAL_PROPERTY_ADDED,
                (false, _) => rules::RESPONSE_PROPERTY_ADDED,
            };
            let mark = cur.mark();
            cur.location.push('.');
            cur.location.push_str(name);
            at_property(&mut cur.new_ptr, new.base(*new_base), name);
            let required = if is_required { "required" } else { "optional" };
            self.at(
                cur,
                rule,
                false,
                None,
                Some(undocumented(new_schema)),
                format!("{required} property `{name}` added"),
            );
            cur.reset(mark);
        }
        (cur.old_ptr, cur.new_ptr) = saved;
    }

    fn additional_properties(&mut self, cur: &mut Cursor<'_>, old: &Flat<'a>, new: &Flat<'a>, depth: usize) {
        let before = Additional::of(old.additional);
        let after = Additional::of(new.additional);
        let request = cur.direction == Direction::Request;
        let rule = match (before, after) {
            (Additional::Schema(o), Additional::Schema(n)) => {
                let mark = cur.mark();
                cur.descend(".*", "additionalProperties", "additionalProperties");
                self.schema_at(cur, o, n, depth + 1, false);
                cur.reset(mark);
                return;
            }
            (Additional::Any, Additional::Any) | (Additional::Forbidden, Additional::Forbidden) => return,
            (_, Additional::Forbidden) if request => rules::REQUEST_ADDITIONAL_PROPERTIES_FORBIDDEN,
            (Additional::Forbidden, _) if request => rules::REQUEST_ADDITIONAL_PROPERTIES_ALLOWED,
            (Additional::Any, Additional::Schema(_)) if request => rules::REQUEST_CONSTRAINT_TIGHTENED,
            (Additional::Schema(_), Additional::Any) if request => rules::REQUEST_CONSTRAINT_LOOSENED,
            (Additional::Schema(_), Additional::Any) => rules::RESPONSE_CONSTRAINT_LOOSENED,
            _ => rules::RESPONSE_ADDITIONAL_PROPERTIES_CHANGED,
        };
        self.at(
            cur,
            rule,
            false,
            old.additional.cloned(),
            new.additional.cloned(),
            format!("additionalProperties changed from {} to {}", before.describe(), after.describe()),
        );
    }

    fn variants(
        &mut self,
        cur: &mut Cursor<'_>,
        old: &Flat<'a>,
        new: &Flat<'a>,
        old_node: &'a Value,
        new_node: &'a Value,
        depth: usize,
    ) {
        if old.variants.is_empty() && new.variants.is_empty() {
            return;
        }
        // A plain schema on one side stands for a single branch, so that
        // `string` -> `oneOf: [string, integer]` reads as one branch added.
        let old_branches: Vec<Branch<'a>> = if old.variants.is_empty() {
            vec![Branch { schema: old_node, pointer: String::new() }]
        } else {
            old.variants.clone()
        };
        let new_branches: Vec<Branch<'a>> = if new.variants.is_empty() {
            vec![Branch { schema: new_node, pointer: String::new() }]
        } else {
            new.variants.clone()
        };
        let pairs = self.match_branches(&old_branches, &new_branches);
        let request = cur.direction == Direction::Request;
        let mut new_used = vec![false; new_branches.len()];
        for (old_index, old_branch) in old_branches.iter().enumerate() {
            let label = branch_label(old_branch.schema, old_index);
            let matched = pairs.iter().find(|(o, _)| *o == old_index).map(|(_, n)| *n);
            let mark = cur.mark();
            cur.location.push('<');
            cur.location.push_str(&label);
            cur.location.push('>');
            match matched.and_then(|n| new_branches.get(n).map(|branch| (n, branch))) {
                Some((new_index, new_branch)) => {
                    if let Some(used) = new_used.get_mut(new_index) {
                        *used = true;
                    }
                    push_pointer(&mut cur.old_ptr, &old_branch.pointer);
                    push_pointer(&mut cur.new_ptr, &new_branch.pointer);
                    let stand_in = old.variants.is_empty() || new.variants.is_empty();
                    self.schema_at(cur, old_branch.schema, new_branch.schema, depth + 1, stand_in);
                }
                None => {
                    push_pointer(&mut cur.old_ptr, &old_branch.pointer);
                    let rule = if request { rules::REQUEST_VARIANT_REMOVED } else { rules::RESPONSE_VARIANT_REMOVED };
                    self.at(
                        cur,
                        rule,
                        true,
                        Some(undocumented(old_branch.schema)),
                        None,
                        format!("alternative `{label}` removed"),
                    );
                }
            }
            cur.reset(mark);
        }
        for (new_index, new_branch) in new_branches.iter().enumerate() {
            if new_used.get(new_index).copied().unwrap_or(true) {
                continue;
            }
            let label = branch_label(new_branch.schema, new_index);
            let mark = cur.mark();
            cur.location.push('<');
            cur.location.push_str(&label);
            cur.location.push('>');
            push_pointer(&mut cur.new_ptr, &new_branch.pointer);
            let rule = if request { rules::REQUEST_VARIANT_ADDED } else { rules::RESPONSE_VARIANT_ADDED };
            self.at(
                cur,
                rule,
                false,
                None,
                Some(undocumented(new_branch.schema)),
                format!("alternative `{label}` added"),
            );
            cur.reset(mark);
        }
    }

    /// Pairs old and new branches: the same `$ref` first, then the same
    /// shape (a renamed component with identical content), then the
    /// leftovers in order when as many remain on both sides.
    fn match_branches(&self, old: &[Branch<'a>], new: &[Branch<'a>]) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        let mut old_done = vec![false; old.len()];
        let mut new_done = vec![false; new.len()];
        let passes: [&BranchTest<'a, '_>; 3] = [
            &|_, a, b| reference(a.schema).is_some() && reference(a.schema) == reference(b.schema),
            &|this, a, b| this.shape(this.old, a.schema) == this.shape(this.new, b.schema),
            &|this, a, b| this.types_of(this.old, a.schema) == this.types_of(this.new, b.schema),
        ];
        for pass in passes {
            for (i, a) in old.iter().enumerate() {
                if old_done.get(i).copied().unwrap_or(true) {
                    continue;
                }
                for (j, b) in new.iter().enumerate() {
                    if new_done.get(j).copied().unwrap_or(true) || !pass(self, a, b) {
                        continue;
                    }
                    pairs.push((i, j));
                    if let Some(done) = old_done.get_mut(i) {
                        *done = true;
                    }
                    if let Some(done) = new_done.get_mut(j) {
                        *done = true;
                    }
                    break;
                }
            }
        }
        let old_left: Vec<usize> = (0..old.len()).filter(|i| !old_done.get(*i).copied().unwrap_or(true)).collect();
        let new_left: Vec<usize> = (0..new.len()).filter(|j| !new_done.get(*j).copied().unwrap_or(true)).collect();
        if old_left.len() == new_left.len() && old.len() > 1 && new.len() > 1 {
            pairs.extend(old_left.into_iter().zip(new_left));
        }
        pairs
    }

    /// A branch's identity apart from its name: title, types, property
    /// names, enum values.
    fn shape(&self, spec: &'a Spec, schema: &'a Value) -> Option<String> {
        let node = spec.resolve_value(schema)?;
        let flat = Flat::of(spec, node, "");
        let mut shape = String::new();
        if let Some(title) = node.get("title").and_then(Value::as_str) {
            shape.push_str(title);
        }
        shape.push('|');
        shape.push_str(&join(&flat.types));
        shape.push('|');
        let names: BTreeSet<&str> = flat.properties.keys().copied().collect();
        shape.push_str(&names.into_iter().collect::<Vec<_>>().join(","));
        shape.push('|');
        if let Some(values) = &flat.enumeration {
            shape.push_str(&enum_values(values).into_keys().collect::<Vec<_>>().join(","));
        }
        if let Some(items) = flat.items.and_then(|items| self.shape(spec, items)) {
            shape.push('[');
            shape.push_str(&items);
        }
        Some(shape)
    }

    fn types_of(&self, spec: &'a Spec, schema: &'a Value) -> Option<String> {
        let node = spec.resolve_value(schema)?;
        let flat = Flat::of(spec, node, "");
        if flat.types.is_empty() { None } else { Some(join(&flat.types)) }
    }
}

/// One pass of branch matching: does this old branch pair with that new one.
type BranchTest<'a, 'd> = dyn Fn(&Differ<'a>, &Branch<'a>, &Branch<'a>) -> bool + 'd;

/// One `oneOf`/`anyOf` branch and its pointer relative to the node.
#[derive(Clone)]
struct Branch<'a> {
    schema: &'a Value,
    pointer: String,
}

fn branch_label(schema: &Value, index: usize) -> String {
    if let Some(reference) = reference(schema) {
        return reference.rsplit('/').next().unwrap_or(reference).to_owned();
    }
    if let Some(title) = schema.get("title").and_then(Value::as_str) {
        return title.to_owned();
    }
    let types = spec::schema_types(schema).types;
    if types.is_empty() { format!("#{index}") } else { format!("#{index} {}", types.join("|")) }
}

#[derive(Clone, Copy)]
enum Additional<'a> {
    Any,
    Forbidden,
    Schema(&'a Value),
}

impl<'a> Additional<'a> {
    fn of(value: Option<&'a Value>) -> Self {
        match value {
            None | Some(Value::Bool(true)) => Self::Any,
            Some(Value::Bool(false)) => Self::Forbidden,
            Some(Value::Object(map)) if map.is_empty() => Self::Any,
            Some(schema) => Self::Schema(schema),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Self::Any => "any",
            Self::Forbidden => "false",
            Self::Schema(_) => "a schema",
        }
    }
}

/// How a keyword bounds values.
#[derive(Clone, Copy)]
enum Bound {
    /// A larger value accepts more (`maxLength`, `maxItems`).
    Upper,
    /// A smaller value accepts more (`minLength`, `minItems`).
    Lower,
    /// `true` accepts less (`uniqueItems`).
    Flag,
    /// Any change may refuse values (`pattern`, `multipleOf`).
    Opaque,
}

impl Bound {
    /// The keyword's value unless it bounds nothing (`minLength: 0`,
    /// `uniqueItems: false`), so that writing the default out is no change.
    fn effective(self, value: Option<&Value>) -> Option<&Value> {
        let value = value.filter(|value| !value.is_null())?;
        let inert = match self {
            Self::Lower => value.as_f64() == Some(0.0),
            Self::Flag => value.as_bool() == Some(false),
            Self::Upper | Self::Opaque => false,
        };
        if inert { None } else { Some(value) }
    }

    fn tightened(self, before: &Value, after: &Value) -> bool {
        match (self, before.as_f64(), after.as_f64()) {
            (Self::Upper, Some(b), Some(a)) => a < b,
            (Self::Lower, Some(b), Some(a)) => a > b,
            (Self::Flag, _, _) => after.as_bool() == Some(true),
            _ => true,
        }
    }
}

const BOUNDS: [(&str, Bound); 9] = [
    ("maxLength", Bound::Upper),
    ("maxItems", Bound::Upper),
    ("maxProperties", Bound::Upper),
    ("minLength", Bound::Lower),
    ("minItems", Bound::Lower),
    ("minProperties", Bound::Lower),
    ("uniqueItems", Bound::Flag),
    ("pattern", Bound::Opaque),
    ("multipleOf", Bound::Opaque),
];

/// A numeric limit as the validator applies it: 3.0's `maximum: 10,
/// exclusiveMaximum: true` and 3.1's `exclusiveMaximum: 10` are the same
/// limit, and `10` and `10.0` the same number.
#[derive(Clone, Copy)]
struct Limit<'a> {
    value: f64,
    exclusive: bool,
    /// The keyword that sets it and its value as written.
    keyword: &'static str,
    written: &'a Value,
}

impl<'a> Limit<'a> {
    /// The effective upper (`maximum`, `exclusiveMaximum`) or lower
    /// (`minimum`, `exclusiveMinimum`) limit of a flattened node.
    fn of(flat: &Flat<'a>, upper: bool) -> Option<Self> {
        let (inclusive_keyword, exclusive_keyword) =
            if upper { ("maximum", "exclusiveMaximum") } else { ("minimum", "exclusiveMinimum") };
        let inclusive = flat.keyword(inclusive_keyword);
        let exclusive = flat.keyword(exclusive_keyword);
        let flag = exclusive.and_then(Value::as_bool) == Some(true);
        let plain = inclusive.and_then(|written| {
            let value = written.as_f64()?;
            let keyword = if flag { exclusive_keyword } else { inclusive_keyword };
            Some(Limit { value, exclusive: flag, keyword, written })
        });
        let numeric = exclusive.and_then(|written| {
            let value = written.as_f64()?;
            Some(Limit { value, exclusive: true, keyword: exclusive_keyword, written })
        });
        match (plain, numeric) {
            (Some(a), Some(b)) => Some(if a.tighter_than(&b, upper) { a } else { b }),
            (a, b) => a.or(b),
        }
    }

    fn tighter_than(&self, other: &Self, upper: bool) -> bool {
        if self.value == other.value {
            return self.exclusive && !other.exclusive;
        }
        if upper { self.value < other.value } else { self.value > other.value }
    }

    fn same(&self, other: &Self) -> bool {
        self.value == other.value && self.exclusive == other.exclusive
    }

    fn describe(&self) -> String {
        format!("{} {}", self.keyword, self.written)
    }

    fn to_value(self) -> Value {
        let mut object = serde_json::Map::new();
        object.insert(self.keyword.to_owned(), self.written.clone());
        Value::Object(object)
    }
}

/// Equal JSON values, numbers compared by value (`10` and `10.0`).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// A value's text for keying, numbers in one canonical form.
fn value_key(value: &Value) -> String {
    match value.as_f64() {
        Some(number) if value.is_number() && number.is_finite() && number.fract() == 0.0 && number.abs() < 1e15 => {
            format!("{number:.0}")
        }
        _ => value.to_string(),
    }
}

/// The bound keywords a [`Flat`] keeps, read in the same pass as the rest.
const KEYWORDS: [&str; 13] = [
    "maxLength",
    "maxItems",
    "maxProperties",
    "minLength",
    "minItems",
    "minProperties",
    "uniqueItems",
    "pattern",
    "multipleOf",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
];

/// A schema node with its `allOf` members merged in: keywords from the node
/// itself win, properties and `required` are the union. Each layer's keys
/// are read in one pass: hashed lookups per keyword were most of the walk.
struct Flat<'a> {
    description: Option<&'a str>,
    deprecated: bool,
    types: BTreeSet<&'a str>,
    nullable: bool,
    format: Option<&'a str>,
    /// `enum`, or `const` as a one-value enum (3.1's `const: x` and
    /// `enum: [x]` say the same).
    enumeration: Option<Vec<&'a Value>>,
    /// Property name to its schema and the index in `layer_pointers` of
    /// the node that declares it.
    properties: IndexMap<&'a str, (&'a Value, usize)>,
    required: BTreeSet<&'a str>,
    additional: Option<&'a Value>,
    items: Option<&'a Value>,
    variants: Vec<Branch<'a>>,
    keywords: [Option<&'a Value>; KEYWORDS.len()],
    layer_pointers: Vec<String>,
    pointer: String,
}

impl<'a> Flat<'a> {
    fn of(spec: &'a Spec, node: &'a Value, pointer: &str) -> Self {
        let mut layers = Vec::new();
        collect_layers(spec, node, pointer.to_owned(), &mut layers, 0);
        let mut flat = Flat {
            description: None,
            deprecated: false,
            types: BTreeSet::new(),
            nullable: false,
            format: None,
            enumeration: None,
            properties: IndexMap::new(),
            required: BTreeSet::new(),
            additional: None,
            items: None,
            variants: Vec::new(),
            keywords: [None; KEYWORDS.len()],
            layer_pointers: Vec::with_capacity(layers.len()),
            pointer: pointer.to_owned(),
        };
        for (index, (layer, layer_pointer)) in layers.into_iter().enumerate() {
            let Some(map) = layer.as_object() else {
                flat.layer_pointers.push(layer_pointer);
                continue;
            };
            let types = spec::schema_types(layer);
            flat.nullable |= types.nullable;
            if flat.types.is_empty() {
                flat.types.extend(types.types);
            }
            let (mut constant, mut listed) = (None, None);
            for (key, value) in map {
                match key.as_str() {
                    "description" if index == 0 => flat.description = value.as_str(),
                    "deprecated" if index == 0 => flat.deprecated = value.as_bool() == Some(true),
                    "format" if flat.format.is_none() => flat.format = value.as_str(),
                    "const" => constant = Some(value),
                    "enum" => listed = value.as_array(),
                    "properties" => {
                        if let Value::Object(properties) = value {
                            for (name, schema) in properties {
                                flat.properties.entry(name.as_str()).or_insert((schema, index));
                            }
                        }
                    }
                    "required" => {
                        if let Value::Array(required) = value {
                            flat.required.extend(required.iter().filter_map(Value::as_str));
                        }
                    }
                    "additionalProperties" if flat.additional.is_none() => flat.additional = Some(value),
                    "items" if flat.items.is_none() && value.is_object() => flat.items = Some(value),
                    "oneOf" | "anyOf" if flat.variants.is_empty() => {
                        if let Value::Array(branches) = value {
                            flat.variants = branches
                                .iter()
                                .enumerate()
                                .map(|(at, schema)| Branch { schema, pointer: segments(&[key, &at.to_string()]) })
                                .collect();
                        }
                    }
                    other => {
                        if let Some(slot) =
                            KEYWORDS.iter().position(|k| *k == other).and_then(|at| flat.keywords.get_mut(at))
                            && slot.is_none()
                        {
                            *slot = Some(value);
                        }
                    }
                }
            }
            if flat.enumeration.is_none() {
                flat.enumeration = match (constant, listed) {
                    (Some(value), _) => Some(vec![value]),
                    (None, Some(values)) => Some(values.iter().collect()),
                    _ => None,
                };
            }
            flat.layer_pointers.push(layer_pointer);
        }
        // `nullable` inside a 3.1 `oneOf: [{type: null}, X]` counts too.
        if flat.variants.iter().any(|branch| branch.schema.get("type").and_then(Value::as_str) == Some("null")) {
            flat.nullable = true;
            flat.variants.retain(|branch| branch.schema.get("type").and_then(Value::as_str) != Some("null"));
        }
        // An object or array without `type` still has one.
        if flat.types.is_empty() && flat.variants.is_empty() {
            if !flat.properties.is_empty() {
                flat.types.insert("object");
            } else if flat.items.is_some() {
                flat.types.insert("array");
            }
        }
        flat
    }

    /// The pointer of the node that declares a property.
    fn base(&self, layer: usize) -> &str {
        self.layer_pointers.get(layer).map_or(self.pointer.as_str(), String::as_str)
    }

    /// The only branch of a oneOf/anyOf that has nothing else, flattened,
    /// keeping this node's nullability.
    fn single_branch(&self, spec: &'a Spec) -> Option<(&'a Value, Flat<'a>)> {
        let [branch] = self.variants.as_slice() else {
            return None;
        };
        if !self.types.is_empty() || !self.properties.is_empty() || self.items.is_some() {
            return None;
        }
        let node = spec.resolve_value(branch.schema)?;
        let mut pointer = self.pointer.clone();
        match reference(branch.schema) {
            Some(reference) => pointer = ref_pointer(reference),
            None => push_pointer(&mut pointer, &branch.pointer),
        }
        let mut flat = Flat::of(spec, node, &pointer);
        flat.nullable |= self.nullable;
        if flat.description.is_none() {
            flat.description = self.description;
        }
        flat.deprecated |= self.deprecated;
        Some((node, flat))
    }

    fn keyword(&self, keyword: &str) -> Option<&'a Value> {
        KEYWORDS.iter().position(|k| *k == keyword).and_then(|at| self.keywords.get(at).copied().flatten())
    }
}

fn collect_layers<'a>(
    spec: &'a Spec,
    node: &'a Value,
    pointer: String,
    layers: &mut Vec<(&'a Value, String)>,
    depth: usize,
) {
    if depth > 16 || layers.iter().any(|(seen, _)| std::ptr::eq(*seen, node)) {
        return;
    }
    layers.push((node, pointer.clone()));
    if let Some(Value::Array(members)) = node.get("allOf") {
        for (index, member) in members.iter().enumerate() {
            let member_pointer = match reference(member) {
                Some(reference) => ref_pointer(reference),
                None => {
                    let mut p = pointer.clone();
                    push_pointer(&mut p, &segments(&["allOf", &index.to_string()]));
                    p
                }
            };
            if let Some(resolved) = spec.resolve_value(member) {
                collect_layers(spec, resolved, member_pointer, layers, depth + 1);
            }
        }
    }
}

/// A schema's `default`: on the node itself (3.1 allows it beside a
/// `$ref`), on its target, or on an `allOf` member.
fn default_of<'v>(spec: &'v Spec, schema: &'v Value) -> Option<&'v Value> {
    let own = |node: &'v Value| node.get("default").filter(|value| !value.is_null());
    if let Some(found) = own(schema) {
        return Some(found);
    }
    let node = spec.resolve_value(schema)?;
    own(node)
        .or_else(|| node.get("allOf")?.as_array()?.iter().filter_map(|member| spec.resolve_value(member)).find_map(own))
}

/// A schema for `before`/`after` without its top-level documentation
/// (`description`, `example`, `examples`), which is reported on its own and
/// was most of the bytes copied for every place a shared schema is used.
fn undocumented(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| !matches!(key.as_str(), "description" | "example" | "examples"))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether a `$ref` occurs anywhere in the subtree.
fn has_reference(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(has_reference),
        Value::Array(items) => items.iter().any(has_reference),
        _ => false,
    }
}

fn reference(value: &Value) -> Option<&str> {
    value.get("$ref").and_then(Value::as_str)
}

/// `#/components/schemas/Pet` -> `/components/schemas/Pet`.
fn ref_pointer(reference: &str) -> String {
    reference.strip_prefix('#').unwrap_or(reference).to_owned()
}

/// Whether `wide` accepts everything `narrow` does (a number accepts an
/// integer).
fn is_wider(wide: &BTreeSet<&str>, narrow: &BTreeSet<&str>) -> bool {
    narrow.iter().all(|ty| wide.contains(ty) || (*ty == "integer" && wide.contains("number")))
}

fn join(types: &BTreeSet<&str>) -> String {
    types.iter().copied().collect::<Vec<_>>().join("|")
}

/// Enum values keyed by their JSON text, so order never matters; `null` is
/// nullability, reported separately.
fn enum_values<'v>(values: &[&'v Value]) -> IndexMap<String, &'v Value> {
    let mut out: Vec<(String, &Value)> =
        values.iter().filter(|value| !value.is_null()).map(|value| (value_key(value), *value)).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.into_iter().collect()
}
