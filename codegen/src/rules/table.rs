//! The table of validation rules: one `RuleDef` per rule and the list of them in check order.
//! A new rule is one entry here (and one line in [`RULES`]); a rule that checks something new
//! also needs its function in `agentwire_runtime::validate`, which `run` calls and generated
//! code names by `function`.

use agentwire_runtime::validate;

use super::{Arg, Bound, Check, Rule, RuleDef, Schemars, Shape, Subject, Value};
use crate::ir::FORMATS;

/// Every rule, in the order validators check them (a value's trimming first).
pub static RULES: &[Rule] = &[
    &TRIM,
    &MIN_LENGTH,
    &MAX_LENGTH,
    &PATTERN,
    &FORMAT,
    &MINIMUM,
    &MAXIMUM,
    &MULTIPLE_OF,
    &MIN_ITEMS,
    &MAX_ITEMS,
];

/// `@trim`: the receiver trims the value before checking it.
pub static TRIM: RuleDef = RuleDef {
    name: "trim",
    tag: "trim",
    keyword: "x-trim",
    arg: Arg::Flag,
    shape: Shape::Text,
    upper: None,
    check: Check::Trim,
    zero_fails: never,
    schemars: Schemars::None,
};

pub static MIN_LENGTH: RuleDef = RuleDef {
    name: "min_length",
    tag: "minLength",
    keyword: "minLength",
    arg: Arg::Count,
    shape: Shape::Text,
    upper: Some(&MAX_LENGTH),
    check: Check::Call {
        function: "min_length",
        run: |s, v, at, errors| {
            if let (Subject::Text(s), Value::Count(n)) = (s, v) {
                validate::min_length(s, *n, at, errors);
            }
        },
    },
    zero_fails: above_zero,
    schemars: Schemars::Length(Bound::Min),
};

pub static MAX_LENGTH: RuleDef = RuleDef {
    name: "max_length",
    tag: "maxLength",
    keyword: "maxLength",
    arg: Arg::Count,
    shape: Shape::Text,
    upper: None,
    check: Check::Call {
        function: "max_length",
        run: |s, v, at, errors| {
            if let (Subject::Text(s), Value::Count(n)) = (s, v) {
                validate::max_length(s, *n, at, errors);
            }
        },
    },
    zero_fails: never,
    schemars: Schemars::Length(Bound::Max),
};

pub static PATTERN: RuleDef = RuleDef {
    name: "pattern",
    tag: "pattern",
    keyword: "pattern",
    arg: Arg::Regex,
    shape: Shape::Text,
    upper: None,
    check: Check::Pattern,
    zero_fails: |v| match v {
        Value::Text(p) => regex::Regex::new(p).is_ok_and(|re| !re.is_match("")),
        _ => false,
    },
    schemars: Schemars::Regex,
};

pub static FORMAT: RuleDef = RuleDef {
    name: "format",
    tag: "format",
    keyword: "format",
    arg: Arg::Format,
    shape: Shape::Text,
    upper: None,
    check: Check::Call {
        function: "format",
        run: |s, v, at, errors| {
            if let (Subject::Text(s), Value::Text(f)) = (s, v)
                && let Some(name) = FORMATS.iter().find(|k| **k == f)
            {
                validate::format(s, name, at, errors);
            }
        },
    },
    // No format admits the empty string.
    zero_fails: |_| true,
    schemars: Schemars::Extend,
};

pub static MINIMUM: RuleDef = RuleDef {
    name: "minimum",
    tag: "minimum",
    keyword: "minimum",
    arg: Arg::Number,
    shape: Shape::Number,
    upper: Some(&MAXIMUM),
    check: Check::Call {
        function: "minimum",
        run: |s, v, at, errors| {
            if let (Subject::Number(n), Value::Number(min)) = (s, v) {
                validate::minimum(n, *min, at, errors);
            }
        },
    },
    zero_fails: |v| v.as_f64().is_some_and(|n| n > 0.0),
    schemars: Schemars::Range(Bound::Min),
};

pub static MAXIMUM: RuleDef = RuleDef {
    name: "maximum",
    tag: "maximum",
    keyword: "maximum",
    arg: Arg::Number,
    shape: Shape::Number,
    upper: None,
    check: Check::Call {
        function: "maximum",
        run: |s, v, at, errors| {
            if let (Subject::Number(n), Value::Number(max)) = (s, v) {
                validate::maximum(n, *max, at, errors);
            }
        },
    },
    zero_fails: |v| v.as_f64().is_some_and(|n| n < 0.0),
    schemars: Schemars::Range(Bound::Max),
};

/// `@multipleOf 0.25`: the number divided by the argument is a whole number.
pub static MULTIPLE_OF: RuleDef = RuleDef {
    name: "multiple_of",
    tag: "multipleOf",
    keyword: "multipleOf",
    arg: Arg::Positive,
    shape: Shape::Number,
    upper: None,
    check: Check::Call {
        function: "multiple_of",
        run: |s, v, at, errors| {
            if let (Subject::Number(n), Value::Number(by)) = (s, v) {
                validate::multiple_of(n, *by, at, errors);
            }
        },
    },
    // Zero is a multiple of every number.
    zero_fails: never,
    schemars: Schemars::Extend,
};

pub static MIN_ITEMS: RuleDef = RuleDef {
    name: "min_items",
    tag: "minItems",
    keyword: "minItems",
    arg: Arg::Count,
    shape: Shape::List,
    upper: Some(&MAX_ITEMS),
    check: Check::Call {
        function: "min_items",
        run: |s, v, at, errors| {
            if let (Subject::Items(len), Value::Count(n)) = (s, v) {
                validate::min_items(&vec![(); len], *n, at, errors);
            }
        },
    },
    zero_fails: above_zero,
    schemars: Schemars::Length(Bound::Min),
};

pub static MAX_ITEMS: RuleDef = RuleDef {
    name: "max_items",
    tag: "maxItems",
    keyword: "maxItems",
    arg: Arg::Count,
    shape: Shape::List,
    upper: None,
    check: Check::Call {
        function: "max_items",
        run: |s, v, at, errors| {
            if let (Subject::Items(len), Value::Count(n)) = (s, v) {
                validate::max_items(&vec![(); len], *n, at, errors);
            }
        },
    },
    zero_fails: never,
    schemars: Schemars::Length(Bound::Max),
};

fn never(_: &Value) -> bool {
    false
}

fn above_zero(v: &Value) -> bool {
    v.as_f64().is_some_and(|n| n > 0.0)
}
