//! Misspelt names in `protocol.yaml` and `machine.yaml` get an error at their line with the
//! closest valid name, under the real file's name, with a hint at agentwire's published docs.
//! Exact texts.

use std::path::Path;

use agentwire_codegen::generate;

const TS: &str = "type ClientMessage = Ping;
type ServerMessage = Pong;
interface Ping { type: 'ping'; id: string; }
interface Pong { type: 'pong'; id: string; }
";

const WS: &str = "protocol: demo
title: Demo
transport:
  kind: websocket
  framing: json-text
roles: [client, server]
types: messages.ts
channels:
  - {from: client, to: server, union: ClientMessage}
  - {from: server, to: client, union: ServerMessage}
messages:
  - {kind: ping, from: client, type: Ping}
  - {kind: pong, from: server, type: Pong}
";

const MACHINE: &str = "machines:
  - name: ping
    key: connection
    initial: idle
    accepting: [idle]
    transitions:
      - {from: idle, on: client.ping, to: waiting}
      - {from: waiting, on: server.pong, to: idle}
";

/// The one-line errors of the spec folder `demo` holding these files, with the temporary
/// folder's path cut off.
fn errors(yaml: &str, machine: Option<&str>) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    std::fs::write(dir.join("messages.ts"), TS).unwrap();
    if let Some(m) = machine {
        std::fs::write(dir.join("machine.yaml"), m).unwrap();
    }
    let prefix = format!("{}/", tmp.path().display());
    match generate(Path::new(&dir)) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .errors
            .iter()
            .map(|e| e.one_line().replace(&prefix, ""))
            .collect(),
    }
}

#[test]
fn the_base_spec_is_accepted() {
    assert_eq!(errors(WS, Some(MACHINE)), Vec::<String>::new());
}

#[test]
fn a_misspelt_key_in_protocol_yaml_gets_the_closest_key() {
    let yaml = WS.replace("  framing: json-text", "  framin: json-text");
    assert_eq!(
        errors(&yaml, None),
        [
            "demo/protocol.yaml:5:3: malformed protocol.yaml: unknown field `framin`, expected \
          one of kind, framing, port, content_type; did you mean `framing`? (hint: see the protocol.yaml format in \
          agentwire's docs, https://docs.rs/agentwire)"
        ]
    );
}

#[test]
fn a_misspelt_value_gets_the_closest_value() {
    let yaml = WS.replace("framing: json-text", "framing: json-txt");
    assert_eq!(
        errors(&yaml, None),
        [
            "demo/protocol.yaml:5:12: `json-txt` is not one of json-text, content-length, newline, grpc; \
          did you mean `json-text`?"
        ]
    );
    let yaml = WS.replace("kind: websocket", "kind: websockets");
    assert_eq!(
        errors(&yaml, None),
        [
            "demo/protocol.yaml:4:9: `websockets` is not one of websocket, http+websocket, \
          jsonrpc, grpc; did you mean `websocket`?"
        ]
    );
}

#[test]
fn a_misspelt_key_in_machine_yaml_gets_the_closest_key() {
    let machine = MACHINE.replace("accepting:", "acepting:");
    assert_eq!(
        errors(WS, Some(&machine)),
        [
            "demo/machine.yaml:5:5: malformed machine.yaml: unknown field `acepting`, expected \
          one of name, summary, key, initial, accepting, final, memory, transitions; did you mean \
          `accepting`? (hint: see the machine.yaml format in agentwire's docs, \
          https://docs.rs/agentwire)"
        ]
    );
}

#[test]
fn a_yaml_syntax_error_names_the_real_file_only() {
    let yaml = WS.replace("roles: [client, server]", "roles: [client, server");
    let found = errors(&yaml, None);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("demo/protocol.yaml:7:"), "{found:?}");
    assert!(!found[0].contains("<input>"), "{found:?}");
    assert!(!found[0].contains("spec/README.md"), "{found:?}");
}
