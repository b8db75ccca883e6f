//! WebSocket skeleton machinery for protocols that carry one JSON message per text frame.
//!
//! A protocol plugs in through [`Side`] (one role's view: what it receives, what it sends,
//! and its checker); the generated skeleton implements it for both roles and wraps
//! [`Server`] / [`Client`] in typed handler traits, senders and clients.

pub(crate) mod accept;
mod client;
pub mod close;
mod link;
mod refused;
mod server;
mod tracked;

use agentwire_runtime::Invalid;
use agentwire_runtime::machine::{Limits, Violation};

pub use accept::{DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_HANDSHAKES};
pub use client::{Client, ClientConfig, ConnectError};
pub use link::{Link, SendError};
pub use refused::Refused;
pub use server::{
    DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS_PER_CLIENT, Handler, Server, ServerConfig, serve,
};
pub use tracked::{Track, TrackError, TrackLayout, TrackedClient, resume};

/// One role of a WebSocket protocol: the messages it receives and sends and the checker that
/// watches both directions. Generated skeletons implement it once per role.
pub trait Side: Send + Sync + 'static {
    /// The union the peer sends (decoded and validated from each text frame).
    type Inbound: Send + Sync + 'static;
    /// The union this role sends.
    type Outbound: Send + Sync + 'static;
    /// The protocol's generated sequence checker.
    type Checker: Send + 'static;

    /// The role's name as the spec writes it (for logs).
    const ROLE: &'static str;

    /// Decodes and validates one inbound text frame.
    fn decode(text: &str) -> Result<Self::Inbound, Invalid>;
    /// Encodes one outbound message as a JSON text.
    fn encode(msg: &Self::Outbound) -> String;
    /// A fresh checker for one connection, holding at most `limits.max_instances` live
    /// instances (sessions, turns) per machine.
    fn checker(limits: Limits) -> Self::Checker;
    /// Feeds an inbound message to the checker.
    fn observe_inbound(checker: &mut Self::Checker, msg: &Self::Inbound) -> Result<(), Violation>;
    /// Feeds an outbound message to the checker.
    fn observe_outbound(checker: &mut Self::Checker, msg: &Self::Outbound)
    -> Result<(), Violation>;

    /// The protocol's own answer to a refused inbound frame, when the protocol has one;
    /// `None` means the frame is dropped and logged. `seq` numbers the refusals of one
    /// connection, so an answer can carry a fresh id.
    fn refusal_answer(_refused: &Refused, _connection: u64, _seq: u64) -> Option<Self::Outbound> {
        None
    }

    /// Called before an inbound message is checked: lets a protocol whose state outlives a
    /// connection bring a fresh checker up to date (e.g. a resumed session).
    fn resume_inbound(_checker: &mut Self::Checker, _msg: &Self::Inbound) {}

    /// The same for an outbound message.
    fn resume_outbound(_checker: &mut Self::Checker, _msg: &Self::Outbound) {}
}

/// Default cap on one inbound message: 1 MiB of JSON is far beyond any message these
/// protocols describe, and small enough that a hostile peer cannot balloon memory.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 1 << 20;

/// Default cap on live sequence instances (e.g. sessions) per connection: far more than
/// one client drives at once, and a bound on what a hostile one can make the checker hold.
/// Only enforced while the checker runs (modes enforce and warn).
pub const DEFAULT_MAX_SESSIONS: usize = 1_000;

/// Default cap on handler calls running at once for one connection; the next frame waits
/// (and so does the peer, through TCP) until one finishes.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 64;

/// Default depth of a connection's outbound queue: enough to keep the socket busy, small
/// enough that a slow reader pushes back on the code that sends.
pub const DEFAULT_OUTBOUND_QUEUE: usize = 256;
