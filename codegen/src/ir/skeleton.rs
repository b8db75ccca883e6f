//! What a spec declares about its skeleton's behaviour, beyond messages and routes: the
//! `sessions:` section (the session engine of an `http+websocket` skeleton) and the
//! `tracking:` section (the state a WebSocket client keeps across connections). Both are
//! checked against the types when the spec loads, so an emitter can rely on every name.

use std::collections::BTreeMap;

use serde_json::Value;

/// `sessions:`: how the `http+websocket` session engine maps onto the protocol.
#[derive(Debug, Clone, PartialEq)]
pub struct Sessions {
    /// The role that serves the routes and the WebSocket.
    pub server: String,
    /// The role that opens the WebSocket.
    pub client: String,
    /// The WebSocket's path on the server (`/ws`).
    pub websocket: String,
    /// The session id's type (its constraints, `@trim` included, are the id rules).
    pub id_type: String,
    pub create: CreateRoute,
    pub hello: Hello,
    pub input: Input,
    pub callback: Callback,
    /// The message every attached connection gets for each conversation entry.
    pub broadcast: Value,
    /// The WebSocket frame that answers a refused frame.
    pub refusal: Value,
    /// The body of every HTTP error answer of the server.
    pub error_body: Value,
    pub owners: Owners,
    /// Engine word -> the protocol's value, where they differ (error codes, log roles).
    pub words: BTreeMap<String, String>,
}

/// The route that creates, attaches to or revives a session.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateRoute {
    pub route: String,
    /// Body field path naming the owner the session belongs to.
    pub owner: String,
    /// Body field path of the requested session id (generated when absent).
    pub session: String,
    /// The success body (201 created, 200 attached or revived).
    pub reply: Value,
}

/// The WebSocket handshake: the kind that attaches a connection and the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Hello {
    pub kind: String,
    pub session: String,
    pub answer: Value,
}

/// The kind carrying user input and the route it is forwarded through.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    pub kind: String,
    pub text: String,
    pub forward: String,
    pub payload: Value,
    /// The body the receiving side answers a forward it took with.
    pub receipt: Value,
}

/// The inbound route that appends a reply to a session.
#[derive(Debug, Clone, PartialEq)]
pub struct Callback {
    pub route: String,
    /// The path parameter holding the session id.
    pub session: String,
    pub reply: Value,
}

/// Where the session owners' definitions say what the engine needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Owners {
    /// The definition type (a union or a struct).
    pub config: String,
    pub id: String,
    /// Field path of the forward URL; an owner without it is stored and echoed only.
    pub forward_url: String,
    /// Field path of the base of the callback URLs handed out.
    pub callback_base: String,
}

/// `tracking:`: the state a WebSocket client keeps per session across connections.
#[derive(Debug, Clone, PartialEq)]
pub struct Tracking {
    /// The generated type's name (`TrackedAgent`).
    pub name: String,
    /// The kind the client sends per turn, and its fields.
    pub turn: TurnKind,
    /// The server kind that binds a session to a thread.
    pub bind: BindKind,
    /// The server kind that completes a turn, and its request field.
    pub complete: KindField,
    /// The enum of interaction states; it must hold the values in `states`.
    pub states_type: String,
    /// Engine state -> the protocol's value (`waiting`, `complete`, `error`).
    pub states: BTreeMap<String, String>,
    /// Trace entries that replay a finished first turn, with `$session` and `$thread`.
    pub resume: Vec<(String, Value)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TurnKind {
    pub kind: String,
    pub session: String,
    pub thread: String,
    pub request: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BindKind {
    pub kind: String,
    pub session: String,
    pub thread: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KindField {
    pub kind: String,
    pub field: String,
}
