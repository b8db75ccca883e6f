//! `agentwire proxy`: sits on the wire between two peers of a protocol, relays their traffic
//! unchanged, records it as a trace `trace check` reads, and prints each finding as it is
//! made. The modules: `split` cuts byte streams into frames, `record` writes trace lines,
//! `session` checks them, `verdict` decides a message's fate, `rules` holds how a session behaves, `pump` relays one direction
//! of a byte stream, `refuse` builds `--enforce`'s answers, `ci` writes `--report` files.
//! The transports: `stdio` runs a server command, `tcp` relays sockets (JSON-RPC in either
//! framing), `http` is a Streamable HTTP reverse proxy (SSE streams cut by `events`), `ws`
//! relays WebSocket connections (and, for HTTP + WebSocket, `exchange` the HTTP requests).
//! `sessions` tells which stream an HTTP exchange belongs to.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use agentwire_runtime::framing::DEFAULT_MAX_FRAME_SIZE;
use agentwire_runtime::registry::{Framing as WireFraming, Protocol, TransportKind};
use clap::Args;

mod ci;
mod events;
mod exchange;
mod http;
mod pump;
pub(crate) mod record;
pub(crate) mod refuse;
mod rules;
pub(crate) mod session;
mod sessions;
pub(crate) mod signal;
pub(crate) mod split;
mod stdio;
mod tcp;
mod verdict;
mod ws;

use ci::ReportFormat;
use rules::Rules;
pub(crate) use rules::other_role;
use session::Session;
use split::Framing;

/// Exit status of a usage error.
const USAGE: u8 = 2;

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("which").required(true).args(["protocol", "spec"]))]
pub struct ProxyArgs {
    /// The protocol the traffic belongs to (any registered protocol).
    #[arg(long, value_name = "NAME")]
    protocol: Option<String>,

    /// A spec folder (holding protocol.yaml) to check against instead, read when the command
    /// runs.
    #[arg(long, value_name = "DIR", conflicts_with = "protocol")]
    spec: Option<PathBuf>,

    /// Write both directions to FILE as a JSON Lines trace (`trace check` reads it).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    /// Do not forward a message that fails its check: answer its sender in the protocol's
    /// own error form instead.
    #[arg(long)]
    enforce: bool,

    /// At the end of the session, write its findings to FILE as `junit`, `sarif` or `json`.
    #[arg(long, num_args = 2, value_names = ["FORMAT", "FILE"])]
    report: Vec<String>,

    /// The role of the side that connects (stdio: this process's input); the protocol's
    /// first role by default.
    #[arg(long, value_name = "ROLE")]
    client_role: Option<String>,

    /// The role of the side that is connected to (stdio: the command); the protocol's
    /// second role by default.
    #[arg(long, value_name = "ROLE")]
    server_role: Option<String>,

    /// Largest frame checked and recorded (and, with --enforce, forwarded).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FRAME_SIZE)]
    max_frame_size: usize,

    /// Seconds a started frame has to arrive whole; then its start is given up.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    frame_timeout: u64,

    /// Seconds a side has to take what is written to it; then the session ends.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    write_timeout: u64,

    /// Seconds a WebSocket connection may carry no message in either direction (a ping
    /// counts); then the proxy closes both sides (close code 1001).
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    idle_timeout: u64,

    /// Listen on ADDR (`HOST:PORT`; port 0 picks one, printed at start) and relay each
    /// connection to --upstream, instead of running a server command over stdio.
    #[arg(long, value_name = "ADDR", requires = "upstream")]
    listen: Option<String>,

    /// Where --listen relays to: `http://HOST:PORT[/PATH]` for a JSON-RPC protocol over
    /// Streamable HTTP (a PATH sends every request there), `tcp://HOST:PORT` for JSON-RPC
    /// over a socket in the spec's framing, `ws://HOST:PORT[/PATH]` for a WebSocket or
    /// HTTP + WebSocket protocol.
    #[arg(long, value_name = "URL", requires = "listen")]
    upstream: Option<String>,

