//! The comparison of generated decoders with a reference validator (the `jsonschema` crate)
//! on an unchanged upstream schema, shared by the test binaries that make one: instances drawn
//! from each definition and near misses of them (`agentwire_tests::instances`), which
//! disagreements a lenient reading explains (spec/README.md lists them), and the tally of
//! verdicts and round trips.

use std::collections::BTreeSet;

use agentwire_tests::instances::{self, Rng};
use serde_json::{Map, Value, json};

/// The Rust type name a definition gets (the naming pass's first choice).
pub fn rust_name(json_name: &str) -> String {
    let plain = json_name.starts_with(|c: char| c.is_ascii_uppercase())
        && json_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        json_name.to_owned()
    } else {
        agentwire_codegen::naming::pascal_case(json_name)
    }
}

/// Serves the upstream document to the reference validator under its own URI.
struct Upstream(Value);

impl jsonschema::Retrieve for Upstream {
    fn retrieve(
        &self,
        _uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Ok(self.0.clone())
    }
}

/// The reference validator of the schema at `pointer` (`""` for the root) of `doc`.
pub fn reference(doc: &Value, pointer: &str) -> Option<jsonschema::Validator> {
    let id = doc
        .get("$id")
        .or_else(|| doc.get("id"))
        .and_then(Value::as_str)
        .map(|i| i.trim_end_matches('#').to_owned())
        .unwrap_or_else(|| "urn:agentwire:upstream".to_owned());
    // The wrapper speaks the document's draft (draft-04's `exclusiveMinimum: true` is the
    // draft-04 keyword only under draft-04).
    let mut wrapper = json!({"$ref": format!("{id}#{pointer}")});
    if let Some(draft) = doc.get("$schema") {
        wrapper["$schema"] = draft.clone();
    }
    // `format` asserted, as the generated validators assert the formats they know.
    match jsonschema::options()
        .with_retriever(Upstream(doc.clone()))
        .should_validate_formats(true)
        .build(&wrapper)
    {
        Ok(v) => Some(v),
        Err(e) => {
            println!("  no reference validator for {id}#{pointer}: {e}");
            None
        }
    }
}

/// Keywords whose presence explains a disagreement (spec/README.md's lenient readings).
/// The conditions (`if`, `not`, `contains`, a tuple, `unevaluatedProperties`, `$dynamicRef`,
/// ...) are no longer among them: they are checked wherever they stand.
const LENIENT: &[&str] = &["format", "pattern", "multipleOf"];

/// Whether the loader reads the object schema `obj` as a struct (so its conditions are
/// checked): it declares properties and is no union.
fn is_struct(obj: &Map<String, Value>) -> bool {
    obj.contains_key("properties") && !obj.contains_key("oneOf") && !obj.contains_key("anyOf")
}

/// Whether `schema` (following local `$ref`s) reaches a construct read leniently.
fn lenient(doc: &Value, schema: &Value, seen: &mut BTreeSet<String>) -> bool {
    lenient_in(doc, schema, seen, false)
}

/// [`lenient`], `merged` when `schema` is merged into a struct (an `allOf` part of one, or
/// what such a part's `$ref` reaches), whose conditions the struct's subschema carries.
fn lenient_in(doc: &Value, schema: &Value, seen: &mut BTreeSet<String>, merged: bool) -> bool {
    let lenient = |s: &Value, seen: &mut BTreeSet<String>| lenient_in(doc, s, seen, false);
    match schema {
        Value::Object(obj) => obj.iter().any(|(k, v)| {
            let checked = merged || is_struct(obj);
            // Member names are no keywords (a meta-schema declares a property `not`).
            if let ("properties" | "$defs" | "definitions", Value::Object(members)) =
                (k.as_str(), v)
            {
                return members.values().any(|m| lenient(m, seen));
            }
            if let ("allOf", Value::Array(parts)) = (k.as_str(), v) {
                return parts.iter().any(|p| lenient_in(doc, p, seen, checked));
            }
            // A closed map of `patternProperties` does not check its member names; the lists
            // of `dependentRequired` (and draft-04 to 07's `dependencies`) are a struct's rule.
            let pattern_map = k == "patternProperties"
                && !is_struct(obj)
                && obj.get("additionalProperties") == Some(&json!(false));
            let lists = (k == "dependentRequired"
                || (k == "dependencies"
                    && v.as_object()
                        .is_some_and(|d| d.values().any(Value::is_array))))
                && !checked;
            let here = LENIENT.contains(&k.as_str())
                || pattern_map
                || lists
                || (k == "additionalProperties" && *v == json!(false))
                || ((k == "enum" || k == "const") && !only_strings(v))
                || (k == "$ref" && v.as_str().is_some_and(|r| !r.starts_with('#')));
            let inner = match (k.as_str(), v.as_str()) {
                ("$ref", Some(r)) if seen.insert(format!("{r}{checked}")) => {
                    instances::local(doc, r).is_some_and(|t| lenient_in(doc, t, seen, checked))
                }
                ("enum" | "const" | "default" | "examples", _) => false,
                _ => lenient(v, seen),
            };
            here || inner
        }),
        Value::Array(items) => items.iter().any(|i| lenient(i, seen)),
        _ => false,
    }
}

