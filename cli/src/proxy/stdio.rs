//! The stdio proxy: spawns the server command and relays this process's standard input to
//! its standard input and its standard output to this process's standard output (its
//! standard error is passed through), recording and checking both directions. The session
//! ends when the server's output ends, or a grace period after the client's input ended (the
//! server is then stopped), or on Ctrl-C / SIGTERM.

use std::ffi::OsString;
use std::process::Stdio;
use std::time::Duration;

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::AsyncWrite;
use tokio::process::{ChildStdin, Command};
use tokio::sync::Mutex;

use super::pump::{Ends, Stop, pump};
use super::rules::Rules;

/// How long the server may take to finish once the client closed its input.
const GRACE: Duration = Duration::from_secs(5);

/// The roles of the two sides.
pub struct Sides<'a> {
    pub client: &'a str,
    pub server: &'a str,
}

/// Runs `command` and relays until the session ends; `Err` when it cannot be started.
pub async fn run(rules: Rules<'_>, sides: Sides<'_>, command: &[OsString]) -> Result<(), String> {
    let (program, args) = command
        .split_first()
        .ok_or("give the server command after `--`")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.to_string_lossy()))?;
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("the server's standard input and output were not piped".into());
    };
    let child_in = Mutex::new(Closing(Some(child_in)));
    let our_out = Mutex::new(agentwire_transport::stdio::stdout());
    let upstream = pump(
        rules,
        sides.client,
        agentwire_transport::stdio::stdin(),
        Ends {
            onward: &child_in,
            back: &our_out,
        },
    );
    let downstream = pump(
        rules,
        sides.server,
        child_out,
        Ends {
            onward: &our_out,
            back: &child_in,
        },
    );
    tokio::pin!(upstream, downstream);
    let mut client_done: Option<tokio::time::Instant> = None;
    let stopped = loop {
        let grace = client_done.map(|t| t + GRACE);
        tokio::select! {
            stop = &mut upstream, if client_done.is_none() => {
                note(sides.client, &stop);
                client_done = Some(tokio::time::Instant::now());
            }
            stop = &mut downstream => {
                note(sides.server, &stop);
                break false;
            }
            () = sleep_until(grace) => break true,
            () = super::signal::stop() => break true,
        }
    };
    if stopped {
        let _ = child.start_kill();
    }
    match tokio::time::timeout(GRACE, child.wait()).await {
        Ok(Ok(status)) if !status.success() && !stopped => {
            eprintln!("agentwire proxy: the server exited with {status}");
        }
        Ok(_) => {}
        Err(_) => {
            let _ = child.start_kill();
        }
    }
    Ok(())
}

/// The server's standard input, closed when it is shut down: a child pipe's own shutdown
/// only flushes, so the server would not see the end of its input until the proxy exits (and
/// a server that stops at the end of its input would be killed after the grace period).
struct Closing(Option<ChildStdin>);

impl AsyncWrite for Closing {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match &mut self.0 {
            Some(w) => Pin::new(w).poll_write(cx, buf),
            None => Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into())),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match &mut self.0 {
            Some(w) => Pin::new(w).poll_flush(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let flushed = match &mut self.0 {
            Some(w) => Pin::new(w).poll_flush(cx),
            None => return Poll::Ready(Ok(())),
        };
        if flushed.is_ready() {
            // Dropping the pipe closes it: the server reads the end of its input.
            self.0 = None;
        }
        flushed
    }
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Says on standard error why a side stopped, unless it simply closed.
fn note(role: &str, stop: &Stop) {
    match stop {
        Stop::Ended => {}
        Stop::ReadFailed(e) => eprintln!("agentwire proxy: reading from the {role} failed: {e}"),
        Stop::WriteFailed(e) => {
            eprintln!("agentwire proxy: relaying the {role}'s traffic failed: {e}")
        }
    }
}
