//! The validation rules, one value each ([`table`]): how every spec format spells the rule
//! (the JSDoc and proto comment tag, the JSON Schema keyword, the `#[validate(...)]` key), the
//! argument it takes, the values it fits, the rule it is a lower bound of, the runtime function
//! a validator calls and how the rule reaches schemars. Front ends, the schema emitter, the
//! docs comparison, the validator emitter (generated types and the derive alike) and the
//! interpreter read rules only from here, so adding a rule is one entry in [`table`] and, when
//! it checks something new, one function in the runtime's `validate` module.

mod check;
mod constraints;
pub mod emit;
mod table;

pub use check::{
    TagError, apply, check_bounds, count, fits, format, number, parse_value, pattern, positive,
    shape_for, subschema, tag_with_value,
};
pub use constraints::Constraints;
pub use table::*;

use std::fmt;

use agentwire_runtime::{FieldError, JsonPointer};

/// A rule: a reference to its entry in the table.
pub type Rule = &'static RuleDef;

/// Everything about one validation rule.
pub struct RuleDef {
    /// The stable name: the runtime error's rule name and the `#[validate(...)]` key
    /// (`min_length`).
    pub name: &'static str,
    /// The comment tag, without `@`, in TypeScript JSDoc and in proto comments alike
    /// (`minLength`); protobuf has no option of its own for these rules.
    pub tag: &'static str,
    /// The JSON Schema keyword, read by the JSON Schema front end and written by the schema
    /// emitter (`minLength`).
    pub keyword: &'static str,
    /// What the rule takes.
    pub arg: Arg,
    /// What kind of value the rule constrains (the fit check).
    pub shape: Shape,
    /// The rule this one is the lower bound of (`max_length` for `min_length`): a lower bound
    /// above its upper bound is a spec error (the bounds check).
    pub upper: Option<Rule>,
    /// What a validator does for it.
    pub check: Check,
    /// Whether the value an absent proto3 field reads as (`""`, `0`, an empty list) breaks the
    /// rule with this argument: then the schema requires the key.
    pub zero_fails: fn(&Value) -> bool,
    /// How the rule reaches a `schemars` derive.
    pub schemars: Schemars,
}

impl RuleDef {
    /// The rule's position in the table: the order validators check rules in.
    pub fn index(&self) -> usize {
        RULES
            .iter()
            .position(|r| r.name == self.name)
            .unwrap_or(usize::MAX)
    }
}

impl PartialEq for RuleDef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl fmt::Debug for RuleDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// The rule a JSDoc or proto comment tag names (`minLength`).
pub fn by_tag(tag: &str) -> Option<Rule> {
    RULES.iter().copied().find(|r| r.tag == tag)
}

/// The rule a `#[validate(...)]` key names (`min_length`).
pub fn by_key(key: &str) -> Option<Rule> {
    RULES.iter().copied().find(|r| r.name == key)
}

/// The rule a JSON Schema keyword names (`minLength`).
pub fn by_keyword(keyword: &str) -> Option<Rule> {
    RULES.iter().copied().find(|r| r.keyword == keyword)
}

/// What a rule takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// A whole number (`@minLength 1`).
    Count,
    /// A finite number (`@minimum -0.5`).
    Number,
    /// A finite number above zero (a divisor, a step).
    Positive,
    /// A regular expression in the `regex` crate's syntax.
    Regex,
    /// One of [`crate::ir::FORMATS`] (a JSON Schema may carry others, as documentation).
    Format,
    /// Nothing: the tag alone (`@trim`).
    Flag,
    /// Member names, each with the names it requires (`card: billing cvc; email: name`).
    KeyLists,
    /// A JSON Schema document (JSON text) the value's JSON form is checked against at run
    /// time (`agentwire_runtime::subschema`): its `$ref`s point into its own `$defs`.
    Schema,
}

/// What a constrained value is, as far as the front end can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Text,
    Number,
    List,
    /// An object as a whole (a struct, with an open struct's extra members).
    Object,
    /// None of these: a boolean, a union.
    Other,
    /// A type the front end cannot see through (a derive's alias): any rule is taken.
    Unknown,
}

impl Shape {
    pub(crate) fn plural(self) -> &'static str {
        match self {
            Shape::Text => "strings",
            Shape::Number => "numbers",
            Shape::List => "lists",
            Shape::Object => "objects",
            Shape::Other | Shape::Unknown => "values",
        }
    }
}

/// A rule's argument as a spec gave it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Count(u64),
    Number(f64),
    Text(String),
    Flag,
    /// Each member name with the names it requires, in the spec's order.
    KeyLists(Vec<(String, Vec<String>)>),
    /// A subschema document, as compact JSON text.
    Schema(String),
}

impl Value {
    /// The argument as a number, for the bounds check.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Count(n) => Some(*n as f64),
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// The argument as JSON Schema writes it (`true` for a flag).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Count(n) => (*n).into(),
            Value::Number(n) => json_number(*n),
            Value::Text(t) => t.clone().into(),
            Value::Flag => true.into(),
            Value::KeyLists(lists) => (lists.iter())
                .map(|(k, needs)| (k.clone(), serde_json::json!(needs)))
                .collect::<serde_json::Map<_, _>>()
                .into(),
            Value::Schema(text) => serde_json::from_str(text).unwrap_or(serde_json::Value::Null),
        }
    }

    /// The argument as a comment tag writes it (empty for a flag).
    pub fn to_text(&self) -> String {
        match self {
            Value::Count(n) => n.to_string(),
            Value::Number(n) => n.to_string(),
            Value::Text(t) => t.clone(),
            Value::Flag => String::new(),
            Value::KeyLists(lists) => (lists.iter())
                .map(|(k, needs)| format!("{k}: {}", needs.join(" ")))
                .collect::<Vec<_>>()
                .join("; "),
            Value::Schema(text) => text.clone(),
        }
    }
}

/// A whole number as a JSON integer (`1`, not `1.0`).
pub fn json_number(n: f64) -> serde_json::Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        (n as i64).into()
    } else {
        n.into()
    }
}

/// What a validator does for a rule.
#[derive(Clone, Copy)]
pub enum Check {
    /// Generated code calls `validate::<function>(value, argument, at, errors)` in the runtime;
    /// the interpreter calls the same function through `run`.
    Call { function: &'static str, run: Run },
    /// `validate::pattern(value, &REGEX, source, at, errors)`, the regex compiled once.
    Pattern,
    /// The value is trimmed before the rules after it see it.
    Trim,
    /// `subschema::check(value, &SCHEMA, at, errors)`, the document compiled once.
    Schema,
}

/// A runtime check on a value the interpreter holds.
pub type Run = fn(Subject<'_>, &Value, &JsonPointer, &mut Vec<FieldError>);

/// The value a rule checks, as the interpreter holds it.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    Text(&'a str),
    Number(f64),
    /// A list: its elements as JSON values.
    Items(&'a [serde_json::Value]),
    /// An object, as JSON.
    Object(&'a serde_json::Value),
}

/// How a rule reaches a `schemars` derive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schemars {
    /// `length(min = ..)` / `length(max = ..)` (strings and lists alike).
    Length(Bound),
    /// `range(min = ..)` / `range(max = ..)`.
    Range(Bound),
    /// `regex(pattern = ..)`.
    Regex,
    /// `extend("<keyword>" = ..)`.
    Extend,
    /// Not at all (a receiver-side rule, such as trimming).
    None,
}

/// Which end of a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Min,
    Max,
}
