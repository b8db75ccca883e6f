//! The example client's terminals: `terminal/create` starts the command with its output
//! (standard output and error, interleaved as they arrive) kept up to the agent's byte limit,
//! `terminal/output` reads it, `wait_for_exit` waits, `kill` stops the command and keeps the
//! terminal, `release` stops it and forgets the terminal (ACP, "Terminals").

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agentwire_runtime::jsonrpc::RpcError;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt as _};
use tokio::sync::{Notify, watch};

use super::{internal, not_found};

/// Output kept when the agent names no `outputByteLimit`.
const DEFAULT_LIMIT: usize = 1024 * 1024;

/// How a command ended: `exitCode` and `signal`, as ACP's `TerminalExitStatus`.
type Exit = Option<Value>;

/// What the terminal's command printed, cut from the front to stay within `limit` bytes.
#[derive(Debug, Default)]
struct Output {
    text: Vec<u8>,
    truncated: bool,
    limit: usize,
}

impl Output {
    fn push(&mut self, bytes: &[u8]) {
        self.text.extend_from_slice(bytes);
        if self.text.len() > self.limit {
            let mut cut = self.text.len() - self.limit;
            // Cut at a character boundary (ACP: truncation happens at one).
            while cut < self.text.len() && (self.text[cut] & 0xC0) == 0x80 {
                cut += 1;
            }
            self.text.drain(..cut);
            self.truncated = true;
        }
    }
}

struct Terminal {
    output: Arc<Mutex<Output>>,
    exit: watch::Receiver<Exit>,
    kill: Arc<Notify>,
}

/// The terminals of one client, by id.
#[derive(Default)]
pub struct Terminals {
    next: AtomicU64,
    live: Mutex<HashMap<String, Terminal>>,
}

impl std::fmt::Debug for Terminals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let live = self.live.lock().map(|l| l.len()).unwrap_or_default();
        f.debug_struct("Terminals").field("live", &live).finish()
    }
}