fn only_strings(v: &Value) -> bool {
    match v {
        Value::Array(items) => items.iter().all(Value::is_string),
        other => other.is_string(),
    }
}

/// One comparison: module, Rust type, the upstream schema's pointer, the instance.
pub struct Case {
    pub module: String,
    pub rust: String,
    pub pointer: String,
    pub lenient: bool,
    pub value: Value,
}

/// Candidates and near misses for every definition (and the root) of `doc`.
pub fn cases(module: &str, doc: &Value, root_rust: &str, rng: &mut Rng) -> Vec<Case> {
    let mut targets = vec![(String::new(), root_rust.to_owned())];
    for key in ["$defs", "definitions"] {
        for name in doc
            .get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
        {
            let escaped = name.replace('~', "~0").replace('/', "~1");
            targets.push((format!("/{key}/{escaped}"), rust_name(name)));
        }
    }
    let mut out = Vec::new();
    for (pointer, rust) in targets {
        let schema = doc.pointer(&pointer).unwrap_or(doc);
        let lenient = lenient(doc, schema, &mut BTreeSet::new());
        for _ in 0..4 {
            let valid = instances::draw(doc, schema, rng, 0);
            let miss = instances::mutate(&valid, rng);
            // A near miss aimed at a keyword the schema reaches (an exclusive bound, a
            // repeated element...), so each checked keyword is tried where it applies.
            let aimed = instances::keyword_miss(doc, schema, &valid, rng);
            for value in [Some(valid), Some(miss), aimed].into_iter().flatten() {
                out.push(Case {
                    module: module.to_owned(),
                    rust: rust.clone(),
                    pointer: pointer.clone(),
                    lenient,
                    value,
                });
            }
        }
    }
    out
}

/// `back` is `input` with object members left out, at any depth, and nothing else changed.
fn only_members_dropped(back: &Value, input: &Value) -> bool {
    match (back, input) {
        (Value::Object(b), Value::Object(i)) => b
            .iter()
            .all(|(k, v)| i.get(k).is_some_and(|w| only_members_dropped(v, w))),
        (Value::Array(b), Value::Array(i)) => {
            b.len() == i.len() && b.iter().zip(i).all(|(v, w)| only_members_dropped(v, w))
        }
        (b, i) => b == i,
    }
}

/// One decoder's verdict on a case: `None` no such type, `Some(Err)` refused, `Some(Ok(written
/// back))`.
pub type Verdict = Option<Result<Value, ()>>;

/// What one module's comparison found.
#[derive(Default)]
pub struct Tally {
    /// Instances both sides judged.
    pub compared: usize,
    /// Disagreements on a definition that reaches a lenient reading.
    pub lenient: usize,
    /// Values accepted and written back with only a closed object's undeclared member gone.
    pub closed: usize,
    /// Disagreements nothing explains, one line each.
    pub unexplained: Vec<String>,
    /// Values accepted and written back otherwise changed, one line each.
    pub lost: Vec<String>,
}

/// Compares `ours` (per case: `None` no such type, `Some(Err)` refused, `Some(Ok(written
/// back))`) with the reference validator on `doc` for `module`'s `cases`, and prints the tally.
pub fn compare(module: &str, doc: &Value, cases: &[&Case], ours: &[&Verdict]) -> Tally {
    let mut t = Tally::default();
    let mut validators = std::collections::BTreeMap::new();
    for (case, ours) in cases.iter().zip(ours) {
        assert_eq!(case.module, module, "a case of another module");
        let reference = validators
            .entry(case.pointer.clone())
            .or_insert_with(|| reference(doc, &case.pointer));
        let (Some(ours), Some(reference)) = (ours, reference) else {
            continue;
        };
        t.compared += 1;
        let verdict = |ok: bool| if ok { "accepts" } else { "refuses" };
        if ours.is_ok() != reference.is_valid(&case.value) {
            let (rust, pointer, value) = (&case.rust, &case.pointer, &case.value);
            if case.lenient {
                t.lenient += 1;
                let ours = verdict(ours.is_ok());
                println!("  lenient: {module} {rust} ({pointer}): {value} -- agentwire {ours}");
            } else {
                t.unexplained.push(format!(
                    "{module} {rust} ({pointer}): {value} -- agentwire {}, reference {}",
                    verdict(ours.is_ok()),
                    verdict(!ours.is_ok()),
                ));
            }
        } else if let Ok(back) = ours
            && *back != case.value
        {
            // A closed object skips a member it does not declare and does not write it
            // back, a deliberate reading (spec/README.md, "Open and closed objects"); counted
            // apart. The member may sit at any depth: a near miss's own, or one that a
            // sibling member of a union declares (a tag picks the member; an untagged union
            // already takes the member that keeps the most, so none declares it). Anything
            // else (a value changed, a member added, `1` written as `1.0`) is lossy.
            if only_members_dropped(back, &case.value) {
                t.closed += 1;
            } else {
                t.lost.push(format!(
                    "{module} {} ({}): {} -- re-encoded as {back}",
                    case.rust, case.pointer, case.value
                ));
            }
        }
    }
    println!(
        "{module}: {} instances compared, {} disagreements on lenient readings, {} re-encoded differently, {} without the undeclared member a closed object skips",
        t.compared,
        t.lenient,
        t.lost.len(),
        t.closed
    );
    t
}
