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
