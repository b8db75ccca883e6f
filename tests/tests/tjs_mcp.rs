//! The JSON Schema agentwire emits for `spec/mcp` (MCP's own `spec.types.d.ts`, npm
//! `@modelcontextprotocol/sdk` 1.32.2, read unchanged) against what `typescript-json-schema`
//! 0.68.0 emits for the same file with the flags MCP publishes its `schema.json` with, definition
//! by definition after the normalisation `agentwire_tests::schema_compare` documents. Every
//! definition that still differs must be one docs/typescript-json-schema.md names with its
//! reason, so a new, unexplained difference fails here.

use std::collections::BTreeSet;
use std::process::Command;

use agentwire_codegen::front::{fetch, load::load_spec};
use agentwire_tests::peers::{ensure_installed, target_dir, workspace_root};
use agentwire_tests::schema_compare::{compare, ours, theirs};
use serde_json::Value;

/// The definition names the doc's table lists (backticked words of its first column);
/// `List*Result` stands for every name with that prefix and suffix.
fn documented() -> Vec<String> {
    let doc = std::fs::read_to_string(workspace_root().join("docs/typescript-json-schema.md"))
        .expect("docs/typescript-json-schema.md");
    let mut names = Vec::new();
    for row in doc.lines().filter(|l| l.starts_with("| `")) {
        let first = row.split(" | ").next().unwrap_or_default();
        names.extend(first.split('`').skip(1).step_by(2).map(str::to_owned));
    }
    names
}

fn is_documented(name: &str, documented: &[String]) -> bool {
    documented.iter().any(|d| match d.split_once('*') {
        Some((head, tail)) => name.starts_with(head) && name.ends_with(tail),
        None => d == name,
    })
}

#[test]
fn mcp_definitions_differ_from_typescript_json_schema_only_as_documented() {
    ensure_installed();
    let spec = workspace_root().join("spec/mcp");
    fetch::fetch_all(std::slice::from_ref(&spec)).expect("fetch the pinned MCP schema");
    // The folder's 2025-11-25 version is the one read from the SDK's `spec.types.d.ts`.
    let loaded = load_spec(&spec).expect("spec/mcp loads");
    let loaded = loaded
        .versions
        .iter()
        .find(|v| {
            v.protocol
                .version
                .as_ref()
                .is_some_and(|v| v.name == "2025-11-25")
        })
        .expect("spec/mcp declares 2025-11-25");
    let inline: BTreeSet<String> = loaded
        .protocol
        .types
        .values()
        .filter(|t| t.inline)
        .map(|t| t.name.clone())
        .collect();
    let file = target_dir()
        .join("peers/node/node_modules/@modelcontextprotocol/sdk/dist/esm/spec.types.d.ts");
    let schema = std::fs::read_to_string(
        workspace_root().join("generated/schemas/mcp/v2025_11_25.schema.json"),
    )
    .expect("generated/schemas/mcp/v2025_11_25.schema.json");
    let out = Command::new(target_dir().join("peers/tjs/node_modules/.bin/typescript-json-schema"))
        .args([
            "--defaultNumberType",
            "integer",
            "--required",
            "--skipLibCheck",
        ])
        .arg(&file)
        .arg("*")
        .output()
        .expect("run typescript-json-schema");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mine: Value = serde_json::from_str(&schema).expect("our schema is JSON");
    let tool: Value = serde_json::from_slice(&out.stdout).expect("their schema is JSON");
    let r = compare(&ours(&mine, &inline), &theirs(&tool));

    let documented = documented();
    let unexplained: Vec<&String> = r
        .differ
        .keys()
        .chain(&r.only_ours)
        // A renamed definition (`Result` is `ResultType` in Rust and in the schema) is
        // documented under the name the TypeScript gives it.
        .filter(|name| {
            let original = name.strip_suffix("Type").unwrap_or(name);
            !is_documented(name, &documented) && !is_documented(original, &documented)
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "definitions that differ without a reason in docs/typescript-json-schema.md: \
         {unexplained:?}\n{r:#?}"
    );
    let total = r.equal.len() + r.differ.len() + r.only_ours.len();
    eprintln!("{} of {total} definitions equal", r.equal.len());
    // The figure the doc quotes; more equal definitions is progress, fewer a regression.
    assert!(r.equal.len() >= 105, "{} equal: {r:#?}", r.equal.len());
}
