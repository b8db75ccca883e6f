//! End-to-end tests of `agentwire trace check`: small traces and captures written to a temporary
//! directory, checked by the built binary, with its exact output and exit status.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// Runs the binary in `dir` and returns (exit status, stdout, stderr).
fn agentwire(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().expect("exited normally"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// A JSON Lines trace from (sender, message) pairs.
fn trace(entries: &[(&str, Value)]) -> String {
    entries
        .iter()
        .map(|(from, message)| json!({"from": from, "message": message}).to_string() + "\n")
        .collect()
}

/// A `Content-Length` capture, with the header name spelled as given.
fn framed(header: &str, messages: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        let body = m.to_string();
        out.extend_from_slice(format!("{header}: {}\r\n\r\n{body}", body.len()).as_bytes());
    }
    out
}

fn lines(stdout: &str) -> Vec<&str> {
    stdout.lines().collect()
}

// -- helix_zed -------------------------------------------------------------------------------

fn chat_message() -> Value {
    json!({"type": "chat_message", "data": {
        "helix_session_id": "ses_1", "acp_thread_id": null, "message": "hi", "request_id": "req_1"}})
}

fn context_created() -> Value {
    json!({"session_id": "ses_1", "event_type": "context_created",
        "data": {"acp_thread_id": "th_1", "helix_session_id": "ses_1"}})
}

fn message_added(content: &str) -> Value {
    json!({"session_id": "ses_1", "event_type": "message_added", "data": {
        "acp_thread_id": "th_1", "message_id": "m_1", "role": "assistant",
        "content": content, "timestamp": 1_759_410_084}})
}

fn message_completed() -> Value {
    json!({"session_id": "ses_1", "event_type": "message_completed",
        "data": {"acp_thread_id": "th_1", "message_id": "m_1", "request_id": "req_1"}})
}

fn helix_session() -> String {
    trace(&[
        ("helix", chat_message()),
        ("zed", context_created()),
        ("zed", message_added("Hel")),
        ("zed", message_added("Hello")),
        ("zed", message_completed()),
    ])
}

#[test]
fn a_valid_helix_zed_trace_passes_with_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    // Blank lines are skipped, and CRLF line ends are fine.
    let text = helix_session().replace('\n', "\r\n\n");
    write(dir.path(), "ok.jsonl", text);
    assert_eq!(
        agentwire(
            dir.path(),
            &["trace", "check", "--protocol", "helix_zed", "ok.jsonl"]
        ),
        (
            0,
            "ok: 5 message(s) in 1 stream(s), 1 sequence instance(s), protocol helix_zed\n".into(),
            String::new()
        )
    );
}

#[test]
fn an_out_of_order_helix_zed_trace_is_reported_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = trace(&[
        ("helix", chat_message()),
        ("zed", context_created()),
        ("zed", message_completed()),
        ("zed", message_added("Hel")),
        ("zed", message_added("Help")),
        ("zed", message_added("Hello")),
    ]);
    // Line 3 is empty: lines count as in the file, not as messages.
    let text = text.replacen('\n', "\n\n", 2).replacen("\n\n", "\n", 1);
    write(dir.path(), "late.jsonl", text);
    let (code, stdout, stderr) = agentwire(
        dir.path(),
        &["trace", "check", "--protocol", "helix_zed", "late.jsonl"],
    );
    assert_eq!(
        lines(&stdout),
        [
            "late.jsonl:line 4: session ses_1 in state waiting: got zed.message_completed, \
             expected one of zed.message_added",
            "late.jsonl:line 7: session ses_1 in state streaming: got zed.message_added, \
             but data.content extends content does not hold",
            "late.jsonl:end of stream: session ses_1 in state streaming: \
             expected one of zed.message_added, zed.message_completed",
        ]
    );
    assert_eq!(
        (code, stderr.as_str()),
        (
            1,
            "3 finding(s) in 6 message(s) in 1 stream(s), 1 sequence instance(s), protocol helix_zed\n"
        )
    );
}

