//! `code:` on a machine check: the error code a request the check refuses is answered with.
//! A declared code reaches the generated checker's `Problem::Check`, a check without one
//! reports none (the transport's default), and a code where nothing is refused (a guard, an
//! action's condition) or one JSON-RPC keeps for itself is a diagnostic at its line.

use agentwire_codegen::generate;

const YAML: &str = "protocol: demo
title: Demo
transport: {kind: jsonrpc, framing: newline}
roles: [client, server]
types: messages.ts
jsonrpc:
  methods:
    - {method: open, call: request, from: client, params: OpenParams, result: OpenResult}
    - {method: read, call: request, from: client, params: ReadParams, result: ReadResult}
";

const TS: &str = "interface OpenParams { name: string; }
interface OpenResult { handle: string; }
interface ReadParams { handle: string; }
interface ReadResult { text: string; }
";

const GOOD: &str = "machines:
  - name: files
    key: connection
    initial: ready
    accepting: [ready]
    memory: {open: set}
    transitions:
      - from: ready
        on: server.response to client.open
        do: [{add: open, field: result.handle}]
      - from: ready
        on: server.response
      - from: ready
        on: client.open
        check: [{field: params.name, is_not: \"\"}]
      - from: ready
        on: client.read
        check: [{field: params.handle, in: open, code: -32002}]
";

/// The generated files of the demo protocol with `machine`, or its diagnostics (one line each).
fn generate_with(machine: &str) -> Result<String, Vec<String>> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), YAML).unwrap();
    std::fs::write(dir.join("messages.ts"), TS).unwrap();
    std::fs::write(dir.join("machine.yaml"), machine).unwrap();
    match generate(&dir) {
        Ok(g) => Ok(g
            .files
            .iter()
            .find(|f| f.path.ends_with("machine.rs"))
            .expect("a machine.rs")
            .render("spec/demo")),
        Err(e) => Err(e.errors.iter().map(|e| e.one_line()).collect()),
    }
}

fn has(findings: &[String], line: usize, text: &str) -> bool {
    findings
        .iter()
        .any(|f| f.contains(&format!("machine.yaml:{line}:")) && f.contains(text))
}

#[test]
fn a_declared_code_reaches_the_checker_and_an_undeclared_one_stays_none() {
    let checker = generate_with(GOOD).unwrap_or_else(|e| panic!("{e:#?}"));
    let squeezed: String = checker.split_whitespace().collect();
    assert!(
        squeezed.contains("check:\"params.handleinopen\",code:Some(-32002i64)"),
        "{checker}"
    );
    assert!(
        squeezed.contains("check:\"params.nameisnot\\\"\\\"\",code:None"),
        "{checker}"
    );
}

#[test]
fn server_error_range_and_the_standard_request_codes_are_accepted() {
    for code in ["-32000", "-32099", "-32601", "-32603", "-32800", "4004"] {
        let machine = GOOD.replace("code: -32002", &format!("code: {code}"));
        assert!(generate_with(&machine).is_ok(), "code {code}");
    }
}

#[test]
fn a_code_json_rpc_keeps_for_itself_is_refused_at_its_line() {
    for code in ["-32700", "-32100", "-32768", "-32604"] {
        let machine = GOOD.replace("code: -32002", &format!("code: {code}"));
        let findings = generate_with(&machine).expect_err(code);
        assert!(
            has(&findings, 18, "reserved by JSON-RPC 2.0"),
            "{code}: {findings:#?}"
        );
    }
}

#[test]
fn a_code_on_a_guard_or_an_action_condition_is_refused() {
    let guard = GOOD.replace(
        "        check: [{field: params.name, is_not: \"\"}]",
        "        if: [{field: params.name, is_not: \"\", code: -32002}]",
    );
    let findings = generate_with(&guard).expect_err("a code on a guard");
    assert!(has(&findings, 15, "belongs in `check:`"), "{findings:#?}");

    let action = GOOD.replace(
        "        do: [{add: open, field: result.handle}]",
        "        do: [{add: open, value: any, if: [{field: result.handle, present: true, code: -32002}]}]",
    );
    let findings = generate_with(&action).expect_err("a code on an action's condition");
    assert!(has(&findings, 10, "belongs in `check:`"), "{findings:#?}");
}

#[test]
fn a_code_that_is_not_an_integer_is_a_diagnostic() {
    let machine = GOOD.replace("code: -32002", "code: not-found");
    let findings = generate_with(&machine).expect_err("a code that is a word");
    assert!(
        findings.iter().any(|f| f.contains("machine.yaml")),
        "{findings:#?}"
    );
}
