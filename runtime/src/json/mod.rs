//! The fast path of [`decode_json`](crate::decode_json): a serde `Deserializer` over a `&str`
//! tuned for text-heavy messages, which accepts exactly the JSON serde_json accepts and
//! yields the same values.
//!
//! It refuses an object with a key twice outright ([`Error::is_duplicate`], see [`unique`]).
//! Otherwise it never produces an error a user sees. Anything it refuses (malformed input, nesting
//! deeper than [`MAX_DEPTH`], serde_json's `RawValue`) makes `decode_json` parse again with
//! serde_json, which either succeeds or reports the precise error with its pointer and rule.

mod number;
mod read;
mod string;
pub mod unique;

use std::fmt;

use serde::de;

/// Nesting this reader handles itself: below serde_json's limit of 128, so input too deep for
/// serde_json is always refused here first.
pub const MAX_DEPTH: usize = 100;

/// Stack a container's decoding may use before the reader checks again: below it, the
/// reader continues on a fresh segment of [`STACK_SEGMENT`] bytes. One nesting level takes
/// a few KiB in a debug build, a few hundred bytes optimised.
pub const STACK_RED_ZONE: usize = 64 * 1024;

/// Size of each stack segment a deep parse continues on.
pub const STACK_SEGMENT: usize = 1024 * 1024;

/// Room a parse by serde_json (which recurses up to its own limit of 128 levels, unguarded)
/// needs: below it, the parse runs on a fresh segment of twice this size.
pub const STACK_FOR_SERDE_JSON: usize = 768 * 1024;

/// Runs `f` where at least `need` bytes of stack are free: on the thread's own stack when they
/// are (one comparison), otherwise on a new heap-allocated segment of `segment` bytes.
#[inline]
pub fn with_stack<R>(need: usize, segment: usize, f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(need, segment, f)
}

/// Why the fast path gave up; the caller falls back to serde_json for the real error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    what: String,
    /// An object with a key twice: a final answer (rule `duplicate`), not a reason to fall
    /// back to serde_json, which would keep one of the values.
    duplicate: bool,
}

impl Error {
    fn new(what: &str) -> Self {
        Error {
            what: what.to_owned(),
            duplicate: false,
        }
    }

    fn duplicate() -> Self {
        Error {
            what: "duplicate key".to_owned(),
            duplicate: true,
        }
    }

    /// Whether the input was refused for a key given twice in one object.
    pub fn is_duplicate(&self) -> bool {
        self.duplicate
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error {
            what: msg.to_string(),
            duplicate: false,
        }
    }
}

/// Parses the whole of `json` (whitespace around it allowed) into `T`.
pub fn from_str<'de, T: de::Deserialize<'de>>(json: &'de str) -> Result<T, Error> {
    read::from_str(json)
}
