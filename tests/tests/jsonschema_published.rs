//! JSON Schemas as other projects publish them, read unchanged (installed by
//! `scripts/install-peers` from PyPI and npm at pinned versions, never copied into the
//! repository): setuptools' `tool.setuptools` and `tool.distutils` schemas (kebab-case
//! definition names, `$$description`, draft-07 tuples), the draft-04 to 2020-12 meta-schemas
//! `jsonschema-specifications` ships (`$ref: "#"`, `$dynamicRef`, references to other
//! documents), ACP's v2 schema and its unstable form from its SDK, and ajv's `json-schema-secure.json` (a schema
//! from outside that corpus). Each loads with no refusal, all generate one
//! crate that compiles warning-free, and the generated `decode_type` is compared, definition
//! by definition, with the `jsonschema` crate on the unchanged upstream schema, over instances
//! drawn from the schema and near misses of them (`agentwire_tests::instances`).
//!
//! Every value both accept must come back from a round trip as it went in (a closed object's
//! undeclared member aside, counted apart): zero lossy round trips.
//!
//! A disagreement is allowed only where the definition reaches a construct spec/README.md
//! lists as read leniently (a keyword noted as unchecked, a non-string `const`/`enum`, a
//! reference to another document, `format`, `pattern`, `additionalProperties: false`, which the
//! generated reader tolerates and drops): those are counted and printed, any other fails.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agentwire_tests::instances::{self, Rng};
use agentwire_tests::peers::{ensure_installed, target_dir};
use agentwire_tests::published::{Module, build_crate};
use serde_json::{Value, json};

/// (module, file under `target/peers`, the name the file gets in its spec folder).
fn corpus() -> Vec<(&'static str, PathBuf, &'static str)> {
    ensure_installed();
    let peers = target_dir().join("peers");
    let site = std::fs::read_dir(peers.join("venv/lib"))
        .expect("the peers' venv")
        .filter_map(Result::ok)
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir())
        .expect("site-packages");
    let meta = |d: &str| {
        site.join(format!(
            "jsonschema_specifications/schemas/{d}/metaschema.json"
        ))
    };
    let config = site.join("setuptools/config");
    vec![
        (
            "setuptools_cfg",
            config.join("setuptools.schema.json"),
            "setuptools.schema.json",
        ),
        (
            "distutils_cfg",
            config.join("distutils.schema.json"),
            "distutils.schema.json",
        ),
        ("meta_draft4", meta("draft4"), "metaschema.json"),
        ("meta_draft6", meta("draft6"), "metaschema.json"),
        ("meta_draft7", meta("draft7"), "metaschema.json"),
        ("meta_draft201909", meta("draft201909"), "metaschema.json"),
        ("meta_draft202012", meta("draft202012"), "metaschema.json"),
        (
            "acp_v2",
            peers.join("node/node_modules/@agentclientprotocol/sdk/schema/v2/schema.json"),
            "schema.json",
        ),
        // The same package's v2 schema with ACP's unstable methods and fields (each SDK's
        // opt-in; 148 of the stable schema's definitions differ in it). The v1 unstable
        // schema is not here yet: 71 of its 2,057 instances are refused where the reference
        // accepts them, each a definition that is also a tagged union's variant (`Terminal`,
        // `PlanFile`, ...) decoded alone without its tag.
        (
            "acp_v2_unstable",
            peers.join("node/node_modules/@agentclientprotocol/sdk/schema/v2/schema.unstable.json"),
            "schema.unstable.json",
        ),
        // Outside the corpus the generator was tuned to: ajv's draft-07 meta-schema for the
        // security assessment of schemas (`$ref: "#"` throughout, `dependencies` with schemas,
        // `if`/`then`), from ajv 8.20.0, which the peers' npm lockfile pins (the MCP SDK depends on it).
        (
            "ajv_secure",
            peers.join("node/node_modules/ajv/dist/refs/json-schema-secure.json"),
            "json-schema-secure.json",
        ),
    ]
}