#[test]
fn bad_lines_get_one_finding_each_and_the_rest_is_still_checked() {
    let dir = tempfile::tempdir().unwrap();
    let mut broken = message_added("Hel");
    broken["data"]["acp_thread_id"] = json!("");
    broken["data"]["message_id"] = json!("");
    let mut text = trace(&[("helix", chat_message()), ("zed", broken)]);
    text.push_str("{\"from\": \"zed\" \"message\": {}}\n");
    text.push_str(&trace(&[("bob", json!({}))]));
    text.push_str("[1, 2]\n");
    text.push_str("{\"message\": {}}\n");
    let mut missing = message_added("Hel");
    missing["data"].as_object_mut().unwrap().remove("role");
    text.push_str(&trace(&[("zed", missing)]));
    write(dir.path(), "bad.jsonl", text);
    let (code, stdout, _) = agentwire(
        dir.path(),
        &["trace", "check", "--protocol", "helix_zed", "bad.jsonl"],
    );
    assert_eq!(code, 1);
    assert_eq!(
        lines(&stdout),
        [
            "bad.jsonl:line 2: /message/data/acp_thread_id: length 0 is below the minimum 1 [min_length 1]",
            "bad.jsonl:line 2: /message/data/message_id: length 0 is below the minimum 1 [min_length 1]",
            // Line 2 still counts as arrived (its empty ids read as the shortest valid ones),
            // and a message_added before context_created breaks the session's order.
            "bad.jsonl:line 2: session ses_1 in state waiting_first: got zed.message_added, \
             expected one of zed.context_created",
            "bad.jsonl:line 3: invalid JSON: expected `,` or `}` at column 16",
            "bad.jsonl:line 4: /from: unknown sender `bob` for protocol helix_zed [unknown_kind]",
            "bad.jsonl:line 5: (root): a trace line must be an object {\"from\": ..., \"message\": ...} [type]",
            "bad.jsonl:line 6: /from: missing field `from` [required]",
            "bad.jsonl:line 7: /message/data/role: missing field `role` [required]",
            "bad.jsonl:line 7: session ses_1 in state waiting_first: got zed.message_added, \
             expected one of zed.context_created",
            "bad.jsonl:end of stream: session ses_1 in state waiting_first: \
             expected one of zed.context_created",
        ]
    );
}

#[test]
fn every_file_is_a_stream_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let session = helix_session();
    let (first, second) = session.split_at(session.find("\n").unwrap() + 1);
    write(dir.path(), "ok.jsonl", &session);
    write(dir.path(), "first.jsonl", first);
    write(dir.path(), "second.jsonl", second);
    let (code, stdout, _) = agentwire(
        dir.path(),
        &[
            "trace",
            "check",
            "--protocol",
            "helix_zed",
            "ok.jsonl",
            "ok.jsonl",
            "first.jsonl",
            "second.jsonl",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(
        lines(&stdout),
        [
            "first.jsonl:end of stream: session ses_1 in state waiting_first: \
             expected one of zed.context_created",
            "second.jsonl:line 1: session ses_1 in state new: got zed.context_created, \
             expected one of helix.chat_message",
            "second.jsonl:line 2: session ses_1 in state new: got zed.message_added, \
             expected one of helix.chat_message",
            "second.jsonl:line 3: session ses_1 in state new: got zed.message_added, \
             expected one of helix.chat_message",
            "second.jsonl:line 4: session ses_1 in state new: got zed.message_completed, \
             expected one of helix.chat_message",
        ]
    );
}

/// `text`'s lines, each naming `stream`.
fn in_stream(stream: &str, text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["stream"] = json!(stream);
            v.to_string()
        })
        .collect()
}

#[test]
fn streams_named_in_one_file_are_checked_apart() {
    let dir = tempfile::tempdir().unwrap();
    // Two sessions interleaved line by line, as a network proxy records them; as one stream
    // the second chat_message would break the first session's order.
    let a = in_stream("1", &helix_session());
    let late = trace(&[("helix", chat_message()), ("zed", message_completed())]);
    let b = in_stream("2", &late);
    let mut text = String::new();
    for (i, line) in a.iter().enumerate() {
        text.push_str(line);
        text.push('\n');
        if let Some(other) = b.get(i) {
            text.push_str(other);
            text.push('\n');
        }
        if i == 2 {
            text.push_str("{\"stream\": \"2\", \"end\": true}\n");
        }
    }
    text.push_str("{\"stream\": 3, \"from\": \"zed\", \"message\": {}}\n");
    write(dir.path(), "two.jsonl", text);
    let (code, stdout, stderr) = agentwire(
        dir.path(),
        &["trace", "check", "--protocol", "helix_zed", "two.jsonl"],
    );
    assert_eq!(
        lines(&stdout),
        [
            "two.jsonl#2:line 4: session ses_1 in state waiting_first: got zed.message_completed, \
             expected one of zed.context_created",
            "two.jsonl#2:end of stream: session ses_1 in state waiting_first: \
             expected one of zed.context_created",
            "two.jsonl:line 9: /stream: expected a string [type]",
        ],
        "{stderr}"
    );
    assert_eq!(code, 1);
    assert!(stderr.contains("7 message(s) in 2 stream(s)"), "{stderr}");
}

