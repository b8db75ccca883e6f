//! gRPC bidirectional-stream machinery shared by generated tonic skeletons: limits, the
//! registry of live streams, the checked outbound link, inbound admission (validation and
//! sequence check turned into gRPC statuses) and the outbound stream that ends on shutdown.

mod admit;
mod error;
mod limits;
mod link;
mod outbound;
mod registry;
mod unregistered;

pub use admit::{admit_inbound, invalid_status, violation_status};
pub use error::{ConnectError, SendError};
pub use limits::GrpcLimits;
pub use link::Link;
pub use outbound::{BoxStream, outbound_stream};
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
