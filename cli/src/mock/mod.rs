//! `agentwire mock`: plays one role of a JSON-RPC protocol against a real peer, over stdio
//! or (`http`) the spec's Streamable HTTP.
//! Each request of the peer that the role answers gets a result drawn from the spec's
//! JSON Schema and accepted by the protocol's own decoder (`answer`, drawing with
//! `agentwire_runtime::instances`); with `--replay` the role's side of a recorded session is
//! played instead (`replay`), and where the peer deviates from the recording is reported.
//! Everything the peer sends is recorded and checked as the proxy checks it, and what the
//! peer got wrong is printed as it happens, in `trace check`'s words. The peer is this
//! process's standard input and output, or the command given after `--`.

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use agentwire_runtime::framing::DEFAULT_MAX_FRAME_SIZE;
use agentwire_runtime::registry::{Checker as _, Protocol, TransportKind};
use clap::Args;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

mod answer;
mod examples;
mod http;
mod replay;

use crate::check::{At, Detail, Finding};
use crate::interp::{Driver, Owed};
use crate::proxy::refuse::{self, Answer};
use crate::proxy::session::Session;
use crate::proxy::split::{Chunk, Framing, Piece, Splitter};
use answer::Answerer;
use replay::Script;

/// Exit status of a usage error.
const USAGE: u8 = 2;
/// Bytes read at a time.
const CHUNK: usize = 64 * 1024;
/// How long a spawned peer may take to exit once its input is closed.
const GRACE: Duration = Duration::from_secs(5);
/// Messages sent unprompted in a row at most (a machine that keeps owing stops there).
const MAX_OWED: usize = 16;

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("which").required(true).args(["protocol", "spec"]))]
pub struct MockArgs {
    /// The spec folder (holding protocol.yaml) of the protocol to play.
    #[arg(long, value_name = "DIR", conflicts_with = "protocol")]
    spec: Option<PathBuf>,

    /// A registered protocol to play instead (with --replay: its answers are the
    /// recording's, as nothing is drawn without the spec folder's schema).
    #[arg(long, value_name = "NAME", requires = "replay")]
    protocol: Option<String>,

    /// The protocol's document whose JSON examples are answered with first (default: the
    /// spec's `docs/protocols/<module>.md` or `docs/<module>.md` beside its `spec/` folder).
    #[arg(long, value_name = "FILE", requires = "spec")]
    doc: Option<PathBuf>,

    /// The role to play (the peer plays the other).
    #[arg(long, value_name = "ROLE")]
    role: String,

    /// Play the role's side of this recorded session (a JSON Lines trace, such as
    /// `agentwire proxy --record` writes) and report where the peer deviates from it.
    #[arg(long, value_name = "TRACE")]
    replay: Option<PathBuf>,

    /// Seconds the peer has to send the message the replayed recording has next.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    replay_timeout: u64,

    /// End the session once the peer has sent nothing for SECS seconds (default: play until
    /// the peer ends its output).
    #[arg(long, value_name = "SECS")]
    idle: Option<u64>,

    /// Write both directions to FILE as a JSON Lines trace (`trace check` reads it).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    /// Largest frame read from the peer.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FRAME_SIZE)]
    max_frame_size: usize,

    /// Seconds a started frame has to arrive whole; then its start is given up.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    frame_timeout: u64,

    /// Listen on ADDR (`HOST:PORT`; port 0 picks one, printed at start) and play the role
    /// over the spec's Streamable HTTP (`transport.streamable_http`), each session checked
    /// as a stream of its own (and, with --replay, replaying the recording afresh), until
    /// Ctrl-C or SIGTERM.
    #[arg(long, value_name = "ADDR", conflicts_with = "command")]
    listen: Option<String>,

    /// The peer's command and its arguments, after `--` (it is spawned and spoken to over
    /// its standard input and output); without one, the peer is this process's.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

pub const ABOUT: &str = "\
Play one role of a JSON-RPC protocol over standard input and output, against a real peer
(run it as the peer's server command, or give the peer's command after `--`). Each request
the role answers gets the first result the protocol's document shows for its method (a
`json` example under a heading naming the method; --doc FILE, else the spec's
docs/protocols/<module>.md or docs/<module>.md beside its spec/ folder) that the protocol's
own decoder accepts, else a result drawn from the spec's JSON Schema and accepted by the
decoder (members of the request's params the result also has are echoed,
such as an offered version); a request the role does not answer gets -32601. A spec
folder of several versions is played as the version its `skeleton: true` entry names (else
the newest). Everything
the peer sends is checked against the schemas and sequence rules, and each finding is
printed on standard error as it is made.

