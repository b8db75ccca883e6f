//! The Agent Client Protocol's published JSON Schema (npm `@zed-industries/agent-client-protocol`,
//! pinned and installed by `scripts/install-peers`, never copied into the repository) through
//! the JSON Schema front end: every definition lowers, and a JSON-RPC spec whose methods come
//! from the schema's own `x-method`/`x-side` annotations generates.

use std::path::{Path, PathBuf};

use agentwire_codegen::diag::SourceFile;
use agentwire_codegen::front::jsonschema::load_types;
use agentwire_codegen::ir::TypeKind;
use agentwire_tests::peers::{ensure_installed, target_dir};
use serde_json::Value;

fn schema_path() -> PathBuf {
    ensure_installed();
    target_dir().join("peers/acp/package/schema/schema.json")
}

fn definitions(path: &Path) -> serde_json::Map<String, Value> {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    schema["$defs"].as_object().expect("$defs").clone()
}

#[test]
fn every_acp_definition_lowers() {
    let path = schema_path();
    let file = SourceFile::read(&path).unwrap();
    let types = load_types(&file, "schema.json").unwrap_or_else(|e| {
        panic!(
            "{:#?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    });
    let defs = definitions(&path);
    assert!(defs.len() >= 80, "{} definitions", defs.len());
    for name in defs.keys() {
        assert!(types.contains_key(name), "`{name}` was not lowered");
    }
    // The shapes ACP's Rust crate serializes: internally tagged enums become tagged unions.
    let tags = |name: &str| match &types[name].kind {
        TypeKind::Union { tag, variants } => (
            tag.clone(),
            variants.iter().map(|v| v.value.clone()).collect::<Vec<_>>(),
        ),
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(
        tags("ContentBlock"),
        (
            "type".to_owned(),
            ["text", "image", "audio", "resource_link", "resource"]
                .map(String::from)
                .to_vec()
        )
    );
    assert_eq!(tags("SessionUpdate").0, "sessionUpdate");
    assert_eq!(tags("RequestPermissionOutcome").0, "outcome");
    assert_eq!(tags("ToolCallContent").0, "type");
    assert!(matches!(types["StopReason"].kind, TypeKind::Enum(ref v) if v.len() == 5));
    println!(
        "ACP: {} definitions lowered into {} types",
        defs.len(),
        types.len()
    );
}

#[test]
fn an_acp_spec_from_the_json_schema_generates() {
    let path = schema_path();
    let defs = definitions(&path);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("acp");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&path, dir.join("schema.json")).unwrap();
    let mut yaml = String::from(
        "protocol: acp\ntitle: Agent Client Protocol\nsummary: ACP from its JSON Schema.\n\
         transport: {kind: jsonrpc, framing: content-length}\nroles: [client, agent]\n\
         types: schema.json\njsonrpc:\n  methods:\n",
    );
    let mut methods = 0;
    for (name, def) in &defs {
        let (Some(method), Some(side)) = (def["x-method"].as_str(), def["x-side"].as_str()) else {
            continue;
        };
        // `x-side` is the side that handles the method; the other one calls it.
        let from = if side == "agent" { "client" } else { "agent" };
        if let Some(base) = name.strip_suffix("Request") {
            let result = format!("{base}Response");
            assert!(defs.contains_key(&result), "{result}");
            yaml.push_str(&format!(
                "    - {{method: {method}, call: request, from: {from}, params: {name}, result: {result}, summary: \"{method}\"}}\n"
            ));
            methods += 1;
        } else if name.ends_with("Notification") {
            yaml.push_str(&format!(
                "    - {{method: {method}, call: notification, from: {from}, params: {name}, summary: \"{method}\"}}\n"
            ));
            methods += 1;
        }
    }
    assert!(methods >= 15, "{methods} methods");
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    let g = agentwire_codegen::generate(&dir).unwrap_or_else(|e| {
        panic!(
            "{:#?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    });
    let rust = g
        .files
        .iter()
        .find(|f| f.path == "src/acp.rs")
        .expect("the module")
        .render("ACP");
    assert!(rust.contains("pub enum SessionUpdate"), "no SessionUpdate");
    assert!(
        rust.contains("pub struct PromptRequest"),
        "no PromptRequest"
    );
}
