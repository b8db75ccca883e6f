//! Candidate instances of a JSON Schema: a seeded walk that tries to satisfy each schema
//! (following local `$ref`s, picking one `oneOf`/`anyOf` member, filling required and some
//! optional properties). Whether a candidate is valid is for a decoder or a reference
//! validator to say: `agentwire mock` tries seeds until its protocol's decoder takes one, and
//! the published-schema oracle compares both verdicts on what it draws.

use serde_json::{Map, Value, json};

/// A small deterministic generator (xorshift64*), so a draw replays from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    }

    fn chance(&mut self) -> bool {
        self.below(2) == 0
    }
}

/// One candidate for `schema` (a schema inside `root`, whose local `$ref`s it follows).
pub fn draw(root: &Value, schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    let Some(obj) = schema.as_object() else {
        return scalar(rng);
    };
    if depth > 8 {
        return shallow(obj);
    }
    if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
        return match local(root, r) {
            Some(target) => draw(root, target, rng, depth + 1),
            None => scalar(rng),
        };
    }
    if let Some(c) = obj.get("const") {
        return c.clone();
    }
    if let Some(values) = obj
        .get("enum")
        .and_then(Value::as_array)
        .filter(|v| !v.is_empty())
    {
        return values[rng.below(values.len())].clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(members) = obj
            .get(key)
            .and_then(Value::as_array)
            .filter(|m| !m.is_empty())
        {
            let picked = draw(root, &members[rng.below(members.len())], rng, depth + 1);
            return merge(picked, own_object(root, obj, rng, depth));
        }
    }
    if let Some(parts) = obj.get("allOf").and_then(Value::as_array) {
        let mut out = own_object(root, obj, rng, depth);
        for part in parts {
            out = merge(out, draw(root, part, rng, depth + 1));
        }
        return out;
    }
    let ty = match obj.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) if !ts.is_empty() => ts[rng.below(ts.len())]
            .as_str()
            .unwrap_or("null")
            .to_owned(),
        _ if obj.contains_key("properties") => "object".to_owned(),
        _ if obj.contains_key("items") => "array".to_owned(),
        _ => return scalar(rng),
    };
    typed(root, obj, &ty, rng, depth)
}

/// A value of the JSON type `ty` meeting `obj`'s bounds where it can.
fn typed(root: &Value, obj: &Map<String, Value>, ty: &str, rng: &mut Rng, depth: usize) -> Value {
    let num = |k: &str| obj.get(k).and_then(Value::as_f64);
    match ty {
        "string" => {
            let min = num("minLength").unwrap_or(0.0) as usize;
            let len = min + rng.below(4);
            Value::String("abcdefgh".chars().cycle().take(len).collect())
        }
        "integer" | "number" => {
            let lo = num("minimum").unwrap_or(-3.0);
            let hi = num("maximum").unwrap_or(lo + 10.0).max(lo);
            let n = lo + rng.below((hi - lo) as usize + 1) as f64;
            if ty == "number" && rng.chance() {
                json!(n + 0.5)
            } else {
                json!(n as i64)
            }
        }
        "boolean" => Value::Bool(rng.chance()),
        "null" => Value::Null,
        "array" => {
            let min = num("minItems").unwrap_or(0.0) as usize;
            let n = min + rng.below(3);
            let items = obj.get("items").cloned().unwrap_or(json!({}));
            let items = if items.is_array() { json!({}) } else { items };
            Value::Array((0..n).map(|_| draw(root, &items, rng, depth + 1)).collect())
        }
        _ => own_object(root, obj, rng, depth),
    }
}

/// The object `obj`'s own `properties` make: every required one, about half the others.
fn own_object(root: &Value, obj: &Map<String, Value>, rng: &mut Rng, depth: usize) -> Value {
    let required: Vec<&str> = (obj.get("required").and_then(Value::as_array))
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (key, schema) in props {
            if required.contains(&key.as_str()) || rng.chance() {
                out.insert(key.clone(), draw(root, schema, rng, depth + 1));
            }
        }
    }
    for key in required {
        if !out.contains_key(key) {
            out.insert(key.to_owned(), scalar(rng));
        }
    }
    Value::Object(out)
}

/// What a schema too deep to follow gets: its constant, else an empty object or null.
fn shallow(obj: &Map<String, Value>) -> Value {
    obj.get("const").cloned().unwrap_or(match obj.get("type") {
        Some(Value::String(t)) if t == "object" => json!({}),
        Some(Value::String(t)) if t == "array" => json!([]),
        _ => Value::Null,
    })
}

fn scalar(rng: &mut Rng) -> Value {
    match rng.below(4) {
        0 => json!("x"),
        1 => json!(1),
        2 => json!(true),
        _ => Value::Null,
    }
}

/// Objects merged member by member (the later wins); anything else is `a` unless it is `{}`.
fn merge(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut a), Value::Object(b)) => {
            a.extend(b);
            Value::Object(a)
        }
        (Value::Object(a), b) if a.is_empty() => b,
        (a, _) => a,
    }
}

/// The schema a local `$ref` (`#`, `#/pointer`) reaches in `root`.
pub fn local<'v>(root: &'v Value, r: &str) -> Option<&'v Value> {
    let fragment = r.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(root);
    }
    root.pointer(&fragment.replace("%25", "%"))
}
