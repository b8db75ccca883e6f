//! Spec files are strict: an unknown key at any nesting level of `protocol.yaml` or
//! `machine.yaml` is an error at that key's line and column, not silently ignored.

use std::path::Path;

use agentwire_codegen::generate;

const TS: &str = "type ClientMessage = Ping;
type ServerMessage = Pong;
interface Ping { type: 'ping'; id: string; }
interface Pong { type: 'pong'; id: string; }
export interface Params { id: string; }
";

/// A websocket spec whose line `line` (1-based) is replaced by `replacement`.
const WS: &str = "protocol: demo
title: Demo
transport:
  kind: websocket
  framing: json-text
roles: [client, server]
types: messages.ts
channels:
  - from: client
    to: server
    union: ClientMessage
  - {from: server, to: client, union: ServerMessage}
messages:
  - kind: ping
    from: client
    type: Ping
  - {kind: pong, from: server, type: Pong}
features:
  - name: fast
    description: Goes fast.
events:
  - name: done
    terminal: true
";

const RPC: &str = "protocol: demo
title: Demo
transport: {kind: jsonrpc, framing: content-length}
roles: [client, server]
types: messages.ts
jsonrpc:
  methods:
    - method: go
      call: request
      from: client
      params: Params
";

const HTTP: &str = "protocol: demo
title: Demo
transport: {kind: http+websocket, framing: json-text}
roles: [client, server]
types: messages.ts
grpc:
  service: a.B
  rpc: C
http:
  routes:
    - name: go
      method: POST
      path: /go
      from: client
      to: server
      body:
        json: Params
      responses:
        - status: 200
          json: Params
";

const MACHINE: &str = "machines:
  - name: ping
    key:
      - on: client.ping
        field: id
      - on: server.pong
        field: id
    initial: idle
    accepting: [idle]
    memory: {last: value}
    transitions:
      - from: idle
        on: client.ping
        if:
          - field: id
            present: true
        do:
          - set: last
            field: id
        to: waiting
      - from: waiting
        on: server.pong
        to: idle
";

fn write(dir: &Path, yaml: &str, machine: Option<&str>) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    std::fs::write(dir.join("messages.ts"), TS).unwrap();
    if let Some(m) = machine {
        std::fs::write(dir.join("machine.yaml"), m).unwrap();
    }
}

/// Inserts `extra` as line `at` (1-based), indented like the key that was there, so the
/// unknown key sits at line `at` in the same mapping.
fn with_key(text: &str, at: usize, extra: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let indent = lines[at - 1].chars().take_while(|c| *c == ' ').count();
    lines.insert(at - 1, format!("{}{extra}", " ".repeat(indent)));
    lines.join("\n") + "\n"
}

/// The one-line errors for `(protocol.yaml, machine.yaml)`.
fn errors(yaml: &str, machine: Option<&str>) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    write(&dir, yaml, machine);
    match generate(&dir) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.iter().map(|e| e.one_line()).collect(),
    }
}

/// The spec with key `bogus_key` inserted as line `line` fails at that line, naming the key.
fn assert_rejected_at(file: &str, yaml: &str, machine: Option<&str>, line: usize) {
    let (yaml, machine) = if file == "protocol.yaml" {
        (
            with_key(yaml, line, "bogus_key: 1"),
            machine.map(str::to_owned),
        )
    } else {
        let m = machine.unwrap();
        (yaml.to_owned(), Some(with_key(m, line, "bogus_key: 1")))
    };
    let found = errors(&yaml, machine.as_deref());
    assert!(
        found
            .iter()
            .any(|e| e.contains(&format!("{file}:{line}:")) && e.contains("bogus_key")),
        "no error at {file}:{line} naming bogus_key: {found:?}"
    );
}

#[test]
fn the_base_specs_are_accepted() {
    assert_eq!(errors(WS, Some(MACHINE)), Vec::<String>::new());
    assert_eq!(errors(RPC, None), Vec::<String>::new());
}

#[test]
fn protocol_top_level() {
    assert_rejected_at("protocol.yaml", WS, None, 2);
}

#[test]
fn protocol_transport() {
    assert_rejected_at("protocol.yaml", WS, None, 5);
}

#[test]
fn protocol_channel() {
    assert_rejected_at("protocol.yaml", WS, None, 10);
}

#[test]
fn protocol_message() {
    assert_rejected_at("protocol.yaml", WS, None, 15);
}

#[test]
fn protocol_feature() {
    assert_rejected_at("protocol.yaml", WS, None, 20);
}

#[test]
fn protocol_event() {
    assert_rejected_at("protocol.yaml", WS, None, 23);
}

#[test]
fn protocol_jsonrpc_section() {
    assert_rejected_at("protocol.yaml", RPC, None, 7);
}

#[test]
fn protocol_jsonrpc_method() {
    assert_rejected_at("protocol.yaml", RPC, None, 9);
}

#[test]
fn protocol_grpc_section() {
    assert_rejected_at("protocol.yaml", HTTP, None, 8);
}

#[test]
fn protocol_http_section() {
    assert_rejected_at("protocol.yaml", HTTP, None, 10);
}

#[test]
fn protocol_http_route() {
    assert_rejected_at("protocol.yaml", HTTP, None, 12);
}

#[test]
fn protocol_http_body() {
    assert_rejected_at("protocol.yaml", HTTP, None, 17);
}

#[test]
fn protocol_http_response() {
    assert_rejected_at("protocol.yaml", HTTP, None, 20);
}

#[test]
fn machine_top_level() {
    assert_rejected_at("machine.yaml", WS, Some(MACHINE), 1);
}

#[test]
fn machine_machine() {
    assert_rejected_at("machine.yaml", WS, Some(MACHINE), 3);
}

#[test]
fn machine_key_rule() {
    assert_rejected_at("machine.yaml", WS, Some(MACHINE), 5);
}

#[test]
fn machine_transition() {
    assert_rejected_at("machine.yaml", WS, Some(MACHINE), 13);
}

#[test]
fn machine_condition() {
    assert_rejected_at("machine.yaml", WS, Some(MACHINE), 16);
}

#[test]
fn machine_action() {
    assert_rejected_at("machine.yaml", WS, Some(MACHINE), 19);
}

#[test]
fn features_and_events_reach_the_ir() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    write(&dir, WS, None);
    let spec = agentwire_codegen::front::load::load_spec(&dir).unwrap();
    let p = &spec.protocol;
    assert_eq!(p.features.len(), 1);
    assert_eq!(
        (
            p.features[0].name.as_str(),
            p.features[0].description.as_str()
        ),
        ("fast", "Goes fast.")
    );
    assert_eq!(p.events.len(), 1);
    assert!(p.events[0].terminal);
    assert_eq!(p.events[0].origin.line, 22);
}
