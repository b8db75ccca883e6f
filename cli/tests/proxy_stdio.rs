//! `agentwire proxy` over stdio with peers nobody here wrote: the official TypeScript MCP
//! SDK's client (`peers/node/mcp_client.js`) drives the example server through the proxy and
//! every check of it still passes; the official SDK's server (`peers/node/mcp_server.cjs`) is
//! driven through it too; the findings the proxy prints live are exactly the ones
//! `trace check` prints on its recording; `--enforce` answers a bad request itself; garbage
//! from a peer does not bring the proxy down.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentwire_tests::examples::example_binary;
use agentwire_tests::peers::{node, python_mcp2};
use serde_json::{Value, json};

fn agentwire() -> &'static str {
    env!("CARGO_BIN_EXE_agentwire")
}

/// `trace check` on `file`: its finding lines, without the summary.
fn trace_check(file: &Path) -> Vec<String> {
    let out = Command::new(agentwire())
        .args(["trace", "check", "--protocol", "mcp"])
        .arg(file)
        .output()
        .expect("run trace check");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("ok:"))
        .map(str::to_owned)
        .collect()
}

/// The proxy's live finding lines in `stderr`, by the recording they name.
fn live_findings(stderr: &str, dir: &Path) -> BTreeMap<PathBuf, Vec<String>> {
    let prefix = dir.display().to_string();
    let mut by_file: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    for line in stderr.lines().filter(|l| l.starts_with(&prefix)) {
        let file = line.split(":line ").next().unwrap_or(line);
        let file = file.split(":end of stream").next().unwrap_or(file);
        by_file
            .entry(PathBuf::from(file))
            .or_default()
            .push(line.to_owned());
    }
    by_file
}

/// A shell command line that runs the proxy in front of `server`, recording into a fresh
/// file of `dir` per start (the SDK client starts its server more than once).
fn proxy_command(dir: &Path, server: &str) -> Vec<String> {
    let script = format!(
        "exec '{}' proxy --protocol mcp --record '{}'/session-$$.jsonl -- {server}",
        agentwire(),
        dir.display()
    );
    vec!["sh".into(), "-c".into(), script]
}

#[test]
fn the_sdk_client_drives_the_example_server_through_the_proxy() {
    let dir = tempfile::tempdir().unwrap();
    let server = example_binary("mcp_server").display().to_string();
    let mut cmd = node("mcp_client.js");
    cmd.arg("stdio")
        .args(proxy_command(dir.path(), &format!("'{server}'")));
    let out = cmd.env("RUST_LOG", "error").output().expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The session works end to end: every check of the SDK client passes through the proxy.
    assert!(
        out.status.success() && stdout.trim_end().ends_with("all checks passed"),
        "{stdout}\n{stderr}"
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok ")).count(),
        20,
        "{stdout}"
    );
    let live = live_findings(&stderr, dir.path());
    let recordings: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        recordings.len(),
        2,
        "one recording per server start: {recordings:?}"
    );
    for file in &recordings {
        let checked = trace_check(file);
        assert_eq!(
            live.get(file).cloned().unwrap_or_default(),
            checked,
            "live findings differ from trace check on {}",
            file.display()
        );
    }
    // The client's deliberate mistakes were seen (an unknown method, a missing tool name).
    let all: Vec<&String> = live.values().flatten().collect();
    assert!(
        all.iter()
            .any(|l| l.contains("unknown method `no/such/method`")),
        "{all:?}"
    );
    assert!(
        all.iter()
            .any(|l| l.contains("/message/params/name: missing field `name`")),
        "{all:?}"
    );
}

