//! How `agentwire trace check` takes its input and reports: standard input, a byte order
//! mark, an empty trace, `--max-findings`, `--format json`, and findings written while the
//! input is still being read.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Runs the binary in `dir` with `stdin` as its standard input; (status, stdout, stderr).
fn agentwire(dir: &Path, args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().expect("exited normally"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn line(from: &str, message: Value) -> String {
    json!({"from": from, "message": message}).to_string() + "\n"
}

fn chat_message() -> String {
    line(
        "helix",
        json!({"type": "chat_message", "data": {
            "helix_session_id": "ses_1", "acp_thread_id": null, "message": "hi", "request_id": "req_1"}}),
    )
}

fn context_created() -> String {
    line(
        "zed",
        json!({"session_id": "ses_1", "event_type": "context_created",
            "data": {"acp_thread_id": "th_1", "helix_session_id": "ses_1"}}),
    )
}

fn message_added() -> String {
    line(
        "zed",
        json!({"session_id": "ses_1", "event_type": "message_added", "data": {
            "acp_thread_id": "th_1", "message_id": "m_1", "role": "assistant",
            "content": "Hello", "timestamp": 1_759_410_084}}),
    )
}

fn message_completed() -> String {
    line(
        "zed",
        json!({"session_id": "ses_1", "event_type": "message_completed",
            "data": {"acp_thread_id": "th_1", "message_id": "m_1", "request_id": "req_1"}}),
    )
}

/// A session that ends properly.
fn good() -> String {
    chat_message() + &context_created() + &message_added() + &message_completed()
}

/// One finding per line: every line is a chat message with an empty id.
fn bad_line() -> String {
    chat_message().replace("\"ses_1\"", "\"\"")
}

const CHECK: [&str; 4] = ["trace", "check", "--protocol", "helix_zed"];

fn args<'a>(more: &[&'a str]) -> Vec<&'a str> {
    CHECK.iter().copied().chain(more.iter().copied()).collect()
}

#[test]
fn a_dash_reads_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        agentwire(dir.path(), &args(&["-"]), good().as_bytes()),
        (
            0,
            "ok: 4 message(s) in 1 stream(s), 1 sequence instance(s), protocol helix_zed\n".into(),
            String::new()
        )
    );
    let (code, stdout, _) = agentwire(dir.path(), &args(&["-"]), bad_line().as_bytes());
    assert_eq!(code, 1);
    assert!(stdout.starts_with("<stdin>:line 1: /message/data/helix_session_id: "));
    let (code, _, stderr) = agentwire(dir.path(), &args(&["-", "-"]), b"");
    assert_eq!(code, 2);
    assert!(stderr.contains("standard input (`-`) can be read only once"));
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("\u{feff}{}", good());
    std::fs::write(dir.path().join("bom.jsonl"), &text).unwrap();
    assert_eq!(
        agentwire(dir.path(), &args(&["bom.jsonl"]), b""),
        (
            0,
            "ok: 4 message(s) in 1 stream(s), 1 sequence instance(s), protocol helix_zed\n".into(),
            String::new()
        )
    );
}

#[test]
fn an_empty_trace_says_what_was_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.jsonl"), "").unwrap();
    assert_eq!(
        agentwire(dir.path(), &args(&["empty.jsonl"]), b""),
        (
            0,
            "ok: 0 message(s) in 1 stream(s), 0 sequence instance(s), protocol helix_zed\n".into(),
            String::new()
        )
    );
}

#[test]
fn max_findings_stops_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let input = bad_line().repeat(5);
    let (code, stdout, stderr) = agentwire(
        dir.path(),
        &args(&["--max-findings", "2", "-"]),
        input.as_bytes(),
    );
    assert_eq!(code, 1);
    let found: Vec<&str> = stdout.lines().collect();
    assert_eq!(found.len(), 2, "{stdout}");
    assert_eq!(
        found,
        [
            "<stdin>:line 1: /message/data/helix_session_id: length 0 is below the minimum 1 \
             [min_length 1]",
            "<stdin>:line 2: /message/data/helix_session_id: length 0 is below the minimum 1 \
             [min_length 1]",
        ]
    );
    assert_eq!(
        stderr,
        "stopped at 2 finding(s) (--max-findings) after 2 message(s) in 1 stream(s), \
         1 sequence instance(s), protocol helix_zed\n"
    );
    let (code, _, stderr) = agentwire(dir.path(), &args(&["--max-findings", "0", "-"]), b"");
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn json_format_writes_one_object_per_finding_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let input = chat_message() + "not json\n" + &context_created() + &message_completed();
    let (code, stdout, stderr) = agentwire(
        dir.path(),
        &args(&["--format", "json", "-"]),
        input.as_bytes(),
    );
    assert_eq!((code, stderr.as_str()), (1, ""));
    let objects: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        objects,
        [
            json!({"type": "finding", "file": "<stdin>", "line": 2, "kind": "json",
                "text": "invalid JSON: expected ident at column 2"}),
            json!({"type": "finding", "file": "<stdin>", "line": 4, "kind": "sequence",
                "text": "session ses_1 in state waiting: got zed.message_completed, \
                         expected one of zed.message_added",
                "machine": "session", "instance": "ses_1", "state": "waiting",
                "got": "zed.message_completed", "expected": ["zed.message_added"]}),
            json!({"type": "finding", "file": "<stdin>", "end_of_stream": true,
                "kind": "sequence",
                "text": "session ses_1 in state waiting: expected one of zed.message_added",
                "machine": "session", "instance": "ses_1", "state": "waiting",
                "got": null, "expected": ["zed.message_added"]}),
            json!({"type": "summary", "ok": false, "findings": 3, "stopped_early": false,
                "messages": 3, "streams": 1, "instances": 1, "protocol": "helix_zed",
                "one_sided": false}),
        ]
    );
    let (_, stdout, _) = agentwire(
        dir.path(),
        &args(&["--format", "json", "-"]),
        bad_line().as_bytes(),
    );
    let first: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["kind"], "field");
    assert_eq!(first["pointer"], "/message/data/helix_session_id");
    assert_eq!(first["rule"], "min_length");
}

/// The first finding of a trace is on standard output while the rest of the trace has not
/// even been written: findings are not held until the end.
#[test]
fn findings_are_written_while_the_input_is_still_open() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .current_dir(dir.path())
        .args(args(&["-"]))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(bad_line().as_bytes()).unwrap();
    stdin.flush().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let started = Instant::now();
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.starts_with("<stdin>:line 1: "), "{first}");
    assert!(started.elapsed() < Duration::from_secs(30));
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

#[test]
fn a_message_from_the_wrong_side_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    // The zed side's context_created, recorded as sent by helix.
    let input = chat_message() + &context_created().replace("\"zed\"", "\"helix\"");
    let (code, stdout, _) = agentwire(dir.path(), &args(&["-"]), input.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(
        stdout.lines().next().unwrap(),
        "<stdin>:line 2: /message: this message is sent by the zed, not the helix \
         [wrong_side]"
    );
    // agentloop names both sides' kinds under `type`: the kind is named.
    let server_kind = json!({"from": "client", "message": {"id": "1", "type": "agent_finished",
        "payload": {"responseId": "r"}}});
    let (code, stdout, _) = agentwire(
        dir.path(),
        &["trace", "check", "--protocol", "agentloop", "-"],
        format!("{server_kind}\n").as_bytes(),
    );
    assert_eq!(code, 1);
    assert_eq!(
        stdout.lines().next().unwrap(),
        "<stdin>:line 1: /message/type: `agent_finished` is sent by the server, not the client \
         [wrong_side]"
    );
}
