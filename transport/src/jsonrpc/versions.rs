//! Several versions of one protocol on one endpoint, answering side: the stream's first
//! message says which version it speaks (a handshake's offer, or a version a message names,
//! as the spec's `version:` declares), and the connection runs as that version's generated
//! side. The connecting side's offer and fallback are [`super::negotiate`]'s.
//!
//! The version is learnt before any typed connection exists, because each version decodes
//! its messages as different types; what was read to learn it is replayed into the
//! connection, so the chosen version's decoder, validator and sequence checker see the whole
//! stream, its first message included.

use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

use agentwire_runtime::jsonrpc::codes;
use agentwire_runtime::version::{Reader, Said, Source};
use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::{FramedRead, FramedWrite};
use tokio_util::sync::CancellationToken;

use super::codec::{FrameCodec, Framing};
use super::deadline::ReadDeadline;
use super::ends::{Answers, Hears, Serving};
use super::handle::{Bound, Handle};
use super::link::{InItem, Inbox};
use super::peer::{Connection, MessageLink, Peer};
use super::{Config, Server};

/// An inbox that yields messages already read before the ones still to come.
pub(super) struct Replay<I> {
    pub(super) first: VecDeque<String>,
    pub(super) inner: I,
}

impl<I: Inbox> Inbox for Replay<I> {
    async fn next(&mut self) -> Option<InItem> {
        match self.first.pop_front() {
            Some(text) => Some(Ok(Ok(text))),
            None => self.inner.next().await,
        }
    }

    fn mid_frame(&self) -> bool {
        self.inner.mid_frame()
    }
}

/// A byte stream whose first message has been read and whose version is chosen: an index
/// into the protocol's versions (newest first). Made by [`serve_versions`]; a generated
/// skeleton hands it to the chosen version's `Server::serve_opened`.
pub struct Opening<R> {
    index: usize,
    framing: Framing,
    inbox: Replay<FramedRead<R, FrameCodec>>,
}

impl<R> Opening<R> {
    /// Which version the stream speaks: an index into the protocol's `VERSIONS`.
    pub fn index(&self) -> usize {
        self.index
    }
}

impl<R> std::fmt::Debug for Opening<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opening")
            .field("index", &self.index)
            .finish()
    }
}

/// The answering side of a protocol with several versions: one handler per version, and the
/// generated match that serves a stream as the version it was opened in.
pub trait ServeVersions: Send + Sync + 'static {
    /// The protocol's versions, newest first, as peers write them.
    const VERSIONS: &'static [&'static str];
    /// Where a stream names its version.
    const SOURCE: Source;
    /// How messages are delimited (every version of a folder shares its transport).
    const FRAMING: Framing;
    /// The code answering a request that names a version this side does not speak
    /// (JSON-RPC's "Invalid params" unless the protocol says otherwise).
    const UNSUPPORTED_CODE: i64 = codes::INVALID_PARAMS;
    /// The versions whose streams do not open with the handshake (a later era naming its
    /// version on every message): a handshake offering an undeclared version is served as
    /// the newest version not listed here, the newest that can answer it.
    const WITHOUT_HANDSHAKE: &'static [&'static str] = &[];
    /// What serving a stream returns: the chosen version's handle.
    type Served: Send + 'static;

    /// Serves `opening` as its version, with that version's handler.
    fn serve_opened<R, W>(
        &self,
        opening: Opening<R>,
        writer: W,
        config: Config,
    ) -> (Self::Served, Connection)
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static;

    /// Serves a connection whose messages arrive and leave whole (an HTTP session, or one
    /// message served on its own) as the version at `index` of [`Self::VERSIONS`], with that
    /// version's handler, types and sequence checker.
    fn serve_messages_as(
        &self,
        index: usize,
        config: Config,
    ) -> (Self::Served, MessageLink, Connection);
}

impl<S: Bound> Server<S> {
    /// Serves a stream whose version was chosen from its first message (which the connection
    /// reads again first).
    pub fn serve_opened<H, R, W>(
        handler: Arc<H>,
        opening: Opening<R>,
        writer: W,
        config: Config,
    ) -> (Handle<S>, Connection)
    where
        S: Answers<H> + Hears<H>,
        H: Send + Sync + 'static,
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let checker = S::checker(config.checker_limits);
        let (peer, connection) = Peer::spawn_inbox(
            opening.framing,
            CancellationToken::new(),
            opening.inbox,
            writer,
            checker,
            config,
            Serving(handler),
        );
        (Handle::new(peer), connection)
    }
}

