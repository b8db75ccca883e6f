//! The `agentwire` command line over any registry of protocols. `agentwire trace check`
//! checks recorded sessions against a protocol's message schemas and sequence rules and
//! prints one line per problem found; `gen`, `check-docs`, `lint`, `schema` and `diagram`
//! work on spec folders on disk (`crate::spec`).

use std::ffi::OsString;
use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use agentwire_runtime::framing::DEFAULT_MAX_FRAME_SIZE;
use agentwire_runtime::registry::{Framing, Protocol};
use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::check::{self, Capture, Format, Trace};
use crate::protocol_arg::{UsageError, find_protocol, interpret};
use crate::report::{OutputFormat, Progress, Report, Summary};

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
    /// Generate a crate from spec folders, or with --check fail when it is stale.
    #[command(long_about = GEN_ABOUT, after_long_help = EXIT_STATUS)]
    Gen(crate::spec::generate::GenArgs),
    /// Check Markdown documents against a spec folder.
    #[command(long_about = CHECK_DOCS_ABOUT, after_long_help = EXIT_STATUS)]
    CheckDocs(crate::spec::docs::CheckDocsArgs),
    /// Load spec folders and report every problem at its file:line:col.
    #[command(long_about = LINT_ABOUT, after_long_help = EXIT_STATUS)]
    Lint(crate::spec::lint::LintArgs),
    /// Print a spec folder's JSON Schema.
    #[command(long_about = SCHEMA_ABOUT, after_long_help = EXIT_STATUS)]
    Schema(crate::spec::schema::SchemaArgs),
    /// Print a spec folder's state machines as Mermaid diagrams.
    #[command(long_about = DIAGRAM_ABOUT, after_long_help = EXIT_STATUS)]
    Diagram(crate::spec::diagram::DiagramArgs),
    /// Create a crate with a protocol spec of its own, ready for `cargo test`.
    #[command(long_about = NEW_ABOUT, after_long_help = EXIT_STATUS)]
    New(crate::new::NewArgs),
    /// Relay a live session unchanged, recording it and checking it as it goes.
    #[command(long_about = crate::proxy::ABOUT)]
    Proxy(crate::proxy::ProxyArgs),
    /// Play one role of a protocol against a real peer, checking what the peer sends.
    #[command(long_about = crate::mock::ABOUT)]
    Mock(crate::mock::MockArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    #[command(long_about = COMPLETIONS_ABOUT)]
    Completions(crate::completions::CompletionsArgs),
}

const COMPLETIONS_ABOUT: &str = "\
Print the completion script of a shell on standard output, covering every verb and option.
Install it where the shell looks for completions, for example:

  agentwire completions bash > ~/.local/share/bash-completion/completions/agentwire
  agentwire completions zsh > ~/.zfunc/_agentwire      (with ~/.zfunc in $fpath)
  agentwire completions fish > ~/.config/fish/completions/agentwire.fish";

const NEW_ABOUT: &str = "\
Create a crate with a protocol spec of its own: spec/NAME/ (protocol.yaml, messages.ts,
machine.yaml, a recorded trace), docs/NAME.md (which `check-docs` accepts), the crate
`agentwire gen` writes (protocols/, checked in), a build script that generates the
protocol's module with its client and server skeletons (agentwire-build), a test that runs
them against each other, and a CI workflow (.github/workflows/agentwire.yml). Then:

  cd NAME && cargo test";

const GEN_ABOUT: &str = "\
Generate a crate from spec folders, as this repository's `cargo xtask gen` does for its own:
one module per spec folder (typed messages, validators, JSON Schema, sequence checker, client
and server skeletons), src/lib.rs, src/registry.rs, and a Cargo.toml with one feature per
protocol (on by default), `skeletons` (the skeletons and their transport, off by default),
`all-protocols` and `full`. Nothing is compiled: the specs are read when the command runs.

Only files whose contents change are written. With --check nothing is written: every file
that differs (stale, missing, or not generated) is listed, for CI:

  agentwire gen --spec spec --out crates/my-protocols --check";

const CHECK_DOCS_ABOUT: &str = "\
Check Markdown documents against a spec folder, as `cargo xtask check-docs` does: every
TypeScript and protobuf block is compared with the spec's types, every JSON example is
validated (a block fenced `json invalid` must fail), every sequence listing is replayed
through the machines, and spec kinds and routes the document never mentions are reported.
Each finding is one line on standard output, `DOC:LINE: WHAT differs: doc says X, spec
(FILE:LINE) says Y`; notes on what was not compared go to standard error.";