What the machines say the peer waits for from the mocked role is sent unprompted, at the
start and after each message of the peer: the opening of a per-connection machine when
every way out of its initial state is a request or notification of the role (a client's
first request), and in a state that is not accepting, the role's first request or
notification that leaves it, unless the peer's answer leaves it too (wildcard transitions
aside). It goes before the answer to the request that led there; its params are the
document's example for the method, else drawn, members shared with the peer's latest
params echoed (so a notification names the handle or session it is about):

  agentwire mock --spec ./spec/chat --role client --idle 5 -- my-server --stdio

The session ends when the peer ends its output, or after --idle SECS of its silence.

With --listen ADDR the role is played over the spec's Streamable HTTP (a spec folder whose
transport declares `streamable_http`), on the transport's own server: its session and
version headers, Origin and Host checks and limits. Each session is checked as a stream of
its own; what is owed before an answer goes on that request's stream. It runs until Ctrl-C
or SIGTERM:

  agentwire mock --spec ./spec/chat --role server --listen 127.0.0.1:8765

  my-client --server 'agentwire mock --spec ./spec/chat --role server --record s.jsonl'

With --replay TRACE the role's side of a recorded session is played: its messages are sent
in their recorded order, each once the peer's messages recorded before it came, with the
live request ids; each message of the peer is compared with the one the recording has in
its place, and a different kind (request, notification, answer, error) or method is
reported as TRACE:line N: replay: ...; the first deviation ends the replay (requests after
it get -32601). A peer silent past --replay-timeout ends the replay.

  agentwire mock --protocol NAME --role client --replay session.jsonl -- my-server --stdio

With --listen as well (and --spec DIR, whose transport it takes), each HTTP session the
peer opens replays the recording (its first stream) from the start, the role's recorded
messages going on the stream of the peer's latest request:

  agentwire mock --spec ./spec/chat --role server --listen 127.0.0.1:8765 --replay s.jsonl

Exit status:
  0  the peer made no mistake
  1  at least one finding (a deviation included)
  2  usage error: bad arguments, a spec that does not load, a trace that cannot be read";

