//! The tokio-tungstenite client: connect, send typed messages through the checker, and read
//! the peer's messages decoded, validated and checked.

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use super::close;
use super::link::{Outgoing, write_loop};
use super::{
    DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_SESSIONS, DEFAULT_OUTBOUND_QUEUE, Link, Refused,
    SendError, Side,
};
use crate::check::CheckMode;

/// Limits and checking of a client.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// What the checker does with out-of-sequence messages, both directions.
    pub mode: CheckMode,
    /// Largest inbound message; a bigger one ends the connection.
    pub max_frame_bytes: usize,
    /// Live sequence instances (sessions, turns) per machine; one more is refused.
    pub max_sessions: usize,
    /// Depth of the outbound queue and of the inbound queue.
    pub queue: usize,
    /// Deadline for the TCP connect and the HTTP upgrade together; a server that accepts
    /// and then stalls fails the connect with a timed-out I/O error.
    pub handshake_timeout: std::time::Duration,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            mode: CheckMode::Enforce,
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
            max_sessions: DEFAULT_MAX_SESSIONS,
            queue: DEFAULT_OUTBOUND_QUEUE,
            handshake_timeout: super::DEFAULT_HANDSHAKE_TIMEOUT,
        }
    }
}

/// The connection could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("WebSocket connect to {url} failed: {source}")]
pub struct ConnectError {
    pub url: String,
    #[source]
    pub source: tokio_tungstenite::tungstenite::Error,
}

/// One client connection: [`Client::send`] for outbound messages, [`Client::next`] for
/// the peer's. Frames the skeleton refused show up in the stream as `Err`, after the
/// protocol's answer (if any) went out.
#[derive(Debug)]
pub struct Client<S: Side> {
    link: Link<S>,
    inbound: mpsc::Receiver<Result<S::Inbound, Refused>>,
    reader: JoinHandle<()>,
    /// Taken by `close`; `None` afterwards.
    writer: Option<JoinHandle<()>>,
}

/// How long `close` waits for queued frames and the close frame to go out.
const CLOSE_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// A dropped client stops reading at once; frames already queued still go out, and the
/// socket closes once the last `Link` clone is gone.
impl<S: Side> Drop for Client<S> {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

static NEXT_CONNECTION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl<S: Side> Client<S> {
    /// Connects to `url` (`ws://host:port/path`).
    pub async fn connect(url: &str, config: ClientConfig) -> Result<Self, ConnectError> {
        let ws_config = WebSocketConfig::default()
            .max_message_size(Some(config.max_frame_bytes))
            .max_frame_size(Some(config.max_frame_bytes));
        let connect = tokio_tungstenite::connect_async_with_config(url, Some(ws_config), false);
        let connected = tokio::time::timeout(config.handshake_timeout, connect)
            .await
            .unwrap_or_else(|_| {
                Err(tokio_tungstenite::tungstenite::Error::Io(
                    std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the WebSocket handshake did not finish in time",
                    ),
                ))
            });
        let (socket, _response) = connected.map_err(|source| ConnectError {
            url: url.to_owned(),
            source,
        })?;
        let id = NEXT_CONNECTION.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let queue = config.queue.max(1);
        let (sink, mut stream) = socket.split();
        let (tx, rx) = mpsc::channel(queue);
        let link = Link::<S>::new(id, config.mode, config.max_sessions, tx);
        let writer = tokio::spawn(write_loop(sink, rx, frame));
        let (in_tx, inbound) = mpsc::channel(queue);
        let reader_link = link.clone();
        let reader = tokio::spawn(async move {
            while let Some(frame) = stream.next().await {
                let item = match frame {
                    Ok(Message::Text(text)) => match S::decode(text.as_str()) {
                        Ok(msg) => match reader_link.admit_inbound(&msg).await {
                            Ok(()) => Ok(msg),
                            Err(v) => Err(Refused::Violation(v)),
                        },
                        Err(invalid) => Err(Refused::Invalid(invalid)),
                    },
                    Ok(Message::Binary(bytes)) => Err(Refused::Binary(bytes.len())),
                    Ok(Message::Close(_)) => break,
                    Ok(_) => continue,
                    Err(e) => {
                        crate::warn_throttled!(role = S::ROLE, connection = id, error = %e, "connection failed");
                        if let Some(reason) = close::for_error(&e) {
                            reader_link.close_with(Some(reason)).await;
                        }
                        break;
                    }
                };
                if let Err(refused) = &item {
                    reader_link.refuse(refused.clone()).await;
                }
                if in_tx.send(item).await.is_err() {
                    break;
                }
            }
        });
        Ok(Self {
            link,
            inbound,
            reader,
            writer: Some(writer),
        })
    }

    /// Checks and sends one message.
    pub async fn send(&self, msg: &S::Outbound) -> Result<(), SendError> {
        self.link.send(msg).await
    }

    /// A sending handle that can move to other tasks.
    pub fn link(&self) -> &Link<S> {
        &self.link
    }

    /// The next inbound message; `None` once the connection has ended.
    pub async fn next(&mut self) -> Option<Result<S::Inbound, Refused>> {
        self.inbound.recv().await
    }

    /// Sends a close frame after the frames already queued and waits (a few seconds at
    /// most) for them to go out.
    pub async fn close(mut self) {
        let link = self.link.clone();
        let Some(writer) = self.writer.take() else {
            return;
        };
        let abort = writer.abort_handle();
        let closing = async move {
            link.close().await;
            let _ = writer.await;
        };
        if tokio::time::timeout(CLOSE_GRACE, closing).await.is_err() {
            abort.abort();
        }
    }
}

/// The WebSocket message for a queued frame.
fn frame(item: Outgoing) -> Message {
    match item {
        Outgoing::Text(t) => Message::Text(t.into()),
        Outgoing::Ping => Message::Ping(Default::default()),
        Outgoing::Close(reason) => Message::Close(reason.map(|(code, reason)| CloseFrame {
            code: code.into(),
            reason: reason.into(),
        })),
    }
}
