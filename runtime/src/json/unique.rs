//! One answer to a key given twice in one object, for every consumer: the message is refused
//! with rule `duplicate`. serde_json (and so any `Value`), Python and JavaScript keep the last
//! value, agentwire's generated decoders the first; refusing removes the disagreement.
//!
//! [`check`] scans a document without recursion (an explicit stack), so it runs at any depth
//! on any thread stack. It also refuses nesting deeper than serde_json reads
//! ([`MAX_NESTING`]): serde_json skips a value nobody reads without that limit, so without this
//! a skeleton would accept a frame that trace check (which reads every value) refuses. The fast reader checks keys as it reads them ([`Keys`]) and calls
//! this scan only to name the place of a duplicate it found.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::error::{FieldError, Invalid, Rule};

/// Objects up to this many keys are checked by comparing with every earlier key (no
/// allocation beyond the shared key list); larger ones switch to a hash set, so a message
/// with thousands of keys in one object costs linear time, not quadratic.
const LINEAR_KEYS: usize = 16;

/// The deepest nesting serde_json reads into a `Value` (its recursion limit is 128 levels,
/// counting the one that fails): every consumer refuses anything deeper.
pub const MAX_NESTING: usize = 127;

/// What [`find`] found wrong first.
#[derive(Debug, PartialEq)]
enum Found {
    /// The pointer of a key given twice, and the key.
    Duplicate(String, String),
    /// The pointer of the container that opens level `MAX_NESTING + 1`.
    TooDeep(String),
}

/// The keys of the objects being read, innermost last; shared by all levels of one document.
#[derive(Default)]
pub(super) struct Keys<'de> {
    list: Vec<Cow<'de, str>>,
    sets: Vec<(usize, HashSet<Cow<'de, str>, foldhash::fast::RandomState>)>,
}

impl<'de> Keys<'de> {
    /// Room for the keys along a typical message's deepest path, reserved once per document
    /// so reading never grows the list.
    pub(super) fn new() -> Self {
        Self {
            list: Vec::with_capacity(LINEAR_KEYS),
            sets: Vec::new(),
        }
    }

    /// Where the object being opened starts in the shared list.
    pub(super) fn open(&self) -> usize {
        self.list.len()
    }

    /// Records `key` in the object that started at `start`; false if it was there already.
    pub(super) fn insert(&mut self, start: usize, key: Cow<'de, str>) -> bool {
        if let Some((at, set)) = self.sets.last_mut()
            && *at == start
        {
            return set.insert(key);
        }
        let level = &self.list[start.min(self.list.len())..];
        if level.contains(&key) {
            return false;
        }
        if level.len() < LINEAR_KEYS {
            self.list.push(key);
            return true;
        }
        let mut set: HashSet<_, _> = self.list.drain(start..).collect();
        set.insert(key);
        self.sets.push((start, set));
        // A placeholder keeps the object's place, so an object opened inside it starts later.
        self.list.push(Cow::Borrowed(""));
        true
    }

    /// Forgets the keys of the object that started at `start`.
    pub(super) fn close(&mut self, start: usize) {
        self.list.truncate(start);
        while self.sets.last().is_some_and(|(at, _)| *at >= start) {
            self.sets.pop();
        }
    }
}

/// Refuses `json` if any object in it has a key twice (after unescaping: `"a"` and `"\u0061"`
/// are the same key). Input that is not JSON is left to the parser: this only looks for
/// duplicates, and never panics.
pub fn check(json: &[u8]) -> Result<(), Invalid> {
    match find(json) {
        Some(Found::Duplicate(pointer, key)) => Err(Invalid::one(FieldError::new(
            pointer,
            Rule::Duplicate,
            format!("duplicate key `{key}`"),
        ))),
        Some(Found::TooDeep(pointer)) => Err(Invalid::one(FieldError::new(
            pointer,
            Rule::Syntax,
            format!("nested deeper than {MAX_NESTING} levels (recursion limit exceeded)"),
        ))),
        None => Ok(()),
    }
}

/// Parses `json` into a `Value`, refusing duplicate keys as [`check`] does; the way to read
/// peer input for anything that then works on `Value` (trace checks, `decode_value`).
pub fn parse_value(json: &str) -> Result<serde_json::Value, Invalid> {
    let value = crate::decode::serde_json_room(|| serde_json::from_str(json))
        .map_err(|e| Invalid::one(FieldError::new("", Rule::Syntax, e.to_string())))?;
    check(json.as_bytes())?;
    Ok(value)
}

/// One open container while scanning.
enum Level<'a> {
    Array(usize),
    Object {
        keys: HashSet<Cow<'a, str>, foldhash::fast::RandomState>,
        current: Cow<'a, str>,
    },
}

