//! What a protocol tells the gRPC engines: its prost types, its checker, and which of its
//! kinds play the handshake, the request/response exchange, cancellation, shutdown and
//! heartbeat. Generated skeletons implement [`Binding`] once per protocol from the spec's
//! `grpc:`, `features:` and `events:` sections; the engines never name a kind.

use std::fmt::Debug;

use agentwire_runtime::Validate;
use agentwire_runtime::machine::Violation;

/// One bidi-stream protocol. "Up" is what the connecting role (the client) sends, "down"
/// what the accepting role (the server) sends.
pub trait Binding: Send + Sync + 'static {
    /// The connecting role's union (a message with one oneof).
    type Up: Validate + Debug + Clone + Send + Sync + 'static;
    /// The accepting role's union.
    type Down: Validate + Debug + Clone + Send + Sync + 'static;
    /// The protocol's generated sequence checker.
    type Checker: Send + 'static;

    /// The status that ends a stream whose message fails validation (the spec's
    /// `grpc.handshake.statuses.invalid`).
    const INVALID_STATUS: tonic::Code = tonic::Code::InvalidArgument;
    /// The status that refuses a hello whose peer id is already connected
    /// (`grpc.handshake.statuses.taken`).
    const TAKEN_STATUS: tonic::Code = tonic::Code::AlreadyExists;
    /// The handshake's first message (the connecting role's self-introduction).
    type Hello: Debug + Clone + Send + Sync + 'static;
    /// The accepting role's yes to the hello.
    type Accept: Debug + Send + Sync + 'static;
    /// The accepting role's no to the hello, in the protocol's own form.
    type Refuse: Debug + Send + Sync + 'static;
    /// A request of the exchange (sent down).
    type Request: Debug + Send + Sync + 'static;
    /// One response of the exchange (sent up), carrying one event.
    type Response: Debug + Send + Sync + 'static;
    /// The oneof of a response: what happened.
    type Event: Debug + Send + Sync + 'static;

    /// A fresh checker for one stream.
    fn checker() -> Self::Checker;
    fn observe_up(checker: &mut Self::Checker, msg: &Self::Up) -> Result<(), Violation>;
    fn observe_down(checker: &mut Self::Checker, msg: &Self::Down) -> Result<(), Violation>;

    /// The hello inside `msg`, when `msg` is one.
    fn as_hello(msg: &Self::Up) -> Option<&Self::Hello>;
    fn wrap_hello(hello: Self::Hello) -> Self::Up;
    /// The id the hello names its sender by (unique among connected peers).
    fn peer_id(hello: &Self::Hello) -> &str;
    /// The optional features the hello declares (empty when the protocol has none).
    fn features(hello: &Self::Hello) -> &[String];
    /// Wraps an accept; `peer_id` fills the accept's own id field when the handler left it
    /// empty (where the spec names one).
    fn wrap_accept(accept: Self::Accept, peer_id: &str) -> Self::Down;
    fn wrap_refuse(refuse: Self::Refuse) -> Self::Down;

    /// The request inside `msg`, when `msg` is one.
    fn as_request(msg: &Self::Down) -> Option<&Self::Request>;
    fn request_id(request: &Self::Request) -> &str;
    fn wrap_request(request: Self::Request) -> Self::Down;
    fn response_id(response: &Self::Response) -> &str;
    /// Whether the response's event ends its request (the spec's terminal events).
    fn is_terminal(response: &Self::Response) -> bool;
    fn response(request_id: String, event: Self::Event) -> Self::Response;
    fn wrap_response(response: Self::Response) -> Self::Up;
    /// The event the connecting role ends a request with when it cannot answer it.
    fn failure(text: String) -> Self::Event;
    /// The event that ends a cancelled request, echoing the cancel's reason; `None` when
    /// the protocol has no cancellation.
    fn cancelled(reason: String) -> Option<Self::Event>;

    /// The first down message of a stream, as an answer to the hello.
    fn classify_answer(msg: Self::Down) -> Answer<Self>;
    /// What an up message is to the engine (after it was admitted).
    fn classify_up(msg: Self::Up) -> Up<Self>;
    /// What a down message is to the engine (after it was admitted).
    fn classify_down(msg: Self::Down) -> Down<Self>;

    /// The feature a down message needs the peer to have declared.
    fn down_feature(_msg: &Self::Down) -> Option<&'static str> {
        None
    }
    /// The feature an up message (other than a response) needs its sender to have declared.
    fn up_feature(_msg: &Self::Up) -> Option<&'static str> {
        None
    }
    /// The feature a response event needs its sender to have declared.
    fn event_feature(_event: &Self::Event) -> Option<&'static str> {
        None
    }

    /// A heartbeat stamped `now_ms`; `None` when the protocol has none.
    fn heartbeat(_now_ms: i64) -> Option<Self::Up> {
        None
    }
    /// The shutdown message; `None` when the protocol has none (streams then just end).
    fn shutdown(_reason: &str) -> Option<Self::Down> {
        None
    }
}

/// An up message as the accepting engine sorts it.
#[derive(Debug)]
pub enum Up<B: Binding + ?Sized> {
    /// A second hello on a registered stream.
    Hello,
    Response(B::Response),
    /// Any other kind: the handler's.
    Other(B::Up),
    /// No kind set.
    Empty,
}

/// A down message as the connecting engine sorts it.
#[derive(Debug)]
pub enum Down<B: Binding + ?Sized> {
    /// A handshake answer on a registered stream.
    Answer,
    Request(B::Request),
    Cancel {
        request_id: String,
        reason: Option<String>,
    },
    /// The whole message, for the handler's shutdown hook.
    Shutdown(B::Down),
    Other(B::Down),
    Empty,
}

/// The answer to a hello, as the connecting engine reads the first down message.
#[derive(Debug)]
pub enum Answer<B: Binding + ?Sized> {
    Accepted(B::Accept),
    Refused(B::Refuse),
    Other(B::Down),
}

/// Bindings set text fields without knowing whether the proto field is `string` or
/// `optional string`.
pub trait TextField {
    fn put(&mut self, text: String);
    fn text(&self) -> Option<&str>;
}

impl TextField for String {
    fn put(&mut self, text: String) {
        *self = text;
    }
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl TextField for Option<String> {
    fn put(&mut self, text: String) {
        *self = Some(text);
    }
    fn text(&self) -> Option<&str> {
        self.as_deref()
    }
}

/// A default value changed by `f`: lets generated code build a message whose type it only
/// knows by inference.
pub fn build<T: Default>(f: impl FnOnce(&mut T)) -> T {
    let mut v = T::default();
    f(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Msg {
        plain: String,
        optional: Option<String>,
    }

    #[test]
    fn text_fields_of_either_shape_are_set_and_read() {
        let m = build(|m: &mut Msg| {
            m.plain.put("a".to_owned());
            m.optional.put("b".to_owned());
        });
        assert_eq!((m.plain.text(), m.optional.text()), (Some("a"), Some("b")));
        assert_eq!(Msg::default().optional.text(), None);
    }
}
