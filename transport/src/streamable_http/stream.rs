//! The body of an SSE answer: a POST's stream (the messages related to its request, then its
//! response) or a session's GET stream, with keep-alive comments while idle, ending with the
//! session. Every event carries an id `<stream>/<sequence>`; a stream whose connection goes
//! away is parked with its last events, and a GET with `Last-Event-ID` resumes it.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use tokio::time::{Interval, MissedTickBehavior};

use super::session::{Alone, Busy, Parked, Session};
use super::sse;

/// How one SSE body behaves.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FeedConfig {
    pub keep_alive: Duration,
    /// Events kept for replay after a reconnection.
    pub replay: usize,
    /// POST streams parked at most per session.
    pub max_parked: usize,
    /// Open with a priming event (an id and empty data), with this `retry` (milliseconds).
    pub priming: Option<Option<u64>>,
}

/// The state of one SSE body.
#[derive(Debug)]
pub(crate) struct Feed {
    session: Arc<Session>,
    /// The stream's number: 0 for the GET stream.
    key: u64,
    /// Events to write before reading the queue: the priming event, then replayed events.
    before: VecDeque<Bytes>,
    stream: Option<Parked>,
    /// The queue ended normally (the response went out): nothing to park.
    done: bool,
    ticker: Interval,
    config: FeedConfig,
    _busy: Busy,
    /// The session of the one request this stream answers, ended with the stream.
    alone: Option<Alone>,
}

impl Feed {
    /// A feed of stream `key` of `session`, replaying the events after sequence number
    /// `after` first (a resumption), then reading on.
    pub fn new(
        session: Arc<Session>,
        key: u64,
        stream: Parked,
        after: Option<u64>,
        config: FeedConfig,
    ) -> Self {
        let period = config.keep_alive.max(Duration::from_millis(10));
        let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut before = VecDeque::new();
        if let Some(retry) = config.priming {
            before.push_back(sse::priming(&format!("{key}/0"), retry));
        }
        if let Some(after) = after {
            let replay = stream.sent.iter().filter(|(n, _)| *n > after);
            before.extend(replay.map(|(n, json)| frame(&format!("{key}/{n}"), json)));
        }
        Self {
            _busy: session.busy(),
            session,
            key,
            before,
            stream: Some(stream),
            done: false,
            ticker,
            config,
            alone: None,
        }
    }

    /// Ends `alone` (the session serving only this stream's request) when the stream ends,
    /// answered or dropped by its client.
    pub fn end_with(&mut self, alone: Alone) {
        self.alone = Some(alone);
    }

    /// Writes `json` first (after any priming event), as the stream's next event.
    pub fn push(&mut self, json: String) {
        if let Some(stream) = self.stream.as_mut() {
            let n = stream.next;
            stream.next += 1;
            self.before
                .push_back(frame(&format!("{}/{n}", self.key), &json));
            stream.sent.push_back((n, json));
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
        if let Some(first) = self.before.pop_front() {
            return Some(first);
        }
        let ended = self.session.ended.clone();
        let stream = self.stream.as_mut()?;
        tokio::select! {
            msg = stream.rx.recv() => match msg {
                Some(json) => {
                    let n = stream.next;
                    stream.next += 1;
                    let chunk = frame(&format!("{}/{n}", self.key), &json);
                    stream.sent.push_back((n, json));
                    while stream.sent.len() > self.config.replay {
                        stream.sent.pop_front();
                    }
                    Some(chunk)
                }
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
        // A finished POST stream has nothing left to resume; any other stream waits for
        // its client to come back (the GET stream's queue also keeps what arrives meanwhile).
        if (self.done && self.key != 0) || self.alone.is_some() {
            return;
        }
        if let Some(stream) = self.stream.take() {
            self.session.park(self.key, stream, self.config.max_parked);
        }
    }
}

/// One SSE event for `json` with event id `id`, compacted first if it spans lines (an SSE
/// `data` line cannot).
fn frame(id: &str, json: &str) -> Bytes {
    if json.contains(['\n', '\r'])
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(json)
    {
        return sse::event(Some(id), &v.to_string());
    }
    sse::event(Some(id), json)
}

/// Parses a `Last-Event-ID` this server wrote: `<stream>/<sequence>`.
pub(crate) fn parse_event_id(text: &str) -> Option<(u64, u64)> {
    let (stream, seq) = text.split_once('/')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}
