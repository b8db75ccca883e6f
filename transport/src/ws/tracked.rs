//! A WebSocket client that keeps per-session state across connections, as its protocol's
//! `tracking:` section describes: each turn it sends carries the session's stored thread
//! (or `null`), a server event binds the thread, another completes the turn; turns are
//! recorded `waiting`, then `complete`, or `error` when the connection ends first.
//!
//! Also [`resume`]: a fresh per-connection checker is shown the finished first turn a
//! stored thread proves, so a session continued on a new connection checks cleanly.

use std::sync::Mutex;

use agentwire_runtime::Invalid;
use agentwire_runtime::machine::Violation;
use serde_json::{Value, json};

use super::{Client, ClientConfig, ConnectError, Refused, SendError, Side};
use crate::http_ws::{fill, get_path, set_path};
use crate::store::StoreError;
use crate::store::keyed::{MappingStore, StateStore};

/// A protocol's `tracking:` section, as static text. Paths are dotted JSON keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrackLayout {
    /// Discriminator of the client's union and of the server's.
    pub out_tag: &'static str,
    pub in_tag: &'static str,
    pub turn_kind: &'static str,
    pub turn_session: &'static str,
    pub turn_thread: &'static str,
    pub turn_request: &'static str,
    pub turn_text: &'static str,
    pub bind_kind: &'static str,
    pub bind_session: &'static str,
    pub bind_thread: &'static str,
    pub complete_kind: &'static str,
    pub complete_request: &'static str,
    /// The protocol's names of the states `waiting`, `complete` and `error`.
    pub waiting: &'static str,
    pub complete: &'static str,
    pub error: &'static str,
    /// `(sender role, message template)` replaying a finished first turn.
    pub resume: &'static [(&'static str, &'static str)],
}

/// The client role's side, with what tracking needs on top of [`Side`].
pub trait Track: Side {
    const TRACK: &'static TrackLayout;
    /// Decodes and validates one outbound message from JSON.
    fn outbound(json: &str) -> Result<Self::Outbound, Invalid>;
    /// An inbound message as JSON.
    fn inbound_json(msg: &Self::Inbound) -> Value;
}

/// What can go wrong for a tracked client.
#[derive(Debug, thiserror::Error)]
pub enum TrackError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Send(#[from] SendError),
    /// The server sent a frame the skeleton refused (dropped; the connection goes on).
    #[error("frame refused: {0}")]
    Refused(#[from] Refused),
    #[error("the turn breaks the protocol: {0}")]
    Invalid(#[from] Invalid),
}

/// Replays the finished first turn a follow-up's thread proves, when `msg` is a turn with a
/// thread for a session `c` has not seen; a session already live refuses the first primer
/// message and is checked as it stands.
pub fn resume<C>(
    c: &mut C,
    t: &TrackLayout,
    msg: &Value,
    observe: impl Fn(&mut C, &str, &Value) -> Result<(), Violation>,
) {
    if msg.get(t.out_tag).and_then(Value::as_str) != Some(t.turn_kind) {
        return;
    }
    let text = |path| get_path(msg, path).and_then(Value::as_str);
    let (Some(session), Some(thread)) = (text(t.turn_session), text(t.turn_thread)) else {
        return;
    };
    for (i, (from, tpl)) in t.resume.iter().enumerate() {
        let tpl: Value = serde_json::from_str(tpl).unwrap_or(Value::Null);
        let entry = json!({ "message": fill(&tpl, &[("$session", session), ("$thread", thread)]) });
        if let Err(v) = observe(c, from, &entry) {
            if i > 0 {
                tracing::warn!(violation = %v, "could not resume session");
            }
            return;
        }
    }
}

/// The tracked client over side `S`, keeping its state in `St`.
pub struct TrackedClient<S: Track, St> {
    client: Client<S>,
    store: St,
    /// Turns started on this connection and not finished yet.
    open: Mutex<Vec<String>>,
}

impl<S: Track, St: std::fmt::Debug> std::fmt::Debug for TrackedClient<S, St> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrackedClient")
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

impl<S: Track, St: MappingStore + StateStore> TrackedClient<S, St> {
    pub async fn connect(url: &str, config: ClientConfig, store: St) -> Result<Self, ConnectError> {
        Ok(Self {
            client: Client::connect(url, config).await?,
            store,
            open: Mutex::new(Vec::new()),
        })
    }

    /// The state store.
    pub fn store(&self) -> &St {
        &self.store
    }

    /// The thread bound to `session`, if any.
    pub fn thread(&self, session: &str) -> Result<Option<String>, StoreError> {
        self.store.get(session)
    }

    /// The protocol's name of the state of turn `request`.
    pub fn state(&self, request: &str) -> Result<Option<String>, StoreError> {
        self.store.state(request)
    }

    /// Sends one turn of `session` (with its stored thread, or `null`), recording turn
    /// `request` as waiting.
    pub async fn turn(&self, session: &str, text: &str, request: &str) -> Result<(), TrackError> {
        let t = S::TRACK;
        let thread = self.store.get(session)?;
        let mut msg = json!({ t.out_tag: t.turn_kind });
        set_path(&mut msg, t.turn_session, session.into());
        set_path(
            &mut msg,
            t.turn_thread,
            thread.map_or(Value::Null, Value::String),
        );
        set_path(&mut msg, t.turn_text, text.into());
        set_path(&mut msg, t.turn_request, request.into());
        let msg = S::outbound(&msg.to_string())?;
        self.store.set_state(session, request, t.waiting)?;
        if let Err(e) = self.client.send(&msg).await {
            self.store.advance(request, t.waiting, t.error)?;
            return Err(e.into());
        }
        if let Ok(mut open) = self.open.lock() {
            open.push(request.to_owned());
        }
        Ok(())
    }

    /// The next server message, after the store took it into account. When the connection
    /// ends, turns still waiting on it become `error`: their replies can never arrive.
    pub async fn next(&mut self) -> Option<Result<S::Inbound, TrackError>> {
        let t = S::TRACK;
        let Some(item) = self.client.next().await else {
            let open = self
                .open
                .lock()
                .map(|mut o| std::mem::take(&mut *o))
                .unwrap_or_default();
            for request in open {
                if let Err(e) = self.store.advance(&request, t.waiting, t.error) {
                    return Some(Err(e.into()));
                }
            }
            return None;
        };
        let msg = match item {
            Ok(msg) => msg,
            Err(refused) => return Some(Err(refused.into())),
        };
        Some(self.record(&S::inbound_json(&msg)).map(|()| msg))
    }

    fn record(&self, v: &Value) -> Result<(), TrackError> {
        let t = S::TRACK;
        let text = |path| {
            get_path(v, path)
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        let kind = v.get(t.in_tag).and_then(Value::as_str);
        if kind == Some(t.bind_kind) {
            self.store.put(text(t.bind_session), text(t.bind_thread))?;
        } else if kind == Some(t.complete_kind) {
            let request = text(t.complete_request);
            if let Ok(mut open) = self.open.lock() {
                open.retain(|r| r != request);
            }
            self.store.advance(request, t.waiting, t.complete)?;
        }
        Ok(())
    }

    /// Closes the connection and hands the store back.
    pub async fn close(self) -> St {
        self.client.close().await;
        self.store
    }
}
