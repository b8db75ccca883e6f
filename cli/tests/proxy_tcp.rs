//! `agentwire proxy --listen --upstream tcp://…`: JSON-RPC over a socket in the spec's
//! framing, relayed byte for byte to an upstream this test plays (it answers every request
//! with an empty result); the live findings are `trace check`'s on the recording, and a
//! connection that sends garbage costs only itself.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

fn agentwire() -> &'static str {
    env!("CARGO_BIN_EXE_agentwire")
}

/// An upstream answering each request line with `{}` as its result, per connection.
fn upstream() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for socket in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut out = socket.try_clone().unwrap();
                for line in BufReader::new(socket).lines().map_while(Result::ok) {
                    let Ok(v) = serde_json::from_str::<Value>(&line) else {
                        continue;
                    };
                    if v.get("id").is_some() && v.get("method").is_some() {
                        let a = serde_json::json!({"jsonrpc": "2.0", "id": v["id"], "result": {}});
                        let _ = writeln!(out, "{a}");
                    }
                }
            });
        }
    });
    port
}

fn ask(port: u16, send: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(send.as_bytes()).unwrap();
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line).unwrap();
    line
}

#[test]
fn json_rpc_over_tcp_is_relayed_and_checked() {
    let up = upstream();
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("s.jsonl");
    let mut proxy = Command::new(agentwire())
        .args(["proxy", "--protocol", "mcp", "--listen", "127.0.0.1:0"])
        .arg("--upstream")
        .arg(format!("tcp://127.0.0.1:{up}"))
        .arg("--record")
        .arg(&record)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(proxy.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let port: u16 = first
        .split("tcp://127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{first}"));
    // Garbage on one connection (the upstream answers nothing to it) costs only that one.
    let mut bad = TcpStream::connect(("127.0.0.1", port)).unwrap();
    bad.write_all(b"\xff\xfe not a frame\n{oops\n").unwrap();
    let answer = ask(port, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n");
    assert_eq!(answer, "{\"id\":7,\"jsonrpc\":\"2.0\",\"result\":{}}\n");
    drop(bad);
    std::thread::sleep(Duration::from_millis(300));
    Command::new("kill")
        .args(["-TERM", &proxy.id().to_string()])
        .status()
        .unwrap();
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    assert_eq!(proxy.wait().unwrap().code(), Some(1), "{rest}");
    // Each connection is a stream of its own: `FILE#N:line ...`.
    let prefix = format!("{}#", record.display());
    let live: Vec<&str> = rest.lines().filter(|l| l.starts_with(&prefix)).collect();
    let checked = Command::new(agentwire())
        .args(["trace", "check", "--protocol", "mcp"])
        .arg(&record)
        .output()
        .unwrap();
    let checked = String::from_utf8_lossy(&checked.stdout).into_owned();
    let checked: Vec<&str> = checked.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(live, checked, "{rest}");
    assert!(live.iter().any(|l| l.contains("not UTF-8")), "{live:?}");
    // The garbage is the first connection's alone.
    assert!(live.iter().all(|l| l.contains("#1:")), "{live:?}");
    assert!(rest.contains("in 2 stream(s)"), "{rest}");
}