    /// The header naming an HTTP session (each session is checked as a stream of its own);
    /// by default any header whose name ends in `session-id`.
    #[arg(long, value_name = "NAME", requires = "listen")]
    session_header: Option<String>,

    /// The server command and its arguments (stdio), after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

pub const ABOUT: &str = "\
Relay a session between two peers of a protocol, unchanged, while recording it and checking
it against the protocol's schemas and sequence rules. Over stdio the server command is
spawned and this process's standard input and output are relayed to it:

  agentwire proxy --spec ./spec/chat --record session.jsonl -- my-chat-server --stdio

Every finding is printed on standard error as it is made, in the words `trace check` uses,
pointing at the line of the recording that holds the message (`trace check` on the
recording prints the same findings). With --enforce a message that fails is not forwarded:
a JSON-RPC request is answered with an error response carrying its id (-32601 unknown
method, -32602 bad params, -32600 otherwise, -32700 a frame that is not JSON), a failed
answer goes to the side that asked as an error for its id, a notification is dropped.

Frames are checked up to --max-frame-size bytes (a longer one is forwarded unchecked, or
dropped with --enforce, and reported); a frame must arrive whole within --frame-timeout. A
WebSocket connection silent both ways for --idle-timeout is closed.

Exit status:
  0  the session ended with no finding
  1  at least one finding
  2  usage error: bad arguments, an unknown protocol, a command that cannot start";

/// Runs `agentwire proxy`; returns the exit status.
pub fn run(registry: &[&'static dyn Protocol], args: &ProxyArgs, err: &mut dyn Write) -> u8 {
    match setup(registry, args) {
        Ok(setup) => relay(setup, args, err),
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            USAGE
        }
    }
}

/// What the arguments resolve to before any traffic.
struct Setup {
    protocol: &'static dyn Protocol,
    client: &'static str,
    server: &'static str,
    report: Option<(ReportFormat, PathBuf)>,
}

fn setup(registry: &[&'static dyn Protocol], args: &ProxyArgs) -> Result<Setup, String> {
    let protocol: &'static dyn Protocol = match (&args.spec, &args.protocol) {
        // One interpreter per proxy run, for the life of the process.
        (Some(dir), _) => Box::leak(Box::new(
            crate::protocol_arg::interpret(dir).map_err(|e| e.1)?,
        )),
        (None, Some(name)) => {
            crate::protocol_arg::find_protocol(registry, name).map_err(|e| e.1)?
        }
        (None, None) => return Err("give --protocol NAME or --spec DIR".into()),
    };
    if protocol.checker().is_none() {
        return Err(format!(
            "protocol {} has no machine.yaml to check against",
            protocol.name()
        ));
    }
    let role = |given: &Option<String>, i: usize| -> Result<&'static str, String> {
        let roles = protocol.roles();
        let found = match given {
            Some(r) => roles.iter().find(|x| *x == r),
            None => roles.get(i),
        };
        found.copied().ok_or_else(|| {
            format!(
                "protocol {} has the roles {}",
                protocol.name(),
                roles.join(", ")
            )
        })
    };
    let report = match args.report.as_slice() {
        [] => None,
        [format, file] => {
            let format = <ReportFormat as clap::ValueEnum>::from_str(format, true)
                .map_err(|_| format!("--report takes junit, sarif or json, not `{format}`"))?;
            Some((format, PathBuf::from(file)))
        }
        _ => return Err("--report takes FORMAT FILE".into()),
    };
    Ok(Setup {
        protocol,
        client: role(&args.client_role, 0)?,
        server: role(&args.server_role, 1)?,
        report,
    })
}

/// The framing of a byte stream carrying `p` (JSON text protocols: a message per line).
pub(crate) fn stream_framing(p: &dyn Protocol) -> Result<Framing, String> {
    match p.framing() {
        WireFraming::ContentLength => Ok(Framing::ContentLength),
        WireFraming::Newline | WireFraming::JsonText => Ok(Framing::Lines),
        _ => Err(format!(
            "protocol {} is framed as {}, which a byte stream does not carry",
            p.name(),
            p.framing().as_str()
        )),
    }
}

