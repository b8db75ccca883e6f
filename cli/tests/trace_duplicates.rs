//! `agentwire trace check` reads a key given twice as the skeletons do: the message is refused
//! with rule `duplicate`, never read as the last (or first) of its values.

use std::process::Command;

#[test]
fn a_discriminator_given_twice_is_a_duplicate_finding_in_traces_and_captures() {
    let dir = tempfile::tempdir().unwrap();
    // The campaign's frame: `loading_state` to a first-wins reader, `error` to a last-wins one.
    let frame = r#"{"id":"1","type":"loading_state","type":"error","payload":{"loading":true,"message":"m"}}"#;
    let line = format!("{{\"from\":\"server\",\"message\":{frame}}}\n");
    std::fs::write(dir.path().join("t.jsonl"), line).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .current_dir(dir.path())
        .args(["trace", "check", "--protocol", "agentloop", "t.jsonl"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with("t.jsonl:line 1: /message/type: duplicate key `type` [duplicate]"),
        "{stdout}"
    );

    // The same in a raw Content-Length capture of the eca client.
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","method":"shutdown"}"#;
    let capture = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    std::fs::write(dir.path().join("c.bin"), capture).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .current_dir(dir.path())
        .args([
            "trace",
            "check",
            "--protocol",
            "eca",
            "--from",
            "client",
            "c.bin",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with("c.bin:frame 1: /method: duplicate key `method` [duplicate]"),
        "{stdout}"
    );
}