// -- eca captures ----------------------------------------------------------------------------

fn eca_client() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": 4242, "clientInfo": {"name": "emacs", "version": "29.4"},
            "capabilities": {"codeAssistant": {"chat": true}},
            "workspaceFolders": [{"uri": "file:///home/dev/project", "name": "project"}]}}),
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "chat/prompt",
            "params": {"chatId": "chat-1", "requestId": "req-1", "message": "hello"}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}),
        json!({"jsonrpc": "2.0", "method": "exit"}),
    ]
}

fn content(kind: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "chat/contentReceived",
        "params": {"chatId": "chat-1", "content": kind, "role": "system"}})
}

fn eca_server() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "models": ["anthropic/claude-sonnet-4"], "chatDefaultModel": "anthropic/claude-sonnet-4",
            "chatBehaviors": ["agent"], "chatDefaultBehavior": "agent",
            "chatWelcomeMessage": "Welcome"}}),
        content(json!({"type": "progress", "state": "running", "text": "Waiting model"})),
        content(json!({"type": "text", "text": "Hello there."})),
        content(json!({"type": "progress", "state": "finished", "text": ""})),
        json!({"jsonrpc": "2.0", "id": 2,
            "result": {"chatId": "chat-1", "model": "anthropic/claude-sonnet-4", "status": "success"}}),
        json!({"jsonrpc": "2.0", "id": 3, "result": null}),
    ]
}

#[test]
fn framed_eca_captures_of_both_directions_pass() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "client.bin",
        framed("Content-Length", &eca_client()),
    );
    let mut server = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n".to_vec();
    server.extend(framed("content-length", &eca_server()));
    write(dir.path(), "server.bin", server);
    let clean = (
        0,
        "ok: 11 message(s) in 1 stream(s), 5 sequence instance(s), protocol eca\n".into(),
        String::new(),
    );
    let check = |args: &[&str]| {
        let mut all = vec!["trace", "check", "--protocol", "eca"];
        all.extend_from_slice(args);
        agentwire(dir.path(), &all)
    };
    assert_eq!(
        check(&[
            "--from",
            "client",
            "client.bin",
            "--from",
            "server",
            "server.bin"
        ]),
        clean
    );
    // The merge does not depend on which capture is named first.
    assert_eq!(
        check(&[
            "--from",
            "server",
            "server.bin",
            "--from",
            "client",
            "client.bin"
        ]),
        clean
    );
    // A one-direction capture may also be JSON Lines of bare messages.
    let client_lines: String = eca_client().iter().map(|m| m.to_string() + "\n").collect();
    write(dir.path(), "client.jsonl", client_lines);
    assert_eq!(
        check(&[
            "--from",
            "client",
            "client.jsonl",
            "--from",
            "server",
            "server.bin"
        ]),
        clean
    );
}

