//! `extends:` in a machine file: a file that says only what it adds to another compiles to the
//! checker a file stating the merged machines in full compiles to, and what would change a base
//! rule rather than add one (or a base that cannot be read) is a diagnostic at its
//! `file:line:col`.

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
    - {method: fork, call: request, from: client, params: ReadParams, result: OpenResult}
";

const TS: &str = "interface OpenParams { name: string; fork?: boolean; }
interface OpenResult { handle: string; }
interface ReadParams { handle: string; }
interface ReadResult { text: string; }
";

/// The base: what a stable version says (it does not know `fork`, which its extension adds).
pub(crate) const BASE: &str = "machines:
  - name: files
    key: connection
    initial: start
    accepting: [start, ready]
    memory: {open: set}
    transitions:
      - from: start
        on: client.open
        to: opening
      - from: opening
        on: server.response to client.open
        do: [{add: open, field: result.handle}]
        to: ready
      - from: ready
        on: client.read
        check: [{field: params.handle, in: open, code: -32002}]
      - from: ready
        on: server.response
  - name: requests
    key:
      - {on: client.open, field: id}
      - {on: client.read, field: id}
      - {on: server.response, field: id}
    initial: idle
    accepting: [idle, answered]
    final: [answered]
    transitions:
      - {from: idle, on: client.open, to: pending}
      - {from: idle, on: client.read, to: pending}
      - {from: pending, on: server.response, to: answered}
";

/// What the unstable form adds: memory, an action on the base's answer to `open`, the `fork`
/// rules (its narrowed response before the base's plain one), a key rule and a new machine.
pub(crate) const EXTENSION: &str = "extends: machine.base.yaml
machines:
  - name: files
    memory: {forkable: set}
    transitions:
      - from: opening
        on: server.response to client.open
        do: [{add: forkable, field: result.handle}]
      - from: ready
        on: client.fork
        check: [{field: params.handle, in: forkable, code: -32002}]
      - from: ready
        on: server.response to client.fork
        do: [{add: open, field: result.handle}]
  - name: requests
    key:
      - {on: client.fork, field: id}
    transitions:
      - {from: idle, on: client.fork, to: pending}
  - name: forks
    key: connection
    initial: none
    accepting: [none, some]
    transitions:
      - {from: [none, some], on: client.fork, to: some}
      - {from: '*', on: client.*}
      - {from: '*', on: server.*}
";

/// The same machines written in full: the added transitions first, the added actions after
/// the base's, the added key rule last, the new machine after the base's.
pub(crate) const MERGED: &str = "machines:
  - name: files
    key: connection
    initial: start
    accepting: [start, ready]
    memory: {open: set, forkable: set}
    transitions:
      - from: ready
        on: client.fork
        check: [{field: params.handle, in: forkable, code: -32002}]
      - from: ready
        on: server.response to client.fork
        do: [{add: open, field: result.handle}]
      - from: start
        on: client.open
        to: opening
      - from: opening
        on: server.response to client.open
        do: [{add: open, field: result.handle}, {add: forkable, field: result.handle}]
        to: ready
      - from: ready
        on: client.read
        check: [{field: params.handle, in: open, code: -32002}]
      - from: ready
        on: server.response
  - name: requests
    key:
      - {on: client.open, field: id}
      - {on: client.read, field: id}
      - {on: server.response, field: id}
      - {on: client.fork, field: id}
    initial: idle
    accepting: [idle, answered]
    final: [answered]
    transitions:
      - {from: idle, on: client.fork, to: pending}
      - {from: idle, on: client.open, to: pending}
      - {from: idle, on: client.read, to: pending}
      - {from: pending, on: server.response, to: answered}
  - name: forks
    key: connection
    initial: none
    accepting: [none, some]
    transitions:
      - {from: [none, some], on: client.fork, to: some}
      - {from: '*', on: client.*}
      - {from: '*', on: server.*}
";

/// The generated checker of the demo protocol whose `machine.yaml` is `machine`, with the
/// other machine files `others` beside it, or its diagnostics (one line each).
pub(crate) fn generate_with(machine: &str, others: &[(&str, &str)]) -> Result<String, Vec<String>> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), YAML).unwrap();
    std::fs::write(dir.join("messages.ts"), TS).unwrap();
    std::fs::write(dir.join("machine.yaml"), machine).unwrap();
    for (name, text) in others {
        std::fs::write(dir.join(name), text).unwrap();
    }
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

/// The diagnostics of `machine` extending `base` (which must have some).
fn findings(machine: &str, base: &str) -> Vec<String> {
    generate_with(machine, &[("machine.base.yaml", base)]).expect_err("diagnostics")
}

pub(crate) fn has(findings: &[String], at: &str, text: &str) -> bool {
    findings.iter().any(|f| f.contains(at) && f.contains(text))
}

