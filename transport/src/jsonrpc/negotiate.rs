//! Several versions of one protocol, connecting side: the handshake offers the newest
//! version, and the connection runs as the version the answer agrees on, when this side
//! speaks it; otherwise it closes with a typed error ([`VersionError::Unsupported`]).
//!
//! The handshake is written and its answer read before any typed connection exists, since
//! the answer decides which version's types the rest of the stream decodes as. The chosen
//! version's sequence checker is then shown the handshake and its answer, so it follows the
//! stream from its first message; messages that arrived before the answer are replayed.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use agentwire_runtime::jsonrpc::RpcError;
use agentwire_runtime::machine::Violation;
use agentwire_runtime::version::{Source, name_of};
use agentwire_runtime::{FieldError, Invalid, Rule, Validate};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

use super::codec::{FrameCodec, Framing};
use super::deadline::ReadDeadline;
use super::ends::{Answers, Connecting};
use super::handle::{Bound, Handle, Notifications};
use super::link::Inbox;
use super::peer::{Connection, Inbound, Outbound, Peer, Side};
use super::versions::{Replay, write_frame};
use super::{Config, spawn_child};
use crate::check::CheckMode;

/// The id of the handshake request a connecting side opens with (a connection's own
/// requests are numbered from 1, so they never reuse it).
pub const HANDSHAKE_ID: i64 = 0;

/// Why a connection that negotiates its version did not open.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    /// The protocol's streams do not open with a handshake, so there is nothing to offer a
    /// version in.
    #[error("the protocol opens with no handshake to offer a version in")]
    NoHandshake,
    /// The handshake params break their type's constraints (pointers under `/params`).
    #[error("invalid handshake: {0}")]
    InvalidOffer(Invalid),
    /// Reading or writing the stream failed.
    #[error("handshake I/O: {0}")]
    Io(#[from] io::Error),
    /// No answer to the handshake within `Config::handshake_timeout` (or a frame of the
    /// answer stalled past the frame deadline).
    #[error("no handshake answer within {0:?}")]
    Timeout(Duration),
    /// The stream ended before the handshake was answered.
    #[error("the connection ended before the handshake was answered")]
    Closed,
    /// The peer answered the handshake with an error.
    #[error("handshake refused: error {}: {}", .0.code, .0.message)]
    Refused(RpcError),
    /// The answer agrees on no version this side speaks (or names none); the connection is
    /// closed.
    #[error(
        "the answer agrees on version {}, which this side does not speak (offered {}; speaks {})",
        .answered.as_deref().unwrap_or("(none)"),
        .offered.as_deref().unwrap_or("(none)"),
        .supported.join(", ")
    )]
    Unsupported {
        offered: Option<String>,
        answered: Option<String>,
        supported: &'static [&'static str],
    },
    /// The handshake or its answer does not read as a message of the version agreed on
    /// (pointers into the message).
    #[error("the handshake does not read as version {version}: {invalid}")]
    Unreadable {
        version: &'static str,
        invalid: Invalid,
    },
    /// The version's sequence checker refuses the handshake or its answer (enforce mode).
    #[error("handshake out of sequence: {0}")]
    Violation(Violation),
    /// More messages than `Config::queue` arrived before the handshake's answer.
    #[error("more than {0} messages arrived before the handshake answer")]
    TooManyEarly(usize),
}

/// A handshake answered with a version this side speaks: what was sent and received, and
/// which version (an index into the protocol's versions, newest first). Made by
/// [`connect_versions`]; a generated skeleton hands it to the agreed version's
/// `Handle::connect_agreed`.
pub struct Agreed<R> {
    index: usize,
    version: &'static str,
    framing: Framing,
    inbox: Replay<FramedRead<R, FrameCodec>>,
    request: String,
    answer: String,
    result: String,
}

impl<R> Agreed<R> {
    /// Which version the answer agreed on: an index into the protocol's `VERSIONS`.
    pub fn index(&self) -> usize {
        self.index
    }
}

impl<R> std::fmt::Debug for Agreed<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agreed")
            .field("version", &self.version)
            .field("answer", &self.answer)
            .finish()
    }
}

/// A connection opened in the version its handshake agreed on: the typed handle, the other
/// side's notifications, and the handshake's typed result in that version.
pub struct Opened<S: Bound, T> {
    pub handle: Handle<S>,
    pub notifications: Notifications<S::InNotification>,
    pub result: T,
}