#[test]
fn a_framed_eca_capture_with_a_violation_is_reported_by_frame() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "client.bin",
        framed("Content-Length", &eca_client()),
    );
    // The server finishes the prompt's progress before it started it, and answers id 9,
    // which nobody asked for.
    let mut server = eca_server();
    server.swap(1, 3);
    server.insert(5, json!({"jsonrpc": "2.0", "id": 9, "result": null}));
    write(dir.path(), "server.bin", framed("Content-Length", &server));
    let (code, stdout, stderr) = agentwire(
        dir.path(),
        &[
            "trace",
            "check",
            "--protocol",
            "eca",
            "--from",
            "client",
            "client.bin",
            "--from",
            "server",
            "server.bin",
        ],
    );
    assert_eq!(
        lines(&stdout),
        [
            "server.bin:frame 2: chat chat-1 in state prompted: got server.chat/contentReceived, \
             but params.content.type is not \"progress\" does not hold",
            "server.bin:frame 6: request 9 in state idle: got server.response, expected one of \
             client.initialize, client.shutdown, client.chat/prompt, client.chat/queryContext, \
             client.chat/queryCommands, client.chat/delete",
            "client.bin+server.bin:end of stream: chat chat-1 in state running: \
             expected one of server.chat/contentReceived, client.chat/promptStop, \
             client.chat/delete",
        ]
    );
    assert_eq!(
        (code, stderr.as_str()),
        (
            1,
            "3 finding(s) in 12 message(s) in 1 stream(s), 5 sequence instance(s), protocol eca\n"
        )
    );
}

#[test]
fn framing_and_message_errors_in_captures_point_at_frames_and_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let client = eca_client();
    let mut bytes = framed("Content-Length", &client[..2]);
    // frame 3: above the limit given below, skipped unread
    bytes.extend_from_slice(b"Content-Length: 4096\r\n\r\n");
    bytes.extend_from_slice(&[b' '; 4096]);
    // frame 4: a method eca does not have
    let nope = json!({"jsonrpc": "2.0", "id": 2, "method": "chat/nope"});
    bytes.extend(framed("Content-Length", &[nope]));
    // frame 5: not JSON; frame 6: not UTF-8
    bytes.extend_from_slice(b"Content-Length: 3\r\n\r\n{]}");
    bytes.extend_from_slice(b"Content-Length: 2\r\n\r\n\xff\xfe");
    // no Content-Length: the boundary is lost until the next header
    let lost_at = bytes.len();
    bytes.extend_from_slice(b"Content-Type: application/json\r\n\r\n{}");
    // frames 7 and 8: shutdown, exit; then a body cut short
    bytes.extend(framed("Content-Length", &client[3..]));
    let truncated_at = bytes.len();
    bytes.extend_from_slice(b"Content-Length: 10\r\n\r\n{}");
    write(dir.path(), "client.bin", bytes);
    let server = eca_server();
    let answers = [server[0].clone(), server[5].clone()];
    write(dir.path(), "server.bin", framed("Content-Length", &answers));
    let (code, stdout, _) = agentwire(
        dir.path(),
        &[
            "trace",
            "check",
            "--protocol",
            "eca",
            "--max-frame-size",
            "1024",
            "--from",
            "client",
            "client.bin",
            "--from",
            "server",
            "server.bin",
        ],
    );
    assert_eq!(code, 1);
    let found = lines(&stdout);
    assert_eq!(found.len(), 6, "{stdout}");
    assert_eq!(
        found[0],
        "client.bin:frame 3: Content-Length 4096 exceeds the limit of 1024 bytes"
    );
    // The message names every method the client may send; only its ends are pinned here.
    assert!(
        found[1].starts_with(
            "client.bin:frame 4: /method: unknown method `chat/nope`, expected one of `initialize`"
        ) && found[1].ends_with(" [unknown_kind]"),
        "{}",
        found[1]
    );
    assert_eq!(
        found[2..],
        [
            "client.bin:frame 5: invalid JSON: key must be a string at line 1 column 2".to_owned(),
            "client.bin:frame 6: frame body is not UTF-8 (first bad byte at body offset 0)"
                .to_owned(),
            format!("client.bin:byte {lost_at}: header block has no Content-Length"),
            format!(
                "client.bin:byte {truncated_at}: input ends inside a frame body (2 of 10 bytes)"
            ),
        ]
    );
}

