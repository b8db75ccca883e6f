//! Responses narrowed to the request they answer (`server.response to client.open`): a sound
//! machine reading the typed result passes, and each mistake is a diagnostic at its line,
//! with the closest name where one was misspelt.

use agentwire_codegen::generate;

const YAML: &str = "protocol: demo
title: Demo
transport: {kind: jsonrpc, framing: content-length}
roles: [client, server]
types: messages.ts
jsonrpc:
  methods:
    - {method: open, call: request, from: client, params: OpenParams, result: OpenResult}
    - {method: put, call: request, from: client, params: PutParams, result: PutResult}
    - {method: changed, call: notification, from: server, params: PutParams}
";

const TS: &str = "interface OpenParams { name: string; }
interface OpenResult { handle: string; features?: Features; }
interface Features { write?: boolean; }
interface PutParams { handle: string; }
interface PutResult { version: integer; }
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
  - name: session
    key: connection
    initial: start
    accepting: [start, open]
    memory: {features: set}
    transitions:
      - from: start
        on: client.open
        to: opening
      - from: opening
        on: server.response to client.open
        do:
          - {add: features, value: write, if: [{field: result.features.write, is: true}]}
        to: open
      - from: [opening, open]
        on: server.response
        if: [{field: error.code, is: -32601}]
      - from: open
        on: server.response
      - from: open
        on: client.put
        check: [{value: write, in: features}]
      - from: open
        on: server.changed
";

#[test]
fn a_machine_reading_a_typed_result_passes() {
    assert_eq!(lint(GOOD), Vec::<String>::new());
}

#[test]
fn misspelt_names_are_located_with_the_closest() {
    let bad = GOOD.replace(
        "on: server.response to client.open",
        "on: server.response to client.opne",
    );
    let findings = lint(&bad);
    assert!(
        has(
            &findings,
            12,
            "no message kind `client.opne`; did you mean `client.open`?"
        ),
        "{findings:?}"
    );
    let bad = GOOD.replace("result.features.write", "result.features.wrte");
    let findings = lint(&bad);
    assert!(
        has(
            &findings,
            14,
            "`Features` has no field `wrte`; did you mean `write`?"
        ),
        "{findings:?}"
    );
    let bad = GOOD.replace("on: server.changed", "on: server.chnged");
    let findings = lint(&bad);
    assert!(
        has(
            &findings,
            25,
            "no message kind `server.chnged`; did you mean `server.changed`?"
        ),
        "{findings:?}"
    );
}

#[test]
fn only_a_response_answers_only_a_request() {
    let bad = GOOD.replace(
        "on: server.response to client.open",
        "on: server.response to server.changed",
    );
    assert!(
        has(
            &lint(&bad),
            12,
            "`server.changed` is not a request of another role"
        ),
        "{:?}",
        lint(&bad)
    );
    let bad = GOOD.replace(
        "on: server.response to client.open",
        "on: server.changed to client.open",
    );
    assert!(
        has(
            &lint(&bad),
            12,
            "only a `role.response` kind answers a request"
        ),
        "{:?}",
        lint(&bad)
    );
    let bad = GOOD.replace(
        "on: server.response to client.open",
        "on: server.response to client.*",
    );
    assert!(
        has(
            &lint(&bad),
            12,
            "must be written `role.kind`, `role.*` or `role.response to role.request`"
        ),
        "{:?}",
        lint(&bad)
    );
}

#[test]
fn a_result_is_typed_only_when_narrowed() {
    let bad = GOOD.replace("if: [{field: error.code", "if: [{field: result.handle");
    let bad = bad.replace("is: -32601}]", "present: true}]");
    assert!(
        has(
            &lint(&bad),
            18,
            "the result is typed only for a response narrowed to its request"
        ),
        "{:?}",
        lint(&bad)
    );
}

#[test]
fn key_rules_take_plain_kinds() {
    let keyed = "machines:
  - name: request
    key:
      - on: client.open
        field: id
      - on: server.response to client.open
        field: id
    initial: idle
    accepting: [idle]
    final: [answered]
    transitions:
      - from: idle
        on: client.open
        to: pending
      - from: pending
        on: server.response
        to: answered
  - name: rest
    key: connection
    initial: idle
    accepting: [idle]
    transitions:
      - from: idle
        on: client.put
      - from: idle
        on: server.changed
";
    let findings = lint(keyed);
    assert!(
        findings
            .iter()
            .any(|f| f.contains("a key rule names a plain kind")),
        "{findings:?}"
    );
}