impl<S: Bound, T: std::fmt::Debug> std::fmt::Debug for Opened<S, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("handle", &self.handle)
            .field("result", &self.result)
            .finish()
    }
}

/// The connecting side of a protocol with several versions: one request handler per version,
/// the newest version's handshake params, and the generated match that opens the
/// connection as the version agreed.
pub trait ConnectVersions: Send + Sync + 'static {
    /// The protocol's versions, newest first, as peers write them.
    const VERSIONS: &'static [&'static str];
    /// Where a stream names its version; it must include a handshake.
    const SOURCE: Source;
    /// How messages are delimited (every version of a folder shares its transport).
    const FRAMING: Framing;
    /// The newest version's handshake params.
    type Offer: Serialize + Validate + Send;
    /// What an opened connection is: the agreed version's [`Opened`].
    type Connected: Send + 'static;

    /// Opens the connection as the version `agreed` names.
    fn connect_agreed<R, W>(
        &self,
        agreed: Agreed<R>,
        writer: W,
        config: Config,
    ) -> Result<(Self::Connected, Connection), VersionError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static;
}

impl<S: Bound> Handle<S> {
    /// Runs the connecting side as the version a handshake agreed on, answering the other
    /// side's requests with `handler`; `T` is that version's handshake result.
    pub fn connect_agreed<H, T, R, W>(
        handler: Arc<H>,
        agreed: Agreed<R>,
        writer: W,
        config: Config,
    ) -> Result<(Opened<S, T>, Connection), VersionError>
    where
        S: Answers<H>,
        H: Send + Sync + 'static,
        T: DeserializeOwned + Validate,
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let version = agreed.version;
        let unreadable = |invalid: Invalid| VersionError::Unreadable { version, invalid };
        let result = agentwire_runtime::decode_json::<T>(&agreed.result)
            .and_then(|r| r.validate().map(|()| r))
            .map_err(|e| unreadable(e.under("/result")))?;
        let mut checker = S::checker(config.checker_limits);
        show_handshake::<S>(&mut checker, &agreed, config.mode)?;
        let (tx, rx) = mpsc::channel(config.queue.max(1));
        let (peer, connection) = Peer::spawn_inbox(
            agreed.framing,
            CancellationToken::new(),
            agreed.inbox,
            writer,
            checker,
            config,
            Connecting { handler, tx },
        );
        let opened = Opened {
            handle: Handle::new(peer),
            notifications: Notifications::new(rx),
            result,
        };
        Ok((opened, connection))
    }
}

/// Shows the agreed version's checker the handshake and its answer, as they went.
fn show_handshake<S: Side>(
    checker: &mut S::Checker,
    agreed: &Agreed<impl Sized>,
    mode: CheckMode,
) -> Result<(), VersionError> {
    let version = agreed.version;
    let unreadable = |invalid: Invalid| VersionError::Unreadable { version, invalid };
    let request = Outbound::<S>::from_json(&agreed.request).map_err(unreadable)?;
    let answer = Inbound::<S>::from_json(&agreed.answer).map_err(unreadable)?;
    if mode == CheckMode::Off {
        return Ok(());
    }
    let seen =
        S::observe_outbound(checker, &request).and_then(|()| S::observe_inbound(checker, &answer));
    match seen {
        Err(v) if mode == CheckMode::Enforce => Err(VersionError::Violation(v)),
        Err(v) => {
            crate::warn_throttled!(violation = %v, "handshake out of sequence");
            Ok(())
        }
        Ok(()) => Ok(()),
    }
}

