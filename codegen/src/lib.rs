//! agentwire's generator: loads a protocol spec folder into a format-neutral IR and emits Rust
//! token streams, JSON Schemas and diagrams from it. Reads spec files; writes nothing.

pub mod diag;
