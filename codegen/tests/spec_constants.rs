//! Constants a spec declares instead of keeping them as prose: `@default` on fields and on a
//! union's tag, `transport.port`, `transport.content_type`. Each reaches the generated module,
//! the JSON Schema and the protocol doc; a mistake is a diagnostic at its line, and a doc that
//! says another value is a drift finding.

use std::path::{Path, PathBuf};

use agentwire_codegen::docs::{CONSTANTS_BEGIN, check_doc};
use agentwire_codegen::front::load::load_spec;
use agentwire_codegen::generate;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

const YAML: &str = "protocol: demo
title: Demo
transport: {kind: websocket, framing: json-text}
roles: [client, server]
types: messages.ts
channels:
  - {from: client, to: server, union: ClientMessage}
  - {from: server, to: client, union: ServerMessage}
messages:
  - {kind: ask, from: client, type: Ask}
  - {kind: answer, from: server, type: Answer}
";

const TS: &str = "type ClientMessage = Ask;
type ServerMessage = Answer;
interface Ask {
  type: 'ask';
  /**
   * Seconds to wait.
   * @default 30
   */
  timeout?: integer;
  /** @default chat */
  mode?: 'chat' | 'plan';
  config: Config;
}
interface Answer { type: 'answer'; text: string; }
type Config = ChatConfig | OtherConfig;
interface ChatConfig {
  /** @default chat */
  kind?: 'chat';
  name: string;
}
interface OtherConfig { kind: 'other'; url: string; }
";

/// Writes a spec folder and generates it: every output file rendered, or the one-line errors.
fn gen_with(yaml: &str, ts: &str) -> Result<Vec<(String, String)>, Vec<String>> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    std::fs::write(dir.join("messages.ts"), ts).unwrap();
    match generate(&dir) {
        Ok(g) => Ok(g
            .files
            .iter()
            .map(|f| (f.path.clone(), f.render("spec/demo")))
            .collect()),
        Err(e) => Err(e.errors.iter().map(|e| e.one_line()).collect()),
    }
}

fn file<'a>(files: &'a [(String, String)], suffix: &str) -> &'a str {
    files
        .iter()
        .find(|(p, _)| p.ends_with(suffix))
        .map(|(_, t)| t.as_str())
        .unwrap_or_else(|| panic!("no {suffix}"))
}

#[test]
fn field_defaults_reach_the_schema_and_the_module() {
    let files = gen_with(YAML, TS).unwrap_or_else(|e| panic!("{e:#?}"));
    let schema: serde_json::Value = serde_json::from_str(file(&files, "demo.schema.json")).unwrap();
    let ask = &schema["$defs"]["Ask"]["properties"];
    assert_eq!(ask["timeout"]["default"], 30, "{ask}");
    assert_eq!(ask["mode"]["default"], "chat", "{ask}");
    let module = file(&files, "demo.rs");
    assert!(
        module.contains("pub const TIMEOUT_DEFAULT: i64 = 30;"),
        "{module}"
    );
    assert!(
        module.contains("pub fn timeout_or_default(&self) -> i64"),
        "{module}"
    );
}

#[test]
fn a_union_member_with_a_default_tag_is_what_an_untagged_object_reads_as() {
    let files = gen_with(YAML, TS).unwrap_or_else(|e| panic!("{e:#?}"));
    let module = file(&files, "demo.rs");
    assert!(
        module.contains(r#"const DEFAULT_KIND: Option<&'static str> = Some("chat");"#),
        "{module}"
    );
    let schema: serde_json::Value = serde_json::from_str(file(&files, "demo.schema.json")).unwrap();
    let chat = &schema["$defs"]["ChatConfig"];
    assert_eq!(chat["properties"]["kind"]["default"], "chat", "{chat}");
    assert!(
        !chat["required"]
            .as_array()
            .unwrap()
            .contains(&"kind".into()),
        "{chat}"
    );
    // The other member still requires its tag.
    let other = &schema["$defs"]["OtherConfig"]["required"];
    assert!(
        other.as_array().unwrap().contains(&"kind".into()),
        "{other}"
    );
}

#[test]
fn a_default_that_does_not_fit_is_located() {
    let errors = gen_with(YAML, &TS.replace("@default 30", "@default thirty")).unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("messages.ts:9:") && e.contains("`@default thirty` does not fit")),
        "{errors:#?}"
    );
    let errors = gen_with(
        YAML,
        &TS.replace(
            "/** @default chat */\n  mode",
            "/** @default code */\n  mode",
        ),
    )
    .unwrap_err();
    assert!(
        errors.iter().any(|e| e.contains("one of `chat`, `plan`")),
        "{errors:#?}"
    );
    let errors = gen_with(YAML, &TS.replace("timeout?: integer", "timeout: integer")).unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("is required, so it is never absent")),
        "{errors:#?}"
    );
    let errors = gen_with(
        YAML,
        &TS.replace("@default 30", "@default 30\n   * @default 40"),
    )
    .unwrap_err();
    assert!(
        errors.iter().any(|e| e.contains("duplicate `@default`")),
        "{errors:#?}"
    );
}

