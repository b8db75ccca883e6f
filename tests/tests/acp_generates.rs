//! ACP's TypeScript and its JSON Schema (npm `@agentclientprotocol/sdk` 2.4.0, installed by
//! `scripts/install-peers`, never copied into the repository) each generate a JSON-RPC
//! module, unchanged, whose methods come from the schema's `x-method`/`x-side`; both modules
//! compile warning-free in one crate.

use std::path::{Path, PathBuf};

use agentwire_tests::peers::{ensure_installed, target_dir};
use agentwire_tests::published::{Module, build_crate};
use serde_json::Value;

fn sdk_file(path: &str) -> PathBuf {
    ensure_installed();
    target_dir()
        .join("peers/node/node_modules/@agentclientprotocol/sdk")
        .join(path)
}

/// The `jsonrpc.methods` of ACP, from the annotations of its JSON Schema: a `...Request`
/// with its `...Response`, a `...Notification`; `x-side` is the side that handles it.
fn methods(schema: &Path) -> (String, usize) {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(schema).unwrap()).unwrap();
    let mut yaml = String::new();
    let mut count = 0;
    for (name, def) in doc["$defs"].as_object().unwrap() {
        let (Some(method), Some(side)) = (def["x-method"].as_str(), def["x-side"].as_str()) else {
            continue;
        };
        let from = if side == "agent" { "client" } else { "agent" };
        if let Some(base) = name.strip_suffix("Request") {
            yaml.push_str(&format!(
                "    - {{method: \"{method}\", call: request, from: {from}, params: {name}, result: {base}Response, summary: \"{method}\"}}\n"
            ));
            count += 1;
        } else if name.ends_with("Notification") {
            yaml.push_str(&format!(
                "    - {{method: \"{method}\", call: notification, from: {from}, params: {name}, summary: \"{method}\"}}\n"
            ));
            count += 1;
        }
    }
    (yaml, count)
}

fn generate(root: &Path, module: &str, types: &Path, methods: &str) -> Module {
    let dir = root.join(module);
    std::fs::create_dir_all(&dir).unwrap();
    let file = types.file_name().unwrap().to_str().unwrap();
    std::fs::copy(types, dir.join(file)).unwrap();
    std::fs::write(
        dir.join("protocol.yaml"),
        format!(
            "protocol: {module}\ntitle: Agent Client Protocol\nsummary: ACP v1 as its SDK ships it.\n\
             transport: {{kind: jsonrpc, framing: newline}}\nroles: [client, agent]\n\
             types: {file}\njsonrpc:\n  methods:\n{methods}"
        ),
    )
    .unwrap();
    let g = agentwire_codegen::generate(&dir).unwrap_or_else(|e| {
        panic!(
            "{module}: {} refusals:\n{}",
            e.errors.len(),
            e.errors
                .iter()
                .map(|e| e.one_line())
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    Module {
        name: g.module.clone(),
        files: g
            .files
            .iter()
            .map(|f| (f.path.clone(), f.render("ACP's published schema")))
            .collect(),
    }
}

#[test]
fn acp_from_its_typescript_and_from_its_json_schema_generates_and_compiles() {
    let schema = sdk_file("schema/v1/schema.json");
    let (methods, count) = methods(&schema);
    assert!(count >= 20, "{count} methods");
    let tmp = tempfile::tempdir().unwrap();
    let specs = tmp.path().join("specs");
    let from_ts = generate(
        &specs,
        "acp_ts",
        &sdk_file("dist/v1/schema/types.gen.d.ts"),
        &methods,
    );
    let from_json = generate(&specs, "acp_json", &schema, &methods);
    let rust = |m: &Module| {
        m.files
            .iter()
            .find(|(p, _)| *p == format!("src/{}.rs", m.name))
            .map(|(_, t)| t.clone())
            .unwrap()
    };
    for m in [&from_ts, &from_json] {
        let text = rust(m);
        assert!(text.contains("pub enum SessionUpdate"), "{}", m.name);
        assert!(text.contains("pub enum ContentBlock"), "{}", m.name);
    }
    build_crate(&tmp.path().join("crate"), &[from_ts, from_json]);
}
