//! Emitters: IR in, formatted Rust source (or JSON) out.

pub mod build;
pub mod diagram;
pub mod http;
pub mod machine;
pub mod module;
pub mod proto;
pub mod registry;
pub mod schema;
pub mod skeleton;
pub mod types;
pub mod validate;
