//! Checking a JSON value against compiled nodes: every keyword's errors at the pointer of the
//! value it is about, through the rule functions of `crate::validate` where a rule has one,
//! so a nested `minLength` reads as a field's does.

use std::collections::BTreeSet;

use serde_json::Value;

use super::Schema;
use super::compile::Check;
use crate::validate::{self, JsonPointer};
use crate::{FieldError, Rule};

type Errors = Vec<FieldError>;

/// How many schemas deep one check may go: a `$ref` cycle that does not move into the value
/// (`{"$ref": "#"}` at the root) stops here instead of exhausting the stack.
const MAX_DEPTH: usize = 256;

pub(super) struct Eval<'s> {
    schema: &'s Schema,
    depth: usize,
}

impl<'s> Eval<'s> {
    pub(super) fn new(schema: &'s Schema) -> Self {
        Self { schema, depth: 0 }
    }

    /// Whether `v` satisfies node `id` (the errors are dropped).
    pub(super) fn valid(&mut self, id: usize, v: &Value) -> bool {
        let mut errors = Vec::new();
        self.node(id, v, &mut JsonPointer::new(), &mut errors);
        errors.is_empty()
    }

    pub(super) fn node(&mut self, id: usize, v: &Value, at: &mut JsonPointer, errors: &mut Errors) {
        let Some(node) = self.schema.nodes.get(id) else {
            return;
        };
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        for check in &node.checks {
            match check {
                Check::UnevaluatedProperties(schema) => {
                    self.unevaluated_members(id, *schema, v, at, errors);
                }
                Check::UnevaluatedItems(schema) => {
                    self.unevaluated_items(id, *schema, v, at, errors);
                }
                _ => self.check(check, v, at, errors),
            }
        }
        self.depth -= 1;
    }

    /// `unevaluatedProperties` of node `id`: the members no other keyword of the node (nor a
    /// subschema of it that holds) evaluated, each against `schema`.
    fn unevaluated_members(
        &mut self,
        id: usize,
        schema: usize,
        v: &Value,
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        let Value::Object(members) = v else { return };
        let mut seen = BTreeSet::new();
        self.evaluated_members(id, v, true, &mut seen);
        let rest = sorted(members)
            .into_iter()
            .filter(|(k, _)| !seen.contains(*k));
        for (name, m) in rest {
            if self.is_false(schema) {
                let message = format!("unknown member `{name}`; `unevaluatedProperties` is false");
                at.with(name, |at| {
                    fail(at, errors, "unevaluated_properties", message)
                });
            } else {
                at.with(name, |at| self.node(schema, m, at, errors));
            }
        }
    }

    /// `unevaluatedItems` of node `id`, as [`Self::unevaluated_members`] for elements.
    fn unevaluated_items(
        &mut self,
        id: usize,
        schema: usize,
        v: &Value,
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        let Value::Array(items) = v else { return };
        let mut seen = vec![false; items.len()];
        self.evaluated_items(id, v, true, &mut seen);
        for (i, item) in items.iter().enumerate().filter(|(i, _)| !seen[*i]) {
            if self.is_false(schema) {
                let message = format!("item {i} is unevaluated; `unevaluatedItems` is false");
                at.with_index(i, |at| fail(at, errors, "unevaluated_items", message));
            } else {
                at.with_index(i, |at| self.node(schema, item, at, errors));
            }
        }
    }

    /// Whether node `id` is the `false` schema.
    fn is_false(&self, id: usize) -> bool {
        matches!(
            self.schema.nodes.get(id).map(|n| n.checks.as_slice()),
            Some([Check::False])
        )
    }

    /// The members of the object `v` that node `id` evaluates: those its `properties`,
    /// `patternProperties`, `additionalProperties` apply to, and those of the subschemas it
    /// applies that hold (`allOf`, the `anyOf`/`oneOf` members that fit, the `if` branch
    /// taken, `$ref`...). `top` leaves out the node's own `unevaluatedProperties`.
    fn evaluated_members(&mut self, id: usize, v: &Value, top: bool, out: &mut BTreeSet<String>) {
        let (Value::Object(members), Some(node)) = (v, self.schema.nodes.get(id)) else {
            return;
        };
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        for check in &node.checks {
            match check {
                Check::Properties(props) => out.extend(
                    (props.iter())
                        .filter(|(n, _)| members.contains_key(n))
                        .map(|(n, _)| n.clone()),
                ),
                Check::PatternProperties(patterns) => out.extend(
                    (members.keys())
                        .filter(|k| patterns.iter().any(|(re, _)| re.is_match(k)))
                        .cloned(),
                ),
                Check::Additional { .. } => out.extend(members.keys().cloned()),
                Check::UnevaluatedProperties(_) if !top => out.extend(members.keys().cloned()),
                _ => {
                    for sub in self.applied(check, v) {
                        self.evaluated_members(sub, v, false, out);
                    }
                }
            }
        }
        self.depth -= 1;
    }