const LINT_ABOUT: &str = "\
Load spec folders and run the whole generator on them in memory, writing nothing. Every
problem is printed on standard output as `FILE:LINE:COL: MESSAGE (hint: ...)` with the
source line under it; each folder that is clean prints one `ok:` line.";

const SCHEMA_ABOUT: &str = "\
Print a spec folder's JSON Schema (every message and type, draft 2020-12) on standard
output, exactly as `agentwire gen` writes it to schemas/<module>.schema.json.";

const DIAGRAM_ABOUT: &str = "\
Print a spec folder's state machines on standard output as a Markdown page of Mermaid
`stateDiagram-v2` blocks, one per machine, exactly as `agentwire gen` writes it to
diagrams/<module>.md. A spec without a machine has nothing to draw (exit 2).";

const EXIT_STATUS: &str = "\
Exit status:
  0  done: written, up to date, no findings
  1  findings: stale files (gen --check), document differences (check-docs), spec problems
     (lint)
  2  usage error, or a spec that does not load (gen, check-docs, schema, diagram), a
     file that cannot be read or written";

#[derive(Debug, Subcommand)]
enum TraceCommand {
    /// Check recorded sessions against a protocol's schemas and sequence rules.
    #[command(long_about = CHECK_ABOUT, after_long_help = CHECK_DETAILS)]
    Check(CheckArgs),
}

const CHECK_ABOUT: &str = "\
Check recorded sessions against a protocol's message schemas and sequence rules.

The protocol is one compiled into the command (--protocol NAME) or any spec folder
(--spec DIR), whose types and machines are then read when the command runs: the findings
are the ones the code generated from that folder reports (same JSON pointer, rule and
sequence violation), JSON-RPC and protobuf folders included (a protobuf folder's messages
are read as ProtoJSON, as its generated pbjson code reads them).