/// Serves one stream of a protocol with several versions: waits for its first message
/// (within the configured frame and idle deadlines), serves it as the version that message
/// offers or names, and returns the chosen version's handle with the connection.
///
/// - A handshake offering a version this side speaks is served as that version; one offering
///   any other is served as the newest, whose handler answers with its own version (the
///   usual negotiation: the answer names a version the server supports, and the client
///   decides whether it speaks it).
/// - A message naming an undeclared version (a per-message member or header) is answered, if
///   it is a request, with [`ServeVersions::UNSUPPORTED_CODE`] and `data: {supported,
///   requested}`; notifications naming one are dropped. The stream is then still open.
/// - A first message naming no version is served as the newest.
///
/// Fails with `UnexpectedEof` when the stream ends before a message, `TimedOut` when none
/// comes in time.
pub async fn serve_versions<V, R, W>(
    versions: &V,
    reader: R,
    mut writer: W,
    config: Config,
) -> io::Result<(V::Served, Connection)>
where
    V: ServeVersions,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let opening = open::<V, R, W>(reader, &mut writer, &config).await?;
    Ok(versions.serve_opened(opening, writer, config))
}

/// [`serve_versions`] on this process's stdin and stdout, until the connection ends; input
/// that ends before its first message is a connection that ended, not an error.
pub async fn serve_versions_stdio<V: ServeVersions>(
    versions: &V,
    config: Config,
) -> io::Result<()> {
    let served = serve_versions(
        versions,
        crate::stdio::stdin(),
        crate::stdio::stdout(),
        config,
    )
    .await;
    match served {
        Ok((_served, connection)) => connection.join().await,
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(()),
        Err(e) => Err(e),
    }
}

/// What a stream's first message chooses.
#[derive(Debug, PartialEq)]
pub(super) enum Pick {
    /// Serve the stream as the version at this index.
    Version(usize),
    /// The message names a version not declared; answer it (when it has an id) and read on.
    Unsupported {
        id: Option<Value>,
        requested: String,
    },
}

/// The version `text` (a stream's first message) opens the stream in; `without_handshake`:
/// the versions an offer cannot be served as (they have no handshake to answer).
pub(super) fn pick(
    versions: &[&str],
    without_handshake: &[&str],
    source: Source,
    text: &str,
) -> Pick {
    // Not JSON: the newest version's connection answers it as its own parse error.
    let Ok(message) = serde_json::from_str::<Value>(text) else {
        return Pick::Version(0);
    };
    let entry = json!({ "message": message });
    let index = |v: &str| versions.iter().position(|x| *x == v);
    match Reader::new(source).read(&entry) {
        Some(Said::Offered(v)) => {
            let answering = || versions.iter().position(|x| !without_handshake.contains(x));
            Pick::Version(index(&v).or_else(answering).unwrap_or(0))
        }
        Some(Said::Named(v)) => match index(&v) {
            Some(i) => Pick::Version(i),
            None => Pick::Unsupported {
                id: entry["message"].get("id").cloned(),
                requested: v,
            },
        },
        Some(Said::Agreed(_)) | None => Pick::Version(0),
    }
}