#[test]
fn transport_constants_are_checked_where_written() {
    let bad_port = YAML.replace(
        "transport: {kind: websocket, framing: json-text}",
        "transport: {kind: websocket, framing: json-text, port: 70000}",
    );
    let errors = gen_with(&bad_port, TS).unwrap_err();
    assert!(
        errors.iter().any(
            |e| e.contains("protocol.yaml:3:") && e.contains("`port: 70000` is not a TCP port")
        ),
        "{errors:#?}"
    );
    let misplaced = YAML.replace(
        "transport: {kind: websocket, framing: json-text}",
        "transport: {kind: websocket, framing: json-text, content_type: 'text/json; charset=latin1'}",
    );
    let errors = gen_with(&misplaced, TS).unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("only `content-length` framing has")),
        "{errors:#?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("charset `latin1`")),
        "{errors:#?}"
    );
    let misspelt = YAML.replace(
        "transport: {kind: websocket, framing: json-text}",
        "transport: {kind: websocket, framing: json-text, prot: 80}",
    );
    let errors = gen_with(&misspelt, TS).unwrap_err();
    assert!(
        errors.iter().any(|e| e.contains("did you mean `port`?")),
        "{errors:#?}"
    );
}

#[test]
fn the_built_in_constants_reach_the_generated_code() {
    let coven = generate(&root().join("spec/coven")).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let text: String = coven.files.iter().map(|f| f.render("spec/coven")).collect();
    assert!(
        text.contains("pub const DEFAULT_PORT: u16 = 50051;"),
        "coven port"
    );
    assert!(text.contains("pub const TIMEOUT_SECONDS_DEFAULT: i32 = 30;"));
    assert!(text.contains("pub async fn listen_default()"));
    assert!(text.contains("pub fn default_endpoint(host: &str) -> String"));
    let eca = generate(&root().join("spec/eca")).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let text: String = eca.files.iter().map(|f| f.render("spec/eca")).collect();
    assert!(text.contains(
        r#"pub const CONTENT_TYPE: &str = "application/vscode-jsonrpc; charset=utf-8";"#
    ));
    let ext =
        generate(&root().join("spec/external_agents")).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let text: String = ext
        .files
        .iter()
        .map(|f| f.render("spec/external_agents"))
        .collect();
    assert!(text.contains(r#"pub const WEBSOCKET_PATH: &str = "/ws";"#));
    assert!(text.contains(r#"const DEFAULT_KIND: Option<&'static str> = Some("chat");"#));
}

#[test]
fn a_doc_that_says_another_constant_is_a_finding() {
    let spec = load_spec(&root().join("spec/external_agents"))
        .unwrap_or_else(|e| panic!("{:?}", e.errors));
    let doc = std::fs::read_to_string(root().join("docs/protocols/external_agents.md")).unwrap();
    assert!(
        check_doc(&spec, Path::new("doc.md"), &doc)
            .findings
            .is_empty()
    );
    // A TypeScript block whose member tag is required where the spec defaults it.
    let required = doc.replacen("  type?: 'chat';", "  type: 'chat';", 1);
    let found = check_doc(&spec, Path::new("doc.md"), &required).findings;
    assert!(
        found.iter().any(|f| f
            .message
            .contains("discriminator of `ChatAgentConfig` differs")),
        "{found:#?}"
    );
    // A generated constants region that no longer says what the spec declares.
    let stale = doc.replacen("WebSocket path: `/ws`", "WebSocket path: `/socket`", 1);
    assert_ne!(stale, doc);
    let found = check_doc(&spec, Path::new("doc.md"), &stale).findings;
    let line = doc[..doc.find(CONSTANTS_BEGIN).unwrap()]
        .matches('\n')
        .count()
        + 1;
    assert!(
        found
            .iter()
            .any(|f| f.line == line && f.message.contains("the constants differ")),
        "{found:#?}"
    );
}

#[test]
fn a_doc_field_default_that_differs_is_a_finding() {
    let spec = load_spec(&root().join("spec/external_agents"))
        .unwrap_or_else(|e| panic!("{:?}", e.errors));
    let doc = std::fs::read_to_string(root().join("docs/protocols/external_agents.md")).unwrap();
    // `description?` of ExternalAgentConfig gains a default the spec does not declare.
    let needle =
        "  /** Short description shown in the UI. */\n  description?: string;\n  type: 'external';";
    let at = doc
        .find(needle)
        .expect("ExternalAgentConfig.description in the doc");
    let changed = format!(
        "{}  /**\n   * Short description shown in the UI.\n   * @default none\n   */\n{}",
        &doc[..at],
        &doc[at + "  /** Short description shown in the UI. */\n".len()..]
    );
    let found = check_doc(&spec, Path::new("doc.md"), &changed).findings;
    let line = changed[..at].matches('\n').count() + 1;
    assert!(
        found.iter().any(|f| f.message.contains(
            "default of `ExternalAgentConfig.description` differs: doc says @default \"none\", spec"
        ) && f.line == line + 4),
        "{found:#?}"
    );
}
