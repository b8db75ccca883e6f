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

/// `GOOD` keyed by rules instead of the connection (`rules` indented as under `key:`).
fn keyed(rules: &str) -> String {
    GOOD.replace("key: connection", &format!("key:\n{rules}"))
}

#[test]
fn a_key_of_two_fields_passes_and_reaches_the_checker() {
    let machine = keyed(
        "      - {on: client.ping, field: [chat, id]}\n      - {on: server.pong, field: [chat, id]}",
    );
    let yaml_ts = TS.replace("id: string; }", "id: string; chat: string; }");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), YAML).unwrap();
    std::fs::write(dir.join("messages.ts"), yaml_ts).unwrap();
    std::fs::write(dir.join("machine.yaml"), machine).unwrap();
    let generated = generate(&dir).unwrap_or_else(|e| panic!("{e:?}"));
    let checker = generated
        .files
        .iter()
        .find(|f| f.path.ends_with("machine.rs"))
        .expect("a machine.rs")
        .render("spec/demo");
    assert!(checker.contains("composite_key"), "{checker}");
}

#[test]
fn key_fields_of_a_composite_key_are_checked_with_a_suggestion() {
    let findings = lint(&keyed(
        "      - on: client.ping\n        field: [idd, id]\n      - {on: server.pong, field: [id, type]}",
    ));
    assert!(
        has(
            &findings,
            4,
            "key of `client.ping`: `Ping` has no field `idd`; did you mean `id`?"
        ),
        "{findings:?}"
    );
    let findings = lint(&keyed(
        "      - {on: client.ping, field: [id, type]}\n      - {on: server.pong, field: [id, id]}",
    ));
    assert!(
        has(&findings, 5, "key field `id` is listed twice"),
        "{findings:?}"
    );
}

#[test]
fn every_key_rule_of_a_machine_names_as_many_fields() {
    let findings = lint(&keyed(
        "      - {on: client.ping, field: id}\n      - {on: server.pong, field: [id, type]}",
    ));
    assert!(
        has(
            &findings,
            5,
            "this key rule names 2 field(s), the machine's first rule (line 4) 1"
        ),
        "{findings:?}"
    );
    let findings = lint(&keyed("      - {on: client.ping, field: []}"));
    assert!(
        has(&findings, 4, "`field: []` names no field"),
        "{findings:?}"
    );
}

#[test]
fn dollar_key_is_refused_when_the_key_has_several_fields() {
    let machine = keyed(
        "      - {on: client.ping, field: [id, type]}\n      - {on: server.pong, field: [id, type]}",
    )
    .replace("equals: last", "equals: $key");
    let findings = lint(&machine);
    assert!(
        findings
            .iter()
            .any(|f| f.contains("keyed by several fields, so no one field equals `$key`")),
        "{findings:?}"
    );
}

#[test]
fn a_misspelt_connection_key_is_suggested() {
    let findings = lint(&GOOD.replace("key: connection", "key: conection"));
    assert!(
        findings
            .iter()
            .any(|f| f
                .contains("write `connection` or a list of key rules; did you mean `connection`?")),
        "{findings:?}"
    );
}

#[test]
fn malformed_machine_yaml_is_a_diagnostic() {
    let findings = lint("machines:\n  - name: x\n    initial: [\n");
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].contains("machine.yaml:"), "{findings:?}");
}

/// Machine, memory and state names become Rust identifiers: one that cannot be is a located
/// diagnostic, never a generator panic (the spec-folder fuzz target found `requ[st`).
#[test]
fn names_that_cannot_be_rust_identifiers_are_located() {
    let bad = GOOD
        .replace("name: ping", "name: requ[st")
        .replace("{last: value}", "{type: value}")
        .replace("to: waiting", "to: \"--\"");
    let found = lint(&bad);
    assert!(
        has(
            &found,
            2,
            "machine name `requ[st` must be a snake_case word"
        ),
        "{found:?}"
    );
    assert!(has(&found, 6, "memory name `type`"), "{found:?}");
    assert!(
        has(&found, 11, "state `--` needs a letter or digit"),
        "{found:?}"
    );
}
