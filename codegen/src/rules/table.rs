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
    &EXCLUSIVE_MINIMUM,
    &EXCLUSIVE_MAXIMUM,
    &MULTIPLE_OF,
    &MIN_ITEMS,
    &MAX_ITEMS,
    &UNIQUE_ITEMS,
    &DEPENDENT_REQUIRED,
    &SUBSCHEMA,
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

/// `exclusiveMinimum: 0`: the number is above the bound. Draft-04 writes it as `minimum: 0`
/// with `exclusiveMinimum: true`, which the JSON Schema loader reads as this rule.
pub static EXCLUSIVE_MINIMUM: RuleDef = RuleDef {
    name: "exclusive_minimum",
    tag: "exclusiveMinimum",
    keyword: "exclusiveMinimum",
    arg: Arg::Number,
    shape: Shape::Number,
    upper: Some(&EXCLUSIVE_MAXIMUM),
    check: Check::Call {
        function: "exclusive_minimum",
        run: |s, v, at, errors| {
            if let (Subject::Number(n), Value::Number(min)) = (s, v) {
                validate::exclusive_minimum(n, *min, at, errors);
            }
        },
    },
    zero_fails: |v| v.as_f64().is_some_and(|n| n >= 0.0),
    schemars: Schemars::Extend,
};

/// `exclusiveMaximum: 10` (draft-04: `maximum: 10` with `exclusiveMaximum: true`).
pub static EXCLUSIVE_MAXIMUM: RuleDef = RuleDef {
    name: "exclusive_maximum",
    tag: "exclusiveMaximum",
    keyword: "exclusiveMaximum",
    arg: Arg::Number,
    shape: Shape::Number,
    upper: None,
    check: Check::Call {
        function: "exclusive_maximum",
        run: |s, v, at, errors| {
            if let (Subject::Number(n), Value::Number(max)) = (s, v) {
                validate::exclusive_maximum(n, *max, at, errors);
            }
        },
    },
    zero_fails: |v| v.as_f64().is_some_and(|n| n <= 0.0),
    schemars: Schemars::Extend,
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
            if let (Subject::Items(items), Value::Count(n)) = (s, v) {
                validate::min_items(items, *n, at, errors);
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
            if let (Subject::Items(items), Value::Count(n)) = (s, v) {
                validate::max_items(items, *n, at, errors);
            }
        },
    },
    zero_fails: never,
    schemars: Schemars::Length(Bound::Max),
};

/// `uniqueItems: true`: no two elements are the same JSON value.
pub static UNIQUE_ITEMS: RuleDef = RuleDef {
    name: "unique_items",
    tag: "uniqueItems",
    keyword: "uniqueItems",
    arg: Arg::Flag,
    shape: Shape::List,
    upper: None,
    check: Check::Call {
        function: "unique_items",
        run: |s, _, at, errors| {
            if let Subject::Items(items) = s {
                validate::unique_items(items, at, errors);
            }
        },
    },
    // No two elements of an empty list are equal.
    zero_fails: never,
    schemars: Schemars::Extend,
};

/// `dependentRequired: {card: [billing]}`: an object with the member `card` has `billing` too.
/// Draft-04 to 07 write it inside `dependencies` (an entry whose value is a list), which the
/// JSON Schema loader reads as this rule.
pub static DEPENDENT_REQUIRED: RuleDef = RuleDef {
    name: "dependent_required",
    tag: "dependentRequired",
    keyword: "dependentRequired",
    arg: Arg::KeyLists,
    shape: Shape::Object,
    upper: None,
    check: Check::Call {
        function: "dependent_required",
        run: |s, v, at, errors| {
            if let (Subject::Object(object), Value::KeyLists(lists)) = (s, v) {
                let needs: Vec<Vec<&str>> = (lists.iter())
                    .map(|(_, n)| n.iter().map(String::as_str).collect())
                    .collect();
                let deps: Vec<(&str, &[&str])> = (lists.iter().zip(&needs))
                    .map(|((k, _), n)| (k.as_str(), n.as_slice()))
                    .collect();
                validate::dependent_required(object, &deps, at, errors);
            }
        },
    },
    zero_fails: never,
    schemars: Schemars::None,
};

/// Conditions JSON Schema states with nested subschemas (`if`/`then`/`else`, `not`,
/// `patternProperties`, `dependentSchemas`, ...), bundled by the loader into one document with
/// the definitions its `$ref`s reach, and checked on the object's JSON form by the runtime's
/// evaluator. A TypeScript interface writes the document after `@subschema`; the emitted
/// schema puts it under `allOf`.
pub static SUBSCHEMA: RuleDef = RuleDef {
    name: "subschema",
    tag: "subschema",
    keyword: "x-subschema",
    arg: Arg::Schema,
    shape: Shape::Object,
    upper: None,
    check: Check::Schema,
    zero_fails: never,
    schemars: Schemars::None,
};

fn never(_: &Value) -> bool {
    false
}

fn above_zero(v: &Value) -> bool {
    v.as_f64().is_some_and(|n| n > 0.0)
}
