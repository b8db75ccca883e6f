//! No code: this crate's manifest asks for the features `cargo test --workspace` gives each
//! package, so a command that builds one package of the workspace after it reuses what the test
//! build compiled (see `scripts/workspace-features`).