Each FILE is a JSON Lines trace, one {\"from\": ROLE, \"message\": ...} (or {\"from\": ROLE,
\"http\": {...}}) per line, and is checked as a stream of its own. A line {\"from\": ROLE,
\"framing\": WHY}, which `agentwire proxy` records for input that was no frame, is a framing
finding. Every problem is printed on
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

Findings are printed as they are found (a long trace shows its first ones at once), in the
order of the input; --max-findings N stops the check at the N-th. A FILE of `-` is standard
input; a UTF-8 byte order mark at the start of a file is skipped. While a long input is read,
a progress line is drawn on standard error when that is a terminal (with --progress also in
--format json, or, when standard error is not a terminal, written as a `progress:` line a
second); standard output never holds progress.

On success one line says what was checked (messages, streams, sequence instances, protocol,
and for a protocol with versions the version each stream was checked as: the one its
handshake agreed on or its messages name, where the spec says streams name it), also for an
empty input; otherwise the same line goes to standard error after the count of
findings.

With --format json, standard output holds one JSON object per line: each finding, then one
summary (nothing goes to standard error):

  {\"type\":\"finding\",\"file\":F,\"line\":N,\"kind\":K,\"text\":T,...}
  {\"type\":\"summary\",\"ok\":B,\"findings\":N,\"stopped_early\":B,\"messages\":N,
   \"streams\":N,\"instances\":N,\"protocol\":P,\"one_sided\":B}
  (and \"versions\":[{\"version\":V,\"streams\":N},...] for a protocol with versions)

A finding's place is one of \"line\", \"frame\", \"byte\" (numbers) or \"end_of_stream\": true;
\"text\" is what the text format prints after FILE:WHERE:. \"kind\" is \"json\" (not JSON),
\"framing\", \"stream\" (a line after a gRPC status, a sender with no messages), \"version\"
(the stream speaks a version the protocol does not declare; said once), \"field\"
(adds \"pointer\", \"rule\" and \"message\") or \"sequence\" (adds \"machine\", \"instance\",
\"state\", \"got\": the role.kind that arrived or null at the end, and \"expected\": a list).

Exit status:
  0  nothing was found
  1  at least one finding (also when --max-findings stopped the check)
  2  usage error: bad arguments, an unknown protocol, a file that cannot be read";

const CHECK_DETAILS: &str = "\
Captures of one connection, one file per sender (protocols with Content-Length framing):

  agentwire trace check --protocol NAME --from client client.bin --from server server.bin

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
#[command(group = clap::ArgGroup::new("which").required(true).args(["protocol", "spec"]))]
struct CheckArgs {
    /// The protocol module the traffic belongs to (any registered protocol).
    #[arg(long, value_name = "NAME")]
    protocol: Option<String>,

    /// A spec folder (holding protocol.yaml) to check against instead, read when the command
    /// runs: its types and machines are interpreted, nothing is compiled.
    #[arg(long, value_name = "DIR", conflicts_with = "protocol")]
    spec: Option<PathBuf>,

    /// JSON Lines traces, each checked on its own (`-`: standard input).
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

    /// Stop after N findings (the exit status is still 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_findings: Option<u64>,

    /// How findings are written: `text`, one line each, or `json`, one JSON object per line
    /// (see below).
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,

    /// Show progress on standard error even when it is not a terminal (a line a second on
    /// long inputs); standard output is unchanged.
    #[arg(long)]
    progress: bool,

    /// Largest Content-Length accepted in a framed capture.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FRAME_SIZE)]
    max_frame_size: usize,
}

/// Runs the command line `args` (the program name first) against the protocols of
/// `registry`, writing findings to `out` as they are found. Returns the exit status (0:
/// nothing found, 1: findings), or the error to report with exit status 2: a usage error, an
/// input that cannot be read (`--help` and `--version` come back this way too, as clap
/// reports them).
pub fn run<I, T>(
    registry: &[&'static dyn Protocol],
    args: I,
    out: &mut dyn Write,
) -> Result<u8, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = Cli::try_parse_from(args)?;
    let mut err = std::io::stderr();
    let args = match cli.command {
        Command::Trace(TraceCommand::Check(args)) => args,
        Command::Gen(args) => return Ok(crate::spec::generate::run(&args, out, &mut err)),
        Command::CheckDocs(args) => return Ok(crate::spec::docs::run(&args, out, &mut err)),
        Command::Lint(args) => return Ok(crate::spec::lint::run(&args, out, &mut err)),
        Command::Schema(args) => return Ok(crate::spec::schema::run(&args, out, &mut err)),
        Command::Diagram(args) => return Ok(crate::spec::diagram::run(&args, out, &mut err)),
        Command::New(args) => return Ok(crate::new::run(&args, out, &mut err)),
        Command::Proxy(args) => return Ok(crate::proxy::run(registry, &args, &mut err)),
        Command::Mock(args) => return Ok(crate::mock::run(registry, &args, &mut err)),
        Command::Completions(args) => {
            return Ok(crate::completions::run(&args, Cli::command(), out));
        }
    };
    let as_clap = |(kind, message): UsageError| {
        let mut cmd = Cli::command();
        let sub = cmd
            .find_subcommand_mut("trace")
            .and_then(|t| t.find_subcommand_mut("check"))
            .map(|c| c.clone().bin_name("agentwire trace check"));
        match sub {
            Some(mut c) => c.error(kind, message),
            None => cmd.error(kind, message),
        }
    };
    let interpreted;
    let p = match (&args.spec, &args.protocol) {
        (Some(dir), _) => {
            interpreted = interpret(dir).map_err(as_clap)?;
            &interpreted as &dyn Protocol
        }
        (None, Some(name)) => find_protocol(registry, name).map_err(as_clap)?,
        // clap's group requires one of the two.
        (None, None) => {
            let missing = "give --protocol NAME or --spec DIR".to_owned();
            return Err(as_clap((ErrorKind::MissingRequiredArgument, missing)));
        }
    };
    let inputs = open_inputs(registry, p, &args).map_err(as_clap)?;
    let terminal = std::io::stderr().is_terminal();
    let progress = match (args.progress, terminal) {
        (true, false) => Progress::Lines,
        (true, true) => Progress::Redraw,
        (false, true) if args.format == OutputFormat::Text => Progress::Redraw,
        (false, _) => Progress::Off,
    };
    let mut report = Report::new(out, args.format, args.max_findings, progress);
    let summary = check_inputs(p, inputs, &args, &mut report).map_err(as_clap)?;
    Ok(report.finish(&summary))
}

/// An opened JSON Lines trace: its name, reader (the first line already read, to tell its
/// format), size when known.
struct Opened {
    name: String,
    input: Box<dyn BufRead>,
    size: Option<u64>,
}

/// What a run reads: JSON Lines traces, each a stream of its own, and captures of one
/// connection.
struct Inputs {
    traces: Vec<Opened>,
    captures: Vec<Capture>,
}

/// The name findings use for `path`; `-` is standard input.
fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// Opens `path` (`-`: standard input) for reading.
fn open(path: &Path) -> Result<(Box<dyn BufRead>, Option<u64>), UsageError> {
    if path == Path::new("-") {
        return Ok((Box::new(BufReader::new(std::io::stdin())), None));
    }
    let file = std::fs::File::open(path).map_err(|e| cannot_read(path, &e))?;
    let size = file.metadata().ok().map(|m| m.len());
    Ok((Box::new(BufReader::with_capacity(1 << 16, file)), size))
}

fn cannot_read(path: &Path, e: &std::io::Error) -> UsageError {
    (
        ErrorKind::Io,
        format!("cannot read {}: {e}", display_name(path)),
    )
}

/// Opens every input first, so a usage error (a missing file, a capture given as a trace)
/// stops the run before any output. Traces are then read as they are checked; captures,
/// which are merged, are read whole.
fn open_inputs(
    registry: &[&dyn Protocol],
    p: &dyn Protocol,
    args: &CheckArgs,
) -> Result<Inputs, UsageError> {
    if p.checker().is_none() {
        return Err((
            ErrorKind::InvalidValue,
            format!(
                "protocol {} has no machine.yaml, so there is no sequence checker to run",
                p.name()
            ),
        ));
    }
    let stdin_uses = args.files.iter().filter(|f| *f == Path::new("-")).count()
        + args
            .from
            .chunks(2)
            .filter(|c| c.get(1).is_some_and(|f| f == "-"))
            .count();
    if stdin_uses > 1 {
        return Err((
            ErrorKind::ArgumentConflict,
            "standard input (`-`) can be read only once".into(),
        ));
    }
    let mut traces = Vec::new();
    for path in &args.files {
        let (mut input, size) = open(path)?;
        // The first line tells the format; it is put back in front of the rest.
        let mut first = Vec::new();
        input
            .read_until(b'\n', &mut first)
            .map_err(|e| cannot_read(path, &e))?;
        if Format::detect(check::strip_bom(&first)) == Format::ContentLength {
            return Err((
                ErrorKind::InvalidValue,
                format!(
                    "{} is a Content-Length framed capture; give it as --from ROLE {0}",
                    path.display()
                ),
            ));
        }
        traces.push(Opened {
            name: display_name(path),
            input: Box::new(std::io::Cursor::new(first).chain(input)),
            size,
        });
    }
    let captures = open_captures(registry, p, args)?;
    Ok(Inputs { traces, captures })
}

/// Reads the `--from ROLE FILE` captures whole.
fn open_captures(
    registry: &[&dyn Protocol],
    p: &dyn Protocol,
    args: &CheckArgs,
) -> Result<Vec<Capture>, UsageError> {
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
        let (mut input, _) = open(&path)?;
        let mut bytes = Vec::new();
        input
            .read_to_end(&mut bytes)
            .map_err(|e| cannot_read(&path, &e))?;
        captures.push(Capture {
            role: role.clone(),
            file: display_name(&path),
            bytes,
        });
    }
    Ok(captures)
}

/// Checks every input in turn, reporting as it goes; stops when the report wants no more.
fn check_inputs(
    p: &dyn Protocol,
    inputs: Inputs,
    args: &CheckArgs,
    report: &mut Report<'_>,
) -> Result<Summary, UsageError> {
    let mut summary = Summary {
        protocol: p.name().to_owned(),
        one_sided: args.one_sided,
        ..Summary::default()
    };
    let mut add = |stats: check::Stats| {
        summary.streams += 1;
        summary.messages += stats.messages;
        summary.instances += stats.instances;
        if let Some(v) = &stats.version {
            summary.add_version(v);
        }
    };
    for mut trace in inputs.traces {
        if report.stopped() {
            break;
        }
        let read_error =
            |e: std::io::Error| (ErrorKind::Io, format!("cannot read {}: {e}", trace.name));
        let stats = if args.one_sided {
            // The senders the capture holds are needed before its first message: it is held
            // in memory and parsed once.
            let mut bytes = Vec::new();
            trace.input.read_to_end(&mut bytes).map_err(read_error)?;
            Ok(vec![check::check_one_sided(p, &trace.name, &bytes, report)])
        } else {
            let t = Trace {
                name: &trace.name,
                input: &mut trace.input,
                size: trace.size,
            };
            check::check_trace(p, t, report)
        };
        let stats =
            stats.map_err(|e| (ErrorKind::Io, format!("cannot read {}: {e}", trace.name)))?;
        stats.into_iter().for_each(&mut add);
    }
    if !inputs.captures.is_empty() && !report.stopped() {
        let sides = if args.one_sided {
            check::Sides::OneSided
        } else {
            check::Sides::Both
        };
        add(check::check_captures(
            p,
            &inputs.captures,
            args.max_frame_size,
            sides,
            report,
        ));
    }
    Ok(summary)
}
