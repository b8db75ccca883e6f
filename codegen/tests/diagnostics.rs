//! Spec mistakes come back as located diagnostics (file:line:col and a message), never panics,
//! and every mistake in a file is reported, not just the first.

use std::path::Path;

use agentwire_codegen::generate;

/// Writes a spec folder named `name` with the given protocol.yaml and messages.ts.
fn spec(root: &Path, name: &str, yaml: &str, ts: &str) -> std::path::PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    std::fs::write(dir.join("messages.ts"), ts).unwrap();
    dir
}

const YAML: &str = "protocol: demo
title: Demo
transport: {kind: websocket, framing: json-text}
roles: [client, server]
types: messages.ts
channels:
  - {from: client, to: server, union: ClientMessage}
messages:
  - {kind: ping, from: client, type: Ping}
";

const TS: &str = "type ClientMessage = Ping;
interface Ping {
  type: 'ping';
  /** @minLength 1 */
  id: string;
}
";

fn errors_of(dir: &Path) -> Vec<String> {
    match generate(dir) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.iter().map(|e| e.one_line()).collect(),
    }
}

#[test]
fn a_good_spec_generates() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = spec(tmp.path(), "demo", YAML, TS);
    let g = generate(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    assert!(g.files.iter().any(|f| f.path == "src/demo.rs"));
    assert!(
        g.summary.starts_with("demo: 1 message kinds"),
        "{}",
        g.summary
    );
}

#[test]
fn every_type_error_is_located() {
    let tmp = tempfile::tempdir().unwrap();
    let ts = "type ClientMessage = Ping;
interface Ping {
  type: 'ping';
  id: Strng;
  /** @pattern [unclosed */
  name: string;
  pair: [string, number];
}
";
    let dir = spec(tmp.path(), "demo", YAML, ts);
    let errors = errors_of(&dir);
    let file = dir.join("messages.ts").display().to_string();
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with(&format!("{file}:4:7: unknown type `Strng`"))),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains(":5:") && e.contains("@pattern")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains(":7:") && e.contains("tuple")),
        "{errors:?}"
    );
}

#[test]
fn malformed_yaml_and_catalogue_drift_are_located() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = spec(tmp.path(), "demo", "protocol: demo\ntitle: [unclosed\n", TS);
    let errors = errors_of(&dir);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("protocol.yaml:"), "{errors:?}");

    let drift = YAML
        .replace("type: Ping}", "type: Pong}")
        .replace("kind: ping", "kind: pong");
    let dir = spec(
        tmp.path(),
        "demo2",
        &drift.replace("protocol: demo", "protocol: demo2"),
        TS,
    );
    let errors = errors_of(&dir);
    assert!(
        errors.iter().any(|e| e.contains("carries kind `ping`")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("unknown type `Pong`")),
        "{errors:?}"
    );
}

#[test]
fn a_missing_folder_is_an_error_not_a_panic() {
    let errors = errors_of(Path::new("/nonexistent/agentwire/spec"));
    assert!(errors[0].contains("does not exist"), "{errors:?}");
}

/// Without `transport` a spec declares types only: it generates types and a schema, no
/// machine or skeleton, and every section about messages is an error at its line.
#[test]
fn a_types_only_spec_generates_types_and_refuses_message_sections() {
    let tmp = tempfile::tempdir().unwrap();
    let yaml = "protocol: demo\ntitle: Demo\ntypes: messages.ts\n";
    let dir = spec(tmp.path(), "demo", yaml, TS);
    let g = generate(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let paths: Vec<&str> = g.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["src/demo.rs", "schemas/demo.schema.json"]);
    assert!(g.summary.starts_with("demo: types only"), "{}", g.summary);
    std::fs::write(dir.join("machine.yaml"), "machines: []\n").unwrap();
    let errors = errors_of(&dir);
    assert!(
        errors[0].contains("has no messages to sequence"),
        "{errors:?}"
    );
    std::fs::remove_file(dir.join("machine.yaml")).unwrap();

    let with_messages = YAML.replace("transport: {kind: websocket, framing: json-text}\n", "");
    let dir = spec(tmp.path(), "demo", &with_messages, TS);
    let errors = errors_of(&dir);
    let file = dir.join("protocol.yaml").display().to_string();
    let expected = [
        format!("{file}:3:9: `roles` needs a `transport`"),
        format!("{file}:6:12: `channels` needs a `transport`"),
        format!("{file}:8:12: `messages` needs a `transport`"),
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for (line, want) in errors.iter().zip(&expected) {
        assert!(line.starts_with(want.as_str()), "{line}\n  wanted {want}");
    }
}