/// Generates `module` from the unchanged `file`; panics with every refusal.
fn generate(root: &Path, module: &str, file: &Path, name: &str) -> (Module, usize) {
    let dir = root.join(module);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(file, dir.join(name)).unwrap();
    std::fs::write(
        dir.join("protocol.yaml"),
        format!(
            "protocol: {module}\ntitle: {module}\nsummary: A published schema.\ntypes: {name}\n"
        ),
    )
    .unwrap();
    let g = agentwire_codegen::generate(&dir).unwrap_or_else(|e| {
        let lines: Vec<String> = e.errors.iter().map(|e| e.one_line()).collect();
        panic!("{module}: {} refusals:\n{}", lines.len(), lines.join("\n"))
    });
    let notes = g.summary.lines().filter(|l| l.contains("note:")).count();
    let files = (g.files.iter())
        .map(|f| (f.path.clone(), f.render("a published schema")))
        .collect();
    (
        Module {
            name: g.module.clone(),
            files,
        },
        notes,
    )
}

/// The Rust type name a definition gets (the naming pass's first choice).
fn rust_name(json_name: &str) -> String {
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
fn reference(doc: &Value, pointer: &str) -> Option<jsonschema::Validator> {
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
const LENIENT: &[&str] = &[
    "format",
    "pattern",
    "patternProperties",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "multipleOf",
    "contains",
    "minProperties",
    "maxProperties",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "unevaluatedProperties",
    "$dynamicRef",
    "$recursiveRef",
];

/// Whether `schema` (following local `$ref`s) reaches a construct read leniently.
fn lenient(doc: &Value, schema: &Value, seen: &mut BTreeSet<String>) -> bool {
    match schema {
        Value::Object(obj) => obj.iter().any(|(k, v)| {
            // Member names are no keywords (a meta-schema declares a property `not`).
            if let ("properties" | "$defs" | "definitions", Value::Object(members)) = (k.as_str(), v) {
                return members.values().any(|m| lenient(doc, m, seen));
            }
            let here = LENIENT.contains(&k.as_str())
                // Draft-04 to 07's `dependencies` with a schema (its lists are checked).
                || (k == "dependencies" && v.as_object().is_some_and(|d| d.values().any(|x| !x.is_array())))
                || (k == "additionalProperties" && *v == json!(false))
                || (k == "items" && v.is_array())
                || ((k == "enum" || k == "const") && !only_strings(v))
                || (k == "$ref" && v.as_str().is_some_and(|r| !r.starts_with('#')));
            let inner = match (k.as_str(), v.as_str()) {
                ("$ref", Some(r)) if seen.insert(r.to_owned()) => {
                    instances::local(doc, r).is_some_and(|t| lenient(doc, t, seen))
                }
                ("enum" | "const" | "default" | "examples", _) => false,
                _ => lenient(doc, v, seen),
            };
            here || inner
        }),
        Value::Array(items) => items.iter().any(|i| lenient(doc, i, seen)),
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
struct Case {
    module: String,
    rust: String,
    pointer: String,
    lenient: bool,
    value: Value,
}

/// Candidates and near misses for every definition (and the root) of `doc`.
fn cases(module: &str, doc: &Value, root_rust: &str, rng: &mut Rng) -> Vec<Case> {
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

/// Runs the generated crate's `oracle` example over `cases`: per case `None` (no such type),
/// `Some(Err)` refused, `Some(Ok(re-encoded))`.
fn decode_all(dir: &Path, modules: &[&str], cases: &[Case]) -> Vec<Option<Result<Value, ()>>> {
    let arms: String = (modules.iter())
        .map(|m| format!("            {m:?} => published_schemas::{m}::decode_type(ty, json),\n"))
        .collect();
    let example = format!(
        "//! Decodes `module\\ttype\\tjson` lines with the generated modules.\nuse std::io::BufRead;\n\
         fn main() {{\n    for line in std::io::stdin().lock().lines() {{\n        let line = line.unwrap();\n\
                 let mut parts = line.splitn(3, '\\t');\n        let (m, ty, json) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());\n\
                 let out = match m {{\n{arms}            _ => None,\n        }};\n\
                 match out {{\n            None => println!(\"none\"),\n            Some(Ok(v)) => println!(\"ok\\t{{v}}\"),\n            Some(Err(_)) => println!(\"err\"),\n        }}\n    }}\n}}\n"
    );
    std::fs::create_dir_all(dir.join("examples")).unwrap();
    std::fs::write(dir.join("examples/oracle.rs"), example).unwrap();
    let mut child = Command::new(env!("CARGO"))
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .args([
            "run",
            "--offline",
            "-q",
            "--features",
            "schemars",
            "--example",
            "oracle",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the oracle example");
    let input: String = (cases.iter())
        .map(|c| format!("{}\t{}\t{}\n", c.module, c.rust, c.value))
        .collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(input.as_bytes()).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "the oracle example failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| match l.split_once('\t') {
            Some(("ok", v)) => Some(Ok(serde_json::from_str(v).unwrap())),
            _ if l == "err" => Some(Err(())),
            _ => None,
        })
        .collect()
}

#[test]
fn published_json_schemas_load_compile_and_agree_with_a_reference_validator() {
    let tmp = tempfile::tempdir().unwrap();
    let specs = tmp.path().join("specs");
    let mut modules = Vec::new();
    let mut all = Vec::new();
    let mut rng = Rng::new(0x5eed_2024);
    let mut docs = Vec::new();
    for (module, file, name) in corpus() {
        let (m, notes) = generate(&specs, module, &file, name);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let stem = name.trim_end_matches(".json").trim_end_matches(".schema");
        let root = agentwire_codegen::naming::pascal_case(stem);
        println!("{module}: loads with 0 refusals, {notes} notes");
        all.extend(cases(module, &doc, &root, &mut rng));
        docs.push((module, doc));
        modules.push(m);
    }
    let crate_dir = tmp.path().join("crate");
    build_crate(&crate_dir, &modules);
    let names: Vec<&str> = modules.iter().map(|m| m.name.as_str()).collect();
    let verdicts = decode_all(&crate_dir, &names, &all);
    assert_eq!(verdicts.len(), all.len());
    let mut unexplained = Vec::new();
    let mut lost = Vec::new();
    for (module, doc) in &docs {
        let (mut compared, mut lenient, mut lossy, mut closed) = (0, 0, 0, 0);
        let mut validators = std::collections::BTreeMap::new();
        for (case, ours) in all
            .iter()
            .zip(&verdicts)
            .filter(|(c, _)| c.module == *module)
        {
            let reference = validators
                .entry(case.pointer.clone())
                .or_insert_with(|| reference(doc, &case.pointer));
            let (Some(ours), Some(reference)) = (ours, reference) else {
                continue;
            };
            compared += 1;
            if ours.is_ok() != reference.is_valid(&case.value) {
                if case.lenient {
                    lenient += 1;
                    println!(
                        "  lenient: {module} {} ({}): {} -- agentwire {}",
                        case.rust,
                        case.pointer,
                        case.value,
                        if ours.is_ok() { "accepts" } else { "refuses" },
                    );
                } else {
                    unexplained.push(format!(
                        "{module} {} ({}): {} -- agentwire {}, reference {}",
                        case.rust,
                        case.pointer,
                        case.value,
                        if ours.is_ok() { "accepts" } else { "refuses" },
                        if ours.is_ok() { "refuses" } else { "accepts" },
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
                    closed += 1;
                } else {
                    lossy += 1;
                    lost.push(format!(
                        "{module} {} ({}): {} -- re-encoded as {back}",
                        case.rust, case.pointer, case.value
                    ));
                }
            }
        }
        println!(
            "{module}: {compared} instances compared, {lenient} disagreements on lenient readings, {lossy} re-encoded differently, {closed} without the undeclared member a closed object skips"
        );
    }
    assert!(
        unexplained.is_empty(),
        "{} disagreements with the reference validator:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    // An accepted value comes back as it went in: an untagged union reads it as the member
    // that keeps it whole (`agentwire_runtime::untagged`).
    assert!(
        lost.is_empty(),
        "{} lossy round trips:\n{}",
        lost.len(),
        lost.join("\n")
    );
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