#[test]
fn frames_swallowed_by_an_oversize_body_are_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let client = eca_client();
    let mut bytes = framed("Content-Length", &client[..2]);
    // A declared length over the limit, whose body is shorter than declared: the frames
    // after it are read as that body and skipped with it.
    let oversize_at = bytes.len();
    bytes.extend_from_slice(b"Content-Length: 4096\r\n\r\n");
    let swallowed = framed("Content-Length", &client[2..3]);
    let got = swallowed.len();
    bytes.extend(swallowed);
    write(dir.path(), "client.bin", bytes);
    let (code, stdout, _) = agentwire(
        dir.path(),
        &[
            "trace",
            "check",
            "--protocol",
            "eca",
            "--max-frame-size",
            "1024",
            "--from",
            "client",
            "client.bin",
        ],
    );
    assert_eq!(code, 1);
    let found = lines(&stdout);
    assert_eq!(
        found[0],
        "client.bin:frame 3: Content-Length 4096 exceeds the limit of 1024 bytes"
    );
    // (The sequence findings of a client talking to nobody follow; only this one matters.)
    let swallowed = format!(
        "client.bin:byte {oversize_at}: input ends inside the skipped body of the oversize \
         frame ({got} of its 4096 bytes): whatever followed its header, frames included, was \
         taken as that body"
    );
    assert!(found.iter().any(|f| *f == swallowed), "{stdout}");
}

// -- usage errors ----------------------------------------------------------------------------

