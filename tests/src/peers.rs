//! Third-party interop peers: makes sure they are installed (by `scripts/install-peers`,
//! the same script `.ci/run` calls) and hands out the commands that run them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The workspace root (this crate lives in `tests/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Where cargo builds (`CARGO_TARGET_DIR`, else `target/` in the workspace).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// Runs the install script once per test process; it is idempotent and locks against the
/// other test binaries doing the same. Panics (failing the test) with the script's output
/// when a registry cannot be reached: an interop test must not pass without its peer.
pub fn ensure_installed() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let out = Command::new(workspace_root().join("scripts/install-peers"))
            .output()
            .expect("run scripts/install-peers");
        assert!(
            out.status.success(),
            "scripts/install-peers failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

/// `python` of the peers' virtual environment, running `peers/python/<script>`.
pub fn python(script: &str) -> Command {
    ensure_installed();
    let mut cmd = Command::new(target_dir().join("peers/venv/bin/python"));
    cmd.arg(workspace_root().join("peers/python").join(script));
    cmd
}

/// `python` of MCP's Python SDK 2.x environment (`target/peers/venv-mcp2`, apart from the 1.x
/// of [`python`]), running `peers/python/<script>`.
pub fn python_mcp2(script: &str) -> Command {
    ensure_installed();
    let mut cmd = Command::new(target_dir().join("peers/venv-mcp2/bin/python"));
    cmd.arg(workspace_root().join("peers/python").join(script));
    cmd
}

/// `node` running `peers/node/<script>`, resolving packages from the installed npm folder.
pub fn node(script: &str) -> Command {
    ensure_installed();
    let mut cmd = Command::new("node");
    cmd.env("NODE_PATH", target_dir().join("peers/node/node_modules"));
    cmd.arg(workspace_root().join("peers/node").join(script));
    cmd
}

/// Starts the peer `command(port)` builds on a free port, for peers that take a port number
/// and cannot pick one themselves: a port another test took in between makes the peer exit,
/// and it is started again on a fresh one. Returns the child and its port once the port
/// accepts connections (the peer has 60 s to get there).
pub fn on_a_free_port(command: impl Fn(u16) -> Command) -> (std::process::Child, u16) {
    use std::time::{Duration, Instant};
    for _ in 0..5 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut child = command(port).spawn().expect("start the peer");
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return (child, port);
            }
            if child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!("the peer never listened on a port of its own");
}
