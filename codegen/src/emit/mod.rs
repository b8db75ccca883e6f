//! Emitters: IR in, formatted Rust source (or JSON) out.

pub mod module;
pub mod proto;
pub mod schema;
pub mod types;
pub mod validate;
