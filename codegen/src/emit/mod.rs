//! Emitters: IR in, formatted Rust source (or JSON) out.

pub mod build;
pub mod defaults;
pub mod diagram;
pub mod http;
pub mod machine;
pub mod manifest;
pub mod module;
// Without the `proto` feature only the naming helpers are reached (no `ProtoSpec` exists).
#[cfg_attr(not(feature = "proto"), allow(dead_code))]
pub mod proto;
pub mod registry;
pub mod schema;
pub mod skeleton;
pub mod types;
pub mod validate;