/// The first key given twice or container nested too deep, or `None`.
fn find(json: &[u8]) -> Option<Found> {
    let mut stack: Vec<Level<'_>> = Vec::new();
    let mut pos = 0;
    while let Some(&b) = json.get(pos) {
        match b {
            b'{' | b'[' if stack.len() == MAX_NESTING => {
                return Some(Found::TooDeep(pointer(&stack)));
            }
            b'{' => stack.push(Level::Object {
                keys: HashSet::default(),
                current: Cow::Borrowed(""),
            }),
            b'[' => stack.push(Level::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Level::Array(n)) = stack.last_mut() {
                    *n += 1;
                }
            }
            b'"' => {
                let end = string_end(json, pos)?;
                let is_key = matches!(stack.last(), Some(Level::Object { .. }))
                    && next_non_ws(json, end) == Some(b':');
                if is_key {
                    let key = key_text(&json[pos..end])?;
                    let Some(Level::Object { keys, current }) = stack.last_mut() else {
                        return None;
                    };
                    *current = key.clone();
                    if !keys.insert(key) {
                        let key = current.to_string();
                        return Some(Found::Duplicate(pointer(&stack), key));
                    }
                }
                pos = end;
                continue;
            }
            _ => {}
        }
        pos += 1;
    }
    None
}

/// The byte after the closing quote of the string starting at `start`.
fn string_end(json: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        match json.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
}

fn next_non_ws(json: &[u8], mut at: usize) -> Option<u8> {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = json.get(at) {
        at += 1;
    }
    json.get(at).copied()
}

/// A key's text: borrowed when it has no escape, otherwise unescaped by serde_json.
fn key_text(quoted: &[u8]) -> Option<Cow<'_, str>> {
    let inner = quoted.get(1..quoted.len().saturating_sub(1))?;
    // An escape that does not decode (a lone surrogate) leaves the key as written.
    if inner.contains(&b'\\')
        && let Ok(key) = serde_json::from_slice::<String>(quoted)
    {
        return Some(Cow::Owned(key));
    }
    Some(String::from_utf8_lossy(inner))
}

/// The pointer of the key being read in the innermost object.
fn pointer(stack: &[Level<'_>]) -> String {
    let mut out = String::new();
    for level in stack {
        out.push('/');
        match level {
            Level::Array(n) => out.push_str(&n.to_string()),
            Level::Object { current, .. } => {
                out.push_str(&current.replace('~', "~0").replace('/', "~1"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(json: &str) -> Option<(String, String)> {
        match find(json.as_bytes()) {
            Some(Found::Duplicate(pointer, key)) => Some((pointer, key)),
            _ => None,
        }
    }

    fn nested(levels: usize) -> String {
        format!("{}{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn nesting_is_refused_exactly_where_serde_json_refuses_it() {
        for levels in [
            MAX_NESTING - 1,
            MAX_NESTING,
            MAX_NESTING + 1,
            MAX_NESTING + 2,
        ] {
            let json = nested(levels);
            let serde_json_reads = std::thread::Builder::new()
                .stack_size(16 << 20)
                .spawn(move || serde_json::from_str::<serde_json::Value>(&json).is_ok())
                .unwrap()
                .join()
                .unwrap();
            assert_eq!(
                check(nested(levels).as_bytes()).is_ok(),
                serde_json_reads,
                "{levels}"
            );
        }
        let deep = format!("{{\"a\":{}}}", nested(200));
        let refused = check(deep.as_bytes()).unwrap_err();
        assert_eq!(refused.errors[0].rule, Rule::Syntax);
        assert_eq!(
            refused.errors[0].pointer,
            format!("/a{}", "/0".repeat(MAX_NESTING - 1))
        );
    }

    #[test]
    fn finds_duplicates_at_any_depth_with_their_pointer() {
        assert_eq!(at(r#"{"a":1,"b":2}"#), None);
        assert_eq!(at(r#"{"a":1,"a":2}"#), Some(("/a".into(), "a".into())));
        assert_eq!(
            at(r#"{"x":[0,{"k":{"a":1}},{"t":1,"t":2}]}"#),
            Some(("/x/2/t".into(), "t".into()))
        );
        assert_eq!(at(r#"{"a":1,"\u0061":2}"#), Some(("/a".into(), "a".into())));
        assert_eq!(
            at(r#"{"a/b":{},"a/b":1}"#),
            Some(("/a~1b".into(), "a/b".into()))
        );
        // The same key in sibling objects, or a value equal to a key, is no duplicate.
        assert_eq!(at(r#"[{"a":1},{"a":1}]"#), None);
        assert_eq!(at(r#"{"a":"a","b":{"a":"b"}}"#), None);
        assert_eq!(at(r#"{"s":"{\"a\":1,\"a\":2}"}"#), None);
    }

    #[test]
    fn deep_and_broken_input_never_panics() {
        let deep = format!("{}{}", "{\"a\":[".repeat(100_000), "]}".repeat(100_000));
        assert_eq!(at(&deep), None);
        assert!(matches!(find(deep.as_bytes()), Some(Found::TooDeep(_))));
        for junk in ["\"", "{\"", "{\"a", "{\"\\", "}}]]", "{\"\\u12\":1}"] {
            let _ = at(junk);
        }
    }

    #[test]
    fn keys_switch_to_a_set_past_the_linear_limit() {
        let mut keys = Keys::default();
        let start = keys.open();
        for i in 0..100 {
            assert!(keys.insert(start, Cow::Owned(i.to_string())));
        }
        let inner = keys.open();
        assert!(keys.insert(inner, Cow::Borrowed("7")));
        keys.close(inner);
        assert!(!keys.insert(start, Cow::Borrowed("7")));
        keys.close(start);
        assert!(keys.insert(keys.open(), Cow::Borrowed("7")));
    }
}
