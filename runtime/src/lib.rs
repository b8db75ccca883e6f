//! Runtime support for code emitted by agentwire: the `Validate` trait, typed errors that carry
//! a JSON pointer and the failing rule, and the decoders generated types delegate to.

pub mod answers;
pub mod calls;
pub mod decode;
pub mod dynamic;
pub mod error;
pub mod formats;
pub mod framing;
pub mod grpc_status;
pub mod http;
pub mod instances;
pub mod json;
pub mod json_eq;
pub mod jsonrpc;
pub mod kept;
pub mod literal;
pub mod machine;
pub mod members;
pub mod path_template;
pub mod registry;
pub mod repair;
pub mod serde_helpers;
pub mod side;
pub mod subschema;
pub mod tagged;
pub mod untagged;
pub mod validate;
pub mod version;

pub use decode::{decode_all, decode_checked, decode_checked_seed, decode_json, decode_value};
pub use error::{FieldError, Invalid, Rule};
pub use members::Members;
pub use validate::{JsonPointer, Validate};

/// Re-exported so generated code needs no regex dependency of its own.
pub use regex;
/// Re-exported so generated code needs no serde dependency of its own (generated derives name
/// it with `#[serde(crate = "agentwire_runtime::serde")]`).
pub use serde;
/// Re-exported so generated code and its users agree on one serde_json.
pub use serde_json;
