//! `answer:` on a JSON-RPC request: the generated handlers answer it without user code (the
//! empty result, or "method not found") unless overridden; each misuse is a located
//! diagnostic.

use std::path::Path;

use agentwire_codegen::generate;

const TS: &str = "interface Ping { note?: string; }
interface Empty { note?: string; }
type Alias = Empty;
interface Pong { note: string; }
";

fn spec(root: &Path, methods: &str) -> std::path::PathBuf {
    let dir = root.join("demo_rpc");
    std::fs::create_dir_all(&dir).unwrap();
    let yaml = format!(
        "protocol: demo_rpc
title: Demo
transport: {{kind: jsonrpc, framing: newline}}
roles: [client, server]
types: messages.ts
jsonrpc:
  methods:
{methods}"
    );
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    std::fs::write(dir.join("messages.ts"), TS).unwrap();
    dir
}

fn errors_of(dir: &Path) -> Vec<String> {
    match generate(dir) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.iter().map(|e| e.one_line()).collect(),
    }
}

const GOOD: &str = "    - {method: ping, call: request, from: [client, server], params: Ping, result: Alias, answer: empty}
    - {method: extra, call: request, from: client, params: Ping, result: Pong, answer: method_not_found}
    - {method: work, call: request, from: client, params: Ping, result: Pong}
";

#[test]
fn the_handlers_default_to_the_stated_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = spec(tmp.path(), GOOD);
    let g = generate(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let code = g
        .files
        .iter()
        .find(|f| f.path == "src/skeletons/demo_rpc.rs")
        .expect("a skeleton")
        .render("test");
    let server = &code[code
        .find("pub trait ServerHandler")
        .expect("a server handler")..];
    let server = &server[..server.find("\n}\n").unwrap_or(server.len())];
    // Both sides answer ping with the empty result; the server's `extra` is "method not
    // found" unless overridden; `work` states no answer, so a server must write it.
    assert!(
        server.contains("Answers the empty result unless overridden"),
        "{server}"
    );
    assert!(
        server.contains("decode_json::<crate::demo_rpc::Alias>(\"{}\")"),
        "{server}"
    );
    assert!(server.contains("no_handler(\"extra\")"), "{server}");
    let work = &server[server.find("fn work(").expect("a `work` method")..];
    let work = &work[..work.find("///").unwrap_or(work.len())];
    assert!(work.trim_end().ends_with("+ Send;"), "{work}");
    let client = &code[code
        .find("pub trait ClientHandler")
        .expect("a client handler")..];
    assert!(
        client.contains("Answers the empty result unless overridden"),
        "{client}"
    );
}

#[test]
fn misuse_is_located() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = spec(
        &tmp.path().join("a"),
        "    - {method: ping, call: request, from: client, params: Ping, result: Pong, answer: empty}
",
    );
    let errors = errors_of(&dir);
    assert!(
        errors.iter().any(|e| e.contains("protocol.yaml:8:")
            && e.contains(
                "`answer: empty` needs a result type whose every field is optional; `Pong` is not"
            )),
        "{errors:?}"
    );
    let dir = spec(
        &tmp.path().join("b"),
        "    - {method: extra, call: request, from: client, params: Ping, result: Empty, answer: emtpy}
    - {method: note, call: notification, from: client, params: Ping, answer: method_not_found}
",
    );
    let errors = errors_of(&dir);
    let has = |line: usize, text: &str| {
        errors
            .iter()
            .any(|e| e.contains(&format!("protocol.yaml:{line}:")) && e.contains(text))
    };
    assert!(
        has(
            8,
            "`answer: emtpy` must be `empty` or `method_not_found`; did you mean `empty`?"
        ),
        "{errors:?}"
    );
    assert!(has(9, "a notification is not answered"), "{errors:?}");
}