/// Runs the session, then reports what it found.
fn relay(setup: Setup, args: &ProxyArgs, err: &mut dyn Write) -> u8 {
    let recorder = match &args.record {
        Some(path) => match record::Recorder::create(path) {
            Ok(r) => Some(r),
            Err(e) => {
                let _ = writeln!(err, "error: cannot write {}: {e}", path.display());
                return USAGE;
            }
        },
        None => None,
    };
    let file = args
        .record
        .as_ref()
        .map_or_else(|| "proxy".to_owned(), |p| p.display().to_string());
    // Shared with every connection of a network proxy for the life of the process.
    let session: &'static Session = Box::leak(Box::new(Session::new(
        setup.protocol,
        &file,
        recorder,
        Box::new(std::io::stderr()),
    )));
    let framing = match stream_framing(setup.protocol) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return USAGE;
        }
    };
    let rules = Rules {
        protocol: setup.protocol,
        session,
        stream: None,
        enforce: args.enforce,
        framing,
        max_frame_size: args.max_frame_size,
        frame_timeout: Duration::from_secs(args.frame_timeout.max(1)),
        write_timeout: Duration::from_secs(args.write_timeout.max(1)),
        idle_timeout: Duration::from_secs(args.idle_timeout.max(1)),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = writeln!(err, "error: no async runtime: {e}");
            return USAGE;
        }
    };
    let sides = stdio::Sides {
        client: setup.client,
        server: setup.server,
    };
    let ran = runtime.block_on(transport(rules, sides, args));
    if let Err(e) = ran {
        let _ = writeln!(err, "error: {e}");
        return USAGE;
    }
    finish(session, setup.protocol, setup.report.as_ref(), err)
}

/// Relays over the transport the spec's kind and the arguments name.
async fn transport(
    rules: Rules<'static>,
    sides: stdio::Sides<'static>,
    args: &ProxyArgs,
) -> Result<(), String> {
    let p = rules.protocol;
    let (Some(listen), Some(upstream)) = (&args.listen, &args.upstream) else {
        return stdio::run(rules, sides, &args.command).await;
    };
    if !args.command.is_empty() {
        return Err("give either a server command or --listen and --upstream".into());
    }
    let web = upstream.starts_with("http://") || upstream.starts_with("https://");
    match p.transport() {
        TransportKind::JsonRpc if web => {
            let header = args.session_header.as_deref();
            http::run(rules, sides, listen, upstream, header).await
        }
        TransportKind::JsonRpc => tcp::run(rules, sides, listen, upstream).await,
        TransportKind::WebSocket => ws::run(rules, sides, listen, upstream, false).await,
        TransportKind::HttpWebSocket => ws::run(rules, sides, listen, upstream, true).await,
        kind => Err(format!(
            "protocol {} runs over {}, which --listen does not relay yet",
            p.name(),
            kind.as_str()
        )),
    }
}

/// Ends the session: end-of-stream findings, the summary line, the report file.
pub(crate) fn finish(
    session: &Session,
    protocol: &dyn Protocol,
    report: Option<&(ReportFormat, PathBuf)>,
    err: &mut dyn Write,
) -> u8 {
    let outcome = session.finish();
    let mut summary = crate::report::Summary {
        protocol: protocol.name().to_owned(),
        ..Default::default()
    };
    for stats in &outcome.stats {
        summary.streams += 1;
        summary.messages += stats.messages;
        summary.instances += stats.instances;
        if let Some(v) = &stats.version {
            summary.add_version(v);
        }
    }
    if outcome.total == 0 {
        let _ = writeln!(err, "ok: {}", summary.sentence());
    } else {
        let _ = writeln!(
            err,
            "{} finding(s) in {}",
            outcome.total,
            summary.sentence()
        );
    }
    if let Some((format, path)) = report
        && let Err(e) = ci::write(*format, path, &outcome, &summary)
    {
        let _ = writeln!(err, "error: cannot write {}: {e}", path.display());
        return USAGE;
    }
    u8::from(outcome.total > 0)
}
