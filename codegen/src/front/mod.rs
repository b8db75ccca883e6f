//! Spec loaders, one per source format, and the step that joins them into one checked
//! `ir::Protocol`.

pub mod defaults;
pub mod grpc;
pub mod jsdoc;
pub mod jsonrpc;
pub mod jsonschema;
pub mod load;
pub mod machine;
pub mod notes;
pub mod proto;
pub mod proto_lower;
pub mod protocol;
pub mod rename;
pub mod skeleton;
pub mod sources;
pub mod tags;
pub mod ts;
