//! The JSON-RPC parts of `protocol.yaml`: framing, methods from several roles, omissible
//! params and the cancel/progress conventions, each mistake a located diagnostic.

use std::path::Path;

use agentwire_codegen::generate;

const TS: &str = "interface Ping { note?: string; }
interface Pong { note?: string; }
interface Cancelled { requestId: string | integer; }
interface Progress { token: string; progress: number; }
";

fn spec(root: &Path, yaml: &str) -> std::path::PathBuf {
    let dir = root.join("demo_rpc");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    std::fs::write(dir.join("messages.ts"), TS).unwrap();
    dir
}

fn yaml(framing: &str, conventions: &str, methods: &str) -> String {
    format!(
        "protocol: demo_rpc
title: Demo
transport:
  kind: jsonrpc
  framing: {framing}
roles: [client, server]
types: messages.ts
jsonrpc:
{conventions}  methods:
{methods}"
    )
}

const PING: &str = "    - method: ping
      call: request
      from: [client, server]
      params: Ping
      params_optional: true
      result: Pong
";

const CANCELLED: &str = "    - method: cancelled
      call: notification
      from: [client, server]
      params: Cancelled
";

fn errors_of(dir: &Path) -> Vec<String> {
    match generate(dir) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.iter().map(|e| e.one_line()).collect(),
    }
}

fn skeleton(dir: &Path) -> String {
    let g = generate(dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let file = g
        .files
        .iter()
        .find(|f| f.path == "src/skeletons/demo_rpc.rs")
        .expect("a skeleton");
    file.render("test")
}

#[test]
fn a_newline_protocol_with_shared_methods_and_conventions_generates() {
    let tmp = tempfile::tempdir().unwrap();
    let conventions = "  cancel:
    method: cancelled
    id: requestId
    answer: error
    code: -32800
";
    let dir = spec(
        tmp.path(),
        &yaml("newline", conventions, &format!("{PING}{CANCELLED}")),
    );
    let code = skeleton(&dir);
    assert!(code.contains("jsonrpc::Framing::Newline"), "{code}");
    assert!(code.contains("CancelAnswer::Error(-32800i64)"), "{code}");
    assert!(code.contains("pub trait ClientHandler"), "{code}");
    // Both roles send `ping`, so both handlers answer it and both handles send it.
    assert_eq!(code.matches("fn ping(").count(), 4, "{code}");
}

#[test]
fn an_unknown_framing_is_an_error_at_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = spec(tmp.path(), &yaml("json-text", "", PING));
    let errors = errors_of(&dir);
    assert!(
        errors.iter().any(|e| e.contains("protocol.yaml:5:")
            && e.contains("framed by one of content-length, newline, not `json-text`")),
        "{errors:?}"
    );
}

#[test]
fn from_lists_and_optional_params_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let methods = "    - method: ping
      call: request
      from: [client, client]
      result: Pong
      params_optional: true
    - method: pong
      call: notification
      from: [server, nobody]
";
    let errors = errors_of(&spec(tmp.path(), &yaml("newline", "", methods)));
    for expected in [
        "`from:` names `client` twice",
        "`params_optional` needs a `params:` type",
        "`nobody` is not one of the roles (client, server)",
    ] {
        assert!(
            errors.iter().any(|e| e.contains(expected)),
            "{expected}: {errors:?}"
        );
    }
}

#[test]
fn conventions_name_notifications_every_role_sends() {
    let tmp = tempfile::tempdir().unwrap();
    let conventions = "  cancel:
    method: ping
    id: requestId
    answer: error
  progress:
    method: nothing
    token: token
    request_token: _meta.progressToken
";
    let errors = errors_of(&spec(tmp.path(), &yaml("newline", conventions, PING)));
    for expected in [
        "cancel.method `ping` must be a notification",
        "`answer: error` needs a `code:`",
        "progress.method names `nothing`, which is not a method of the spec",
    ] {
        assert!(
            errors.iter().any(|e| e.contains(expected)),
            "{expected}: {errors:?}"
        );
    }
}
