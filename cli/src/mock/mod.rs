//! `agentwire mock`: plays one role of a JSON-RPC protocol over stdio against a real peer.
//! Each request of the peer that the role answers gets a result drawn from the spec's
//! JSON Schema and accepted by the protocol's own decoder (`answer`, drawing with `agentwire_runtime::instances`);
//! everything the peer sends is recorded and checked as the proxy checks it, and what the
//! peer got wrong is printed as it happens, in `trace check`'s words.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use agentwire_runtime::framing::DEFAULT_MAX_FRAME_SIZE;
use agentwire_runtime::registry::{Protocol, TransportKind};
use clap::Args;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

mod answer;

use crate::proxy::refuse::{self, Answer};
use crate::proxy::session::Session;
use crate::proxy::split::{Chunk, Framing, Piece, Splitter};
use answer::Answerer;

/// Exit status of a usage error.
const USAGE: u8 = 2;
/// Bytes read at a time.
const CHUNK: usize = 64 * 1024;

#[derive(Debug, Args)]
pub struct MockArgs {
    /// The spec folder (holding protocol.yaml) of the protocol to play.
    #[arg(long, value_name = "DIR")]
    spec: PathBuf,

    /// The role to play (the peer plays the other).
    #[arg(long, value_name = "ROLE")]
    role: String,

    /// Write both directions to FILE as a JSON Lines trace (`trace check` reads it).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    /// Largest frame read from the peer.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FRAME_SIZE)]
    max_frame_size: usize,

    /// Seconds a started frame has to arrive whole; then its start is given up.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    frame_timeout: u64,
}

pub const ABOUT: &str = "\
Play one role of a JSON-RPC protocol over standard input and output, against a real peer
(run it as the peer's server command). Each request the role answers gets a result drawn
from the spec's JSON Schema and accepted by the protocol's own decoder (members of the
request's params the result also has are echoed, such as an offered version); a request
the role does not answer gets -32601. Everything the peer sends is checked against the
schemas and sequence rules, and each finding is printed on standard error as it is made:

  my-client --server 'agentwire mock --spec ./spec/chat --role server --record s.jsonl'

Exit status:
  0  the peer made no mistake
  1  at least one finding
  2  usage error: bad arguments, a spec that does not load";

/// Runs `agentwire mock`; returns the exit status.
pub fn run(args: &MockArgs, err: &mut dyn Write) -> u8 {
    let fail = |err: &mut dyn Write, e: String| {
        let _ = writeln!(err, "error: {e}");
        USAGE
    };
    let interp = match crate::protocol_arg::interpret(&args.spec) {
        Ok(i) => i,
        Err(e) => return fail(err, e.1),
    };
    let protocol: &'static crate::interp::Interpreted = Box::leak(Box::new(interp));
    if protocol.transport() != TransportKind::JsonRpc
        || !protocol.roles().contains(&args.role.as_str())
    {
        let e = format!(
            "mock plays a role ({}) of a JSON-RPC protocol",
            protocol.roles().join(", ")
        );
        return fail(err, e);
    }
    let Some(schema) = schema(args, err) else {
        return USAGE;
    };
    let framing = match crate::proxy::stream_framing(protocol) {
        Ok(f) => f,
        Err(e) => return fail(err, e),
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
    let answerer = Answerer::new(protocol, protocol.types(), &args.role, schema);
    let play = Play {
        protocol,
        session: &session,
        role: keep(&args.role),
        peer: crate::proxy::other_role(protocol, &args.role),
        framing,
        max: args.max_frame_size,
        frame_timeout: Duration::from_secs(args.frame_timeout.max(1)),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(err, format!("no async runtime: {e}")),
    };
    let stdin = agentwire_transport::stdio::stdin();
    let stdout = agentwire_transport::stdio::stdout();
    runtime.block_on(play.run(answerer, stdin, stdout));
    crate::proxy::finish(&session, protocol, None, err)
}

fn keep(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// The spec's JSON Schema, as `agentwire schema` prints it.
fn schema(args: &MockArgs, err: &mut dyn Write) -> Option<Value> {
    let files = crate::spec::generated(&args.spec, err)?;
    let text = files.text(&format!("schemas/{}.schema.json", files.module))?;
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
}

impl Play<'_> {
    /// Reads the peer's frames until its input ends, answering each request.
    async fn run<R, W>(&self, mut answerer: Answerer, mut reader: R, mut writer: W)
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
    {
        let mut splitter = Splitter::new(self.framing, self.max);
        let mut buf = vec![0u8; CHUNK];
        let mut pieces = Vec::new();
        loop {
            match splitter
                .read(&mut reader, &mut buf, self.frame_timeout)
                .await
            {
                Chunk::Bytes(n) => splitter.push(&buf[..n], &mut pieces),
                Chunk::Stalled => {
                    self.session
                        .broken(self.peer, "no more of a started frame in time");
                    continue;
                }
                Chunk::End | Chunk::Failed(_) => {
                    pieces.extend(splitter.finish());
                    let _ = self.take(&mut answerer, &mut pieces, &mut writer).await;
                    return;
                }
            }
            if self
                .take(&mut answerer, &mut pieces, &mut writer)
                .await
                .is_err()
            {
                return;
            }
        }
    }

    /// Checks each piece and answers the requests among them.
    async fn take<W: AsyncWrite + Unpin>(
        &self,
        answerer: &mut Answerer,
        pieces: &mut Vec<Piece>,
        writer: &mut W,
    ) -> std::io::Result<()> {
        for piece in pieces.drain(..) {
            let body = match piece {
                Piece::Frame { body, .. } => body,
                Piece::Broken(why) => {
                    self.session.broken(self.peer, &why);
                    continue;
                }
            };
            let findings = self.session.message(self.peer, &body);
            let Ok(message) = serde_json::from_str::<Value>(&body) else {
                continue;
            };
            // A request that failed its check gets the error the role's generated side
            // would send; one that passed, a drawn result.
            let refused = match refuse::answer(self.protocol, self.peer, Some(&body), &findings) {
                Some(Answer::ToSender(text)) if !findings.is_empty() => Some(text),
                _ => None,
            };
            if let Some(answer) = refused.or_else(|| answerer.answer(&message)) {
                self.session.message(self.role, &answer);
                let framed = match self.framing {
                    Framing::Lines => format!("{answer}\n").into_bytes(),
                    Framing::ContentLength => agentwire_runtime::framing::encode(&answer),
                };
                writer.write_all(&framed).await?;
                writer.flush().await?;
            }
        }
        Ok(())
    }
}