/// A proxy in front of `server`, driven from this test over its standard input and output.
struct Driven {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Driven {
    fn start(extra: &[&str], server: &[String]) -> Self {
        let mut child = Command::new(agentwire())
            .args(["proxy", "--protocol", "mcp"])
            .args(extra)
            .arg("--")
            .args(server)
            .env("RUST_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the proxy");
        let out = BufReader::new(child.stdout.take().unwrap());
        Driven { child, out }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send_json(&mut self, v: &Value) {
        self.send(format!("{v}\n").as_bytes());
    }

    /// The next message whose id is `id`, skipping others.
    fn answer(&mut self, id: &Value) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            assert!(Instant::now() < deadline, "no answer to {id}");
            let mut line = String::new();
            let n = self.out.read_line(&mut line).unwrap();
            assert!(n > 0, "the proxy closed its output before answering {id}");
            let v: Value = serde_json::from_str(&line).unwrap();
            if &v["id"] == id && v.get("method").is_none() {
                return v;
            }
        }
    }

    /// Closes the input and returns the proxy's exit status and standard error.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.child.stdin.take());
        let out = self.child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

fn initialize(d: &mut Driven) {
    d.send_json(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "proxy-test", "version": "1"}}}),
    );
    let init = d.answer(&json!(1));
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    d.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

#[test]
fn enforce_answers_a_bad_request_itself_and_the_session_goes_on() {
    let server = vec![example_binary("mcp_server").display().to_string()];
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let record_arg = record.display().to_string();
    let mut d = Driven::start(&["--enforce", "--record", &record_arg], &server);
    initialize(&mut d);
    d.send_json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}}));
    let refused = d.answer(&json!(2));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("refused by agentwire proxy: /message/params/name"),
        "{refused}"
    );
    d.send_json(&json!({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}));
    assert_eq!(d.answer(&json!(3))["error"]["code"], -32601);
    d.send_json(&json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}));
    assert_eq!(d.answer(&json!(4))["result"], json!({}));
    let (code, stderr) = d.finish();
    assert_eq!(code, Some(1), "{stderr}");
    // The server never saw the refused requests: the recording holds the proxy's answers,
    // and trace check on it finds what the proxy printed.
    let live: Vec<String> = live_findings(&stderr, dir.path())
        .into_values()
        .flatten()
        .collect();
    assert_eq!(live, trace_check(&record));
    // The bad params and the unknown method; the answer to the unknown method is the
    // refusal's consequence, no second finding.
    assert_eq!(live.len(), 2, "{live:?}");
}

#[test]
fn garbage_from_a_peer_does_not_bring_the_proxy_down() {
    let server = vec![example_binary("mcp_server").display().to_string()];
    for enforce in [false, true] {
        let mut extra = vec!["--max-frame-size", "4096"];
        if enforce {
            extra.push("--enforce");
        }
        let mut d = Driven::start(&extra, &server);
        d.send(b"\x00\xff\xfe garbage that is not UTF-8\n");
        d.send(b"{not json at all\n");
        d.send(&vec![b'x'; 100_000]);
        d.send(b"\n[1,2,3]\n");
        initialize(&mut d);
        d.send_json(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}));
        assert_eq!(
            d.answer(&json!(9))["result"],
            json!({}),
            "enforce {enforce}"
        );
        let (code, stderr) = d.finish();
        assert_eq!(code, Some(1), "{stderr}");
        assert!(
            stderr.contains("proxy:line 1: frame body is not UTF-8"),
            "{stderr}"
        );
        assert!(
            stderr.contains(": invalid JSON: key must be a string"),
            "{stderr}"
        );
        assert!(stderr.contains(": line longer than 4096 bytes"), "{stderr}");
    }
}

// ---- Real traffic of MCP's 2.x SDKs, recorded and checked ----------------------------------
//
// The official 2.x clients against the official 2.x servers (TypeScript and Python), through
// the proxy, negotiating as they do by default: 2026-07-28 (`auto`), and 2025-11-25 when told
// (`legacy`). Every session's recording is checked with `trace check`: the only findings are
// the clients' deliberate mistakes (an unknown method, `resources/read` without its `uri`),
// each once: their answers, the SDKs' probes, progress, cancellations and input-required
// round trips are no findings. The recordings hold the SDKs' text and are made here, never
// committed.

