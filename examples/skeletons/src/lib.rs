//! Runnable peers built on the generated skeletons; each lives in `examples/` and starts
//! with `cargo run --example <name>`. This library holds what they share, so every example
//! takes its address, stops, logs and reports errors the same way:
//!
//! - a server listens on its first argument `[ADDR]` (else `$AGENTWIRE_ADDR`, else its
//!   default) and logs where it listens;
//! - it stops cleanly on `quit`, at the end of its standard input (Ctrl-D) and on Ctrl-C;
//! - logs go to standard error at `info` (or as `RUST_LOG` says), with colour only when that
//!   is a terminal, one line per connection and per exchange;
//! - a failure is printed as one sentence, with a hint where the user can act on it, and the
//!   example exits with status 1.

pub mod a2a;
pub mod acp;
pub mod mcp;
pub mod mcp_auth;
pub mod mcp_example;
pub mod mcp_fixtures;
pub mod mcp_modern;
pub mod mcp_param_headers;

use std::fmt;
use std::io::IsTerminal as _;

/// Logs to standard error at `info` (or as `RUST_LOG` says): the examples' own lines plus the
/// transport's connection events (which it logs at `debug`). ANSI colour only on a terminal,
/// so a log redirected to a file or a pipe stays plain text.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

/// `info`, plus the transport's per-connection events.
pub const DEFAULT_FILTER: &str = "info,agentwire_transport=debug";

/// A failure an example reports: one sentence, printed with `Display`.
#[derive(Debug)]
pub struct Failure(pub String);

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

/// The address a server example listens on: its first argument, else `$AGENTWIRE_ADDR`,
/// else `default`.
pub fn listen_addr(default: &str) -> String {
    std::env::args()
        .nth(1)
        .or_else(|| std::env::var("AGENTWIRE_ADDR").ok())
        .unwrap_or_else(|| default.to_owned())
}

/// Binds `addr`, or says why not with a hint naming the `[ADDR]` argument.
pub async fn bind(addr: &str) -> Result<tokio::net::TcpListener, Failure> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Failure(bind_error(addr, &e)))
}

/// Why `addr` could not be bound, as a sentence with a hint.
pub fn bind_error(addr: &str, e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    let why = match e.kind() {
        K::AddrInUse => format!("address {addr} is in use"),
        K::AddrNotAvailable => format!("address {addr} is not an address of this machine"),
        K::PermissionDenied => format!("no permission to listen on {addr}"),
        K::InvalidInput => format!("`{addr}` is not a HOST:PORT address"),
        _ => format!("cannot listen on {addr}: {e}"),
    };
    format!("{why}; pass another as [ADDR]")
}

/// Why connecting to `target` failed, with a hint to start `server` (an example name) when
/// nothing listens there.
pub fn connect_error(target: &str, server: &str, e: &dyn std::error::Error) -> Failure {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    let refused = text.to_ascii_lowercase().contains("refused");
    Failure(if refused {
        format!(
            "nothing listens at {target}; start the server first (`cargo run --example {server}`) \
             or pass its address"
        )
    } else {
        format!("cannot connect to {target}: {text}")
    })
}

/// Why an example stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Quit,
    EndOfInput,
    CtrlC,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stop::Quit => "`quit` typed",
            Stop::EndOfInput => "end of input",
            Stop::CtrlC => "Ctrl-C",
        })
    }
}

/// The hint every server prints where it says it listens.
pub const STOP_HINT: &str = "type `quit`, end the input (Ctrl-D) or press Ctrl-C to stop";

/// Returns when the user asks to stop: `quit` on standard input, the end of standard input,
/// or Ctrl-C. (A server kept running in the background needs an open standard input, e.g.
/// `sleep infinity | cargo run --example zed_server &`.)
pub async fn wait_for_stop() -> Stop {
    use tokio::io::AsyncBufReadExt as _;
    let stdin = async {
        // The transport's stdin: a read still parked when Ctrl-C stops the example does not
        // hold up the runtime's shutdown.
        let stdin = agentwire_transport::stdio::stdin();
        let mut lines = tokio::io::BufReader::new(stdin).lines();
        loop {
            match lines.next_line().await {
                Ok(Some(line)) if line.trim() == "quit" => return Stop::Quit,
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return Stop::EndOfInput,
            }
        }
    };
    let stop = tokio::select! {
        stop = stdin => stop,
        Ok(()) = tokio::signal::ctrl_c() => Stop::CtrlC,
    };
    tracing::info!(reason = %stop, "stopping");
    stop
}

/// Ends `main`: prints a failure as `NAME: SENTENCE` (its `Display`, never its `Debug`) and
/// exits with status 1.
pub fn exit_on_error<E: fmt::Display>(name: &str, result: Result<(), E>) {
    if let Err(e) = result {
        eprintln!("{name}: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_in_use_names_the_address_and_the_argument() {
        let e = std::io::Error::from(std::io::ErrorKind::AddrInUse);
        assert_eq!(
            bind_error("127.0.0.1:8080", &e),
            "address 127.0.0.1:8080 is in use; pass another as [ADDR]"
        );
    }

    #[tokio::test]
    async fn binding_a_taken_port_fails_with_the_hint() {
        let taken = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = taken.local_addr().unwrap().to_string();
        let e = bind(&addr).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("address {addr} is in use; pass another as [ADDR]")
        );
        let e = bind("not an address").await.unwrap_err();
        assert!(e.to_string().ends_with("; pass another as [ADDR]"), "{e}");
    }
}
