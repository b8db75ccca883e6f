//! agentwire for downstream crates: the runtime that generated protocol code calls, and (with
//! the default `derive` feature) the two derive macros, behind one dependency.
//!
//! ```toml
//! [dependencies]
//! agentwire = "0.1"
//! ```
//!
//! # `#[derive(Protocol)]`
//!
//! Points at a spec folder of your crate (the same format as agentwire's own `spec/`:
//! `protocol.yaml`, `messages.ts` or a `.proto` file, and optionally `machine.yaml`) and
//! expands to the module `cargo xtask gen` would write for it: typed messages, validators,
//! `from_json`/`to_json`, the JSON Schema, and the sequence checker as `machine`.
//!
//! ```ignore
//! use agentwire::Protocol;
//!
//! #[derive(Protocol)]
//! #[protocol(spec = "spec/chat_relay")]
//! pub struct ChatRelay;
//!
//! // The derive adds `pub mod chat_relay` beside the struct, named by the spec's
//! // `protocol:` and with the struct's visibility.
//! let ask = chat_relay::ClientMessage::from_json(r#"{"type":"ask","id":"q1","text":"hi"}"#)?;
//! let mut checker = chat_relay::machine::Checker::new();
//! ```
//!
//! The struct itself is only the anchor of the derive; nothing is implemented for it.
//! The expansion is:
//!
//! - `const _: &str = include_str!("<spec file>");` for every spec file read, so editing one
//!   rebuilds the crate (adding a file the spec did not have before, such as a first
//!   `machine.yaml`, needs a touch of the deriving source file or a `cargo clean -p`);
//! - `pub mod <protocol> { ... }` with `#[allow]`s for lints generated code cannot follow
//!   (`missing_docs`, clippy's groups), whose items are exactly those of the files
//!   `cargo xtask gen` writes (a test in `agentwire-macros` proves it for the five built-in
//!   protocols), with each `mod name;` inlined and `SCHEMA` holding the schema text.
//!
//! Options of `#[protocol(...)]`:
//!
//! | option | meaning |
//! |---|---|
//! | `spec = "dir"` | the spec folder, relative to the crate's `Cargo.toml` (required) |
//! | `schemars` | keep the `#[cfg_attr(feature = "schemars", derive(JsonSchema))]` attributes and the `schemars_schema` function; your crate then declares a `schemars` feature enabling `dep:schemars` (schemars 1) and `agentwire/schemars`. Without it they are dropped, so a crate with no such feature gets no `unexpected_cfgs` warnings. `#[cfg_attr(feature = "x", protocol(schemars))]` works too: the derive reads every `#[protocol]` attribute |
//! | `crate = "path"` | where the runtime is, if not `::agentwire::runtime` (a renamed dependency, or `::agentwire_runtime` directly) |
//!
//! A mistake in the spec is a compile error at the `spec = "..."` literal naming the spec
//! file, line and column (`spec/chat_relay/messages.ts:3:7: unknown type `Strng``), one
//! error per mistake found.
//!
//! JSON protocols need nothing but this crate. Protobuf (gRPC) specs need its `proto` feature
//! (below), and expand to prost, tonic and pbjson code, which names its crates directly
//! (prost's derives by the absolute path `::prost`), so such a crate also depends on `prost`,
//! `tonic` (features `codegen` and `transport`: the generated client has `connect`),
//! `tonic-prost`, `pbjson`, `serde` and `serde_json` (and `pbjson-types` when the `.proto`
//! uses a `google.protobuf` well-known type); `examples/grpc` in agentwire's repository is
//! such a crate.
//!
//! # Features
//!
//! The derive runs the generator inside the compiler, so every front end it has is built into
//! your crate's proc macro. Each heavy one is a feature:
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `derive` | yes | `#[derive(Protocol)]` and `#[derive(Validate)]`; specs whose types are JSON Schema (`types: schema.json`) need nothing more |
//! | `typescript` | yes | `messages.ts` types files (oxc's TypeScript parser) |
//! | `proto` | no | `.proto` types files (protox, prost-build, tonic-build, pbjson-build) |
//! | `schemars` | no | `schemars::JsonSchema` for the runtime's types (see `schemars` below) |
//!
//! ```toml
//! [dependencies]
//! agentwire = "0.1"                                                         # JSON, TypeScript types
//! agentwire = { version = "0.1", features = ["proto"] }                     # also protobuf
//! agentwire = { version = "0.1", default-features = false, features = ["proto"] } # protobuf only
//! ```
//!
//! A spec whose types file needs a feature that is off is a compile error at the `spec`
//! literal naming the file and the feature: `spec/coven/coven.proto: a protobuf types file
//! needs agentwire's `proto` feature, which this build leaves out (hint: enable it in
//! Cargo.toml: ...)`.
//!
//! # `#[derive(Validate)]`
//!
//! Implements [`Validate`] for a hand-written struct or enum, with the rules generated
//! validators check, the same runtime functions, the same [`Rule`]s and messages, and JSON
//! pointers that follow serde's names (`rename`, `rename_all`, `rename_all_fields`, `flatten`,
//! `transparent`, and the enum representations `tag`, `tag` + `content`, `untagged`).
//!
//! ```
//! use agentwire::{Rule, Validate};
//!
//! fn even(n: &u32, at: &mut agentwire::JsonPointer, errors: &mut Vec<agentwire::FieldError>) {
//!     if n % 2 == 1 {
//!         errors.push(agentwire::FieldError::new(at.as_str(), Rule::Custom("even"), "odd"));
//!     }
//! }
//!
//! #[derive(Validate)]
//! struct Relay {
//!     #[validate(pattern = "^wss?://", max_length = 2048)]
//!     url: String,
//!     #[validate(non_empty, trim)]
//!     name: Option<String>,
//!     #[validate(minimum = 1, maximum = 64, custom = even)]
//!     workers: u32,
//! }
//!
//! let bad = Relay { url: "http://x".into(), name: Some("  ".into()), workers: 3 };
//! let errors = bad.validate().unwrap_err().errors;
//! let rules: Vec<_> = errors.iter().map(|e| (e.pointer.as_str(), e.rule.name())).collect();
//! assert_eq!(rules, [("/url", "pattern"), ("/name", "min_length"), ("/workers", "even")]);
//! ```
//!
//! Field rules, `#[validate(...)]`, checked in this order whatever order they are written in:
//!
//! | rule | applies to | check |
//! |---|---|---|
//! | `trim` | strings | the other string rules see the value trimmed (the spec's `@trim`) |
//! | `min_length = N`, `max_length = N` | strings | length in characters |
//! | `non_empty` | strings, lists | `min_length = 1` on a string, `min_items = 1` on a `Vec`, array or slice |
//! | `pattern = "re"` | strings | the regex matches somewhere (anchor it yourself); checked when the derive expands |
//! | `format = "uri"` | strings | `uri`, `date-time` or `uuid` |
//! | `minimum = X`, `maximum = X` | numbers | inclusive bounds, compared as `f64` |
//! | `multiple_of = X` | numbers | `X` (above zero) divides the value, within a rounding error |
//! | `min_items = N`, `max_items = N` | lists | number of elements |
//! | `nested` | any `Validate` type | validates the value under the field's pointer |
//! | `custom = path` | any | calls `path(&value, at, errors)`: a `fn(&T, &mut JsonPointer, &mut Vec<FieldError>)` (or one taking what `&T` coerces to, e.g. `&[U]` for a `Vec<U>`) that pushes a [`FieldError`], conventionally with [`Rule::Custom`]; it may be written more than once |
//!
//! An `Option` field (at any depth) is checked only when it holds a value, and the rules see
//! the inner value. Fields without rules are not walked: write `nested` to validate a field's
//! own type. On the type, `#[validate(custom = path)]` runs `path(self, at, errors)` after the
//! field checks (for rules across fields) and `#[validate(crate = "path")]` names the runtime.
//! No bounds are added to generic parameters.
//!
//! Every mistake in the attributes (an unknown key, a rule on a field it cannot apply to, a
//! regex that does not compile, a minimum above its maximum) is reported at its own span, all
//! in one compile.

/// The runtime generated code calls, under the name derived modules use.
pub use agentwire_runtime as runtime;

pub use agentwire_runtime::{FieldError, Invalid, JsonPointer, Rule, Validate, decode_json};

/// The transport machinery generated skeletons call (`skeletons` feature), under the name
/// derived and build-script modules use.
#[cfg(feature = "skeletons")]
pub use agentwire_transport as transport;

/// Includes the module `agentwire-build` wrote for a protocol into `OUT_DIR`:
/// `agentwire::include_protocol!("chat_relay");` stands for `pub mod chat_relay { ... }`, the
/// same items `#[derive(Protocol)]` expands to.
#[macro_export]
macro_rules! include_protocol {
    ($module:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $module, ".rs"));
    };
}

/// The derive macros (default `derive` feature).
#[cfg(feature = "derive")]
pub use agentwire_macros::{Protocol, Validate};

/// The spec formats a `#[derive(Protocol)]` folder is written in (`protocol.yaml`, the types in
/// TypeScript, protobuf or JSON Schema, `machine.yaml`), and the Rust each becomes. Spec
/// diagnostics point here.
///
// A link to spec/README.md inside the crate, so the packaged crate holds the page too.
#[doc = include_str!("../spec-formats.md")]
pub mod spec {}