/// One SDK pair: the client's command (before its own arguments), the server's command line.
struct Pair {
    name: &'static str,
    client: fn() -> Command,
    server: fn() -> String,
    /// What the client is told to negotiate, and the version it must land on.
    negotiation: [&'static str; 2],
}

fn ts2_client() -> Command {
    node("mcp2_client.cjs")
}

fn python2_client() -> Command {
    let mut cmd = python_mcp2("mcp2_client.py");
    cmd.env("PYTHONWARNINGS", "ignore");
    cmd
}

/// A peer command as one shell-quoted line (the proxy runs it after `--`).
fn shell_line(cmd: &Command) -> String {
    let mut words = vec![cmd.get_program().to_string_lossy().into_owned()];
    words.extend(cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
    let envs: Vec<String> = cmd
        .get_envs()
        .filter_map(|(k, v)| {
            Some(format!(
                "{}='{}'",
                k.to_string_lossy(),
                v?.to_string_lossy()
            ))
        })
        .collect();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    format!("env {} {}", envs.join(" "), quoted.join(" "))
}

fn ts2_server() -> String {
    let mut cmd = node("mcp2_server.cjs");
    cmd.arg("stdio");
    shell_line(&cmd)
}

fn python2_server() -> String {
    let mut cmd = python_mcp2("mcp2_server.py");
    cmd.arg("stdio");
    shell_line(&cmd)
}

/// Runs `pair` through the proxy into a fresh folder; the recordings and the client's output.
fn record(pair: &Pair) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = (pair.client)();
    cmd.args(pair.negotiation)
        .arg("peer")
        .args(proxy_command(dir.path(), &(pair.server)()))
        .env("RUST_LOG", "error");
    let out = cmd.output().expect("the SDK client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("all checks passed"),
        "{}: {stdout}\n{stderr}",
        pair.name
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    (dir, files)
}

/// `trace check`'s summary line for `file`.
fn summary(file: &Path) -> String {
    let out = Command::new(agentwire())
        .args(["trace", "check", "--protocol", "mcp"])
        .arg(file)
        .output()
        .expect("run trace check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    stdout
        .lines()
        .chain(stderr.lines())
        .find(|l| l.starts_with("ok:") || l.contains("finding"))
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn the_2x_sdks_recorded_through_the_proxy_show_only_their_deliberate_mistakes() {
    let pairs = [
        Pair {
            name: "TypeScript 2.x, auto",
            client: ts2_client,
            server: ts2_server,
            negotiation: ["auto", "modern"],
        },
        Pair {
            name: "Python 2.x, auto",
            client: python2_client,
            server: python2_server,
            negotiation: ["auto", "2026-07-28"],
        },
        Pair {
            name: "TypeScript 2.x, legacy",
            client: ts2_client,
            server: ts2_server,
            negotiation: ["legacy", "legacy"],
        },
        Pair {
            name: "Python 2.x, legacy",
            client: python2_client,
            server: python2_server,
            negotiation: ["legacy", "2025-11-25"],
        },
    ];
    for pair in &pairs {
        let (_dir, files) = record(pair);
        let mut findings = Vec::new();
        let mut versions = Vec::new();
        for file in &files {
            findings.extend(
                trace_check(file)
                    .into_iter()
                    .filter(|l| !l.trim().is_empty()),
            );
            versions.push(summary(file));
        }
        eprintln!("{}: {findings:#?}\n{versions:#?}", pair.name);
        let unknown = findings
            .iter()
            .filter(|l| l.contains("unknown method `no/such/method`"))
            .count();
        // Without its `uri` (the Python SDK leaves out params that are empty: `params` is then
        // what is missing).
        let no_uri = findings
            .iter()
            .filter(|l| {
                l.contains("/message/params/uri: missing") || l.contains("/message/params: missing")
            })
            .count();
        assert_eq!(
            (unknown, no_uri, findings.len()),
            (1, 1, 2),
            "{}: only the two deliberate mistakes, once each: {findings:#?}",
            pair.name
        );
        let era = if pair.negotiation[0] == "auto" {
            "2026-07-28"
        } else {
            "2025-11-25"
        };
        assert!(
            versions
                .iter()
                .any(|v| v.contains(&format!("version {era}"))),
            "{}: the session is checked as {era}: {versions:#?}",
            pair.name
        );
    }
}