    /// The elements of the array `v` that node `id` evaluates, marked in `out` (see
    /// [`Self::evaluated_members`]): `prefixItems`, `items`, those `contains` matches.
    fn evaluated_items(&mut self, id: usize, v: &Value, top: bool, out: &mut [bool]) {
        let (Value::Array(items), Some(node)) = (v, self.schema.nodes.get(id)) else {
            return;
        };
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        for check in &node.checks {
            match check {
                Check::Prefix(ids) => out.iter_mut().take(ids.len()).for_each(|e| *e = true),
                Check::Items { from, .. } => out.iter_mut().skip(*from).for_each(|e| *e = true),
                Check::Contains { schema, .. } => {
                    for (i, item) in items.iter().enumerate() {
                        if self.valid(*schema, item) {
                            out[i] = true;
                        }
                    }
                }
                Check::UnevaluatedItems(_) if !top => out.iter_mut().for_each(|e| *e = true),
                _ => {
                    for sub in self.applied(check, v) {
                        self.evaluated_items(sub, v, false, out);
                    }
                }
            }
        }
        self.depth -= 1;
    }

    /// The subschemas `check` applies to `v` itself whose annotations count: a `$ref`'s
    /// target, every `allOf` part, the `anyOf`/`oneOf` members `v` fits, the condition and
    /// branch of an `if`, the `dependentSchemas` of present members. `not` gives none.
    fn applied(&mut self, check: &Check, v: &Value) -> Vec<usize> {
        match check {
            Check::Ref(id) => vec![*id],
            Check::AllOf(ids) => ids.clone(),
            Check::AnyOf(ids) | Check::OneOf(ids) => (ids.iter().copied())
                .filter(|id| self.valid(*id, v))
                .collect(),
            Check::If {
                cond,
                then,
                otherwise,
            } => {
                if self.valid(*cond, v) {
                    std::iter::once(*cond).chain(*then).collect()
                } else {
                    otherwise.iter().copied().collect()
                }
            }
            Check::DependentSchemas(deps) => (deps.iter())
                .filter(|(k, _)| v.as_object().is_some_and(|o| o.contains_key(k)))
                .map(|(_, id)| *id)
                .collect(),
            _ => Vec::new(),
        }
    }

    fn check(&mut self, check: &Check, v: &Value, at: &mut JsonPointer, errors: &mut Errors) {
        match (check, v) {
            (Check::False, _) => fail(at, errors, "false", "no value is allowed here".into()),
            (Check::Ref(id), _) => self.node(*id, v, at, errors),
            (Check::Type(types), _) if !types.iter().any(|t| is_type(v, t)) => {
                let message = format!("expected {}, found {}", types.join(" or "), kind(v));
                errors.push(FieldError::new(at.as_str(), Rule::Type, message));
            }
            (Check::Enum(values), _) if !values.iter().any(|e| same(e, v)) => {
                let list: Vec<String> = values.iter().map(Value::to_string).collect();
                let message = format!("{v} is not one of {}", list.join(", "));
                errors.push(FieldError::new(at.as_str(), Rule::Enum, message));
            }
            (Check::Const(c), _) if !same(c, v) => {
                let message = format!("{v} is not the constant {c}");
                errors.push(FieldError::new(at.as_str(), Rule::Enum, message));
            }
            (Check::Not(id), _) if self.valid(*id, v) => {
                let message = "the value fits the schema under `not`".to_owned();
                errors.push(FieldError::new(at.as_str(), Rule::Not, message));
            }
            (Check::AllOf(ids), _) => ids.iter().for_each(|id| self.node(*id, v, at, errors)),
            (Check::AnyOf(ids), _) if !ids.iter().any(|id| self.valid(*id, v)) => {
                let message = format!("the value fits none of the {} `anyOf` schemas", ids.len());
                fail(at, errors, "any_of", message);
            }
            (Check::OneOf(ids), _) => self.one_of(ids, v, at, errors),
            (
                Check::If {
                    cond,
                    then,
                    otherwise,
                },
                _,
            ) => {
                let (branch, why) = if self.valid(*cond, v) {
                    (then, "`then`: the `if` holds")
                } else {
                    (otherwise, "`else`: the `if` does not hold")
                };
                if let Some(id) = branch {
                    self.within(*id, v, at, errors, why);
                }
            }
            // The keywords above that passed: nothing to say, whatever the value.
            (
                Check::Type(_) | Check::Enum(_) | Check::Const(_) | Check::Not(_) | Check::AnyOf(_),
                _,
            ) => {}
            (_, Value::Object(members)) => self.object(check, members, v, at, errors),
            (_, Value::Array(items)) => self.array(check, items, at, errors),
            (_, Value::String(s)) => text(check, s, at, errors),
            (_, Value::Number(n)) => {
                if let Some(n) = n.as_f64() {
                    number(check, n, at, errors);
                }
            }
            _ => {}
        }
    }

