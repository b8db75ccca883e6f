//! The docs drift check on the project's own docs: they pass as written, and each kind of drift
//! applied to a copy is reported at the line where it was made.

use std::path::{Path, PathBuf};

use agentwire_codegen::docs::{Finding, check_doc};
use agentwire_codegen::front::load::{LoadedSpec, load_spec};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn load(module: &str) -> (LoadedSpec, String) {
    let spec =
        load_spec(&root().join("spec").join(module)).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let doc = std::fs::read_to_string(root().join("docs/protocols").join(format!("{module}.md")))
        .unwrap();
    (spec, doc)
}

fn findings(spec: &LoadedSpec, doc: &str) -> Vec<Finding> {
    check_doc(spec, Path::new("doc.md"), doc).findings
}

/// Replaces the `nth` occurrence (0-based) of `from` that starts a line's content, returning
/// the new document and the 1-based line changed.
fn mutate(doc: &str, from: &str, to: &str, nth: usize) -> (String, usize) {
    let (i, _) = doc
        .match_indices(from)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{from}` occurs fewer than {} times", nth + 1));
    let line = doc[..i].matches('\n').count() + 1;
    (format!("{}{to}{}", &doc[..i], &doc[i + from.len()..]), line)
}

fn assert_reported(module: &str, what: &str, doc: &str, line: usize) {
    let (spec, _) = load(module);
    let found = findings(&spec, doc);
    assert!(
        found.iter().any(|f| f.line == line),
        "{module}: {what} at line {line} not reported; findings: {found:#?}"
    );
}

#[test]
fn the_project_docs_pass() {
    for module in ["helix_zed", "agentloop", "external_agents", "eca", "coven"] {
        let (spec, doc) = load(module);
        let report = check_doc(&spec, Path::new("doc.md"), &doc);
        assert!(
            report.findings.is_empty(),
            "{module}: {:#?}",
            report.findings
        );
        assert!(
            report.declarations > 0 && report.json_examples > 0 && report.sequences > 0,
            "{module}: {report:?}"
        );
        // The same document with CRLF line ends reads the same.
        let crlf = doc.replace('\n', "\r\n");
        assert!(
            findings(&spec, &crlf).is_empty(),
            "{module}: CRLF changes the verdict"
        );
    }
}

#[test]
fn typescript_drift_is_reported_at_its_line() {
    let (_, doc) = load("agentloop");
    let cases = [
        (
            "rename a field",
            "  input: Array<ResponseInputItem>;",
            "  inputs: Array<ResponseInputItem>;",
        ),
        (
            "change a type",
            "    loading: boolean;",
            "    loading: string;",
        ),
        (
            "drop ?",
            "    previousResponseId?: string;",
            "    previousResponseId: string;",
        ),
        (
            "change a literal",
            "  type: 'user_input';",
            "  type: 'user_inputs';",
        ),
    ];
    for (what, from, to) in cases {
        let (mutated, line) = mutate(&doc, from, to, 0);
        assert_reported("agentloop", what, &mutated, line);
    }
    let (_, doc) = load("eca");
    let (mutated, line) = mutate(&doc, "    chatId: string;", "    chatId?: string;", 0);
    assert_reported("eca", "add ?", &mutated, line);
}

#[test]
fn a_broken_json_example_is_reported() {
    let (_, doc) = load("helix_zed");
    let (mutated, line) = mutate(
        &doc,
        "\"request_id\": \"req_1234567890\"",
        "\"request_id\": 1234567890",
        0,
    );
    let (spec, _) = load("helix_zed");
    let found = findings(&spec, &mutated);
    // A JSON finding names the block's first line; the mutation sits inside that block.
    assert!(
        found
            .iter()
            .any(|f| f.line <= line && line - f.line < 20 && f.message.contains("JSON example")),
        "{found:#?}"
    );
}

#[test]
fn swapped_sequence_steps_are_reported() {
    let (_, doc) = load("agentloop");
    let a = "server → client: loading_state (loading: true)\nserver → client: response_item";
    let b = "server → client: response_item (message, role assistant)\nserver → client: loading_state (loading: true)";
    let from = "server → client: loading_state (loading: true)\nserver → client: response_item (message, role assistant)";
    assert!(doc.contains(from), "listing changed: {a}");
    let (mutated, line) = mutate(&doc, from, b, 0);
    assert_reported("agentloop", "swap two steps", &mutated, line);
}

#[test]
fn proto_drift_is_reported_at_its_line() {
    let (_, doc) = load("coven");
    let (mutated, line) = mutate(&doc, "string agent_id = 1;", "string agent_id = 9;", 0);
    assert_reported("coven", "change a field number", &mutated, line);
    let (mutated, line) = mutate(
        &doc,
        "repeated string capabilities = 3;",
        "string capabilities = 3;",
        0,
    );
    assert_reported("coven", "change a label", &mutated, line);
}

#[test]
fn a_deleted_message_section_is_reported() {
    let (spec, doc) = load("agentloop");
    let start = doc.find("### manual_compact").expect("section");
    let end = start + 3 + doc[start + 3..].find("\n### ").expect("next section");
    let mutated = format!("{}{}", &doc[..start], &doc[end + 1..]);
    let found = findings(&spec, &mutated);
    assert!(
        found
            .iter()
            .any(|f| f.message.contains("ManualCompactMessage")),
        "{found:#?}"
    );
}

#[test]
fn markdown_variants_read_the_same() {
    let (spec, doc) = load("helix_zed");
    // `~~~` fences, indented fences and info strings with attributes.
    let tilde = doc.replace("```", "~~~");
    // (The generated diagram region is compared as text, so it reports the change itself.)
    let other: Vec<Finding> = findings(&spec, &tilde)
        .into_iter()
        .filter(|f| !f.message.contains("state diagram"))
        .collect();
    assert!(other.is_empty(), "{other:#?}");
    let indented = doc.replace("\n```json\n", "\n   ```json\n");
    assert!(
        findings(&spec, &indented).is_empty(),
        "{:#?}",
        findings(&spec, &indented)
    );
    let attrs = doc.replace("```ts\n", "```ts title=\"types\"\n");
    assert!(findings(&spec, &attrs).is_empty());
}
