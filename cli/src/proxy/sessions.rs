//! Which stream an HTTP exchange belongs to, so that concurrent sessions through one proxy
//! are checked apart (two clients' `initialize`s in one stream read as one client opening
//! twice). A request carrying a session id belongs to that session's stream. One without
//! opens a fresh stream, which the session id the answer assigns is then bound to; when a
//! server answers such a request without one, it keeps no sessions, and every later request
//! without an id joins that stream. A session ends on a successful DELETE, and the least
//! recently used one is ended when more than `MAX_SESSIONS` are open, so memory follows the
//! open sessions, not the proxy's lifetime.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::http::{HeaderMap, HeaderName};

/// Sessions checked at once, at most.
pub const MAX_SESSIONS: usize = 1024;
/// A session id longer than this is not one (a peer cannot make the proxy keep a megabyte
/// per request).
const MAX_ID: usize = 256;

/// The streams of an HTTP proxy's sessions.
pub struct Sessions {
    /// The session header; `None`: any header whose name ends in `session-id`.
    header: Option<HeaderName>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Open sessions: their stream and when they were last used.
    by_id: HashMap<String, (u64, Arc<str>)>,
    /// The stream of a server that keeps no sessions, once one answered so.
    sessionless: Option<Arc<str>>,
    /// Streams opened so far (each named by its number).
    opened: u64,
    /// Requests seen so far (the clock of `by_id`).
    used: u64,
}

/// What an answer's headers did to the sessions: streams that are over.
pub type Ended = Vec<Arc<str>>;

impl Sessions {
    pub fn new(header: Option<HeaderName>) -> Self {
        Self {
            header,
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session id `headers` carry, if any.
    pub fn id(&self, headers: &HeaderMap) -> Option<String> {
        let value = match &self.header {
            Some(name) => headers.get(name),
            None => headers
                .iter()
                .find(|(name, _)| name.as_str().ends_with("session-id"))
                .map(|(_, v)| v),
        }?;
        let id = value.to_str().ok()?;
        (!id.is_empty() && id.len() <= MAX_ID).then(|| id.to_owned())
    }

    /// The stream of a request carrying session `id` (or none), and the streams ended to
    /// make room.
    pub fn of_request(&self, id: Option<&str>) -> (Arc<str>, Ended) {
        let mut state = self.lock();
        state.used += 1;
        let now = state.used;
        if let Some(id) = id {
            if let Some((used, stream)) = state.by_id.get_mut(id) {
                *used = now;
                return (stream.clone(), Vec::new());
            }
            // A session the proxy did not see open (it started before the proxy did).
            let stream = state.open();
            let ended = state.bind(id, stream.clone());
            return (stream, ended);
        }
        if let Some(stream) = &state.sessionless {
            return (stream.clone(), Vec::new());
        }
        (state.open(), Vec::new())
    }

    /// The upstream answered a request of `stream` that carried session `asked`, with
    /// session `given` in its headers; `ok` when it succeeded, `closing` for a DELETE.
    pub fn answered(
        &self,
        stream: &Arc<str>,
        asked: Option<&str>,
        given: Option<&str>,
        ok: bool,
        closing: bool,
    ) -> Ended {
        let mut state = self.lock();
        match (asked, given) {
            (Some(id), _) if closing && ok => state
                .by_id
                .remove(id)
                .map(|(_, s)| vec![s])
                .unwrap_or_default(),
            (None, Some(id)) => state.bind(id, stream.clone()),
            (None, None) if ok && state.sessionless.is_none() => {
                state.sessionless = Some(stream.clone());
                Vec::new()
            }
            // A refused opening: its stream holds that exchange only.
            (None, None) if state.sessionless.as_ref() != Some(stream) => vec![stream.clone()],
            _ => Vec::new(),
        }
    }
}

impl State {
    fn open(&mut self) -> Arc<str> {
        self.opened += 1;
        Arc::from(self.opened.to_string())
    }

    /// Binds session `id` to `stream`; ends the least recently used session when too many
    /// are open.
    fn bind(&mut self, id: &str, stream: Arc<str>) -> Ended {
        let now = self.used;
        self.by_id.insert(id.to_owned(), (now, stream));
        let mut ended = Vec::new();
        while self.by_id.len() > MAX_SESSIONS {
            let oldest = self
                .by_id
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(id, _)| id.clone());
            match oldest.and_then(|id| self.by_id.remove(&id)) {
                Some((_, s)) => ended.push(s),
                None => break,
            }
        }
        ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_session_gets_its_own_stream() {
        let s = Sessions::new(None);
        let (a, _) = s.of_request(None);
        let (b, _) = s.of_request(None);
        assert_ne!(a, b);
        assert!(s.answered(&a, None, Some("A"), true, false).is_empty());
        assert!(s.answered(&b, None, Some("B"), true, false).is_empty());
        assert_eq!(s.of_request(Some("A")).0, a);
        assert_eq!(s.of_request(Some("B")).0, b);
        assert_eq!(s.answered(&a, Some("A"), None, true, true), vec![a.clone()]);
        // A session the proxy no longer knows starts afresh.
        assert_ne!(s.of_request(Some("A")).0, a);
    }

    #[test]
    fn a_server_without_sessions_is_one_stream() {
        let s = Sessions::new(None);
        let (a, _) = s.of_request(None);
        assert!(s.answered(&a, None, None, true, false).is_empty());
        assert_eq!(s.of_request(None).0, a);
    }

    #[test]
    fn the_header_is_found_by_name_and_ids_are_bounded() {
        let mut h = HeaderMap::new();
        h.insert("x-thing-session-id", "abc".parse().unwrap());
        assert_eq!(Sessions::new(None).id(&h).as_deref(), Some("abc"));
        let named = Sessions::new(Some(HeaderName::from_static("x-other")));
        assert_eq!(named.id(&h), None);
        h.insert("x-other", "z".repeat(MAX_ID + 1).parse().unwrap());
        assert_eq!(named.id(&h), None);
    }

    #[test]
    fn the_least_recently_used_session_makes_room() {
        let s = Sessions::new(None);
        let mut first = None;
        for i in 0..=MAX_SESSIONS {
            let (stream, ended) = s.of_request(Some(&i.to_string()));
            first.get_or_insert(stream);
            assert_eq!(ended.is_empty(), i < MAX_SESSIONS);
        }
        assert_eq!(s.lock().by_id.len(), MAX_SESSIONS);
        assert_ne!(s.of_request(Some("0")).0, first.unwrap());
    }
}
