//! `agentwire mock --listen` over Streamable HTTP, with peers nobody here wrote: the official
//! Python and TypeScript MCP SDK clients connect to the mocked server at its URL (the SDKs
//! check the `initialize` answer, the doc's example with the offered version echoed, and
//! carry the session header the transport hands out); each client's session is a stream of
//! its own, the mock finds nothing wrong with either, and what it printed live is what
//! `trace check` prints on its recording. With `--replay` each HTTP session replays a
//! session recorded between the Python SDK's client and server through `agentwire proxy`:
//! the client prints what it printed against the real server, and a client taking another
//! path is reported where it leaves the recording.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{ChildStderr, Command, Stdio};

use agentwire_tests::peers::{node, on_a_free_port, python};
use serde_json::Value;

fn agentwire() -> &'static str {
    env!("CARGO_BIN_EXE_agentwire")
}

fn spec() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/mcp")
}

fn trace_check(file: &Path) -> Vec<String> {
    let out = Command::new(agentwire())
        .args(["trace", "check", "--spec"])
        .arg(spec())
        .arg(file)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with("ok:"))
        .map(str::to_owned)
        .collect()
}

/// A child killed when the test ends, passed or not.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An `agentwire` command listening on a free port (a mock or a proxy), stopped as Ctrl-C
/// would stop it.
struct Listening {
    child: Killed,
    err: BufReader<ChildStderr>,
    /// The first URL it printed.
    url: String,
}

impl Listening {
    fn start(mut cmd: Command) -> Listening {
        let mut child = Killed(cmd.stderr(Stdio::piped()).spawn().unwrap());
        let mut err = BufReader::new(child.0.stderr.take().unwrap());
        let mut first = String::new();
        err.read_line(&mut first).unwrap();
        let url = first
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in {first:?}"))
            .trim_end_matches(',')
            .to_owned();
        Listening { child, err, url }
    }

    /// SIGTERM; its exit status and the rest of its standard error.
    fn stop(mut self) -> (Option<i32>, String) {
        Command::new("kill")
            .args(["-TERM", &self.child.0.id().to_string()])
            .status()
            .unwrap();
        let mut stderr = String::new();
        self.err.read_to_string(&mut stderr).unwrap();
        (self.child.0.wait().unwrap().code(), stderr)
    }
}

/// `agentwire mock --spec spec/mcp --role server --listen 127.0.0.1:0 --record RECORD`, and
/// `extra`.
fn mock(record: &Path, extra: &[&str]) -> Listening {
    let mut cmd = Command::new(agentwire());
    cmd.args(["mock", "--role", "server", "--listen", "127.0.0.1:0"])
        .arg("--spec")
        .arg(spec())
        .arg("--record")
        .arg(record)
        .args(extra);
    Listening::start(cmd)
}

/// The finding lines of `stderr` that name `file` (or one of its streams).
fn live<'a>(stderr: &'a str, file: &Path) -> Vec<&'a str> {
    let prefix = file.display().to_string();
    stderr.lines().filter(|l| l.starts_with(&prefix)).collect()
}

#[test]
fn the_sdk_clients_over_streamable_http_against_the_mock() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("m.jsonl");
    let mock = mock(&record, &[]);
    let url = mock.url.clone();
    assert!(url.ends_with("/mcp"), "{url}");

    let mut py = python("mcp_client.py");
    py.env("PYTHONWARNINGS", "ignore").args(["http", &url]);
    let py = py.output().unwrap();
    let py_out = String::from_utf8_lossy(&py.stdout);
    // The SDK refuses a version it does not support: the mock echoed the one offered.
    assert!(py_out.contains("ok   protocol version"), "{py_out}");

    let ts = node("mcp_client.js").args(["http", &url]).output().unwrap();
    let ts_out = String::from_utf8_lossy(&ts.stdout);
    assert!(ts_out.starts_with("ok   connected over http"), "{ts_out}");

    let (code, stderr) = mock.stop();
    assert_eq!(code, Some(0), "{stderr}");
    let live = live(&stderr, &record);
    assert_eq!(live, trace_check(&record), "{stderr}");
    assert!(live.is_empty(), "{stderr}");

    let lines: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One stream per client session, each opened with `initialize` and answered with the
    // doc's example.
    let mut streams: Vec<&str> = lines.iter().filter_map(|l| l["stream"].as_str()).collect();
    streams.sort_unstable();
    streams.dedup();
    assert_eq!(streams.len(), 2, "{lines:?}");
    for stream in streams {
        let answer = lines
            .iter()
            .find(|l| l["stream"] == stream && l["from"] == "server")
            .unwrap();
        assert_eq!(
            answer["message"]["result"]["serverInfo"]["name"], "example-server",
            "{answer}"
        );
    }
}

/// Runs `script` (a Python SDK client) over HTTP at `url` with `args`; its standard output.
fn client(script: &str, url: &str, args: &[&str]) -> String {
    let out = python(script)
        .env("PYTHONWARNINGS", "ignore")
        .args(["http", url])
        .args(args)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn replay_over_http_gives_the_sdk_client_the_recorded_server_back() {
    let dir = tempfile::tempdir().unwrap();
    // A session of the Python SDK's client with its server, recorded through the proxy.
    let (server, port) = on_a_free_port(|port| {
        let mut cmd = python("mcp_server.py");
        cmd.args(["http", &port.to_string()])
            .env("PYTHONWARNINGS", "ignore")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd
    });
    let server = Killed(server);
    let recorded = dir.path().join("sdk.jsonl");
    let mut cmd = Command::new(agentwire());
    cmd.args(["proxy", "--protocol", "mcp", "--listen", "127.0.0.1:0"])
        .args(["--upstream", &format!("http://127.0.0.1:{port}/mcp")])
        .arg("--record")
        .arg(&recorded);
    let proxy = Listening::start(cmd);
    let sdk = "python-sdk-peer";
    let original = client("mcp_sdk_client.py", &format!("{}/mcp", proxy.url), &[sdk]);
    proxy.stop();
    drop(server);
    assert!(original.ends_with("all checks passed\n"), "{original}");

    // Its server side, replayed to the same client and then to one taking another path.
    let replayed = dir.path().join("replay.jsonl");
    let recording = recorded.to_str().unwrap();
    let mock = mock(
        &replayed,
        &["--replay", recording, "--replay-timeout", "20"],
    );
    let again = client("mcp_sdk_client.py", &mock.url, &[sdk]);
    let detour = client("mcp_detour_client.py", &mock.url, &[]);
    let (code, stderr) = mock.stop();
    // The client sees the same server: each check comes out as it did against the real one.
    assert_eq!(again, original, "{stderr}");
    assert!(
        detour.starts_with("ok   initialized with python-sdk-peer"),
        "{detour}"
    );
    let deviations: Vec<&str> = stderr.lines().filter(|l| l.contains("replay:")).collect();
    assert_eq!(deviations.len(), 1, "{stderr}");
    assert!(
        deviations[0].starts_with(&format!("{recording}:line "))
            && deviations[0].ends_with(
                "replay: the peer sent a request `prompts/list` where the recording has a request `tools/list`"
            ),
        "{stderr}"
    );
    assert_eq!(code, Some(1), "{stderr}");
    // The findings on the clients' own traffic (the deliberate bad requests) are
    // `trace check`'s on the mock's recording, which holds one stream per session.
    let live = live(&stderr, &replayed);
    assert_eq!(live, trace_check(&replayed), "{stderr}");
    assert!(stderr.contains("in 2 stream(s)"), "{stderr}");
}
