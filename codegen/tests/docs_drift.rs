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
    // A block that does not compile is one finding at its own line; the rest still compare.
    let broken = format!("{doc}\n```proto\nmessage Broken {{\n  string a = 1;\n```\n");
    let (mutated, line) = mutate(&broken, "string agent_id = 1;", "string agent_id = 9;", 0);
    let (spec, _) = load("coven");
    let found = findings(&spec, &mutated);
    let broken_line = line_of(&mutated, "message Broken {") + 1;
    assert!(
        found
            .iter()
            .any(|f| f.line == line && f.message.contains("agent_id")),
        "{found:#?}"
    );
    assert_eq!(
        found
            .iter()
            .filter(|f| f.message.starts_with("protobuf block"))
            .count(),
        1,
        "{found:#?}"
    );
    let block_end = broken_line
        + mutated[mutated.find("message Broken {").unwrap()..]
            .find("```")
            .map_or(0, |i| mutated[..i].len().min(i));
    assert!(
        found.iter().any(|f| f.message.starts_with("protobuf block")
            && (broken_line - 1..=block_end).contains(&f.line)),
        "{found:#?}"
    );
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

/// A document written the way people write them, against the agentloop spec: capitalised
/// roles, a usage snippet and a test snippet that does not parse, a one-element tuple, a
/// union used but never declared, an example under a heading that names no type, an example
/// that contradicts the document's own interface, and an edit in the middle of an example.
const PEOPLE_DOC: &str = r#"# A protocol as people write it

```typescript
interface ApprovalResponseMessage {
  id: string;
  type: 'approval_response';
  payload: {
    review: ReviewDecision;
    applyPatch?: Patch;
    customDenyMessage?: string;
    explanation?: string;
  };
}

type ReviewDecision = 'yes' | 'no-exit' | 'no-continue' | 'always' | 'explain';

interface Patch { patch: string }

interface ResponseItemMessage {
  id: string;
  type: 'response_item';
  payload: ResponseItem;
}

interface Pair { items: [string] }
```

```typescript
ws.send(JSON.stringify({ id: "1", type: "get_context_info" }));
```

```typescript
interface Broken { a: [...] }
```

## Examples

```json
{
  "id": "a1",
  "type": "approval_response",
  "payload": {
    "review": "no-continue",
    "customDenyMessage": null
  }
}
```

```json
{
  "id": "a2",
  "type": "approval_response",
  "payload": {
    "review": "perhaps"
  }
}
```

## Flow

```
Client → Server: user_input
Server → Client: response_item (before loading_state)
Server → Client: response_item
Server → Client: loading_state (loading: false)
Server → Client: agent_finished
```
"#;

fn line_of(doc: &str, needle: &str) -> usize {
    doc[..doc.find(needle).unwrap()].matches('\n').count() + 1
}

#[test]
fn a_document_as_people_write_it_gets_true_findings_only() {
    let (spec, _) = load("agentloop");
    let report = check_doc(&spec, Path::new("doc.md"), PEOPLE_DOC);
    let found: Vec<(usize, &str)> = report
        .findings
        .iter()
        .filter(|f| !f.message.contains("is never mentioned"))
        .map(|f| (f.line, f.message.as_str()))
        .collect();
    let at = |needle: &str| line_of(PEOPLE_DOC, needle);
    let expect = [
        // The union the document uses but never declares.
        (
            at("payload: ResponseItem;"),
            "`ResponseItem` differs: doc uses it but never declares it",
        ),
        // A declaration the spec does not have (Patch is the spec's ApplyPatchCommand).
        (at("interface Patch"), "declaration `Patch` differs"),
        (at("interface Pair"), "declaration `Pair` differs"),
        // The test snippet that does not parse: one finding, the rest still compared.
        (at("interface Broken"), "TypeScript block differs"),
        // The example against the document's own interface, at the member's line.
        (at("\"customDenyMessage\": null"), "doc's own declarations"),
        // The edit in the middle of an example, at its line.
        (
            at("\"review\": \"perhaps\""),
            "`ApprovalResponseMessage` refuses `/payload/review`",
        ),
        // One mismatch in the listing, no cascade.
        (
            at("response_item (before"),
            "sequence step differs: doc says `server.response_item`",
        ),
    ];
    for (line, what) in expect {
        assert!(
            found.iter().any(|(l, m)| *l == line && m.contains(what)),
            "{what} at line {line} not reported; findings: {found:#?}"
        );
    }
    assert_eq!(found.len(), expect.len(), "unexpected findings: {found:#?}");
    let snippet = at("ws.send");
    assert!(
        report.notes.iter().any(|n| n.line == snippet),
        "{:#?}",
        report.notes
    );
}

#[test]
fn roles_match_in_any_case_and_routes_by_path() {
    let (spec, _) = load("agentloop");
    let listing =
        "# Flow\n\n```\nClient → Server: get_context_info\nSERVER -> client: context_info\n```\n";
    let report = check_doc(&spec, Path::new("doc.md"), listing);
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.message.contains("is never mentioned")),
        "{:#?}",
        report.findings
    );
    let (spec, _) = load("external_agents");
    let prose = "POST `/api/plugins/sessions/operations/create`, then the agent server calls \
                 `POST {inputUrl}` and the external system answers on \
                 `POST /external/sessions/EXT-1/messages`.";
    let report = check_doc(&spec, Path::new("doc.md"), prose);
    let routes: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.message.contains("create_session") || f.message.contains("inject_message"))
        .collect();
    assert!(routes.is_empty(), "{routes:#?}");
}

#[test]
fn every_spec_note_is_shown_in_the_protocol_docs_and_kept_fresh() {
    use agentwire_codegen::docs::{NOTES_BEGIN, notes::spec_notes};
    for module in ["helix_zed", "agentloop", "external_agents", "eca", "coven"] {
        let (spec, doc) = load(module);
        let notes = spec_notes(&spec);
        assert!(
            notes.iter().any(|n| n.file == "machine.yaml"),
            "{module}: no machine notes"
        );
        for n in &notes {
            let entry = format!("- `{}:{}`: {}", n.file, n.line, n.text);
            assert!(doc.contains(&entry), "{module}: not shown: {entry}");
        }
        // A note edited in the doc (or one the spec gained since) is stale.
        let start = doc.find(NOTES_BEGIN).unwrap();
        let line = doc[..start].matches('\n').count() + 1;
        let edited = format!(
            "{}{}",
            &doc[..start],
            doc[start..].replacen("- `", "- `x", 1)
        );
        let found = findings(&spec, &edited);
        assert!(
            found
                .iter()
                .any(|f| f.line == line && f.message.contains("spec notes differ")),
            "{module}: {found:#?}"
        );
    }
}

#[test]
fn roles_match_through_the_aliases_a_spec_declares() {
    let (mut spec, _) = load("helix_zed");
    let listing = "# Flow\n\n```\nExternal System → Zed: chat_message\n\
                   Zed → External System: context_created\n```\n";
    let senders = |spec: &LoadedSpec| {
        findings(spec, listing)
            .into_iter()
            .filter(|f| f.message.starts_with("sequence"))
            .count()
    };
    assert_eq!(
        senders(&spec),
        2,
        "without the alias both steps name an unknown role"
    );
    spec.protocol
        .role_aliases
        .insert("helix".into(), vec!["External System".into()]);
    assert_eq!(senders(&spec), 0);
}
