//! Instances drawn from a JSON Schema, with no hand-picked value: a seeded walk that tries to
//! satisfy each schema (following local `$ref`s, picking one `oneOf`/`anyOf` member, filling
//! required and some optional properties), and near misses made from those by one mutation
//! (a required key dropped, a value of another JSON type, a member added). Which of them are
//! valid is for a reference validator to say; the walk only makes likely candidates.

pub use agentwire_runtime::instances::{Rng, draw, local};
use serde_json::{Map, Value, json};

/// The member a near miss adds to an object, declared by no schema of the corpus.
pub const UNDECLARED: &str = "zz_unknown";

/// A near miss of `value`: one mutation, chosen by `rng`.
pub fn mutate(value: &Value, rng: &mut Rng) -> Value {
    let mut out = value.clone();
    match (&mut out, rng.below(3)) {
        (Value::Object(m), 0) if !m.is_empty() => {
            let key = m
                .keys()
                .nth(rng.below(m.len()))
                .cloned()
                .unwrap_or_default();
            m.remove(&key);
        }
        (Value::Object(m), 1) if !m.is_empty() => {
            let key = m
                .keys()
                .nth(rng.below(m.len()))
                .cloned()
                .unwrap_or_default();
            m.insert(key, json!([7]));
        }
        (Value::Object(m), _) => {
            m.insert(UNDECLARED.to_owned(), json!(1));
        }
        (Value::Array(items), _) if !items.is_empty() => items[0] = json!({"zz": 1}),
        (Value::String(_), _) => out = json!(12),
        _ => out = json!("zz"),
    }
    out
}

/// A near miss that breaks one keyword of the schema somewhere in `value` (a valid candidate
/// drawn from `schema`): a number set to its exclusive bound, a list's first element repeated
/// under `uniqueItems`, a dependent key dropped (`dependentRequired`, draft-04 to 07's
/// `dependencies`), a member matching a `patternProperties` pattern with a value of another
/// type, a value that fits a `not` schema, a `then` broken where `if` holds. `None` when the
/// schema reaches none of these where `value` has a value.
pub fn keyword_miss(root: &Value, schema: &Value, value: &Value, rng: &mut Rng) -> Option<Value> {
    let mut sites = Vec::new();
    sites_of(root, schema, value, &mut String::new(), &mut sites, 0);
    if sites.is_empty() {
        return None;
    }
    let (at, broken) = sites.swap_remove(rng.below(sites.len()));
    let mut out = value.clone();
    match out.pointer_mut(&at) {
        Some(slot) => *slot = broken(slot.clone(), rng, root),
        None => return None,
    }
    Some(out)
}

/// How one site breaks its keyword: from the value there, a value that breaks it.
type Break = Box<dyn Fn(Value, &mut Rng, &Value) -> Value>;

/// Every place under `at` where `schema` (and what it reaches) has a keyword that
/// [`keyword_miss`] can break, with how.
fn sites_of(
    root: &Value,
    schema: &Value,
    value: &Value,
    at: &mut String,
    out: &mut Vec<(String, Break)>,
    depth: usize,
) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    if depth > 12 {
        return;
    }
    if let Some(target) = obj
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| local(root, r))
    {
        sites_of(root, target, value, at, out, depth + 1);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for part in obj.get(key).and_then(Value::as_array).into_iter().flatten() {
            sites_of(root, part, value, at, out, depth + 1);
        }
    }
    own_sites(obj, value, at, out);
    match value {
        Value::Object(members) => {
            let props = obj.get("properties").and_then(Value::as_object);
            for (k, v) in members {
                let Some(sub) = props.and_then(|p| p.get(k)) else {
                    continue;
                };
                let len = at.len();
                at.push('/');
                at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                sites_of(root, sub, v, at, out, depth + 1);
                at.truncate(len);
            }
        }
        Value::Array(items) => {
            if let Some(sub) = obj.get("items").filter(|i| i.is_object()) {
                for (i, v) in items.iter().enumerate() {
                    let len = at.len();
                    at.push_str(&format!("/{i}"));
                    sites_of(root, sub, v, at, out, depth + 1);
                    at.truncate(len);
                }
            }
        }
        _ => {}
    }
}

