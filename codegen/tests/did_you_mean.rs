//! Misspelt names in `protocol.yaml`, `machine.yaml`, `messages.ts` and proto comments get an
//! error at their line with the closest valid name, under the real file's name, with a hint at
//! agentwire's published docs and the source line underlined. Exact texts.

use std::path::Path;

use agentwire_codegen::{SpecError, generate};

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
    rendered_with(yaml, TS, machine, SpecError::one_line)
}

/// The errors of the spec folder `demo` holding these files, each rendered by `render`.
fn rendered_with(
    yaml: &str,
    ts: &str,
    machine: Option<&str>,
    render: fn(&SpecError) -> String,
) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    std::fs::write(dir.join("messages.ts"), ts).unwrap();
    if let Some(m) = machine {
        std::fs::write(dir.join("machine.yaml"), m).unwrap();
    }
    let prefix = format!("{}/", tmp.path().display());
    match generate(Path::new(&dir)) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .errors
            .iter()
            .map(|e| render(e).replace(&prefix, ""))
            .collect(),
    }
}

/// The errors with their snippets.
fn rendered(yaml: &str, ts: &str, machine: Option<&str>) -> Vec<String> {
    rendered_with(yaml, ts, machine, SpecError::render)
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
            "demo/protocol.yaml:5:3: `transport.framin` is neither a field (kind, framing, port, \
             content_type) nor a carrier (streamable_http, jsonrpc_http, http_json); did you mean `framing`?"
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
          one of name, summary, key, initial, accepting, final, retain, memory, transitions; did you \
          mean `accepting`? (hint: see the machine.yaml format in agentwire's docs, \
          https://docs.rs/agentwire/latest/agentwire/spec/index.html#machineyaml)"
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

#[test]
fn a_yaml_error_shows_its_line() {
    let yaml = WS.replace("framing: json-text", "framing: json-txt");
    assert_eq!(
        rendered(&yaml, TS, None),
        ["demo/protocol.yaml:5:12: `json-txt` is not one of json-text, content-length, newline, \
          grpc; did you mean `json-text`?
  |
5 |   framing: json-txt
  |            ^^^^^^^^ here"]
    );
}

#[test]
fn a_typescript_syntax_error_shows_its_line() {
    let ts = TS.replace(
        "interface Ping { type: 'ping'; id: string; }",
        "interface Ping { type: 'ping'; id: (string; }",
    );
    assert_eq!(
        rendered(WS, &ts, None),
        [
            "demo/messages.ts:3:43: TypeScript syntax error: Expected `)` but found `;`
  |
3 | interface Ping { type: 'ping'; id: (string; }
  |                                           ^ here"
        ]
    );
}

#[test]
fn a_misspelt_type_gets_the_closest_type() {
    let ts = TS.replace(
        "id: string; }\ninterface Pong",
        "id: strng; }\ninterface Pong",
    );
    assert_eq!(
        rendered(WS, &ts, None),
        [
            "demo/messages.ts:3:36: unknown type `strng`; did you mean `string`?
  |
3 | interface Ping { type: 'ping'; id: strng; }
  |                                    ^^^^^ here"
        ]
    );
    let yaml = WS.replace("type: Pong}", "type: Pnog}");
    assert_eq!(
        errors(&yaml, None),
        [
            "demo/protocol.yaml:10:39: `ServerMessage` carries kind `pong` (Pong) but the \
             catalogue has no such entry from `server`",
            "demo/protocol.yaml:13:38: unknown type `Pnog`; did you mean `Pong`?"
        ]
    );
    let yaml = WS.replace("union: ServerMessage}", "union: ServerMesage}");
    assert_eq!(
        errors(&yaml, None),
        [
            "demo/protocol.yaml:10:39: `ServerMesage` is not a union of interfaces in \
             messages.ts; did you mean `ServerMessage`?",
            "demo/protocol.yaml:13:12: kind `pong` (Pong) is not a member of `ServerMesage` with \
             that discriminator value"
        ]
    );
}

#[test]
fn a_misspelt_role_gets_the_closest_role() {
    let yaml = WS.replace("{kind: pong, from: server,", "{kind: pong, from: sever,");
    assert_eq!(
        errors(&yaml, None),
        [
            "demo/protocol.yaml:13:24: `sever` is not one of the roles (client, server); did you \
          mean `server`?"
        ]
    );
}

#[test]
fn a_misspelt_kind_or_field_in_machine_yaml_gets_the_closest() {
    let machine = MACHINE.replace("on: server.pong", "on: server.pnog");
    assert_eq!(
        errors(WS, Some(&machine)),
        [
            "demo/machine.yaml:8:9: no message kind `server.pnog`; did you mean `server.pong`?",
            "demo/machine.yaml:2:5: message kind `server.pong` is used by no machine"
        ]
    );
    let machine = MACHINE.replace(
        "{from: idle, on: client.ping, to: waiting}",
        "{from: idle, on: client.ping, if: [{field: idd, is: x}], to: waiting}",
    );
    assert_eq!(
        errors(WS, Some(&machine)),
        ["demo/machine.yaml:7:9: `client.ping`: `Ping` has no field `idd`; did you mean `id`?"]
    );
}

#[test]
fn a_misspelt_constraint_tag_gets_the_closest_tag() {
    let ts = TS.replace(
        "id: string; }\ninterface Pong",
        "/** @minimun 0 */ id: string; }\ninterface Pong",
    );
    assert_eq!(
        errors_of_ts(&ts),
        [
            "demo/messages.ts:3:36: unknown constraint tag `@minimun` (hint: did you mean `@minimum`?)"
        ]
    );
}

#[test]
fn json_text_framing_on_a_json_rpc_protocol_is_an_error() {
    let yaml = "protocol: demo
title: Demo
transport:
  kind: jsonrpc
  framing: json-text
roles: [client, server]
types: messages.ts
jsonrpc:
  methods:
    - {method: ping, call: request, from: client, params: Ping, result: Pong}
";
    assert_eq!(
        errors(yaml, None),
        [
            "demo/protocol.yaml:5:12: a jsonrpc protocol is framed by one of content-length, \
          newline, not `json-text`"
        ]
    );
}

fn errors_of_ts(ts: &str) -> Vec<String> {
    rendered_with(WS, ts, None, SpecError::one_line)
}
