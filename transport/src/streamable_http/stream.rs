//! The body of an SSE answer: a POST's stream (the messages related to its request, then its
//! response) or a session's GET stream, with keep-alive comments while idle, ending with the
//! session.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use agentwire_runtime::jsonrpc::RequestId;
use axum::body::Body;
use bytes::Bytes;
use tokio::sync::mpsc;
use tokio::time::{Interval, MissedTickBehavior};

use super::session::{Busy, Session};
use super::sse;

/// What a stream gives back to its session when its client goes away.
#[derive(Debug)]
pub(crate) enum Owner {
    /// A POST's stream: forget its request unless its response was delivered.
    Post(Arc<Session>, RequestId),
    /// The GET stream: return its queue, so that a later GET gets what queued meanwhile.
    Get(Arc<Session>),
}

/// The state of one SSE body.
#[derive(Debug)]
pub(crate) struct Feed {
    first: Option<String>,
    rx: Option<mpsc::Receiver<String>>,
    ticker: Interval,
    owner: Owner,
    /// The queue ended normally (the response went out): nothing to forget.
    done: bool,
    _busy: Busy,
}

impl Feed {
    pub fn new(
        first: Option<String>,
        rx: mpsc::Receiver<String>,
        keep_alive: Duration,
        owner: Owner,
        busy: Busy,
    ) -> Self {
        let period = keep_alive.max(Duration::from_millis(10));
        let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        Self {
            first,
            rx: Some(rx),
            ticker,
            owner,
            done: false,
            _busy: busy,
        }
    }

    /// The response body streaming this feed.
    pub fn into_body(self) -> Body {
        Body::from_stream(futures_util::stream::unfold(self, |mut feed| async move {
            feed.next_chunk()
                .await
                .map(|chunk| (Ok::<_, Infallible>(chunk), feed))
        }))
    }

    async fn next_chunk(&mut self) -> Option<Bytes> {
        if let Some(first) = self.first.take() {
            return Some(frame(&first));
        }
        let ended = match &self.owner {
            Owner::Post(s, _) | Owner::Get(s) => s.ended.clone(),
        };
        let rx = self.rx.as_mut()?;
        tokio::select! {
            msg = rx.recv() => match msg {
                Some(m) => Some(frame(&m)),
                None => {
                    self.done = true;
                    None
                }
            },
            _ = self.ticker.tick() => Some(Bytes::from_static(sse::KEEP_ALIVE)),
            () = ended.cancelled() => None,
        }
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        match &self.owner {
            Owner::Post(session, id) if !self.done => {
                // Closing the queue first lets `unregister` tell this POST's entry from a
                // later request that reused the id.
                drop(self.rx.take());
                session.unregister(id);
            }
            Owner::Post(..) => {}
            Owner::Get(session) => {
                if let Some(rx) = self.rx.take() {
                    session.return_standalone(rx);
                }
            }
        }
    }
}

/// One SSE event for `json`, compacted first if it spans lines (an SSE `data` line cannot).
fn frame(json: &str) -> Bytes {
    if json.contains(['\n', '\r'])
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(json)
    {
        return sse::event(&v.to_string());
    }
    sse::event(json)
}
