//! A throwaway PostgreSQL server for the tests that need one: the distribution's server
//! (installed by `scripts/install-peers`), `initdb` into a temporary directory, started on a
//! free loopback port, one per test process ([`server`]), each test in a database of its own
//! ([`Server::database`]); a machine without the server gets it from
//! `scripts/install-postgres` first. The server is run as `nobody` when the tests run as root
//! (PostgreSQL refuses root), and a watchdog stops it and removes its directory once the
//! test process is gone, so nothing outlives the test binary.

use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The running server of this test process.
#[derive(Debug)]
pub struct Server {
    bin: PathBuf,
    port: u16,
    next_db: AtomicUsize,
}

/// The server shared by every test of this process, started on first use.
pub fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| Server::start().unwrap_or_else(|e| panic!("postgres: {e}")))
}

/// The directory holding `initdb`, `postgres`, `pg_ctl` and `createdb`: Debian puts them in
/// /usr/lib/postgresql/<major>/bin (the newest major wins), other systems on the PATH.
fn bindir() -> Result<PathBuf, String> {
    let mut majors: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let major = e.file_name().to_str()?.parse().ok()?;
            Some((major, e.path().join("bin")))
        })
        .collect();
    majors.sort();
    let from_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    majors
        .into_iter()
        .rev()
        .map(|(_, dir)| dir)
        .chain(from_path)
        .find(|dir| dir.join("initdb").is_file() && dir.join("postgres").is_file())
        .ok_or_else(|| {
            "no PostgreSQL server found (initdb and postgres); run scripts/install-peers".into()
        })
}

fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Runs `program` (from the server's directory) as the server's user.
fn as_server_user(bin: &Path, program: &str) -> Command {
    let path = bin.join(program);
    if running_as_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "nobody", "--"]).arg(path);
        cmd
    } else {
        Command::new(path)
    }
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{what}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

impl Server {
    fn start() -> Result<Self, String> {
        // Like the interop peers: a fresh machine gets the server from the project's script.
        let bin = match bindir() {
            Ok(bin) => bin,
            Err(_) => {
                let script = crate::peers::workspace_root().join("scripts/install-postgres");
                run(&mut Command::new(script), "scripts/install-postgres")?;
                bindir()?
            }
        };
        // A directory of its own under the system temp dir; kept (the watchdog removes it).
        let dir = tempfile::Builder::new()
            .prefix("agentwire-pg-")
            .tempdir()
            .map_err(|e| e.to_string())?
            .keep();
        if running_as_root() {
            run(
                Command::new("chown").args(["nobody"]).arg(&dir),
                "chown the data directory",
            )?;
        }
        let data = dir.join("data");
        run(
            as_server_user(&bin, "initdb")
                .args([
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "-E",
                    "UTF8",
                    "--no-sync",
                    "-D",
                ])
                .arg(&data),
            "initdb",
        )?;
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port()?;
            // No Unix socket (`-k ''`), loopback TCP only; no fsync: a test database.
            let opts = format!(
                "-p {port} -k '' -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
            );
            let started = run(
                as_server_user(&bin, "pg_ctl")
                    .args(["start", "-w", "-t", "60", "-o", &opts, "-l"])
                    .arg(dir.join("log"))
                    .arg("-D")
                    .arg(&data),
                "pg_ctl start",
            );
            match started {
                Ok(()) => {
                    watchdog(&bin, &dir, &data)?;
                    return Ok(Self {
                        bin,
                        port,
                        next_db: AtomicUsize::new(0),
                    });
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// The URL of the server's `postgres` database.
    pub fn admin_url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// A new, empty database; returns its URL.
    pub fn database(&self) -> String {
        let n = self.next_db.fetch_add(1, Ordering::Relaxed);
        let name = format!("t{}_{n}", std::process::id());
        let created = run(
            Command::new(self.bin.join("createdb")).args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
                &name,
            ]),
            "createdb",
        );
        created.unwrap_or_else(|e| panic!("postgres: {e}"));
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }
}

/// Starts a shell that waits for this process to end, then stops the server at once and
/// removes its directory.
fn watchdog(bin: &Path, dir: &Path, data: &Path) -> Result<(), String> {
    let pg_ctl = bin.join("pg_ctl");
    let as_user = if running_as_root() {
        "runuser -u nobody -- "
    } else {
        ""
    };
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; \
         {as_user}'{pg_ctl}' stop -m immediate -D '{data}' >/dev/null 2>&1; rm -rf '{dir}'",
        pid = std::process::id(),
        pg_ctl = pg_ctl.display(),
        data = data.display(),
        dir = dir.display(),
    );
    Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(drop)
        .map_err(|e| format!("watchdog: {e}"))
}
