//! Inbound admission: a message read from the stream is validated and shown to the checker;
//! a failure becomes the gRPC status that ends the offending stream (only that stream).

use agentwire_runtime::machine::Violation;
use agentwire_runtime::{Invalid, Validate};
use tonic::Status;

use crate::check::Gate;

/// The protocol's status for an invalid message (`INVALID_ARGUMENT` unless its spec says
/// otherwise), naming each failing field by JSON pointer and rule, in its message and in a
/// `google.rpc.BadRequest` detail.
pub fn invalid_status(code: tonic::Code, e: &Invalid) -> Status {
    super::details::invalid_with_violations(code, format!("invalid message: {e}"), e)
}

/// `FAILED_PRECONDITION`: the message is well formed but not allowed at this point.
pub fn violation_status(v: &Violation) -> Status {
    Status::failed_precondition(format!("out of sequence: {v}"))
}

/// Validates `msg`, then runs the checker on it through `gate`. Validation runs in every
/// mode: the check mode only governs sequence rules.
pub async fn admit_inbound<M: Validate, C>(
    invalid: tonic::Code,
    gate: &tokio::sync::Mutex<Gate<C>>,
    msg: &M,
    observe: impl FnOnce(&mut C, &M) -> Result<(), Violation>,
) -> Result<(), Status> {
    msg.validate().map_err(|e| invalid_status(invalid, &e))?;
    gate.lock()
        .await
        .admit(|c| observe(c, msg))
        .map_err(|v| violation_status(&v))
}