/// Runs `agentwire mock`; returns the exit status.
pub fn run(registry: &[&'static dyn Protocol], args: &MockArgs, err: &mut dyn Write) -> u8 {
    let fail = |err: &mut dyn Write, e: String| {
        let _ = writeln!(err, "error: {e}");
        USAGE
    };
    let (protocol, answerer, interp) = match played(registry, args, err) {
        Ok(p) => p,
        Err(e) => return fail(err, e),
    };
    let framing = match crate::proxy::stream_framing(protocol) {
        Ok(f) => f,
        Err(e) => return fail(err, e),
    };
    let peer = crate::proxy::other_role(protocol, &args.role);
    let script = match args
        .replay
        .as_deref()
        .map(|t| Script::load(t, &args.role, peer))
    {
        Some(Err(e)) => return fail(err, e),
        Some(Ok(s)) => Some(s),
        None => None,
    };
    let recorder = match args
        .record
        .as_deref()
        .map(crate::proxy::record::Recorder::create)
    {
        Some(Err(e)) => return fail(err, format!("cannot write the recording: {e}")),
        Some(Ok(r)) => Some(r),
        None => None,
    };
    let file = args
        .record
        .as_ref()
        .map_or_else(|| "mock".to_owned(), |p| p.display().to_string());
    let session = Session::new(protocol, &file, recorder, Box::new(std::io::stderr()));
    let play = Play {
        protocol,
        session: &session,
        role: keep(&args.role),
        peer,
        framing,
        max: args.max_frame_size,
        frame_timeout: Duration::from_secs(args.frame_timeout.max(1)),
        replay_timeout: Duration::from_secs(args.replay_timeout.max(1)),
        idle: args.idle.map(|s| Duration::from_secs(s.max(1))),
        spawned: !args.command.is_empty(),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(err, format!("no async runtime: {e}")),
    };
    // A replay plays the recording's messages only; otherwise the machines drive.
    let driver = interp.filter(|_| script.is_none());
    let answers = Answers::new(answerer, script, driver, None);
    let ran = match &args.listen {
        Some(listen) => runtime.block_on(play.listen(answers, interp, listen)),
        None => runtime.block_on(play.start(answers, &args.command)),
    };
    if let Err(e) = ran {
        return fail(err, e);
    }
    crate::proxy::finish(&session, protocol, None, err)
}

/// The protocol played, what answers the peer's requests and what follows the machines
/// (`None`: only the replay).
type Played = (
    &'static dyn Protocol,
    Option<Answerer>,
    Option<&'static crate::interp::Interpreted>,
);

/// What the arguments say is played ([`Played`]).
fn played(
    registry: &[&'static dyn Protocol],
    args: &MockArgs,
    err: &mut dyn Write,
) -> Result<Played, String> {
    let (protocol, answerer, driver): (&'static dyn Protocol, _, _) =
        match (&args.spec, &args.protocol) {
            (Some(dir), _) => {
                let interp = crate::protocol_arg::interpret(dir).map_err(|e| e.1)?;
                let folder: &'static crate::interp::Interpreted = Box::leak(Box::new(interp));
                // A folder of several versions is played as its skeleton's version.
                let (protocol, version) = folder.played();
                let schema =
                    schema(dir, version, err).ok_or("the spec's JSON Schema was not generated")?;
                let examples = doc_examples(dir, args.doc.as_deref(), protocol.types())?;
                let answerer =
                    Answerer::new(protocol, protocol.types(), &args.role, schema, examples);
                (protocol, Some(answerer), Some(protocol))
            }
            (None, Some(name)) => {
                let p = crate::protocol_arg::find_protocol(registry, name).map_err(|e| e.1)?;
                (p, None, None)
            }
            (None, None) => return Err("give --spec DIR or --protocol NAME".into()),
        };
    if protocol.transport() != TransportKind::JsonRpc
        || !protocol.roles().contains(&args.role.as_str())
    {
        return Err(format!(
            "mock plays a role ({}) of a JSON-RPC protocol",
            protocol.roles().join(", ")
        ));
    }
    Ok((protocol, answerer, driver))
}

/// The JSON examples of the spec's document: `doc`, else the one found by convention (none
/// found: no examples).
fn doc_examples(
    dir: &std::path::Path,
    doc: Option<&std::path::Path>,
    types: &crate::interp::Types,
) -> Result<examples::Examples, String> {
    let ir = &types.protocol;
    let path = match doc {
        Some(p) => p.to_path_buf(),
        None => match examples::by_convention(dir, &ir.module) {
            Some(p) => p,
            None => return Ok(examples::Examples::default()),
        },
    };
    let text = examples::read(&path)?;
    let methods: Vec<&str> = ir.methods.iter().map(|m| m.name.as_str()).collect();
    Ok(examples::Examples::parse(&text, &methods))
}

fn keep(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// The spec's JSON Schema, as `agentwire schema` prints it (of the version whose module is
/// `version`, in a folder of several versions).
fn schema(dir: &std::path::Path, version: Option<&str>, err: &mut dyn Write) -> Option<Value> {
    let files = crate::spec::generated(dir, err)?;
    let path = match version {
        Some(v) => format!("schemas/{}/{v}.schema.json", files.module),
        None => format!("schemas/{}.schema.json", files.module),
    };
    let text = files.text(&path)?;
    serde_json::from_str(&text).ok()
}

/// One mocked session over a byte stream.
struct Play<'a> {
    protocol: &'static dyn Protocol,
    session: &'a Session,
    role: &'static str,
    peer: &'static str,
    framing: Framing,
    max: usize,
    frame_timeout: Duration,
    replay_timeout: Duration,
    /// How long the peer may stay silent before the session ends (`None`: no limit).
    idle: Option<Duration>,
    /// The peer is a command the mock started: the session ends when the replay does.
    spawned: bool,
}

/// What the peer's messages are answered by, and what the mock sends unprompted.
struct Answers {
    drawn: Option<Answerer>,
    script: Option<Script>,
    /// Follows the session through the machines, saying what the role owes.
    driver: Option<Driver>,
    /// What was owed and sent, while it is still owed (so it is sent once per visit).
    served: HashSet<Owed>,
    /// Requests sent unprompted so far (their ids count up from 1).
    sent: u64,
    /// The params of the peer's latest message, echoed into what is sent unprompted.
    given: Value,
    /// The stream (an HTTP session) the messages belong to; `None` over stdio.
    stream: Option<String>,
}

impl Answers {
    fn new(
        drawn: Option<Answerer>,
        script: Option<Script>,
        interp: Option<&'static crate::interp::Interpreted>,
        stream: Option<String>,
    ) -> Answers {
        Answers {
            drawn,
            script,
            driver: interp.map(crate::interp::Interpreted::driver),
            served: HashSet::new(),
            sent: 0,
            given: Value::Null,
            stream,
        }
    }
}

/// Where the mock's messages go: a byte stream in the spec's framing, or an HTTP session.
trait Out {
    async fn put(&mut self, text: &str) -> std::io::Result<()>;
}

/// A byte stream in the spec's framing.
struct Framed<W> {
    writer: W,
    framing: Framing,
}

impl<W: AsyncWrite + Unpin> Out for Framed<W> {
    async fn put(&mut self, text: &str) -> std::io::Result<()> {
        let framed = match self.framing {
            Framing::Lines => format!("{text}\n").into_bytes(),
            Framing::ContentLength => agentwire_runtime::framing::encode(text),
        };
        self.writer.write_all(&framed).await?;
        self.writer.flush().await
    }
}

impl Play<'_> {
    /// Plays against this process's standard input and output, or against `command`.
    async fn start(&self, answers: Answers, command: &[OsString]) -> Result<(), String> {
        let Some((program, args)) = command.split_first() else {
            let stdin = agentwire_transport::stdio::stdin();
            let stdout = agentwire_transport::stdio::stdout();
            self.run(answers, stdin, stdout).await;
            return Ok(());
        };
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.to_string_lossy()))?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("the peer's standard input and output were not piped".into());
        };
        self.run(answers, output, input).await;
        // The peer's input is closed (dropped with the writer): it has the grace to exit.
        if tokio::time::timeout(GRACE, child.wait()).await.is_err() {
            let _ = child.start_kill();
        }
        Ok(())
    }

    /// Reads the peer's frames until its input ends (or, against a spawned peer, the replay
    /// ends), answering each request.
    async fn run<R, W>(&self, mut answers: Answers, mut reader: R, writer: W)
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let mut writer = Framed {
            writer,
            framing: self.framing,
        };
        let mut splitter = Splitter::new(self.framing, self.max);
        let mut buf = vec![0u8; CHUNK];
        let mut pieces = Vec::new();
        // The opening, if the role owes one; later, what is owed after each peer message.
        if self.owe(&mut answers, &mut writer).await.is_err() {
            return;
        }
        loop {
            if let Some(script) = answers.script.as_mut() {
                while let Some(text) = script.next_send() {
                    if self.send(None, &text, &mut writer).await.is_err() {
                        return;
                    }
                }
                if script.done() && self.spawned {
                    return;
                }
            }
            let awaited = answers.script.as_ref().and_then(Script::awaited);
            let read = splitter.read(&mut reader, &mut buf, self.frame_timeout);
            let chunk = match &awaited {
                Some((line, what)) => match tokio::time::timeout(self.replay_timeout, read).await {
                    Ok(chunk) => chunk,
                    Err(_) => {
                        self.silent(answers.script.as_ref(), *line, what);
                        return;
                    }
                },
                None => match self.idle {
                    Some(idle) => match tokio::time::timeout(idle, read).await {
                        Ok(chunk) => chunk,
                        Err(_) => return,
                    },
                    None => read.await,
                },
            };
            match chunk {
                Chunk::Bytes(n) => splitter.push(&buf[..n], &mut pieces),
                Chunk::Stalled => {
                    self.session
                        .broken(None, self.peer, "no more of a started frame in time");
                    continue;
                }
                Chunk::End | Chunk::Failed(_) => {
                    pieces.extend(splitter.finish());
                    let _ = self.take(&mut answers, &mut pieces, &mut writer).await;
                    self.ended(answers.script.as_ref());
                    return;
                }
            }
            if self
                .take(&mut answers, &mut pieces, &mut writer)
                .await
                .is_err()
            {
                return;
            }
        }
    }

    /// Reports a peer silent past the replay's deadline where the recording has `what`.
    fn silent(&self, script: Option<&Script>, line: usize, what: &str) {
        let text = format!(
            "replay: the peer sent nothing within {} s where the recording has {what}",
            self.replay_timeout.as_secs()
        );
        self.deviation(script, line, text);
    }

    /// Reports a peer that ended while the recording still awaits a message of it.
    fn ended(&self, script: Option<&Script>) {
        if let Some((line, what)) = script.and_then(Script::awaited) {
            let text = format!("replay: the peer ended where the recording has {what}");
            self.deviation(script, line, text);
        }
    }

    /// Reports a place where the peer left the replayed recording.
    fn deviation(&self, script: Option<&Script>, line: usize, text: String) {
        let file = script.map_or("replay", |s| s.file.as_str());
        let finding = Finding::new(file, At::Line(line), text, Detail::Stream);
        self.session.note(finding);
    }

    /// Records and sends one message of the mocked role.
    async fn send<O: Out>(
        &self,
        stream: Option<&str>,
        text: &str,
        out: &mut O,
    ) -> std::io::Result<()> {
        self.session.message(stream, self.role, text);
        out.put(text).await
    }

    /// Sends what the machines say the peer waits for from the mocked role (`Driver::owed`),
    /// each owed message once while it is owed.
    async fn owe<O: Out>(&self, answers: &mut Answers, writer: &mut O) -> std::io::Result<()> {
        for _ in 0..MAX_OWED {
            let (Some(driver), Some(drawn)) = (answers.driver.as_mut(), answers.drawn.as_mut())
            else {
                return Ok(());
            };
            let owed = driver.owed(self.role);
            answers.served.retain(|s| owed.contains(s));
            let Some(next) = owed.into_iter().find(|o| !answers.served.contains(o)) else {
                return Ok(());
            };
            answers.served.insert(next.clone());
            answers.sent += 1;
            let Some(text) = drawn.call(&next, answers.sent, &answers.given) else {
                let _ = writeln!(
                    std::io::stderr(),
                    "agentwire mock: no valid params found for `{}`, owed in {} state {}",
                    next.method,
                    next.machine,
                    next.state
                );
                continue;
            };
            self.send(answers.stream.as_deref(), &text, writer).await?;
            follow(self.protocol, driver, self.role, &text);
        }
        Ok(())
    }

    /// Checks each piece and answers the requests among them.
    async fn take<O: Out>(
        &self,
        answers: &mut Answers,
        pieces: &mut Vec<Piece>,
        writer: &mut O,
    ) -> std::io::Result<()> {
        for piece in pieces.drain(..) {
            let body = match piece {
                Piece::Frame { body, .. } => body,
                Piece::Broken(why) => {
                    self.session
                        .broken(answers.stream.as_deref(), self.peer, &why);
                    continue;
                }
            };
            let findings = self
                .session
                .message(answers.stream.as_deref(), self.peer, &body);
            let Ok(message) = serde_json::from_str::<Value>(&body) else {
                continue;
            };
            if let Some(driver) = answers.driver.as_mut() {
                follow(self.protocol, driver, self.peer, &body);
                answers.given = message.get("params").cloned().unwrap_or(Value::Null);
            }
            // What the peer waits for before an answer goes first.
            self.owe(answers, writer).await?;
            if let Some(script) = answers.script.as_mut() {
                match script.take(&message) {
                    // The recording's own answer follows, if it has one.
                    Ok(()) => continue,
                    Err(Some(d)) => self.deviation(Some(script), d.line, d.text),
                    Err(None) => {}
                }
            }
            // A request that failed its check gets the error the role's generated side
            // would send; one that passed, a drawn result.
            let refused = match refuse::answer(self.protocol, self.peer, Some(&body), &findings) {
                Some(Answer::ToSender(text)) if !findings.is_empty() => Some(text),
                _ => None,
            };
            let answer = refused.or_else(|| match answers.drawn.as_mut() {
                Some(drawn) => drawn.answer(&message),
                None => answer::not_replayed(&message),
            });
            if let Some(answer) = answer {
                self.send(answers.stream.as_deref(), &answer, writer)
                    .await?;
                if let Some(driver) = answers.driver.as_mut() {
                    follow(self.protocol, driver, self.role, &answer);
                }
            }
        }
        Ok(())
    }
}

/// Steps `driver` on the message `text` that `from` sent (one it cannot decode leaves it as
/// it was, as the checker's violations do).
fn follow(protocol: &'static dyn Protocol, driver: &mut Driver, from: &str, text: &str) {
    let Ok(message) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let entry = serde_json::json!({"from": from, "message": message});
    if let Some(Ok(decoded)) = protocol.decode(from, &entry) {
        let _ = driver.observe(&decoded);
    }
}
