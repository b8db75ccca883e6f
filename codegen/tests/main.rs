//! Every integration test of `agentwire-codegen` but `fronts.rs` in one binary: each file of
//! this folder is a module here, so the front ends (oxc, protox, prost-build) are linked once,
//! not once per file. Run one file's tests with
//! `cargo test -p agentwire-codegen --test integration FILE::`. `fronts.rs` is a binary of its
//! own: CI also builds it without one front end (`--no-default-features --features typescript`),
//! which the other files do not compile under.

mod default_answers;
mod diagnostics;
mod did_you_mean;
mod docs_drift;
mod front_agreement;
mod grpc_skeleton;
mod jsonrpc_spec;
mod jsonschema_front;
mod machine_answers;
mod machine_codes;
mod machine_extends;
mod machine_links;
mod machine_lint;
mod mutated_specs;
mod optional_machine;
mod pinned_sources;
mod proto;
mod rust_names;
mod spec_constants;
mod strict_keys;
mod ts_constructs;
mod ts_generators;
mod versions_spec;

/// The crate sets `autotests = false`, so a file of this folder that no `mod` line here (or
/// `[[test]]` of Cargo.toml) names would never be compiled: this fails until it is named.
#[test]
fn every_test_file_is_compiled() {
    agentwire_tests::fold::assert_every_file_is_a_module(env!("CARGO_MANIFEST_DIR"));
}
