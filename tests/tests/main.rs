//! Every integration test of `agentwire-tests` in one binary: each file of this folder is a
//! module here, so tokio, axum, tonic and the generated protocols are linked once, not once per
//! file (the first `cargo test --workspace` linked 40 such binaries). Run one file's tests with
//! `cargo test -p agentwire-tests --test integration FILE::`. Five files are binaries of their
//! own (Cargo.toml says why): `attacks_log_flood.rs` installs the process's global log
//! subscriber and counts every line logged; `acp_generates.rs`, `proto_published.rs`,
//! `ts_published.rs` and `jsonschema_published.rs` run cargo builds, which must not starve the
//! timing-bound tests here.

mod eca_refuser;
mod ws_support;

mod acp_instances;
mod acp_same_types;
mod acp_schema;
mod acp_unstable;
mod attacks_decode;
mod attacks_eca;
mod attacks_fuzz;
mod attacks_grpc;
mod attacks_http;
mod attacks_origin;
mod attacks_sessions;
mod attacks_stdio;
mod attacks_unanswered;
mod attacks_ws;
mod coven_smoke;
mod external_agents_skeleton;
mod fast_path;
mod feature_deps;
mod fixtures;
mod generated_api;
mod interop_a2a;
mod interop_a2a_js;
mod interop_a2a_jsonrpc;
mod interop_a2a_push;
mod interop_a2a_rest;
mod interop_acp;
mod interop_coven;
mod interop_eca;
mod interop_external_agents;
mod interop_mcp;
mod interop_mcp_auth;
mod interop_mcp_v2;
mod interop_ws;
mod mcp_2026_types;
mod mcp_auth_identity;
mod mcp_conformance;
mod mcp_http_versions;
mod mcp_instances;
mod mutations;
mod pg_scale_out;
mod robustness;
mod schema_oracle;
mod schemas;
mod skeleton_acp;
mod skeleton_coven;
mod skeleton_eca;
mod spec_constants;
mod store_backends;
mod tjs_compare;
mod tjs_mcp;
mod traces;
mod union_oracle;
mod ws_skeletons;

/// The crate sets `autotests = false`, so a file of this folder that no `mod` line here (or
/// `[[test]]` of Cargo.toml) names would never be compiled: this fails until it is named.
#[test]
fn every_test_file_is_compiled() {
    agentwire_tests::fold::assert_every_file_is_a_module(env!("CARGO_MANIFEST_DIR"));
}
