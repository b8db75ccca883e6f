//! Spec loaders, one per source format, and the step that joins them into one checked
//! `ir::Protocol`.
//!
//! The files are grouped by front end: `ts/` (TypeScript), `jsonschema/`, `proto/`
//! (protobuf), `yaml/` (`protocol.yaml` and `machine.yaml`); the files at this level serve
//! them all (the shared tag pipeline, pinned sources, renaming, the joining `load`).

pub mod defaults;
#[path = "yaml/extends.rs"]
mod extends;
pub mod features;
pub mod fetch;
#[path = "yaml/grpc.rs"]
pub mod grpc;
#[cfg(feature = "typescript")]
#[path = "ts/jsdoc.rs"]
pub mod jsdoc;
#[path = "yaml/jsonrpc.rs"]
pub mod jsonrpc;
pub mod jsonschema;
pub mod load;
#[path = "yaml/machine.rs"]
pub mod machine;
pub mod notes;
#[cfg(feature = "proto")]
#[path = "proto/load.rs"]
pub mod proto;
/// Without the `proto` feature: a `.proto` spec is a diagnostic naming it (`proto/off.rs`).
#[cfg(not(feature = "proto"))]
#[path = "proto/off.rs"]
pub mod proto;
#[path = "proto/include.rs"]
pub mod proto_include;
#[cfg(feature = "proto")]
#[path = "proto/lower.rs"]
pub mod proto_lower;
#[cfg(feature = "proto")]
#[path = "proto/options.rs"]
pub mod proto_options;
#[cfg(feature = "proto")]
#[path = "proto/descriptor_set.rs"]
pub mod proto_set;
#[cfg(feature = "proto")]
#[path = "proto/ty.rs"]
pub mod proto_ty;
#[cfg(not(feature = "proto"))]
pub use proto as proto_lower;
#[path = "yaml/protocol.rs"]
pub mod protocol;
pub mod rename;
#[path = "yaml/skeleton/mod.rs"]
pub mod skeleton;
pub mod sources;
pub mod tags;
#[cfg(feature = "typescript")]
pub mod ts;
/// Without the `typescript` feature: a `.ts` spec is a diagnostic naming it (`ts/off.rs`).
#[cfg(not(feature = "typescript"))]
#[path = "ts/off.rs"]
pub mod ts;
#[path = "yaml/versions.rs"]
pub mod versions;