impl Terminals {
    /// Starts `params.command` (ACP's `CreateTerminalRequest` as JSON) and returns the new
    /// terminal's id.
    pub fn create(&self, params: &Value) -> Result<String, RpcError> {
        let command = params["command"].as_str().unwrap_or_default();
        let mut cmd = tokio::process::Command::new(command);
        for arg in params["args"].as_array().into_iter().flatten() {
            cmd.arg(arg.as_str().unwrap_or_default());
        }
        for var in params["env"].as_array().into_iter().flatten() {
            let name = var["name"].as_str().unwrap_or_default();
            cmd.env(name, var["value"].as_str().unwrap_or_default());
        }
        if let Some(cwd) = params["cwd"].as_str() {
            cmd.current_dir(cwd);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .map_err(|e| internal(format!("cannot start `{command}`: {e}")))?;
        let limit = params["outputByteLimit"]
            .as_u64()
            .and_then(|l| usize::try_from(l).ok())
            .unwrap_or(DEFAULT_LIMIT);
        let output = Arc::new(Mutex::new(Output {
            limit,
            ..Output::default()
        }));
        let readers = [
            child.stdout.take().map(|o| collect(o, Arc::clone(&output))),
            child.stderr.take().map(|e| collect(e, Arc::clone(&output))),
        ];
        let (tx, exit) = watch::channel(None);
        let kill = Arc::new(Notify::new());
        let stop = Arc::clone(&kill);
        tokio::spawn(async move {
            let status = tokio::select! {
                status = child.wait() => status,
                () = stop.notified() => {
                    let _ = child.start_kill();
                    child.wait().await
                }
            };
            for reader in readers.into_iter().flatten() {
                let _ = reader.await;
            }
            let _ = tx.send(Some(exit_status(status)));
        });
        let id = format!("term-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let terminal = Terminal { output, exit, kill };
        self.lock().insert(id.clone(), terminal);
        Ok(id)
    }

    /// `terminal/output`: the output so far, whether it was cut, and the exit status once
    /// the command ended.
    pub fn output(&self, id: &str) -> Result<Value, RpcError> {
        let live = self.lock();
        let terminal = live.get(id).ok_or_else(|| unknown(id))?;
        let out = terminal.output.lock().unwrap_or_else(|e| e.into_inner());
        let mut answer = json!({
            "output": String::from_utf8_lossy(&out.text),
            "truncated": out.truncated
        });
        if let Some(exit) = terminal.exit.borrow().clone() {
            answer["exitStatus"] = exit;
        }
        Ok(answer)
    }

    /// `terminal/wait_for_exit`: waits for the command to end.
    pub async fn wait_for_exit(&self, id: &str) -> Result<Value, RpcError> {
        let mut exit = self.lock().get(id).ok_or_else(|| unknown(id))?.exit.clone();
        let status = exit
            .wait_for(Option::is_some)
            .await
            .map_err(|_| internal(format!("terminal {id} ended without a status")))?;
        Ok(status.clone().unwrap_or_default())
    }

    /// `terminal/kill`: stops the command; the terminal stays.
    pub fn kill(&self, id: &str) -> Result<(), RpcError> {
        self.lock()
            .get(id)
            .ok_or_else(|| unknown(id))?
            .kill
            .notify_one();
        Ok(())
    }

    /// `terminal/release`: stops the command if it runs and forgets the terminal.
    pub fn release(&self, id: &str) -> Result<(), RpcError> {
        let terminal = self.lock().remove(id).ok_or_else(|| unknown(id))?;
        terminal.kill.notify_one();
        Ok(())
    }

    /// How many terminals are not released.
    pub fn live(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Terminal>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn unknown(id: &str) -> RpcError {
    not_found(format!("terminal {id}"))
}

/// Reads `from` to its end into `output`.
fn collect(
    mut from: impl AsyncRead + Unpin + Send + 'static,
    output: Arc<Mutex<Output>>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut buf = [0u8; 4096];
        while let Ok(n) = from.read(&mut buf).await {
            if n == 0 {
                break;
            }
            output
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(&buf[..n]);
        }
    })
}

/// ACP's `TerminalExitStatus` of a finished command.
fn exit_status(status: std::io::Result<std::process::ExitStatus>) -> Value {
    use std::os::unix::process::ExitStatusExt as _;
    match status {
        Ok(s) => json!({
            "exitCode": s.code(),
            "signal": s.signal().map(signal_name)
        }),
        Err(_) => json!({"exitCode": null, "signal": null}),
    }
}

fn signal_name(signal: i32) -> String {
    match signal {
        9 => "SIGKILL".to_owned(),
        15 => "SIGTERM".to_owned(),
        2 => "SIGINT".to_owned(),
        n => format!("signal {n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_over_the_limit_keeps_the_tail_at_a_character_boundary() {
        let mut out = Output {
            limit: 4,
            ..Output::default()
        };
        out.push("abé".as_bytes());
        assert!(!out.truncated);
        out.push(b"xy");
        assert!(out.truncated);
        assert_eq!(String::from_utf8(out.text).unwrap(), "éxy");
    }

    #[tokio::test]
    async fn a_command_runs_is_waited_for_and_released() {
        let terminals = Terminals::default();
        let id = terminals
            .create(&json!({"sessionId": "s", "command": "echo", "args": ["hi"]}))
            .unwrap();
        let exit = terminals.wait_for_exit(&id).await.unwrap();
        assert_eq!(exit["exitCode"], 0);
        assert_eq!(terminals.output(&id).unwrap()["output"], "hi\n");
        terminals.release(&id).unwrap();
        assert_eq!(terminals.output(&id).unwrap_err().code, -32002);
        assert_eq!(terminals.live(), 0);
    }

    #[tokio::test]
    async fn a_killed_command_reports_its_signal() {
        let terminals = Terminals::default();
        let id = terminals
            .create(&json!({"sessionId": "s", "command": "sleep", "args": ["30"]}))
            .unwrap();
        terminals.kill(&id).unwrap();
        let exit = terminals.wait_for_exit(&id).await.unwrap();
        assert_eq!(exit["signal"], "SIGKILL", "{exit}");
        assert!(terminals.output(&id).unwrap()["exitStatus"].is_object());
    }
}
