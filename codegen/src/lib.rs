//! agentwire's generator: loads a protocol spec folder into a format-neutral IR and emits Rust
//! token streams, JSON Schemas and diagrams from it. Reads spec files; writes nothing.

pub mod diag;
#[cfg(feature = "docs")]
pub mod docs;
pub mod emit;
pub mod front;
pub mod generate;
pub mod generated_crate;
pub mod inline;
pub mod ir;
pub mod machine;
pub mod naming;
pub mod options;
pub mod output;
pub mod rules;
pub mod suggest;
pub mod transport;
pub mod yaml_node;

pub use diag::{SpecError, SpecErrors};
pub use generate::{Generated, generate, generate_with};
pub use output::{Contents, OutputFile};
