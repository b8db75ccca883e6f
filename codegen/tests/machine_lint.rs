//! The machine lint: each class of mistake in a `machine.yaml` is a diagnostic at its line.

use agentwire_codegen::generate;

const YAML: &str = "protocol: demo
title: Demo
transport: {kind: websocket, framing: json-text}
roles: [client, server]
types: messages.ts
channels:
  - {from: client, to: server, union: ClientMessage}
  - {from: server, to: client, union: ServerMessage}
messages:
  - {kind: ping, from: client, type: Ping}
  - {kind: pong, from: server, type: Pong}
";

const TS: &str = "type ClientMessage = Ping;
type ServerMessage = Pong;
interface Ping { type: 'ping'; id: string; }
interface Pong { type: 'pong'; id: string; }
";

/// Lint findings (one line each) for a machine file.
fn lint(machine: &str) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), YAML).unwrap();
    std::fs::write(dir.join("messages.ts"), TS).unwrap();
    std::fs::write(dir.join("machine.yaml"), machine).unwrap();
    match generate(&dir) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.iter().map(|e| e.one_line()).collect(),
    }
}

fn has(findings: &[String], line: usize, text: &str) -> bool {
    findings
        .iter()
        .any(|f| f.contains(&format!("machine.yaml:{line}:")) && f.contains(text))
}

const GOOD: &str = "machines:
  - name: ping
    key: connection
    initial: idle
    accepting: [idle]
    memory: {last: value}
    transitions:
      - from: idle
        on: client.ping
        do: [{set: last, field: id}]
        to: waiting
      - from: waiting
        on: server.pong
        check: [{field: id, equals: last}]
        to: idle
";

#[test]
fn a_sound_machine_passes() {
    assert_eq!(lint(GOOD), Vec::<String>::new());
}

#[test]
fn unknown_kinds_fields_and_memory_are_located() {
    let bad = GOOD.replace("on: server.pong", "on: server.pang").replace(
        "field: id}]\n        to: waiting",
        "field: ident}]\n        to: waiting",
    );
    let findings = lint(&bad);
    assert!(
        has(&findings, 9, "`client.ping`: `Ping` has no field `ident`"),
        "{findings:?}"
    );
    assert!(
        has(&findings, 13, "no message kind `server.pang`"),
        "{findings:?}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f.contains("`server.pong` is used by no machine")),
        "{findings:?}"
    );
    let bad = GOOD.replace("equals: last", "equals: previous");
    let findings = lint(&bad);
    assert!(has(&findings, 14, "no memory `previous`"), "{findings:?}");
}

#[test]
fn unreachable_and_dead_end_states_are_reported() {
    let bad =
        GOOD.replace("to: idle\n", "to: done\n") + "      - from: lost\n        on: client.ping\n";
    let findings = lint(&bad);
    assert!(
        findings
            .iter()
            .any(|f| f.contains("state `lost` is unreachable")),
        "{findings:?}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f.contains("no accepting or final state can be reached from `waiting`")),
        "{findings:?}"
    );
}

#[test]
fn key_fields_must_exist_in_every_keyed_kind() {
    let bad = GOOD.replace(
        "key: connection",
        "key:\n      - on: client.*\n        field: session",
    );
    let findings = lint(&bad);
    assert!(
        findings
            .iter()
            .any(|f| f.contains("key of `client.ping`: `Ping` has no field `session`")),
        "{findings:?}"
    );
}

#[test]
fn malformed_machine_yaml_is_a_diagnostic() {
    let findings = lint("machines:\n  - name: x\n    initial: [\n");
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].contains("machine.yaml:"), "{findings:?}");
}
