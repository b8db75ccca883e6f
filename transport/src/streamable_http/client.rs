//! The client side: POSTs one message per call, reads the answer whether it is 202, a JSON
//! body or an SSE stream, optionally holds the GET stream, and hands every server message to
//! one receiver. It keeps the session id and protocol version (under the [`Profile`]'s header
//! names) for later requests.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentwire_runtime::jsonrpc::RequestId;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName};
use tokio::sync::mpsc;

use super::auth::{self, SharedAuthorizer};
use super::error::ClientError;
use super::message::{Kind, classify};
use super::profile::Profile;
use super::sse;

/// The client's limits. Every read the server controls has a deadline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// Deadline for connecting.
    pub connect_timeout: Duration,
    /// Deadline for the status and headers of an answer.
    pub response_timeout: Duration,
    /// Longest silence on an answer's body or an SSE stream (servers send keep-alives;
    /// this crate's every 15 s) before the stream is given up.
    pub read_timeout: Duration,
    /// Largest message (JSON body or SSE event) accepted.
    pub max_message_bytes: usize,
    /// Server messages buffered for the receiver; readers wait when it is full.
    pub queue: usize,
    /// Sent with every request (e.g. a fixed `Authorization`).
    pub headers: HeaderMap,
    /// Supplies `Authorization` and answers 401/403 challenges (e.g. the OAuth client).
    pub authorizer: Option<SharedAuthorizer>,
    /// Headers the application derives from each message it sends, beyond those the
    /// profile mirrors (values the spec cannot name ahead of time, such as headers a
    /// server's own declarations ask for).
    pub derived: Option<DeriveHeaders>,
}

/// Names the headers (and their values: a string, an integer or a boolean, encoded as the
/// profile encodes mirrored members) one outgoing message carries; see
/// [`ClientConfig::derived`].
#[derive(Clone)]
pub struct DeriveHeaders(pub Arc<HeadersOf>);

/// What [`DeriveHeaders`] holds: from one outgoing message, each header's name and value.
pub type HeadersOf = dyn Fn(&serde_json::Value) -> Vec<(String, serde_json::Value)> + Send + Sync;

impl std::fmt::Debug for DeriveHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DeriveHeaders(..)")
    }
}

impl PartialEq for DeriveHeaders {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for DeriveHeaders {}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            response_timeout: Duration::from_secs(60),
            read_timeout: Duration::from_secs(120),
            max_message_bytes: 16 * 1024 * 1024,
            queue: 256,
            headers: HeaderMap::new(),
            authorizer: None,
            derived: None,
        }
    }
}

/// What the receiver gets: a server message (JSON text) or a stream's failure.
pub type Received = Result<String, ClientError>;

/// A Streamable HTTP client of one endpoint. Clones share the session.
#[derive(Debug, Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    http: reqwest::Client,
    url: reqwest::Url,
    profile: Profile,
    session_header: HeaderName,
    version_header: HeaderName,
    config: ClientConfig,
    state: Mutex<State>,
    tx: mpsc::Sender<Received>,
}

#[derive(Debug, Default)]
struct State {
    session: Option<String>,
    version: Option<String>,
    /// The id of the opening request in flight: its result names the protocol version.
    init_id: Option<RequestId>,
}

