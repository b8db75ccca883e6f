//! Emitters: IR in, formatted Rust source (or JSON) out.

pub mod build;
pub mod crate_lib;
pub mod defaults;
pub mod diagram;
pub mod http;
pub mod machine;
pub mod manifest;
pub mod module;
pub mod proto;
pub mod registry;
pub mod schema;
pub mod shared;
pub mod skeleton;
pub mod types;
pub mod validate;
pub mod versions;