/// Opens one connection of a protocol with several versions over `reader`/`writer`: sends
/// the handshake with `offer` (the newest version's params, offering the version they
/// name), waits for its answer (within `Config::handshake_timeout`), and runs the connection
/// as the version the answer agrees on. An error answer, or one agreeing on a version this
/// side does not speak, closes the stream and fails with a typed [`VersionError`].
pub async fn connect_versions<V, R, W>(
    versions: &V,
    reader: R,
    mut writer: W,
    offer: V::Offer,
    config: Config,
) -> Result<(V::Connected, Connection), VersionError>
where
    V: ConnectVersions,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (method, member) = V::SOURCE.handshake().ok_or(VersionError::NoHandshake)?;
    offer
        .validate()
        .map_err(|e| VersionError::InvalidOffer(e.under("/params")))?;
    let params = serde_json::to_value(&offer).map_err(|e| {
        VersionError::InvalidOffer(Invalid::one(FieldError::new(
            "/params",
            Rule::Type,
            e.to_string(),
        )))
    })?;
    let offered = params.get(member).and_then(name_of);
    let request = json!({"jsonrpc": "2.0", "id": HANDSHAKE_ID, "method": method, "params": params})
        .to_string();
    let max = config.max_frame_size;
    write_frame(&mut writer, V::FRAMING, max, request.clone()).await?;
    let (inbox, answer) = await_answer(reader, V::FRAMING, &config).await?;
    let (index, result) = match agree::<V>(member, offered, &answer) {
        Ok(agreed) => agreed,
        Err(e) => {
            // Nothing more is said on a stream whose version is not agreed.
            let _ = writer.shutdown().await;
            return Err(e);
        }
    };
    let agreed = Agreed {
        index,
        version: V::VERSIONS[index],
        framing: V::FRAMING,
        inbox,
        request,
        answer: answer.to_string(),
        result,
    };
    versions.connect_agreed(agreed, writer, config)
}

/// Which version `answer` agrees on, with its result's text.
fn agree<V: ConnectVersions>(
    member: &str,
    offered: Option<String>,
    answer: &Value,
) -> Result<(usize, String), VersionError> {
    if let Some(error) = answer.get("error") {
        let error =
            serde_json::from_value::<RpcError>(error.clone()).unwrap_or_else(|_| RpcError {
                code: agentwire_runtime::jsonrpc::codes::INTERNAL_ERROR,
                message: format!("malformed error answer: {error}"),
                data: None,
            });
        return Err(VersionError::Refused(error));
    }
    let result = answer.get("result").cloned().unwrap_or(Value::Null);
    let answered = result.get(member).and_then(name_of);
    let index = answered
        .as_deref()
        .and_then(|a| V::VERSIONS.iter().position(|v| *v == a));
    match index {
        Some(index) => Ok((index, result.to_string())),
        None => Err(VersionError::Unsupported {
            offered,
            answered,
            supported: V::VERSIONS,
        }),
    }
}

/// Reads frames until the handshake's answer; what came before it is kept to replay.
async fn await_answer<R>(
    reader: R,
    framing: Framing,
    config: &Config,
) -> Result<(Replay<FramedRead<R, FrameCodec>>, Value), VersionError>
where
    R: AsyncRead + Send + Unpin + 'static,
{
    let mut framed = FramedRead::new(reader, FrameCodec::new(framing, config.max_frame_size));
    let mut early = VecDeque::new();
    let limit = config.handshake_timeout;
    let overall = tokio::time::sleep(limit);
    tokio::pin!(overall);
    let mut frames = ReadDeadline::new(config.frame_timeout, None);
    loop {
        let item = tokio::select! {
            () = &mut overall => return Err(VersionError::Timeout(limit)),
            () = frames.tick() => match frames.judge(framed.mid_frame()) {
                Some(_) => return Err(VersionError::Timeout(limit)),
                None => continue,
            },
            item = Inbox::next(&mut framed) => item,
        };
        frames.progressed();
        let text = match item {
            None => return Err(VersionError::Closed),
            Some(Err(e)) => return Err(VersionError::Io(e)),
            Some(Ok(Err(framing))) => {
                crate::warn_throttled!(error = %framing, "bad frame before the handshake answer");
                continue;
            }
            Some(Ok(Ok(text))) => text,
        };
        if let Ok(message) = serde_json::from_str::<Value>(&text)
            && message.get("method").is_none()
            && message.get("id").and_then(Value::as_i64) == Some(HANDSHAKE_ID)
        {
            let inbox = Replay {
                first: early,
                inner: framed,
            };
            return Ok((inbox, message));
        }
        if early.len() >= config.queue.max(1) {
            return Err(VersionError::TooManyEarly(early.len()));
        }
        early.push_back(text);
    }
}

/// Starts `command` as the answering side on its stdin and stdout and opens a connection to
/// it with [`connect_versions`]. The child is killed when it is dropped.
pub async fn spawn_versions<V: ConnectVersions>(
    versions: &V,
    command: Command,
    offer: V::Offer,
    config: Config,
) -> Result<(V::Connected, Connection, Child), VersionError> {
    let (child, stdout, stdin) = spawn_child(command)?;
    let (connected, connection) = connect_versions(versions, stdout, stdin, offer, config).await?;
    Ok((connected, connection, child))
}
