//! What the `mcp_server` example offers in both eras of MCP, and the state its eras share: the
//! tool list, the resources and their template, the prompt, the completion values, what the
//! last `slow` call saw, and the subscribers a `touch` notifies. [`modern`] is its 2026-07-28
//! handler; the 2025-11-25 one is in `examples/mcp_server.rs`.

pub mod modern;

use std::sync::{Arc, Mutex, PoisonError};

use agentwire_protocols::skeletons::mcp::{v2025_11_25, v2026_07_28};
use serde_json::{Value, json};

/// The name the example gives as its own in both eras.
pub const SERVER_NAME: &str = "agentwire-mcp-example";

/// The example's tools, as `tools/list` lists them (both eras list the same).
pub fn tools() -> Value {
    let text_arg = |name: &str| json!({"type": "object", "properties": {name: {"type": "string"}}, "required": [name]});
    let nothing = json!({"type": "object"});
    json!([
        {"name": "echo", "description": "Returns its text.", "inputSchema": text_arg("text")},
        {"name": "add", "description": "Adds two numbers.", "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"]}},
        {"name": "payload", "description": "Returns `size` bytes of text.", "inputSchema": {
            "type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}},
        {"name": "progress", "description": "Reports progress in `steps` steps.", "inputSchema": {
            "type": "object", "properties": {"steps": {"type": "integer"}}}},
        {"name": "sample", "description": "Asks the client's model.", "inputSchema": text_arg("prompt")},
        {"name": "confirm", "description": "Asks the user for a name, then greets it.", "inputSchema": nothing},
        {"name": "roots", "description": "Names the client's first root.", "inputSchema": nothing},
        {"name": "slow", "description": "Runs until cancelled (30 s at most), after one progress report.", "inputSchema": nothing},
        {"name": "was_cancelled", "description": "What the last `slow` call saw: running, yes or no.", "inputSchema": nothing},
        {"name": "touch", "description": "Marks the resource `uri` changed: its subscribers are told.", "inputSchema": text_arg("uri")},
        {"name": "fail", "description": "Always fails (isError).", "inputSchema": nothing}
    ])
}

/// The resources listed.
pub fn resources() -> Value {
    json!([{"uri": "file:///greeting.txt", "name": "greeting", "mimeType": "text/plain"}])
}

/// The resource templates listed.
pub fn templates() -> Value {
    json!([{"uriTemplate": "greeting://{name}", "name": "greeting for a name", "mimeType": "text/plain"}])
}

/// The text of the resource at `uri`; `None` when there is none.
pub fn read(uri: &str) -> Option<String> {
    if uri == "file:///greeting.txt" {
        return Some("Hello from agentwire.".to_owned());
    }
    uri.strip_prefix("greeting://")
        .map(|name| format!("Hello, {name}."))
}

/// The prompts listed.
pub fn prompts() -> Value {
    json!([{"name": "greet", "description": "Greets someone by name.",
        "arguments": [{"name": "name", "required": true}]}])
}

/// The messages of prompt `greet` for `name`.
pub fn greeting_prompt(name: &str) -> Value {
    json!([{"role": "user", "content": {"type": "text", "text": format!("Please greet {name}.")}}])
}

/// The completion values offered for any argument.
pub fn completion() -> Value {
    json!({"values": ["Ada", "Alan"], "total": 2, "hasMore": false})
}

/// The form `confirm` asks for: one name, `Ada` by default.
pub fn name_form() -> Value {
    json!({"type": "object", "properties": {"name": {"type": "string", "default": "Ada"}},
        "required": ["name"]})
}

/// A 2026-07-28 subscription: the resources it watches, its id (the listen request's) and
/// the handle its notifications go out on.
struct Listener {
    serial: u64,
    uris: Vec<String>,
    id: Value,
    sender: v2026_07_28::ServerSender,
}

