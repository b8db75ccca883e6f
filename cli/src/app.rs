//! The `agentwire` command line over any registry of protocols. `agentwire trace check`
//! checks recorded sessions against a protocol's message schemas and sequence rules and
//! prints one line per problem found.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

use agentwire_runtime::framing::DEFAULT_MAX_FRAME_SIZE;
use agentwire_runtime::registry::{Framing, Protocol};
use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::check::{self, Capture, Finding, Format};

#[derive(Debug, Parser)]
#[command(
    name = "agentwire",
    version,
    about = "Tools for agentwire's agent protocols."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Work with recorded sessions.
    #[command(subcommand)]
    Trace(TraceCommand),
}

#[derive(Debug, Subcommand)]
enum TraceCommand {
    /// Check recorded sessions against a protocol's schemas and sequence rules.
    #[command(long_about = CHECK_ABOUT, after_long_help = CHECK_DETAILS)]
    Check(CheckArgs),
}

const CHECK_ABOUT: &str = "\
Check recorded sessions against a protocol's message schemas and sequence rules.

Each FILE is a JSON Lines trace, one {\"from\": ROLE, \"message\": ...} (or {\"from\": ROLE,
\"http\": {...}}) per line, and is checked as a stream of its own. Every problem is printed on
standard output as one line:

  FILE:line N: invalid JSON: ...
  FILE:line N: POINTER: MESSAGE [RULE]               (a message breaks its schema)
  FILE:line N: MACHINE KEY in state S: got X, expected one of Y, Z
  FILE:line N: MACHINE KEY in state S: got X, but CHECK does not hold
  FILE:end of stream: MACHINE KEY in state S: expected one of Y, Z

A message that breaks its schema is reported once and still counts as arrived for the
sequence check (its failing values read as the nearest valid ones), so it does not make every
later message a violation. With --one-sided (a capture of some senders only), a violation that
a message of an absent sender could have prevented is not reported.

On success one line says what was checked (messages, streams, sequence instances, protocol);
otherwise the same line goes to standard error after the count of findings.

Exit status: 0 when nothing was found, 1 when anything was, 2 on a usage error (bad
arguments, a file that cannot be read).";

const CHECK_DETAILS: &str = "\
Captures of one connection, one file per sender (protocols with Content-Length framing):

  agentwire trace check --protocol eca --from client client.bin --from server server.bin

Each capture is either Content-Length framed bytes as sent on the wire, or JSON Lines with
one bare message per line; the format is told by the first bytes. Findings point at
FILE:frame N (or FILE:line N), framing errors that lose the frame boundary at FILE:byte
OFFSET, and end-of-stream findings at the capture files joined by '+'. Decoding and framing findings come first, capture
by capture, then sequence findings in the merged order.

The captures together are checked as one stream. Since separate captures do not record
which direction came first, they are merged by this rule:
  1. each capture keeps its own order;
  2. the k-th response with an id waits until the k-th request with that id from the
     other side has been taken (a response nobody asked for does not wait);
  3. the side whose first message is a request starts (else the first --from given); a
     side keeps the turn through its notifications (and responses nobody asked for) and
     passes it after each request it sends and each response that answers one, or when
     its next message must wait or it has none left;
  4. if both sides must wait (no real connection could do that), the side holding the
     turn goes anyway.
A finding that depends only on how notifications of the two directions interleave may come
from the merge rather than the connection; record a JSON Lines trace to be sure.";

#[derive(Debug, Args)]
struct CheckArgs {
    /// The protocol module the traffic belongs to (any registered protocol).
    #[arg(long, value_name = "NAME")]
    protocol: String,

    /// JSON Lines traces, each checked on its own.
    #[arg(value_name = "FILE", required_unless_present = "from")]
    files: Vec<PathBuf>,

    /// A capture of what ROLE sent (repeatable, one per role); all of them form one stream.
    #[arg(long = "from", num_args = 2, value_names = ["ROLE", "FILE"])]
    from: Vec<String>,

    /// The traffic was captured on one side only (some senders' messages are missing): a
    /// violation a missing sender's message could have prevented is not reported, and the
    /// check goes on as if that message had come.
    #[arg(long)]
    one_sided: bool,

    /// Largest Content-Length accepted in a framed capture.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FRAME_SIZE)]
    max_frame_size: usize,
}

/// Runs the command line `args` (the program name first) against the protocols of
/// `registry`, writing findings to `out`. Returns the exit status (0: nothing found, 1:
/// findings), or the usage error to report (exit status 2; `--help` and `--version` come
/// back this way too, as clap reports them).
pub fn run<I, T>(
    registry: &[&dyn Protocol],
    args: I,
    out: &mut dyn Write,
) -> Result<u8, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = Cli::try_parse_from(args)?;
    let Command::Trace(TraceCommand::Check(args)) = cli.command;
    let (findings, summary) = find_protocol(registry, &args.protocol)
        .and_then(|p| trace_check(registry, p, &args))
        .map_err(|(kind, message)| {
            let mut cmd = Cli::command();
            let sub = cmd
                .find_subcommand_mut("trace")
                .and_then(|t| t.find_subcommand_mut("check"))
                .map(|c| c.clone().bin_name("agentwire trace check"));
            match sub {
                Some(mut c) => c.error(kind, message),
                None => cmd.error(kind, message),
            }
        })?;
    for f in &findings {
        // A closed pipe (`| head`) only means nobody reads the rest.
        if writeln!(out, "{f}").is_err() {
            break;
        }
    }
    if findings.is_empty() {
        // Success says what was checked, so it cannot be mistaken for checking nothing.
        let _ = writeln!(out, "ok: {summary}");
    } else {
        eprintln!("{} finding(s) in {summary}", findings.len());
    }
    let _ = out.flush();
    Ok(if findings.is_empty() { 0 } else { 1 })
}