/// Reads `reader` up to the first message that chooses a version.
async fn open<V, R, W>(reader: R, writer: &mut W, config: &Config) -> io::Result<Opening<R>>
where
    V: ServeVersions,
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let max = config.max_frame_size;
    let mut framed = FramedRead::new(reader, FrameCodec::new(V::FRAMING, max));
    let mut deadline = ReadDeadline::new(config.frame_timeout, config.idle_timeout);
    loop {
        let item = tokio::select! {
            item = Inbox::next(&mut framed) => item,
            () = deadline.tick() => match deadline.judge(framed.mid_frame()) {
                Some(expired) => {
                    let why = format!("no first message in time ({expired:?} deadline)");
                    return Err(io::Error::new(io::ErrorKind::TimedOut, why));
                }
                None => continue,
            },
        };
        deadline.progressed();
        let text = match item {
            None => {
                let why = "the stream ended before its first message";
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, why));
            }
            Some(Err(e)) => return Err(e),
            Some(Ok(Err(framing))) => {
                // The frame is lost, so there is no id to answer: a parse error, null id.
                let error = json!({"code": codes::PARSE_ERROR, "message": framing.to_string()});
                write_frame(writer, V::FRAMING, max, answer(Value::Null, error)).await?;
                continue;
            }
            Some(Ok(Ok(text))) => text,
        };
        match pick(V::VERSIONS, V::WITHOUT_HANDSHAKE, V::SOURCE, &text) {
            Pick::Version(index) => {
                let inbox = Replay {
                    first: VecDeque::from([text]),
                    inner: framed,
                };
                return Ok(Opening {
                    index,
                    framing: V::FRAMING,
                    inbox,
                });
            }
            Pick::Unsupported {
                id: None,
                requested,
            } => {
                crate::warn_throttled!(%requested, "notification in an undeclared version dropped");
            }
            Pick::Unsupported {
                id: Some(id),
                requested,
            } => {
                let error = unsupported(V::UNSUPPORTED_CODE, V::VERSIONS, &requested);
                write_frame(writer, V::FRAMING, max, answer(id, error)).await?;
            }
        }
    }
}

/// The `error` member answering a request in version `requested`.
fn unsupported(code: i64, supported: &[&str], requested: &str) -> Value {
    json!({
        "code": code,
        "message": format!(
            "unsupported protocol version `{requested}`; this side speaks {}",
            supported.join(", ")
        ),
        "data": {"supported": supported, "requested": requested},
    })
}

/// An error response to `id`.
fn answer(id: Value, error: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string()
}

/// Writes one framed message and flushes it.
pub(super) async fn write_frame<W: AsyncWrite + Unpin>(
    writer: &mut W,
    framing: Framing,
    max_frame_size: usize,
    text: String,
) -> io::Result<()> {
    FramedWrite::new(writer, FrameCodec::new(framing, max_frame_size))
        .send(text)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCES: &[Source] = &[
        Source::Handshake {
            method: "open",
            member: "version",
        },
        Source::Meta {
            path: &["_meta", "v"],
        },
    ];
    const ANY: Source = Source::Any(SOURCES);
    const VERSIONS: &[&str] = &["2", "1"];

    #[test]
    fn an_offer_picks_its_version_or_the_newest() {
        let open = |v: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":0,"method":"open","params":{{"version":"{v}"}}}}"#)
        };
        assert_eq!(pick(VERSIONS, &[], ANY, &open("1")), Pick::Version(1));
        assert_eq!(pick(VERSIONS, &[], ANY, &open("2")), Pick::Version(0));
        // An offer this side does not speak is served as the newest, whose answer says so.
        assert_eq!(pick(VERSIONS, &[], ANY, &open("7")), Pick::Version(0));
        // When the newest version has no handshake, the newest that has one answers it.
        assert_eq!(pick(VERSIONS, &["2"], ANY, &open("7")), Pick::Version(1));
        assert_eq!(pick(VERSIONS, &["2"], ANY, &open("2")), Pick::Version(0));
    }

    #[test]
    fn a_named_version_picks_it_or_is_refused() {
        let named = r#"{"jsonrpc":"2.0","id":3,"method":"x","params":{"_meta":{"v":"1"}}}"#;
        assert_eq!(pick(VERSIONS, &[], ANY, named), Pick::Version(1));
        let odd = r#"{"jsonrpc":"2.0","id":3,"method":"x","params":{"_meta":{"v":"9"}}}"#;
        assert_eq!(
            pick(VERSIONS, &[], ANY, odd),
            Pick::Unsupported {
                id: Some(json!(3)),
                requested: "9".into()
            }
        );
        let error = unsupported(-32602, VERSIONS, "9");
        assert_eq!(
            error["data"],
            json!({"supported": ["2", "1"], "requested": "9"})
        );
    }

    #[test]
    fn nothing_said_is_the_newest() {
        assert_eq!(pick(VERSIONS, &[], ANY, "not json"), Pick::Version(0));
        let plain = r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{}}"#;
        assert_eq!(pick(VERSIONS, &[], ANY, plain), Pick::Version(0));
    }
}
