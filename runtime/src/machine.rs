//! What generated sequence checkers share: the view of one message field, remembered values,
//! and the `Violation` a checker reports.

use std::fmt;

/// One field of a message as a checker sees it, borrowed from the typed message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Field<'a> {
    /// The message has no such field (an absent optional key, or another union variant).
    Absent,
    Null,
    Str(&'a str),
    Bool(bool),
    Int(i64),
    Num(f64),
    /// A list of strings (a repeated field), for membership actions.
    Strs(&'a [String]),
    /// An object or another value with no scalar view.
    Present,
}

/// A value an instance remembers.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    Str(String),
    Bool(bool),
    Int(i64),
    Num(f64),
    Null,
}

impl<'a> Field<'a> {
    pub fn is_present(&self) -> bool {
        !matches!(self, Field::Absent)
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Field::Null)
    }

    pub fn is_str(&self, s: &str) -> bool {
        matches!(self, Field::Str(v) if *v == s)
    }

    pub fn is_bool(&self, b: bool) -> bool {
        matches!(self, Field::Bool(v) if *v == b)
    }

    pub fn is_num(&self, n: f64) -> bool {
        match self {
            Field::Int(v) => *v as f64 == n,
            Field::Num(v) => *v == n,
            _ => false,
        }
    }

    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Field::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value to remember, if it is a scalar.
    pub fn to_stored(&self) -> Option<Stored> {
        Some(match self {
            Field::Str(s) => Stored::Str((*s).to_owned()),
            Field::Bool(b) => Stored::Bool(*b),
            Field::Int(n) => Stored::Int(*n),
            Field::Num(n) => Stored::Num(*n),
            Field::Null => Stored::Null,
            Field::Absent | Field::Strs(_) | Field::Present => return None,
        })
    }

    /// Remembers the field in `slot`, reusing the slot's string buffer when it holds one (a
    /// streamed text is stored again on every chunk).
    pub fn store_into(&self, slot: &mut Option<Stored>) {
        match (self, slot.as_mut()) {
            (Field::Str(s), Some(Stored::Str(buf))) => {
                buf.clear();
                buf.push_str(s);
            }
            _ => *slot = self.to_stored(),
        }
    }

    /// `extends` and then `store_into` in one pass: when the string field starts with the
    /// remembered string (or nothing is remembered), appends the new tail and returns true;
    /// otherwise leaves the slot alone and returns false.
    pub fn extend_into(&self, slot: &mut Option<Stored>) -> bool {
        match (self, slot.as_mut()) {
            (_, None) => {
                *slot = self.to_stored();
                true
            }
            (Field::Str(s), Some(Stored::Str(buf))) => match s.strip_prefix(buf.as_str()) {
                Some(tail) => {
                    buf.push_str(tail);
                    true
                }
                None => false,
            },
            _ => false,
        }
    }

    /// Whether the field equals a remembered value (nothing remembered: false).
    pub fn equals(&self, stored: Option<&Stored>) -> bool {
        match (self, stored) {
            (Field::Str(a), Some(Stored::Str(b))) => a == b,
            (Field::Bool(a), Some(Stored::Bool(b))) => a == b,
            (Field::Int(a), Some(Stored::Int(b))) => a == b,
            (Field::Num(a), Some(Stored::Num(b))) => a == b,
            (Field::Null, Some(Stored::Null)) => true,
            _ => false,
        }
    }

    /// Whether the string field starts with the remembered string (nothing remembered: true).
    pub fn extends(&self, stored: Option<&Stored>) -> bool {
        match (self, stored) {
            (_, None) => true,
            (Field::Str(a), Some(Stored::Str(b))) => a.starts_with(b.as_str()),
            _ => false,
        }
    }

    /// Whether the field names the instance key `key`.
    pub fn is_key(&self, key: &str) -> bool {
        self.key().as_deref() == Some(key)
    }

    /// The instance key this field names, if it can be one. A `string | number` id keeps `2`
    /// and `"2"` apart: the number is `2`, a string that reads as the same number is quoted
    /// (`"2"`); any other string is itself.
    pub fn key(&self) -> Option<std::borrow::Cow<'a, str>> {
        match self {
            Field::Str(s) if s.parse::<i64>().is_ok_and(|n| n.to_string() == *s) => {
                Some(std::borrow::Cow::Owned(format!("\"{s}\"")))
            }
            Field::Str(s) => Some(std::borrow::Cow::Borrowed(s)),
            Field::Int(n) => Some(std::borrow::Cow::Owned(n.to_string())),
            // A `string | number` member typed as a JSON number (a float) names the same
            // instance as the integer envelope id it holds: `{"requestId": 7}` is request 7.
            Field::Num(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => {
                Some(std::borrow::Cow::Owned((*n as i64).to_string()))
            }
            _ => None,
        }
    }

    /// Calls `f` with every string the field holds (one for a string, each element for a
    /// list of strings).
    pub fn for_each_str(&self, mut f: impl FnMut(&str)) {
        match self {
            Field::Str(s) => f(s),
            Field::Strs(v) => v.iter().for_each(|s| f(s)),
            _ => {}
        }
    }
}

