//! A finding of `trace check` (and of the proxy, which prints the same words): where in
//! which file it points, its text, and the parts the text is made of for the JSON, JUnit
//! and SARIF reports.

use std::fmt;

use agentwire_runtime::FieldError;
use agentwire_runtime::machine::Violation;

/// Where in a file a finding points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// A line of a JSON Lines file (1-based).
    Line(usize),
    /// A frame of a `Content-Length` capture (1-based).
    Frame(usize),
    /// A byte offset of a `Content-Length` capture, for input that is not a whole frame.
    Byte(u64),
    /// The end of the stream.
    End,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Line(n) => write!(f, "line {n}"),
            At::Frame(n) => write!(f, "frame {n}"),
            At::Byte(n) => write!(f, "byte {n}"),
            At::End => f.write_str("end of stream"),
        }
    }
}

/// One problem: `FILE:WHERE: WHAT` when printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub file: String,
    pub at: At,
    pub text: String,
    /// What kind of problem, with its parts, for `--format json`.
    pub detail: Detail,
}

/// A finding's kind and the parts its text is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    /// A line or frame that is not JSON.
    Json,
    /// A `Content-Length` framing error.
    Framing,
    /// Something after a gRPC status ended the stream.
    Stream,
    /// A value breaks a schema rule (or a trace line's own shape).
    Field {
        pointer: String,
        rule: String,
        message: String,
    },
    /// The stream speaks a version its protocol does not declare (reported once; the rest
    /// of the stream is not checked).
    Version,
    /// A message (or the end of the stream) breaks a sequence rule.
    Sequence {
        machine: &'static str,
        instance: String,
        state: &'static str,
        got: Option<&'static str>,
        expected: &'static [&'static str],
        /// The error code the failed check declares for refusing a request (`code:`).
        code: Option<i64>,
    },
}

impl Finding {
    pub(crate) fn new(file: &str, at: At, text: String, detail: Detail) -> Self {
        Self {
            file: file.to_owned(),
            at,
            text,
            detail,
        }
    }

    /// A schema finding, printed `POINTER: MESSAGE [RULE]`.
    pub(crate) fn field(file: &str, at: At, e: &FieldError) -> Self {
        let detail = Detail::Field {
            pointer: e.pointer.clone(),
            rule: e.rule.name().to_owned(),
            message: e.message.clone(),
        };
        Self::new(file, at, e.to_string(), detail)
    }

    pub(crate) fn violation(file: &str, at: At, v: &Violation) -> Self {
        let detail = Detail::Sequence {
            machine: v.machine,
            instance: v.key.clone(),
            state: v.state,
            got: v.got,
            expected: v.expected,
            code: v.code(),
        };
        Self::new(file, at, violation_text(v), detail)
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.at, self.text)
    }
}

/// A violation's own wording, without the `message N: ` or `end of stream: ` it starts with.
fn violation_text(v: &Violation) -> String {
    let text = v.to_string();
    let prefix = match v.index {
        Some(i) => format!("message {i}: "),
        None => "end of stream: ".to_owned(),
    };
    match text.strip_prefix(&prefix) {
        Some(rest) => rest.to_owned(),
        None => text,
    }
}
