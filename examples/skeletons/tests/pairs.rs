//! Every example pair end to end, as the README runs them: each server started on a free
//! port, its client run against it, then the server stopped the three ways the examples share
//! (`quit`, end of input, and the port-in-use error with its hint). The examples are the
//! binaries `cargo test` builds beside this test.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The built example `name` (cargo puts examples in `<target>/<profile>/examples`, this test
/// in `<target>/<profile>/deps`).
fn example(name: &str) -> PathBuf {
    let me = std::env::current_exe().unwrap();
    let profile = me.parent().and_then(|deps| deps.parent()).unwrap();
    let path = profile
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is built by `cargo test`", path.display());
    path
}

/// A running server and the lines of its log read so far.
struct Server {
    child: Child,
    log: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Server {
    /// Starts `name` with `args` and a piped standard input, and waits for the log line that
    /// says where it listens; returns the server and the address in that line after `field=`.
    fn start(name: &str, args: &[&str], env: &[(&str, &str)], field: &str) -> (Self, String) {
        let mut child = Command::new(example(name))
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, log) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            log,
            seen: Vec::new(),
        };
        let line = server.wait_for("listening");
        let at = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{field}=")))
            .unwrap_or_else(|| panic!("no {field}= in {line}"))
            .to_owned();
        (server, at)
    }

    /// The first log line containing `needle`.
    fn wait_for(&mut self, needle: &str) -> String {
        loop {
            match self.log.recv_timeout(Duration::from_secs(60)) {
                Ok(line) if line.contains(needle) => return line,
                Ok(line) => self.seen.push(line),
                Err(e) => panic!("no `{needle}` in the log ({e}): {:#?}", self.seen),
            }
        }
    }

    /// Types `input` (or closes standard input when `None`) and waits for a clean exit.
    fn stop(mut self, input: Option<&str>) {
        let mut stdin = self.child.stdin.take().unwrap();
        if let Some(text) = input {
            stdin.write_all(text.as_bytes()).unwrap();
            stdin.flush().unwrap();
            // Kept open: the text alone must stop it.
            let status = self.child.wait().unwrap();
            assert!(status.success(), "{status}: {:#?}", self.seen);
            drop(stdin);
        } else {
            drop(stdin);
            let status = self.child.wait().unwrap();
            assert!(status.success(), "{status}: {:#?}", self.seen);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run(name: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let out = Command::new(example(name))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name} {args:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn zed_server_and_helix_client() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("helix.db");
    let (mut server, url) = Server::start("zed_server", &["127.0.0.1:0"], &[], "url");
    let env = [("HELIX_DB", db.to_str().unwrap())];
    let out = run("helix_client", &[&url, "hi there"], &env);
    assert!(stdout(&out).contains("completed req-"), "{}", stdout(&out));
    // One log line per connection and per exchange.
    server.wait_for("connection open");
    server.wait_for("chat_message");
    // A second run continues the thread the store kept.
    let out = run("helix_client", &[&url, "again"], &env);
    assert!(stdout(&out).contains("thread Some("), "{}", stdout(&out));
    server.stop(Some("quit\n"));
}

#[test]
fn agentloop_server_and_client() {
    let (mut server, url) = Server::start("agentloop_server", &["127.0.0.1:0"], &[], "url");
    let out = run("agentloop_client", &[&url, "list the files"], &[]);
    let text = stdout(&out);
    assert!(text.contains("approving [\"ls\"]"), "{text}");
    assert!(text.contains("agent_finished"), "{text}");
    server.wait_for("user_input");
    server.stop(None);
}

#[test]
fn eca_client_runs_the_eca_server_beside_it() {
    let out = run("eca_client", &[], &[]);
    let text = stdout(&out);
    assert!(
        text.contains("You said: hello, please use a tool"),
        "{text}"
    );
    assert!(text.contains("server exited: exit status: 0"), "{text}");
}

#[test]
fn eca_server_on_tcp_and_client() {
    let (mut server, addr) = Server::start("eca_server", &["--tcp", "127.0.0.1:0"], &[], "addr");
    let out = run("eca_client", &["--prompt", "hello", "tcp", &addr], &[]);
    assert!(stdout(&out).contains("You said: hello"), "{}", stdout(&out));
    server.wait_for("chat/prompt");
    server.stop(Some("quit\n"));
}

#[test]
fn coven_gateway_and_agent() {
    let (mut gateway, addr) = Server::start("coven_gateway", &["127.0.0.1:0"], &[], "addr");
    let endpoint = format!("http://{addr}");
    let mut agent = Command::new(example("coven_agent"))
        .args([endpoint.as_str(), "pair-test-agent"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    gateway.wait_for("peer registered");
    // Stopping the gateway sends the agent Shutdown, and the agent leaves cleanly.
    gateway.stop(Some("quit\n"));
    assert!(agent.wait().unwrap().success());
}

#[test]
fn a2a_server_and_client() {
    let (server, addr) = Server::start("a2a_server", &["127.0.0.1:0"], &[], "addr");
    // The card's first interface (JSON-RPC), then its gRPC and HTTP+JSON ones: the same run
    // on each binding of the one handler, whose tasks accumulate (ids count contexts and
    // tasks together).
    for (binding, used, first, total) in [
        (None, "using JSONRPC at", 2, 3),
        (Some("grpc"), "using GRPC at", 8, 6),
        (Some("http+json"), "using HTTP+JSON at", 14, 9),
    ] {
        let base = format!("http://{addr}");
        let mut args = vec![base.as_str()];
        args.extend(binding);
        let out = run("a2a_client", &args, &[]);
        let text = stdout(&out);
        for line in [
            used.to_owned(),
            "extended card: 1 skill(s)".to_owned(),
            format!("task task-{first}: Some(Completed), artifact [\"hello\"]"),
            format!("status of task-{}: Some(Completed)", first + 2),
            "canceled: Some(Canceled)".to_owned(),
            format!("resubscribed: status of task-{}: Some(Canceled)", first + 4),
            "subscribing again: refused, UNSUPPORTED_OPERATION".to_owned(),
            format!("{total} task(s) on the agent"),
        ] {
            assert!(text.contains(&line), "no `{line}` in\n{text}");
        }
    }
    server.stop(Some("quit\n"));
}

/// A free local port (bound, then released for the example to take).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn external_agent_server_and_external_system() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ea.sqlite");
    let input = format!("127.0.0.1:{}", free_port());
    let input_url = format!("http://{input}/v1/input");
    let env = [
        ("EA_INPUT_URL", input_url.as_str()),
        ("EA_DB", db.to_str().unwrap()),
    ];
    let (server, base) = Server::start("external_agent_server", &["127.0.0.1:0"], &env, "base");
    let out = run(
        "external_system",
        &["--demo", &input],
        &[("EA_SERVER", base.as_str())],
    );
    let text = stdout(&out);
    let last = text.lines().last().unwrap_or_default();
    assert!(text.contains("session_ready"), "{text}");
    // The demo ends on this system's reply, relayed through the callback and the server.
    assert!(
        last.contains("\"type\":\"message\"") && !last.contains("\"role\":\"user\""),
        "{text}"
    );
    server.stop(None);
}

#[test]
fn a_port_in_use_is_one_sentence_with_a_hint() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    for name in [
        "zed_server",
        "agentloop_server",
        "coven_gateway",
        "external_agent_server",
        "a2a_server",
    ] {
        let out = Command::new(example(name))
            .arg(&addr)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("{name}: address {addr} is in use; pass another as [ADDR]\n"),
        );
    }
}

#[test]
fn mcp_client_runs_the_mcp_server_beside_it() {
    let out = run("mcp_client", &[], &[]);
    let text = stdout(&out);
    for line in [
        "initialized: agentwire-mcp-example",
        "tools: echo, add, payload, progress, sample, confirm, roots, slow, was_cancelled, touch, fail",
        "  progress 3/3 step 3",
        "  result: done in 3 steps",
        "server asked for sampling (1 message(s))",
        "tools/call sample: agentwire-example-model said:",
        "cancelled tools/call progress (request id 7) after its first report",
        "ping answered after the cancellation",
        "server exited: exit status: 0",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
}

#[test]
fn mcp_server_on_streamable_http_and_client() {
    let (mut server, url) = Server::start("mcp_server", &["--http", "127.0.0.1:0"], &[], "url");
    let out = run("mcp_client", &["--http", &url], &[]);
    let text = stdout(&out);
    for line in [
        "GET stream open for the server's own messages",
        "resources: file:///greeting.txt",
        "  result: done in 3 steps",
        "tools/call sample: agentwire-example-model said:",
        "ping answered after the cancellation",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
    server.wait_for("initialize");
    server.stop(Some("quit\n"));
}

#[test]
fn mcp_client_says_what_is_wrong() {
    // Nothing listens: one sentence naming the server to start.
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = Command::new(example("mcp_client"))
        .args(["--http", &url])
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "mcp_client: nothing listens at {url}; start the server first (`cargo run --example \
             mcp_server -- --http ADDR`) or pass its address\n"
        )
    );
    // A command that does not exist, and a flag it does not know.
    let out = Command::new(example("mcp_client"))
        .arg("/nonexistent/mcp-server")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("mcp_client: cannot start `/nonexistent/mcp-server`: "),
        "{err}"
    );
    let out = Command::new(example("mcp_client"))
        .arg("--nope")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("mcp_client: usage: mcp_client "),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn acp_client_runs_a_turn_and_cancels_one_with_the_acp_agent_in_v1() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# a workspace\nsecond line\n").unwrap();
    let out = Command::new(example("acp_client"))
        .arg("--v1")
        .current_dir(dir.path())
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in [
        "initialized: agentwire-acp-example speaking ACP version 1",
        "  agent_thought_chunk: The user asked \"What does the README say?\"",
        "  tool_call read-1 \"Read ",
        "permission for Read ",
        "  tool_call_update read-1 completed",
        "  tool_call_update run-1 completed",
        "starts with \"# a workspace\"; `echo` exited with 0 printing \"hello from a client terminal\".",
        "turn ended: end_turn",
        "permission for Read ",
        ": the user cancelled the turn",
        "turn ended: cancelled",
        "agent exited: exit status: 0",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
    // The agent numbers each turn's tool calls apart (ids are unique within a session).
    assert!(text.contains("tool_call read-2 "), "{text}");
}

/// Both examples speak version 1 and the version 2 draft: offered version 2, the agent agrees,
/// and the turn runs as version 2 has it (acknowledged, then reported through `state_update`).
#[test]
fn acp_client_and_agent_negotiate_v2_when_both_offer_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(example("acp_client"))
        .current_dir(dir.path())
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in [
        "initialized: agentwire-acp-example speaking ACP version 2",
        "prompt inserted as user-1",
        "  user_message: What should we do?",
        "  state_update running",
        "  agent_thought_chunk: The user asked \"What should we do?\"",
        "  tool_call_update plan-1 pending",
        "permission for Plan the answer: allow",
        "  tool_call_update plan-1 completed",
        "  agent_message_chunk:  Done: planned.",
        "  state_update idle (end_turn)",
        "turn ended: end_turn",
        "permission for Plan the answer: the user cancelled the turn",
        "  state_update idle (cancelled)",
        "turn ended: cancelled",
        "agent exited: exit status: 0",
    ] {
        assert!(text.contains(line), "no {line:?} in\n{text}");
    }
    // Nothing of version 1's turn: no files, no terminals.
    assert!(!text.contains("tool_call read-"), "{text}");
}

#[test]
fn acp_client_says_what_is_wrong() {
    let out = Command::new(example("acp_client"))
        .arg("/nonexistent/acp-agent")
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("acp_client: cannot start `/nonexistent/acp-agent`: "),
        "{err}"
    );
    let out = Command::new(example("acp_client"))
        .arg("--http")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("acp_client: usage: "));
}