#[test]
fn usage_errors_exit_with_2_and_print_nothing_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ok.jsonl", helix_session());
    write(
        dir.path(),
        "client.bin",
        framed("Content-Length", &eca_client()),
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &["trace", "check", "--protocol", "helix_zed", "missing.jsonl"],
            "cannot read missing.jsonl",
        ),
        (&["trace", "check", "--protocol", "helix_zed"], "required"),
        (
            &["trace", "check", "--protocol", "nope", "ok.jsonl"],
            "unknown protocol `nope`; the known protocols are ",
        ),
        (&["trace", "check", "ok.jsonl"], "--protocol"),
        (
            &["trace", "check", "--protocol", "eca", "client.bin"],
            "give it as --from ROLE client.bin",
        ),
        (
            &[
                "trace",
                "check",
                "--protocol",
                "eca",
                "--from",
                "zed",
                "client.bin",
            ],
            "`zed` is not a sender",
        ),
        (
            &["trace", "check", "--protocol", "eca", "--from", "client"],
            "--from",
        ),
        (
            &[
                "trace",
                "check",
                "--protocol",
                "eca",
                "--from",
                "client",
                "client.bin",
                "--from",
                "client",
                "client.bin",
            ],
            "given twice",
        ),
        (
            &[
                "trace",
                "check",
                "--protocol",
                "helix_zed",
                "--from",
                "zed",
                "ok.jsonl",
            ],
            "--from captures are for JSON-RPC stream protocols (",
        ),
        (
            &[
                "trace",
                "check",
                "--protocol",
                "eca",
                "--from",
                "client",
                "gone.bin",
            ],
            "cannot read gone.bin",
        ),
    ];
    for (args, needle) in cases {
        let (code, stdout, stderr) = agentwire(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stdout, "", "{args:?}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

fn agentloop(id: &str, kind: &str, payload: Value) -> Value {
    json!({"id": id, "type": kind, "payload": payload})
}

fn user_input(id: &str) -> Value {
    let text = json!({"type": "message", "role": "user",
        "content": [{"type": "input_text", "text": "hi"}]});
    agentloop(id, "user_input", json!({"input": [text]}))
}

#[test]
fn an_invalid_message_is_reported_once_and_the_sequence_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // The user_input has an empty id: one schema finding, and the turn still starts.
    let text = trace(&[
        ("client", user_input("")),
        (
            "server",
            agentloop("2", "loading_state", json!({"loading": true})),
        ),
        (
            "server",
            agentloop("3", "loading_state", json!({"loading": false})),
        ),
        (
            "server",
            agentloop("4", "agent_finished", json!({"responseId": "r"})),
        ),
    ]);
    write(dir.path(), "t.jsonl", text);
    let (code, stdout, _) = agentwire(
        dir.path(),
        &["trace", "check", "--protocol", "agentloop", "t.jsonl"],
    );
    assert_eq!(
        lines(&stdout),
        ["t.jsonl:line 1: /message/id: length 0 is below the minimum 1 [min_length 1]"]
    );
    assert_eq!(code, 1);
}

#[test]
fn a_one_sided_capture_is_checked_without_the_missing_replies() {
    let dir = tempfile::tempdir().unwrap();
    // What a client recorded: two turns and a context query, none of the server's replies.
    let text = trace(&[
        ("client", user_input("1")),
        ("client", user_input("2")),
        ("client", agentloop("3", "get_context_info", json!({}))),
    ]);
    write(dir.path(), "client.jsonl", text);
    let args = ["trace", "check", "--protocol", "agentloop", "client.jsonl"];
    let (code, stdout, _) = agentwire(dir.path(), &args);
    assert_eq!(
        code, 1,
        "both sides expected: the replies are missing\n{stdout}"
    );
    let mut one_sided = args.to_vec();
    one_sided.push("--one-sided");
    let (code, stdout, stderr) = agentwire(dir.path(), &one_sided);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert!(
        stdout.starts_with("ok: 3 message(s) in 1 stream(s), ")
            && stdout.ends_with("protocol agentloop (one-sided)\n"),
        "{stdout}"
    );
}

#[test]
fn a_grpc_status_ends_the_stream_and_answers_what_it_left_open() {
    let dir = tempfile::tempdir().unwrap();
    let register = json!({"register": {"agent_id": "agent-1", "name": "a1",
        "capabilities": ["chat"], "protocol_features": []}});
    let refused = json!({"from": "gateway", "status": {"code": "ALREADY_EXISTS",
        "message": "Agent with same ID already connected"}});
    let mut text = trace(&[("agent", register.clone())]);
    text.push_str(&format!("{refused}\n"));
    write(dir.path(), "refused.jsonl", &text);
    let check = |file: &str, protocol: &str| {
        agentwire(
            dir.path(),
            &["trace", "check", "--protocol", protocol, file],
        )
    };
    let (code, stdout, _) = check("refused.jsonl", "coven");
    assert_eq!(code, 0, "{stdout}");
    // Nothing may follow the status; an OK status leaves the registration unanswered.
    text.push_str(&trace(&[("agent", register.clone())]));
    write(dir.path(), "after.jsonl", &text);
    let ok = json!({"from": "gateway", "status": {"code": 0}});
    write(
        dir.path(),
        "ok.jsonl",
        format!("{}{ok}\n", trace(&[("agent", register)])),
    );
    let (_, stdout, _) = check("after.jsonl", "coven");
    assert_eq!(
        lines(&stdout),
        ["after.jsonl:line 3: the stream already ended with status ALREADY_EXISTS at line 2"]
    );
    let (_, stdout, _) = check("ok.jsonl", "coven");
    assert_eq!(
        lines(&stdout),
        [
            "ok.jsonl:end of stream: stream connection in state registering: \
          expected one of gateway.welcome, gateway.registration_error, agent.heartbeat"
        ]
    );
    // Only gRPC traces have statuses.
    write(dir.path(), "ws.jsonl", format!("{refused}\n"));
    let (code, stdout, _) = check("ws.jsonl", "agentloop");
    assert_eq!(code, 1);
    assert_eq!(
        lines(&stdout),
        [
            "ws.jsonl:line 1: /status: protocol agentloop is not gRPC; only gRPC traces record \
          a status [unknown_kind]"
        ]
    );
}

#[test]
fn a_one_sided_eca_capture_of_the_client_passes_with_one_sided() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "client.bin",
        framed("Content-Length", &eca_client()),
    );
    let args = [
        "trace",
        "check",
        "--protocol",
        "eca",
        "--from",
        "client",
        "client.bin",
    ];
    let (code, stdout, _) = agentwire(dir.path(), &args);
    assert_eq!(code, 1, "the server's answers are missing: {stdout}");
    let mut one_sided = args.to_vec();
    one_sided.push("--one-sided");
    let (code, stdout, stderr) = agentwire(dir.path(), &one_sided);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert!(stdout.ends_with("protocol eca (one-sided)\n"), "{stdout}");
    // What no server message could explain is still found: initialized before initialize.
    let mut early = eca_client();
    early.swap(0, 1);
    write(dir.path(), "early.bin", framed("Content-Length", &early));
    let mut args = one_sided.clone();
    args[6] = "early.bin";
    let (code, stdout, _) = agentwire(dir.path(), &args);
    assert_eq!(code, 1);
    assert_eq!(
        lines(&stdout),
        [
            "early.bin:frame 1: lifecycle connection in state start: got client.initialized, \
          expected one of client.initialize"
        ]
    );
}
