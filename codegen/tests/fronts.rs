//! The types-file front ends are cargo features (`typescript`, `proto`): a build with one
//! generates its specs, a build without it refuses them with one diagnostic naming the feature.
//! The default build has both; `.ci/run` runs this file again with each left out
//! (`--no-default-features --features typescript`, then `--features proto`).

use std::path::Path;

use agentwire_codegen::generate;

/// Every message of generating `dir`, or its module name when it generates.
fn outcome(dir: &str) -> Result<String, Vec<String>> {
    generate(Path::new(dir))
        .map(|g| g.module)
        .map_err(|e| e.errors.iter().map(|e| e.one_line()).collect())
}

#[test]
fn a_protobuf_spec_needs_the_proto_feature() {
    let got = outcome("../spec/coven");
    if cfg!(feature = "proto") {
        assert_eq!(got, Ok("coven".to_owned()));
    } else {
        assert_eq!(
            got,
            Err(vec![
                "../spec/coven/coven.proto: a protobuf types file needs agentwire's `proto` \
                 feature, which this build leaves out (hint: enable it in Cargo.toml: \
                 `agentwire = { version = \"0.1\", features = [\"proto\"] }`)"
                    .to_owned()
            ])
        );
    }
}

#[test]
fn a_typescript_spec_needs_the_typescript_feature() {
    let got = outcome("../spec/helix_zed");
    if cfg!(feature = "typescript") {
        assert_eq!(got, Ok("helix_zed".to_owned()));
    } else {
        assert_eq!(
            got,
            Err(vec![
                "../spec/helix_zed/messages.ts: a TypeScript types file needs agentwire's \
                 `typescript` feature, which this build leaves out (hint: enable it in \
                 Cargo.toml: `agentwire = { version = \"0.1\", features = [\"typescript\"] }`)"
                    .to_owned()
            ])
        );
    }
}

#[test]
fn a_json_schema_spec_needs_no_front_feature() {
    assert_eq!(
        outcome("../agentwire/tests/spec/open_schema"),
        Ok("open_schema".to_owned())
    );
}