/// What both eras' handlers share in one server process.
#[derive(Default)]
pub struct Shared {
    slow: Mutex<&'static str>,
    /// 2025-11-25 subscriptions: the resource and the session's handle.
    subscribed: Mutex<Vec<(String, v2025_11_25::ServerSender)>>,
    listening: Mutex<Vec<Listener>>,
    /// Tells listeners apart: request ids repeat across HTTP requests and clients.
    serials: std::sync::atomic::AtomicU64,
}

impl Shared {
    /// A fresh state: no `slow` call ran, nobody subscribed.
    pub fn new() -> Arc<Self> {
        Arc::new(Shared {
            slow: Mutex::new("never ran"),
            ..Shared::default()
        })
    }

    /// What the last `slow` call saw.
    pub fn slow_seen(&self) -> &'static str {
        *self.slow.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Marks a `slow` call running; the guard says `yes` when the call is dropped before it
    /// ends (the transport aborts a cancelled request's handler) and `no` once it finished.
    pub fn slow_started(self: &Arc<Self>) -> SlowRun {
        *self.slow.lock().unwrap_or_else(PoisonError::into_inner) = "running";
        SlowRun {
            shared: Arc::clone(self),
            finished: false,
        }
    }

    /// Remembers a 2025-11-25 session's subscription to `uri`.
    pub fn subscribe(&self, uri: String, session: v2025_11_25::ServerSender) {
        let mut subscribed = self
            .subscribed
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        subscribed.push((uri, session));
    }

    /// Forgets the 2025-11-25 subscriptions to `uri` (of every session: the example keeps
    /// no session identity).
    pub fn unsubscribe(&self, uri: &str) {
        let mut subscribed = self
            .subscribed
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        subscribed.retain(|(u, _)| u != uri);
    }

    /// Remembers a 2026-07-28 subscription until the returned guard drops (the listen
    /// request ended or was cancelled).
    pub fn listen(
        self: &Arc<Self>,
        uris: Vec<String>,
        id: Value,
        sender: v2026_07_28::ServerSender,
    ) -> Listening {
        let serial = self
            .serials
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut listening = self
            .listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        listening.push(Listener {
            serial,
            uris,
            id,
            sender,
        });
        Listening {
            shared: Arc::clone(self),
            serial,
        }
    }

    /// Tells every subscriber of `uri`, in either era, that it changed; returns how many
    /// were told.
    pub async fn touch(&self, uri: &str) -> usize {
        let legacy: Vec<_> = {
            let subscribed = self
                .subscribed
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            subscribed
                .iter()
                .filter(|(u, _)| u == uri)
                .map(|(_, s)| s.clone())
                .collect()
        };
        let modern: Vec<_> = {
            let listening = self
                .listening
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            listening
                .iter()
                .filter(|l| l.uris.iter().any(|u| u == uri))
                .map(|l| (l.id.clone(), l.sender.clone()))
                .collect()
        };
        let mut told = 0;
        for session in legacy {
            let params = json!({ "uri": uri });
            let Ok(params) = serde_json::from_value(params) else {
                continue;
            };
            told += usize::from(
                session
                    .notifications_resources_updated(params)
                    .await
                    .is_ok(),
            );
        }
        for (id, sender) in modern {
            // Notifications of a subscription name it (basic/patterns/subscriptions.mdx).
            let params =
                json!({"uri": uri, "_meta": {"io.modelcontextprotocol/subscriptionId": id}});
            let Ok(params) = serde_json::from_value(params) else {
                continue;
            };
            told += usize::from(sender.notifications_resources_updated(params).await.is_ok());
        }
        told
    }
}

/// A running `slow` call; see [`Shared::slow_started`].
pub struct SlowRun {
    shared: Arc<Shared>,
    finished: bool,
}

impl SlowRun {
    /// The call ran to its end.
    pub fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for SlowRun {
    fn drop(&mut self) {
        let seen = if self.finished { "no" } else { "yes" };
        *self
            .shared
            .slow
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = seen;
    }
}

/// A 2026-07-28 subscription held open; see [`Shared::listen`].
pub struct Listening {
    shared: Arc<Shared>,
    serial: u64,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let mut listening = self
            .shared
            .listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        listening.retain(|l| l.serial != self.serial);
    }
}
