//! The registry of generated protocols: one object-safe trait every generated module
//! implements, so tools (the trace checker, the tests) iterate protocols instead of naming them.

use std::any::Any;
use std::fmt;

use serde_json::Value;

use crate::Invalid;
use crate::machine::{Problem, Violation};

/// How a protocol's peers connect (`transport.kind` in `protocol.yaml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportKind {
    WebSocket,
    HttpWebSocket,
    JsonRpc,
    Grpc,
}

/// How messages are delimited on the wire (`transport.framing` in `protocol.yaml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Framing {
    /// One JSON text per WebSocket text frame (or per line of a trace).
    JsonText,
    /// LSP-style `Content-Length` headers before each JSON body.
    ContentLength,
    /// gRPC's length-prefixed protobuf messages.
    Grpc,
    /// One JSON text per line (newline-delimited JSON, as stdio transports use).
    Newline,
}

impl TransportKind {
    /// The spelling `protocol.yaml` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::WebSocket => "websocket",
            TransportKind::HttpWebSocket => "http+websocket",
            TransportKind::JsonRpc => "jsonrpc",
            TransportKind::Grpc => "grpc",
        }
    }
}

impl Framing {
    /// The spelling `protocol.yaml` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Framing::JsonText => "json-text",
            Framing::ContentLength => "content-length",
            Framing::Grpc => "grpc",
            Framing::Newline => "newline",
        }
    }
}

/// A decoded, validated message of some protocol, as its checker takes it. Only the protocol
/// that decoded it can look inside.
pub struct Decoded {
    protocol: &'static str,
    message: Box<dyn Any + Send>,
}

impl Decoded {
    /// Wraps a message decoded by `protocol`.
    pub fn new<T: Any + Send>(protocol: &'static str, message: T) -> Self {
        Decoded {
            protocol,
            message: Box::new(message),
        }
    }

    /// The protocol that decoded the message.
    pub fn protocol(&self) -> &'static str {
        self.protocol
    }

    /// The message, if it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.message.downcast_ref()
    }
}

impl fmt::Debug for Decoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decoded({})", self.protocol)
    }
}

/// One protocol's sequence checker, behind a pointer.
pub trait Checker: Send {
    /// Runs one message through every machine; `Err` names the broken rule.
    fn observe(&mut self, msg: &Decoded) -> Result<(), Violation>;
    /// Ends the stream; every instance left outside an accepting state is a violation.
    fn finish(self: Box<Self>) -> Result<(), Vec<Violation>>;
    /// Sequence instances the checker holds right now (for a trace check's summary).
    fn live_instances(&self) -> usize;
}

/// One generated protocol, as tools see it. Each generated module has one implementation,
/// listed by the generated crate's `protocols()`.
pub trait Protocol: Sync {
    /// The module name (the spec folder's name).
    fn name(&self) -> &'static str;
    /// The human title from `protocol.yaml`.
    fn title(&self) -> &'static str;
    /// The roles that exchange messages, in spec order.
    fn roles(&self) -> &'static [&'static str];
    fn transport(&self) -> TransportKind;
    fn framing(&self) -> Framing;
    /// Decodes and validates one trace entry (`{"from": role, "message": ...}`, or
    /// `{"from": role, "http": {...}}` for HTTP exchanges). `None` when `from` sends nothing
    /// in this protocol, or the protocol has no sequence checker to take the message.
    fn decode(&self, from: &str, entry: &Value) -> Option<Result<Decoded, Invalid>>;
    /// A fresh checker for one stream; `None` when the spec has no `machine.yaml`.
    fn checker(&self) -> Option<Box<dyn Checker>>;

    /// The published JSON Schema text, when the module has one.
    fn schema(&self) -> Option<&'static str> {
        None
    }
    /// Decodes and validates one message `from` sends, returning it re-encoded; `None` when
    /// `from` sends nothing here.
    fn decode_message(&self, from: &str, json: &str) -> Option<Result<Value, Invalid>> {
        let _ = (from, json);
        None
    }
    /// Decodes and validates a value of the named type, returning it re-encoded; `None` for
    /// a name the module does not define (or a module that cannot decode by type name).
    fn decode_type(&self, type_name: &str, json: &str) -> Option<Result<Value, Invalid>> {
        let _ = (type_name, json);
        None
    }
    /// JSON-RPC protocols: decodes the response to a request of `method`; `None` otherwise.
    fn decode_response(&self, method: &str, json: &str) -> Option<Result<Value, Invalid>> {
        let _ = (method, json);
        None
    }
    /// The versions the spec declares, newest first; empty for a protocol of one version.
    fn versions(&self) -> &'static [&'static str] {
        &[]
    }
    /// Where a stream names its version (`version:` in `protocol.yaml`), for a protocol with
    /// versions.
    fn version_source(&self) -> Option<crate::version::Source> {
        None
    }
    /// The protocol as one declared version has it (its decoders and checker); `None` for a
    /// version the spec does not declare. A protocol with versions answers the methods above
    /// as its newest version does.
    fn version(&self, version: &str) -> Option<&'static dyn Protocol> {
        let _ = version;
        None
    }
    /// The schema schemars derives for the named type (feature `schemars`).
    #[cfg(feature = "schemars")]
    fn schemars_schema(&self, type_name: &str) -> Option<schemars::Schema> {
        let _ = type_name;
        None
    }
}

impl fmt::Debug for dyn Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Protocol({})", self.name())
    }
}

/// Finds `name` among `protocols`.
pub fn find<'a>(protocols: &[&'a dyn Protocol], name: &str) -> Option<&'a dyn Protocol> {
    protocols.iter().copied().find(|p| p.name() == name)
}

/// What a checker answers when handed a message another protocol decoded: a caller's
/// mistake, reported as a violation rather than a panic.
pub fn foreign(checker: &'static str, msg: &Decoded) -> Violation {
    Violation {
        index: None,
        machine: checker,
        key: msg.protocol().to_owned(),
        state: "-",
        got: None,
        expected: &[],
        problem: Problem::Check {
            check: "the message was decoded by another protocol",
            code: None,
        },
    }
}
