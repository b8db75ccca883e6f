//! Spec loaders, one per source format, and the step that joins them into one checked
//! `ir::Protocol`.

pub mod defaults;
pub mod features;
pub mod fetch;
pub mod grpc;
#[cfg(feature = "typescript")]
pub mod jsdoc;
pub mod jsonrpc;
pub mod jsonschema;
pub mod load;
pub mod machine;
pub mod notes;
#[cfg(feature = "proto")]
pub mod proto;
/// Without the `proto` feature: a `.proto` spec is a diagnostic naming it (`proto_off.rs`).
#[cfg(not(feature = "proto"))]
#[path = "proto_off.rs"]
pub mod proto;
pub mod proto_include;
#[cfg(feature = "proto")]
pub mod proto_lower;
#[cfg(feature = "proto")]
pub mod proto_options;
#[cfg(feature = "proto")]
pub mod proto_ty;
#[cfg(not(feature = "proto"))]
pub use proto as proto_lower;
pub mod protocol;
pub mod rename;
pub mod skeleton;
pub mod sources;
pub mod tags;
#[cfg(feature = "typescript")]
pub mod ts;
/// Without the `typescript` feature: a `.ts` spec is a diagnostic naming it (`ts_off.rs`).
#[cfg(not(feature = "typescript"))]
#[path = "ts_off.rs"]
pub mod ts;
