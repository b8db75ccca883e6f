//! `agentwire proxy --listen --upstream ws://…` with a peer nobody here wrote: the Python
//! `websockets` helix client reaches the example Zed server through the proxy, its checks
//! all pass, and the findings the proxy prints live (the client's deliberate bad frames)
//! are exactly `trace check`'s on the recording. With `--enforce` the bad frames never reach
//! the server and the client still passes; a page of another site gets 403 at the handshake.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agentwire_tests::examples::example_binary;
use agentwire_tests::peers::python;

fn agentwire() -> &'static str {
    env!("CARGO_BIN_EXE_agentwire")
}

/// The example Zed server on a free port; killed on drop.
struct Upstream {
    child: Child,
    port: u16,
}

impl Upstream {
    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(example_binary("zed_server"))
            .arg(format!("127.0.0.1:{port}"))
            .env("RUST_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start zed_server");
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "zed_server did not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Upstream { child, port }
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a proxy in front of `up` through which `client` runs; returns the proxy's exit
/// status and standard error.
fn through_the_proxy(up: &Upstream, record: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut proxy = Command::new(agentwire())
        .args([
            "proxy",
            "--protocol",
            "helix_zed",
            "--listen",
            "127.0.0.1:0",
        ])
        .arg("--upstream")
        .arg(format!("ws://127.0.0.1:{}/", up.port))
        .arg("--record")
        .arg(record)
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(proxy.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let base = first
        .split_whitespace()
        .find(|w| w.starts_with("ws://"))
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .trim_end_matches(',')
        .to_owned();
    let out = python("helix_client.py")
        .arg(format!("{base}/"))
        .output()
        .expect("the client runs");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // A page of another site is refused at the handshake.
    let evil = Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}"])
        .args(["-H", "Origin: http://evil.example"])
        .args(["-H", "Connection: Upgrade", "-H", "Upgrade: websocket"])
        .args(["-H", "Sec-WebSocket-Version: 13"])
        .args(["-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="])
        .arg(base.replace("ws://", "http://"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&evil.stdout), "403");
    Command::new("kill")
        .args(["-TERM", &proxy.id().to_string()])
        .status()
        .unwrap();
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    (proxy.wait().unwrap().code(), rest)
}

/// `trace check` on `file`: its finding lines, without the summary.
fn trace_check(file: &Path) -> Vec<String> {
    let out = Command::new(agentwire())
        .args(["trace", "check", "--protocol", "helix_zed"])
        .arg(file)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("ok:"))
        .map(str::to_owned)
        .collect()
}

fn live(stderr: &str, file: &Path) -> Vec<String> {
    let prefix = file.display().to_string();
    stderr
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_python_helix_client_through_the_websocket_proxy() {
    let up = Upstream::start();
    let dir = tempfile::tempdir().unwrap();
    for (name, extra) in [
        ("plain.jsonl", &[][..]),
        ("enforced.jsonl", &["--enforce"][..]),
    ] {
        let record = dir.path().join(name);
        let (code, stderr) = through_the_proxy(&up, &record, extra);
        let live = live(&stderr, &record);
        assert_eq!(live, trace_check(&record), "{stderr}");
        assert_eq!(code, Some(1), "{stderr}");
        // The client's four bad frames, each a finding of its connection's stream.
        assert!(live.iter().all(|l| l.contains("#1:line ")), "{live:?}");
        assert!(live.iter().any(|l| l.contains("invalid JSON")), "{live:?}");
        assert!(
            live.iter().any(|l| l.contains("binary message")),
            "{live:?}"
        );
        assert!(live.iter().any(|l| l.contains("no_such_kind")), "{live:?}");
        let recorded = std::fs::read_to_string(&record).unwrap();
        assert!(
            recorded.contains("\"event_type\":\"message_completed\""),
            "{recorded}"
        );
    }
}

/// A proxy in front of `up` with `extra` arguments; its listening address (`HOST:PORT`).
fn proxy(up: &Upstream, extra: &[&str]) -> (Child, String) {
    let mut proxy = Command::new(agentwire())
        .args([
            "proxy",
            "--protocol",
            "helix_zed",
            "--listen",
            "127.0.0.1:0",
        ])
        .arg("--upstream")
        .arg(format!("ws://127.0.0.1:{}/", up.port))
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(proxy.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let addr = first
        .split_whitespace()
        .find_map(|w| w.strip_prefix("ws://"))
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .trim_end_matches(',')
        .to_owned();
    // The rest of standard error is drained so that the proxy never blocks on it.
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    (proxy, addr)
}

/// A WebSocket client's handshake on a plain socket; the socket once the proxy switched.
fn handshake(addr: &str) -> TcpStream {
    use std::io::Write;
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    s
}

/// Reads until the proxy closes the socket; the close code of its close frame, if it sent
/// one first.
fn closed_with(s: &mut TcpStream) -> Option<u16> {
    let mut all = Vec::new();
    let _ = s.read_to_end(&mut all);
    // A close frame from a server: 0x88, an unmasked length, then the code.
    let at = all.windows(2).position(|w| w[0] == 0x88 && w[1] >= 2)?;
    all.get(at + 2..at + 4)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
}

#[test]
fn a_connection_gone_silent_is_closed_after_the_idle_timeout() {
    use std::io::Write;
    let up = Upstream::start();
    let (mut proxy, addr) = proxy(&up, &["--idle-timeout", "1"]);
    // A client that says nothing after its handshake is closed, with "going away".
    let mut silent = handshake(&addr);
    silent
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let start = Instant::now();
    assert_eq!(closed_with(&mut silent), Some(1001));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "{took:?}"
    );
    // A client that pings every 300 ms is never idle: open after 2.5 s, closed 1 s after it
    // stops.
    let mut pinging = handshake(&addr);
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(2_500) {
        // A masked ping with an empty payload.
        pinging.write_all(&[0x89, 0x80, 0, 0, 0, 0]).unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
    pinging
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let stopped = Instant::now();
    assert_eq!(closed_with(&mut pinging), Some(1001));
    assert!(stopped.elapsed() < Duration::from_secs(5));
    assert!(start.elapsed() >= Duration::from_millis(3_000));
    // The proxy itself goes on.
    drop(handshake(&addr));
    let _ = proxy.kill();
    let _ = proxy.wait();
}
