//! Parse-and-validate benchmark support for agentwire: deterministic corpora of every
//! protocol's messages, hand-written serde baseline types, and the decoding routes that
//! `benches/parse.rs` times against each other.

pub mod baseline;
pub mod corpus;
pub mod long_traces;
pub mod prose;
pub mod routes;