impl Client {
    /// A client of the endpoint at `url` speaking `profile` (a generated skeleton's
    /// `STREAMABLE_HTTP`), and the receiver of every server message.
    pub fn new(
        url: &str,
        profile: Profile,
        config: ClientConfig,
    ) -> Result<(Self, mpsc::Receiver<Received>), ClientError> {
        profile.check().map_err(ClientError::Profile)?;
        let (Some(session_header), Some(version_header)) =
            (profile.session_name(), profile.version_name())
        else {
            return Err(ClientError::Profile(
                "a header name is not valid".to_owned(),
            ));
        };
        let bad = |reason: String| ClientError::Url {
            url: url.to_owned(),
            reason,
        };
        let parsed = reqwest::Url::parse(url).map_err(|e| bad(e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(bad("the scheme must be http or https".to_owned()));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| bad(e.to_string()))?;
        let (tx, rx) = mpsc::channel(config.queue.max(1));
        let inner = Arc::new(Inner {
            http,
            url: parsed,
            profile,
            session_header,
            version_header,
            config,
            state: Mutex::new(State::default()),
            tx,
        });
        Ok((Self { inner }, rx))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The session id the server assigned, once the opening request was answered.
    pub fn session_id(&self) -> Option<String> {
        self.state().session.clone()
    }

    /// The protocol version sent in the version header (learnt from the opening request's
    /// result).
    pub fn protocol_version(&self) -> Option<String> {
        self.state().version.clone()
    }

    /// Overrides the protocol version header.
    pub fn set_protocol_version(&self, version: Option<String>) {
        self.state().version = version;
    }

    fn headers(&self) -> HeaderMap {
        let st = self.state();
        let mut h = self.inner.config.headers.clone();
        let names = [&self.inner.session_header, &self.inner.version_header];
        for (name, value) in names.into_iter().zip([&st.session, &st.version]) {
            if let Some(v) = value.as_deref().and_then(|v| v.parse().ok()) {
                h.insert(name.clone(), v);
            }
        }
        h
    }

    /// The headers of a POST carrying `json`: the session's, with the version the message
    /// names itself in place of the session's (a protocol whose messages name their version,
    /// `Profile::version_source`), and the headers mirroring its members when its version
    /// mirrors them.
    fn message_headers(&self, json: &str) -> HeaderMap {
        let mut h = self.headers();
        let profile = &self.inner.profile;
        let per_message = profile.version_source.filter(|s| s.per_message());
        let derive = self.inner.config.derived.as_ref();
        if per_message.is_none() && profile.mirror.is_empty() && derive.is_none() {
            return h;
        }
        let Ok(message) = serde_json::from_str::<serde_json::Value>(json) else {
            return h;
        };
        let named = per_message.and_then(|source| {
            source.meta_paths().iter().find_map(|path| {
                let mut at = message.get("params")?;
                for step in *path {
                    at = at.get(step)?;
                }
                agentwire_runtime::version::name_of(at)
            })
        });
        if let Some(v) = named.as_deref().and_then(|v| v.parse().ok()) {
            h.insert(self.inner.version_header.clone(), v);
        }
        let version = named.or_else(|| self.state().version.clone());
        if profile.mirrors(version.as_deref()) {
            for (name, value) in super::mirror::headers_for(profile, &message) {
                h.insert(name, value);
            }
        }
        if let Some(DeriveHeaders(derive)) = derive {
            for (name, value) in super::mirror::derived(profile, derive(&message)) {
                h.insert(name, value);
            }
        }
        h
    }

    /// Sends one JSON-RPC message. Returns once the server accepted it; the answer to a
    /// request (and anything streamed before it) arrives on the receiver.
    pub async fn send(&self, json: &str) -> Result<(), ClientError> {
        let kind = classify(json).map_err(|e| ClientError::Invalid { rule: e.rule })?;
        if let Kind::Request { id, method } = &kind
            && method == self.inner.profile.opens_with
        {
            let mut st = self.state();
            st.init_id = Some(id.clone());
            st.session = None;
        }
        let request = self
            .inner
            .http
            .post(self.inner.url.clone())
            .headers(self.message_headers(json))
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(json.to_owned());
        let response = self.answer(request).await?;
        if let Some(id) = response
            .headers()
            .get(&self.inner.session_header)
            .and_then(|v| v.to_str().ok())
        {
            self.state().session = Some(id.to_owned());
        }
        if response.status() == reqwest::StatusCode::ACCEPTED {
            return Ok(());
        }
        let content_type = content_type(response.headers());
        if content_type.eq_ignore_ascii_case("application/json") {
            let text = read_json(&self.inner.config, response).await?;
            self.deliver(Ok(text)).await;
            Ok(())
        } else if content_type.eq_ignore_ascii_case("text/event-stream") {
            let expect = match kind {
                Kind::Request { id, .. } => Some(id),
                _ => None,
            };
            tokio::spawn(self.clone().read_stream(response, expect));
            Ok(())
        } else {
            Err(ClientError::ContentType(content_type))
        }
    }

    /// Opens the session's GET stream: `Ok(false)` when the server offers none (405).
    pub async fn open_stream(&self) -> Result<bool, ClientError> {
        let request = self
            .inner
            .http
            .get(self.inner.url.clone())
            .headers(self.headers())
            .header(ACCEPT, "text/event-stream");
        let response = match self.answer(request).await {
            Ok(r) => r,
            Err(ClientError::Status { status: 405, .. }) => return Ok(false),
            Err(e) => return Err(e),
        };
        let content_type = content_type(response.headers());
        if !content_type.eq_ignore_ascii_case("text/event-stream") {
            return Err(ClientError::ContentType(content_type));
        }
        tokio::spawn(self.clone().read_stream(response, None));
        Ok(true)
    }

    /// Ends the session (DELETE). A server that does not allow it (405) or no longer knows
    /// the session (404) is not an error; the client forgets the session either way.
    pub async fn terminate(&self) -> Result<(), ClientError> {
        if self.state().session.is_none() {
            return Ok(());
        }
        let request = self
            .inner
            .http
            .delete(self.inner.url.clone())
            .headers(self.headers());
        let result = self.answer(request).await;
        self.state().session = None;
        match result {
            Ok(_) | Err(ClientError::SessionExpired | ClientError::Status { status: 405, .. }) => {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Sends `request` (with the authorizer's credentials, answering its challenges) and
    /// checks the status: 404 on a session forgets it.
    async fn answer(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, ClientError> {
        let Some(SharedAuthorizer(authorizer)) = self.inner.config.authorizer.clone() else {
            let response = self.send_once(request).await?;
            return self.checked(response).await;
        };
        let mut request = request;
        let mut rounds = 0;
        loop {
            let again = request.try_clone();
            let mut sent = request;
            let credentials = authorizer.authorization().await;
            if let Some(value) = &credentials {
                sent = sent.header(reqwest::header::AUTHORIZATION, value.clone());
            }
            let response = self.send_once(sent).await?;
            let status = response.status();
            let challenges = auth::challenges(response.headers());
            if !auth::is_challenge(status, &challenges) {
                if status.is_success() {
                    authorizer.accepted();
                }
                return self.checked(response).await;
            }
            let (Some(next), true) = (again, rounds < auth::MAX_CHALLENGES) else {
                return self.checked(response).await;
            };
            let challenged =
                authorizer.challenged(status.as_u16(), &challenges, credentials.as_ref());
            if let Err(reason) = challenged.await {
                return Err(ClientError::Unauthorized {
                    status: status.as_u16(),
                    reason,
                });
            }
            rounds += 1;
            request = next;
        }
    }

    async fn send_once(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, ClientError> {
        let after = self.inner.config.response_timeout;
        tokio::time::timeout(after, request.send())
            .await
            .map_err(|_| ClientError::Timeout {
                what: "answer",
                after,
            })?
            .map_err(|e| ClientError::Http(with_causes(&e)))
    }

    async fn checked(&self, response: reqwest::Response) -> Result<reqwest::Response, ClientError> {
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        if status == reqwest::StatusCode::NOT_FOUND && self.state().session.take().is_some() {
            return Err(ClientError::SessionExpired);
        }
        let body = read_capped(&self.inner.config, response, 4096)
            .await
            .unwrap_or_default();
        Err(ClientError::Status {
            status: status.as_u16(),
            body: String::from_utf8_lossy(&body).into_owned(),
        })
    }

    /// Passes one server message to the receiver, learning the protocol version from the
    /// opening request's result on the way.
    async fn deliver(&self, item: Received) {
        if let Ok(text) = &item
            && let Ok(Kind::Response { id }) = classify(text)
        {
            self.learn_version(&id, text);
        }
        // A dropped receiver means nobody listens any more: nothing to do.
        let _ = self.inner.tx.send(item).await;
    }

    fn learn_version(&self, id: &RequestId, text: &str) {
        let mut st = self.state();
        if st.init_id.as_ref() != Some(id) {
            return;
        }
        st.init_id = None;
        let value: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        let member = self.inner.profile.version_member;
        if let Some(v) = value
            .get("result")
            .and_then(|r| r.get(member))
            .and_then(|v| v.as_str())
        {
            st.version = Some(v.to_owned());
        }
    }

    /// Reads an SSE answer to its end, delivering each event's message. A POST's stream that
    /// breaks or ends before the response, after an event with an id, is resumed by a GET with
    /// `Last-Event-ID` (after the server's `retry` delay), a few times at most.
    async fn read_stream(self, mut response: reqwest::Response, expect: Option<RequestId>) {
        let mut cursor = Cursor::default();
        let mut resumes = 0;
        loop {
            let outcome = self
                .read_events(response, &mut cursor, expect.as_ref())
                .await;
            let failure = match (&expect, &cursor.last_id) {
                (None, _) | (_, None) => return self.report(outcome).await,
                _ if cursor.answered || matches!(outcome, Err(ClientError::TooLarge(_))) => {
                    return self.report(outcome).await;
                }
                _ if resumes == MAX_RESUMES => {
                    let e = outcome.err().unwrap_or_else(|| {
                        ClientError::Http("the stream ended before its response".to_owned())
                    });
                    return self.deliver(Err(e)).await;
                }
                (_, Some(last)) => last.clone(),
            };
            resumes += 1;
            let wait = cursor.retry.unwrap_or(1000).min(MAX_RETRY_MS);
            tokio::time::sleep(Duration::from_millis(wait)).await;
            response = match self.resume(&failure).await {
                Ok(r) => r,
                Err(e) => return self.deliver(Err(e)).await,
            };
        }
    }

    async fn report(&self, outcome: Result<(), ClientError>) {
        if let Err(e) = outcome {
            self.deliver(Err(e)).await;
        }
    }

    /// GET with `Last-Event-ID`: the rest of a broken stream.
    async fn resume(&self, last_id: &str) -> Result<reqwest::Response, ClientError> {
        let request = self
            .inner
            .http
            .get(self.inner.url.clone())
            .headers(self.headers())
            .header(ACCEPT, "text/event-stream")
            .header("last-event-id", last_id);
        let response = self.answer(request).await?;
        let content_type = content_type(response.headers());
        if !content_type.eq_ignore_ascii_case("text/event-stream") {
            return Err(ClientError::ContentType(content_type));
        }
        Ok(response)
    }

    /// Reads one connection's events until it ends, keeping the resumption cursor.
    async fn read_events(
        &self,
        mut response: reqwest::Response,
        cursor: &mut Cursor,
        expect: Option<&RequestId>,
    ) -> Result<(), ClientError> {
        let config = &self.inner.config;
        let mut parser = sse::Parser::new(config.max_message_bytes);
        let mut events = Vec::new();
        while let Some(chunk) = next_chunk(config, &mut response).await? {
            parser
                .feed(&chunk, &mut events)
                .map_err(|sse::TooLarge(max)| ClientError::TooLarge(max))?;
            cursor.retry = parser.retry().or(cursor.retry);
            for event in events.drain(..) {
                if event.id.is_some() {
                    cursor.last_id = event.id;
                }
                // Priming events (an id and empty data) carry no message.
                if event.name != "message" || event.data.is_empty() {
                    continue;
                }
                let item = match classify(&event.data) {
                    Ok(Kind::Response { id }) => {
                        cursor.answered |= Some(&id) == expect;
                        Ok(event.data)
                    }
                    Ok(_) => Ok(event.data),
                    Err(e) => Err(ClientError::BadMessage { rule: e.rule }),
                };
                self.deliver(item).await;
            }
        }
        Ok(())
    }
}

/// Reconnections of one POST stream at most.
const MAX_RESUMES: u32 = 3;

/// The longest `retry` delay honoured, so that a server cannot park the reader for ever.
const MAX_RETRY_MS: u64 = 60_000;

/// Where a stream got to: its last event id, the server's retry delay, whether the response
/// it carries arrived.
#[derive(Debug, Default)]
struct Cursor {
    last_id: Option<String>,
    retry: Option<u64>,
    answered: bool,
}

/// An error and its causes, as one sentence: reqwest's own text ("error sending request")
/// leaves out why (connection refused, a DNS failure).
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    text
}

fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or("")
        .trim()
        .to_owned()
}

async fn next_chunk(
    config: &ClientConfig,
    response: &mut reqwest::Response,
) -> Result<Option<bytes::Bytes>, ClientError> {
    let after = config.read_timeout;
    tokio::time::timeout(after, response.chunk())
        .await
        .map_err(|_| ClientError::Timeout {
            what: "send more of its answer",
            after,
        })?
        .map_err(|e| ClientError::Http(e.to_string()))
}

async fn read_capped(
    config: &ClientConfig,
    mut response: reqwest::Response,
    max: usize,
) -> Result<Vec<u8>, ClientError> {
    let mut body = Vec::new();
    while let Some(chunk) = next_chunk(config, &mut response).await? {
        if body.len() + chunk.len() > max {
            return Err(ClientError::TooLarge(max));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

async fn read_json(
    config: &ClientConfig,
    response: reqwest::Response,
) -> Result<String, ClientError> {
    let body = read_capped(config, response, config.max_message_bytes).await?;
    let text = String::from_utf8(body).map_err(|_| ClientError::BadMessage {
        rule: "the body is not UTF-8".to_owned(),
    })?;
    classify(&text).map_err(|e| ClientError::BadMessage { rule: e.rule })?;
    Ok(text)
}
