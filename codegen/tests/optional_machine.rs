//! `machine.yaml` is optional: without it, or with `machines: []`, a protocol generates its
//! module, a `machine` checker that accepts every message, and its skeleton, with no
//! diagnostics (no "used by no machine" per kind).

use std::path::{Path, PathBuf};

use agentwire_codegen::generate;

const YAML: &str = "protocol: demo
title: Demo
summary: Pings and pongs.
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
interface Ping { type: 'ping'; id: string }
interface Pong { type: 'pong'; id: string }
";

fn spec(root: &Path, machine: Option<&str>) -> PathBuf {
    let dir = root.join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), YAML).unwrap();
    std::fs::write(dir.join("messages.ts"), TS).unwrap();
    if let Some(m) = machine {
        std::fs::write(dir.join("machine.yaml"), m).unwrap();
    }
    dir
}

fn file(g: &agentwire_codegen::Generated, path: &str) -> String {
    g.files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no {path} generated"))
        .render("a test spec")
}

fn check(machine: Option<&str>) {
    let tmp = tempfile::tempdir().unwrap();
    let g = generate(&spec(tmp.path(), machine)).unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    });
    assert!(file(&g, "src/demo.rs").contains("pub mod machine;"));
    let checker = file(&g, "src/demo/machine.rs");
    assert!(checker.contains("pub struct Checker"), "{checker}");
    assert!(
        checker.contains("pub fn live_instances(&self) -> usize {\n        0\n"),
        "{checker}"
    );
    let skeleton = file(&g, "src/skeletons/demo.rs");
    assert!(skeleton.contains("machine::Checker"), "{skeleton}");
    assert!(
        !g.files.iter().any(|f| f.path.starts_with("diagrams/")),
        "no machines, no diagram"
    );
}

#[test]
fn a_spec_without_machine_yaml_generates_a_checker_and_a_skeleton() {
    check(None);
}

#[test]
fn an_empty_machine_list_is_no_rules_not_an_error_per_kind() {
    check(Some("machines: []\n"));
}

#[test]
fn a_machine_list_still_reports_kinds_no_machine_uses() {
    let tmp = tempfile::tempdir().unwrap();
    let machine = "machines:
  - name: pings
    summary: Pings any time.
    key: connection
    initial: open
    accepting: [open]
    transitions:
      - {from: open, on: client.ping}
";
    let errors = match generate(&spec(tmp.path(), Some(machine))) {
        Ok(_) => panic!("server.pong is used by no machine"),
        Err(e) => e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>(),
    };
    assert!(
        errors
            .iter()
            .any(|e| e.contains("`server.pong` is used by no machine")),
        "{errors:?}"
    );
}