/// The registered protocol named `name`, or a usage error listing the known ones.
fn find_protocol<'a>(
    registry: &[&'a dyn Protocol],
    name: &str,
) -> Result<&'a dyn Protocol, UsageError> {
    // `my-proto` is accepted for `my_proto`, as a shell user may type it.
    let found = agentwire_runtime::registry::find(registry, name)
        .or_else(|| agentwire_runtime::registry::find(registry, &name.replace('-', "_")));
    found.ok_or_else(|| {
        let known: Vec<&str> = registry.iter().map(|p| p.name()).collect();
        (
            ErrorKind::InvalidValue,
            format!(
                "unknown protocol `{name}`; the known protocols are {}",
                known.join(", ")
            ),
        )
    })
}

type UsageError = (ErrorKind, String);

/// Reads every input first (so a usage error stops the run before any output), then checks.
fn trace_check(
    registry: &[&dyn Protocol],
    p: &dyn Protocol,
    args: &CheckArgs,
) -> Result<(Vec<Finding>, String), UsageError> {
    if p.checker().is_none() {
        return Err((
            ErrorKind::InvalidValue,
            format!(
                "protocol {} has no machine.yaml, so there is no sequence checker to run",
                p.name()
            ),
        ));
    }
    let read = |path: &PathBuf| {
        std::fs::read(path).map_err(|e| {
            (
                ErrorKind::Io,
                format!("cannot read {}: {e}", path.display()),
            )
        })
    };
    let mut traces = Vec::new();
    for path in &args.files {
        let bytes = read(path)?;
        if Format::detect(&bytes) == Format::ContentLength {
            return Err((
                ErrorKind::InvalidValue,
                format!(
                    "{} is a Content-Length framed capture; give it as --from ROLE {0}",
                    path.display()
                ),
            ));
        }
        traces.push((path.display().to_string(), bytes));
    }

    let mut captures: Vec<Capture> = Vec::new();
    // Captures of one connection: a Content-Length stream, or a newline-delimited one.
    let capturable = |f: Framing| matches!(f, Framing::ContentLength | Framing::Newline);
    if !args.from.is_empty() && !capturable(p.framing()) {
        let framed: Vec<&str> = registry
            .iter()
            .filter(|q| capturable(q.framing()))
            .map(|q| q.name())
            .collect();
        return Err((
            ErrorKind::ArgumentConflict,
            format!(
                "--from captures are for JSON-RPC stream protocols ({}); {} traces are \
                 JSON Lines files with a \"from\" on every line",
                framed.join(", "),
                p.name()
            ),
        ));
    }
    for pair in args.from.chunks(2) {
        let [role, file] = pair else {
            return Err((
                ErrorKind::WrongNumberOfValues,
                "--from takes ROLE FILE".into(),
            ));
        };
        if !check::has_role(p, role) {
            return Err((
                ErrorKind::InvalidValue,
                format!("`{role}` is not a sender in protocol {}", p.name()),
            ));
        }
        if captures.iter().any(|c| &c.role == role) {
            return Err((
                ErrorKind::ArgumentConflict,
                format!("--from {role} given twice; a connection has one capture per sender"),
            ));
        }
        let path = PathBuf::from(file);
        captures.push(Capture {
            role: role.clone(),
            file: path.display().to_string(),
            bytes: read(&path)?,
        });
    }

    let sides = if args.one_sided {
        check::Sides::OneSided
    } else {
        check::Sides::Both
    };
    let mut findings = Vec::new();
    let mut total = check::Stats::default();
    let mut add = |(f, stats): (Vec<Finding>, check::Stats)| {
        findings.extend(f);
        total.messages += stats.messages;
        total.instances += stats.instances;
    };
    for (name, bytes) in &traces {
        add(check::check_trace(p, name, bytes, sides));
    }
    if !captures.is_empty() {
        add(check::check_captures(
            p,
            &captures,
            args.max_frame_size,
            sides,
        ));
    }
    let streams = traces.len() + usize::from(!captures.is_empty());
    let summary = format!(
        "{} message(s) in {streams} stream(s), {} sequence instance(s), protocol {}{}",
        total.messages,
        total.instances,
        p.name(),
        if args.one_sided { " (one-sided)" } else { "" }
    );
    Ok((findings, summary))
}