/// The sites of the keywords written on `obj` itself, for the value `value` at `at`.
fn own_sites(obj: &Map<String, Value>, value: &Value, at: &str, out: &mut Vec<(String, Break)>) {
    let mut add = |b: Break| out.push((at.to_owned(), b));
    let num = |k: &str| obj.get(k).and_then(Value::as_f64);
    let flag = |k: &str| obj.get(k).and_then(Value::as_bool) == Some(true);
    if value.is_number() {
        let low = num("exclusiveMinimum").or(num("minimum").filter(|_| flag("exclusiveMinimum")));
        let high = num("exclusiveMaximum").or(num("maximum").filter(|_| flag("exclusiveMaximum")));
        for bound in [low, high].into_iter().flatten() {
            add(Box::new(move |_, _, _| json!(bound)));
        }
    }
    if let Value::Array(items) = value
        && flag("uniqueItems")
        && !items.is_empty()
    {
        add(Box::new(|v, _, _| match v {
            Value::Array(mut items) => {
                items.push(items[0].clone());
                Value::Array(items)
            }
            other => other,
        }));
    }
    if value.is_object() {
        for key in ["dependentRequired", "dependencies"] {
            for (when, needs) in obj
                .get(key)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let Some(first) = needs.as_array().and_then(|n| n.first()?.as_str()) else {
                    continue;
                };
                let (when, first) = (when.clone(), first.to_owned());
                add(Box::new(move |v, _, _| match v {
                    Value::Object(mut m) => {
                        m.entry(when.clone()).or_insert(json!("x"));
                        m.remove(&first);
                        Value::Object(m)
                    }
                    other => other,
                }));
            }
        }
        for (pattern, sub) in (obj.get("patternProperties").and_then(Value::as_object))
            .into_iter()
            .flatten()
        {
            let Some(key) = key_matching(pattern) else {
                continue;
            };
            let wrong = other_type(sub);
            add(Box::new(move |v, _, _| match v {
                Value::Object(mut m) => {
                    m.insert(key.clone(), wrong.clone());
                    Value::Object(m)
                }
                other => other,
            }));
        }
    }
    if let Some(not) = obj.get("not").cloned() {
        add(Box::new(move |v, rng, root| {
            merge_into(v, draw(root, &not, rng, 0))
        }));
    }
    if let (Some(cond), Some(then)) = (obj.get("if").cloned(), obj.get("then").cloned()) {
        add(Box::new(move |v, rng, root| {
            let held = merge_into(v, draw(root, &cond, rng, 0));
            mutate(&merge_into(held, draw(root, &then, rng, 0)), rng)
        }));
    }
}

/// `value` with the members of `part` (an object) put in; any other `part` replaces it.
fn merge_into(value: Value, part: Value) -> Value {
    match (value, part) {
        (Value::Object(mut a), Value::Object(b)) => {
            a.extend(b);
            Value::Object(a)
        }
        (_, b) => b,
    }
}

/// A key `pattern` matches: one of a few plain keys, or the pattern's own literal text.
fn key_matching(pattern: &str) -> Option<String> {
    let re = agentwire_runtime::regex::Regex::new(pattern).ok()?;
    let literal: String = pattern
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    [
        "x",
        "a",
        "zz_pattern",
        "A1",
        "x-y",
        "_",
        "0",
        &literal,
        &format!("{literal}x"),
    ]
    .into_iter()
    .find(|k| re.is_match(k))
    .map(str::to_owned)
}

/// A value of another JSON type than `schema` declares (a list unless it declares one).
fn other_type(schema: &Value) -> Value {
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => json!("zz"),
        _ => json!([7]),
    }
}