#[test]
fn an_extension_compiles_to_the_checker_of_the_merged_machines_written_in_full() {
    let extended = generate_with(EXTENSION, &[("machine.base.yaml", BASE)])
        .unwrap_or_else(|e| panic!("{e:#?}"));
    let full = generate_with(MERGED, &[]).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(extended, full);
    // What the extension added is there: its memory, and its action on the base's rule.
    assert!(extended.contains("forkable: ::std::collections::BTreeSet<String>"));
}

#[test]
fn a_base_that_cannot_be_read_is_refused_at_the_extends_line() {
    let missing = findings(
        &EXTENSION.replace("machine.base.yaml", "machine.bsae.yaml"),
        BASE,
    );
    assert!(
        has(
            &missing,
            "machine.yaml:1:",
            "no such file; did you mean `machine.base.yaml`?"
        ),
        "{missing:#?}"
    );
    let path = findings(
        &EXTENSION.replace("machine.base.yaml", "../machine.yaml"),
        BASE,
    );
    assert!(
        has(&path, "machine.yaml:1:", "a file name, no path"),
        "{path:#?}"
    );
}

#[test]
fn a_cycle_of_extends_is_refused_naming_its_files() {
    let base = format!("extends: machine.yaml\n{BASE}");
    let cycle = findings(EXTENSION, &base);
    assert!(
        has(
            &cycle,
            "machine.base.yaml:1:",
            "makes a cycle: machine.yaml -> machine.base.yaml -> machine.yaml"
        ),
        "{cycle:#?}"
    );
    let own = findings(
        &EXTENSION.replace("machine.base.yaml", "machine.yaml"),
        BASE,
    );
    assert!(has(&own, "machine.yaml:1:", "makes a cycle"), "{own:#?}");
}

#[test]
fn changing_a_base_rule_instead_of_adding_one_is_refused_at_its_line() {
    let cases = [
        // Another initial state (line 4).
        (
            "  - name: files\n    memory:",
            "  - name: files\n    initial: ready\n    memory:",
            "machine.yaml:4:",
            "its initial state is `start`, not `ready`",
        ),
        // A memory of another kind (line 3).
        (
            "memory: {forkable: set}",
            "memory: {open: value}",
            "machine.yaml:4:",
            "its memory `open` is a set, not a value",
        ),
        // A transition taking some of what a base one takes in the same state.
        (
            "        on: client.fork\n        check",
            "        on: client.read\n        if: [{field: params.handle, is: x}]\n        check",
            "machine.yaml:10:",
            "machine.base.yaml:16",
        ),
        // A plain response before the base's narrowed one.
        (
            "      - from: ready\n        on: server.response to client.fork",
            "      - from: opening\n        on: server.response",
            "machine.yaml:13:",
            "machine.base.yaml:12",
        ),
        // The base's transition repeated with another target state.
        (
            "        do: [{add: forkable, field: result.handle}]",
            "        do: [{add: forkable, field: result.handle}]\n        to: start",
            "machine.yaml:7:",
            "goes to `ready`, not `start`",
        ),
        // A key rule for a kind the base keys already.
        (
            "      - {on: client.fork, field: id}",
            "      - {on: client.read, field: id}",
            "machine.yaml:17:",
            "`client.read` is already keyed by the rule at machine.base.yaml:23",
        ),
        // Key rules on a machine keyed by the connection.
        (
            "  - name: files\n    memory:",
            "  - name: files\n    key: [{on: client.open, field: id}]\n    memory:",
            "machine.yaml:3:",
            "keyed by the connection",
        ),
    ];
    for (from, to, at, text) in cases {
        assert!(EXTENSION.contains(from), "{from}");
        let changed = EXTENSION.replacen(from, to, 1);
        let found = generate_with(&changed, &[("machine.base.yaml", BASE)])
            .map(|_| panic!("no diagnostic for {text}"))
            .unwrap_err();
        assert!(has(&found, at, text), "{text}: {found:#?}");
    }
}

#[test]
fn a_lint_finding_in_an_inherited_rule_points_into_the_base_file() {
    let base = BASE.replace(
        "on: client.read\n        check",
        "on: client.raed\n        check",
    );
    let found = findings(EXTENSION, &base);
    assert!(
        has(
            &found,
            "machine.base.yaml:16:",
            "no message kind `client.raed`"
        ),
        "{found:#?}"
    );
}

#[test]
fn a_new_machine_of_an_extending_file_is_still_written_in_full() {
    let found = findings(
        &EXTENSION.replace("    key: connection\n    initial: none\n", ""),
        BASE,
    );
    assert!(
        has(
            &found,
            "machine.yaml:20:",
            "machine `forks` needs `key`, `initial`"
        ),
        "{found:#?}"
    );
}