    /// Node `id`'s errors on `v`, each message followed by the condition that led to it.
    fn within(
        &mut self,
        id: usize,
        v: &Value,
        at: &mut JsonPointer,
        errors: &mut Errors,
        why: &str,
    ) {
        let from = errors.len();
        self.node(id, v, at, errors);
        for e in &mut errors[from..] {
            e.message = format!("{} ({why})", e.message);
        }
    }

    fn one_of(&mut self, ids: &[usize], v: &Value, at: &mut JsonPointer, errors: &mut Errors) {
        let fits: Vec<usize> = (ids.iter().enumerate())
            .filter(|(_, id)| self.valid(**id, v))
            .map(|(i, _)| i)
            .collect();
        let message = match fits.as_slice() {
            [_] => return,
            [] => format!("the value fits none of the {} `oneOf` schemas", ids.len()),
            many => format!(
                "the value fits {} of the `oneOf` schemas (numbers {}); exactly one is allowed",
                many.len(),
                many.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        fail(at, errors, "one_of", message);
    }

    fn object(
        &mut self,
        check: &Check,
        members: &serde_json::Map<String, Value>,
        whole: &Value,
        at: &mut JsonPointer,
        errors: &mut Errors,
    ) {
        match check {
            Check::Properties(props) => {
                for (name, id) in props {
                    if let Some(m) = members.get(name) {
                        at.with(name, |at| self.node(*id, m, at, errors));
                    }
                }
            }
            Check::PatternProperties(patterns) => {
                for (name, m) in sorted(members) {
                    for (re, id) in patterns.iter().filter(|(re, _)| re.is_match(name)) {
                        let why = format!("`patternProperties` {}", re.as_str());
                        at.with(name, |at| self.within(*id, m, at, errors, &why));
                    }
                }
            }
            Check::Additional {
                named,
                patterns,
                schema,
            } => {
                let extra = (sorted(members).into_iter()).filter(|(k, _)| {
                    !named.contains(k) && !patterns.iter().any(|re| re.is_match(k))
                });
                let closed = self.is_false(*schema);
                for (name, m) in extra {
                    if closed {
                        let message =
                            format!("unknown member `{name}`; `additionalProperties` is false");
                        at.with(name, |at| {
                            fail(at, errors, "additional_properties", message)
                        });
                    } else {
                        at.with(name, |at| self.node(*schema, m, at, errors));
                    }
                }
            }
            Check::Required(names) => {
                for name in names.iter().filter(|n| !members.contains_key(*n)) {
                    let message = format!("missing field `{name}`");
                    at.with(name, |at| {
                        errors.push(FieldError::new(at.as_str(), Rule::Required, message))
                    });
                }
            }
            Check::PropertyNames(id) => {
                for (name, _) in sorted(members) {
                    if !self.valid(*id, &Value::String(name.clone())) {
                        let message =
                            format!("the member name `{name}` does not fit `propertyNames`");
                        at.with(name, |at| fail(at, errors, "property_names", message));
                    }
                }
            }
            Check::MinProperties(min) if (members.len() as u64) < *min => {
                let message = format!("{} members, at least {min} required", members.len());
                fail(at, errors, "min_properties", message);
            }
            Check::MaxProperties(max) if (members.len() as u64) > *max => {
                let message = format!("{} members, at most {max} allowed", members.len());
                fail(at, errors, "max_properties", message);
            }
            Check::DependentRequired(deps) => {
                let needs: Vec<Vec<&str>> = (deps.iter())
                    .map(|(_, n)| n.iter().map(String::as_str).collect())
                    .collect();
                let deps: Vec<(&str, &[&str])> = (deps.iter().zip(&needs))
                    .map(|((k, _), n)| (k.as_str(), n.as_slice()))
                    .collect();
                validate::dependent_required(whole, &deps, at, errors);
            }
            Check::DependentSchemas(deps) => {
                for (name, id) in deps.iter().filter(|(k, _)| members.contains_key(k)) {
                    let why = format!("`dependentSchemas` of `{name}`, which is present");
                    self.within(*id, whole, at, errors, &why);
                }
            }
            _ => {}
        }
    }

    fn array(&mut self, check: &Check, items: &[Value], at: &mut JsonPointer, errors: &mut Errors) {
        match check {
            Check::Prefix(ids) => {
                for (i, (id, item)) in ids.iter().zip(items).enumerate() {
                    at.with_index(i, |at| self.node(*id, item, at, errors));
                }
            }
            Check::Items { from, schema } => {
                for (i, item) in items.iter().enumerate().skip(*from) {
                    at.with_index(i, |at| self.node(*schema, item, at, errors));
                }
            }
            Check::Contains { schema, min, max } => {
                let n = items
                    .iter()
                    .filter(|item| self.valid(*schema, item))
                    .count() as u64;
                let message = match max {
                    _ if n < *min => format!("{n} items fit `contains`, at least {min} required"),
                    Some(max) if n > *max => {
                        format!("{n} items fit `contains`, at most {max} allowed")
                    }
                    _ => return,
                };
                fail(at, errors, "contains", message);
            }
            Check::MinItems(n) => validate::min_items(items, *n, at, errors),
            Check::MaxItems(n) => validate::max_items(items, *n, at, errors),
            Check::UniqueItems => validate::unique_items(items, at, errors),
            _ => {}
        }
    }
}

fn text(check: &Check, s: &str, at: &JsonPointer, errors: &mut Errors) {
    match check {
        Check::MinLength(n) => validate::min_length(s, *n, at, errors),
        Check::MaxLength(n) => validate::max_length(s, *n, at, errors),
        Check::Pattern(re, source) if !re.is_match(s) => {
            fail(
                at,
                errors,
                "pattern",
                format!("{s:?} does not match {source}"),
            );
        }
        Check::Format(name) => validate::format(s, name, at, errors),
        _ => {}
    }
}

fn number(check: &Check, n: f64, at: &JsonPointer, errors: &mut Errors) {
    match check {
        Check::Minimum(min) => validate::minimum(n, *min, at, errors),
        Check::Maximum(max) => validate::maximum(n, *max, at, errors),
        Check::ExclusiveMinimum(min) => validate::exclusive_minimum(n, *min, at, errors),
        Check::ExclusiveMaximum(max) => validate::exclusive_maximum(n, *max, at, errors),
        Check::MultipleOf(by) => validate::multiple_of(n, *by, at, errors),
        _ => {}
    }
}

/// An object's members in key order, whatever order the map keeps (see `compile`).
fn sorted(members: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut out: Vec<(&String, &Value)> = members.iter().collect();
    out.sort_by(|a, b| a.0.cmp(b.0));
    out
}

fn fail(at: &JsonPointer, errors: &mut Errors, keyword: &'static str, message: String) {
    errors.push(FieldError::new(
        at.as_str(),
        Rule::Keyword(keyword),
        message,
    ));
}

/// Whether `v` is of the JSON Schema type `t` (an integer is a number without a fraction,
/// `1.0` included, as draft 2019-09 on says).
fn is_type(v: &Value, t: &str) -> bool {
    match (t, v) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("string", Value::String(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64()
                || n.is_u64()
                || n.as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// JSON equality as `enum`/`const` compare: `1` equals `1.0`, member order does not count.
fn same(a: &Value, b: &Value) -> bool {
    a == b || crate::json_eq::canonical(a) == crate::json_eq::canonical(b)
}