/// The instance key of a machine keyed by several fields (`field: [params.chatId,
/// params.content.id]`): each part as [`Field::key`] gives it, joined with `/`. A part that
/// holds a `/` or starts with `"` is written as a JSON string, so two different combinations
/// never give the same key (`a/b` + `c` is `"a/b"/c`, `a` + `b/c` is `a/"b/c"`). `None` when
/// a part cannot be a key (absent, an object, ...): the message belongs to no instance.
pub fn composite_key(parts: &[Field<'_>]) -> Option<std::borrow::Cow<'static, str>> {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        let text = part.key()?;
        if i > 0 {
            out.push('/');
        }
        // A string that reads as a number is already quoted by `key`; any other string that
        // holds the separator or a leading quote is quoted here.
        let quoted_number =
            matches!(part, Field::Str(s) if !s.starts_with('"') && text.starts_with('"'));
        if !quoted_number && (text.contains('/') || text.starts_with('"')) {
            out.push_str(&serde_json::Value::String(text.into_owned()).to_string());
        } else {
            out.push_str(&text);
        }
    }
    Some(std::borrow::Cow::Owned(out))
}

/// Limits that keep a checker's memory bounded on hostile or endless streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Live instances per machine; one more is a violation, not an allocation.
    pub max_instances: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_instances: 10_000,
        }
    }
}

/// Why a message (or the end of the stream) broke a sequence rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The instance's state allows none of the transitions this message could take.
    Unexpected,
    /// A transition matched but one of its checks failed.
    Check {
        /// The check, as written.
        check: &'static str,
        /// The error code a request refused by this check is answered with, when the
        /// machine declares one (`code:` on the check in `machine.yaml`); `None`: the
        /// transport's default for sequence violations.
        code: Option<i64>,
    },
    /// The stream ended with the instance outside its accepting states.
    Unfinished,
    /// The machine already holds `max_instances` live instances.
    TooManyInstances(usize),
}

/// One broken sequence rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// 0-based index of the offending message; `None` at end of stream.
    pub index: Option<usize>,
    pub machine: &'static str,
    /// The instance key (`connection` for per-stream machines).
    pub key: String,
    pub state: &'static str,
    /// `role.kind` of the message that arrived; `None` at end of stream.
    pub got: Option<&'static str>,
    /// What the state allows (`role.kind` each).
    pub expected: &'static [&'static str],
    pub problem: Problem,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "message {i}: ")?,
            None => f.write_str("end of stream: ")?,
        }
        write!(f, "{} {} in state {}: ", self.machine, self.key, self.state)?;
        let expected = self.expected.join(", ");
        match (&self.problem, self.got) {
            (Problem::Check { check, .. }, Some(got)) => {
                write!(f, "got {got}, but {check} does not hold")
            }
            (Problem::TooManyInstances(n), _) => write!(f, "more than {n} live instances"),
            (_, Some(got)) => write!(f, "got {got}, expected one of {expected}"),
            (_, None) => write!(f, "expected one of {expected}"),
        }
    }
}

impl Violation {
    /// The error code the machine declares for this refusal (`code:` on the failed check);
    /// `None` when it declares none, and for every other kind of violation.
    pub fn code(&self) -> Option<i64> {
        match self.problem {
            Problem::Check { code, .. } => code,
            _ => None,
        }
    }
}

impl std::error::Error for Violation {}

/// A JSON-RPC id as a field: numbers stay numbers, strings stay strings.
pub fn rpc_id(id: &crate::jsonrpc::RequestId) -> Field<'_> {
    match id {
        crate::jsonrpc::RequestId::Number(n) => Field::Int(*n),
        crate::jsonrpc::RequestId::String(s) => Field::Str(s),
    }
}

/// The map behind keyed machines. foldhash is several times faster than SipHash on short keys
/// and still seeds every map randomly, so peers cannot aim keys at one bucket; the instance
/// limit bounds the rest.
type KeyMap<I> = std::collections::HashMap<String, I, foldhash::fast::RandomState>;

