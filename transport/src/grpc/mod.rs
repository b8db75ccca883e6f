//! gRPC bidirectional-stream machinery shared by generated tonic skeletons: limits, the
//! registry of live streams, the checked outbound link, inbound admission (validation and
//! sequence check turned into gRPC statuses) and the outbound stream that ends on shutdown;
//! and the two engines a generated skeleton binds through [`Binding`]: [`Gateway`] (the
//! accepting role: handshake, request routing, feature gating, limits, shutdown) and
//! [`connect`] (the connecting role: hello, one request at a time, cancellation, heartbeats).
//! For plain services (any mix of unary and streaming calls), the validating codecs of
//! [`codec`] that generated tonic servers and clients name.

mod admit;
mod agent;
mod binding;
pub mod codec;
pub mod details;
mod error;
mod gateway;
mod inbound;
mod limits;
mod link;
mod outbound;
mod peer;
mod registry;
mod unregistered;

pub use admit::{admit_inbound, invalid_status, violation_status};
pub use agent::{AgentOptions, AgentSide, AgentTask, Reply, Session, UpStream, connect};
pub use binding::{Answer, Binding, Down, TextField, Up, build};
pub use codec::{Checked, ClientCodec, LayerCodec, ServerCodec};
pub use error::{ConnectError, SendError};
pub use gateway::{Gateway, GatewayConfig, GatewaySide};
pub use limits::GrpcLimits;
pub use link::Link;
pub use outbound::{BoxStream, outbound_stream};
pub use peer::{Peer, ResponseStream};
pub use registry::{Claim, ClaimError, Registry};
pub use tokio_util::sync::CancellationToken;
pub use unregistered::{
    DEFAULT_MAX_UNREGISTERED, DEFAULT_REGISTER_TIMEOUT, Registered, StreamBudget, Unregistered,
};

/// Milliseconds since the Unix epoch, for heartbeat timestamps (0 if the clock is before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