/// The live instances of one machine: a single slot for machines keyed by the connection (no
/// hashing on the hot path), a map for machines keyed by a value from the messages.
#[derive(Debug, Clone)]
pub enum Instances<I> {
    Stream(Option<I>),
    Keyed(KeyMap<I>),
}

impl<I> Instances<I> {
    pub fn per_stream() -> Self {
        Instances::Stream(None)
    }

    pub fn keyed() -> Self {
        Instances::Keyed(KeyMap::default())
    }

    pub fn contains(&self, key: &str) -> bool {
        match self {
            Instances::Stream(slot) => slot.is_some(),
            Instances::Keyed(map) => map.contains_key(key),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Instances::Stream(slot) => usize::from(slot.is_some()),
            Instances::Keyed(map) => map.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn insert(&mut self, key: &str, instance: I) {
        match self {
            Instances::Stream(slot) => *slot = Some(instance),
            Instances::Keyed(map) => {
                map.insert(key.to_owned(), instance);
            }
        }
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut I> {
        match self {
            Instances::Stream(slot) => slot.as_mut(),
            Instances::Keyed(map) => map.get_mut(key),
        }
    }

    /// Removes the instance at `key` when `finished` says it may go (a retained instance that
    /// a later message moved on is not dropped with it).
    pub fn remove_if(&mut self, key: &str, finished: impl Fn(&I) -> bool) {
        if self.get_mut(key).is_some_and(|i| finished(i)) {
            self.remove(key);
        }
    }

    pub fn remove(&mut self, key: &str) {
        match self {
            Instances::Stream(slot) => *slot = None,
            Instances::Keyed(map) => {
                map.remove(key);
            }
        }
    }

    /// Every live instance with its key, ordered by key (for end-of-stream reports).
    pub fn sorted(&self) -> Vec<(&str, &I)> {
        match self {
            Instances::Stream(slot) => slot.iter().map(|i| ("connection", i)).collect(),
            Instances::Keyed(map) => {
                let mut all: Vec<(&str, &I)> = map.iter().map(|(k, i)| (k.as_str(), i)).collect();
                all.sort_by_key(|(k, _)| *k);
                all
            }
        }
    }
}

#[cfg(test)]
mod key_tests {
    use super::Field;

    #[test]
    fn a_number_and_the_string_of_it_are_different_keys() {
        let (number, string) = (Field::Int(2).key(), Field::Str("2").key());
        assert_ne!(number, string);
        assert_eq!(number.as_deref(), Some("2"));
        assert!(Field::Str("2").is_key("\"2\""));
        assert!(!Field::Str("2").is_key("2"));
        // Strings that no number prints as are themselves.
        assert_eq!(Field::Str("02").key().as_deref(), Some("02"));
        assert_eq!(Field::Str("abc").key().as_deref(), Some("abc"));
        // A whole number read as a float is the integer key; a fraction is no key.
        assert_eq!(Field::Num(7.0).key(), Field::Int(7).key());
        assert_eq!(Field::Num(7.5).key(), None);
    }

    #[test]
    fn composite_keys_keep_every_combination_apart() {
        use super::composite_key;
        let key = |parts: &[Field<'_>]| composite_key(parts).map(|k| k.into_owned());
        assert_eq!(
            key(&[Field::Str("chat-1"), Field::Str("t1")]).as_deref(),
            Some("chat-1/t1")
        );
        // A slash inside a part cannot make two combinations meet.
        let left = key(&[Field::Str("a/b"), Field::Str("c")]);
        let right = key(&[Field::Str("a"), Field::Str("b/c")]);
        assert_ne!(left, right);
        assert_eq!(left.as_deref(), Some(r#""a/b"/c"#));
        // Numbers and the strings of them stay apart, as in one-field keys.
        assert_ne!(
            key(&[Field::Int(2), Field::Str("x")]),
            key(&[Field::Str("2"), Field::Str("x")])
        );
        // A string that starts with a quote is quoted, so it cannot pass for a quoted number.
        assert_ne!(
            key(&[Field::Str("\"2\""), Field::Str("x")]),
            key(&[Field::Str("2"), Field::Str("x")])
        );
        assert_eq!(
            key(&[Field::Str("\"x"), Field::Str("y")]).as_deref(),
            Some(r#""\"x"/y"#)
        );
        // A part that cannot be a key leaves the message out of every instance.
        assert_eq!(key(&[Field::Str("a"), Field::Absent]), None);
    }
}
