//! The protobuf front end and emitter: the coven spec loads, emission is deterministic, and
//! broken `.proto` files or constraint tags become located diagnostics.

use std::path::{Path, PathBuf};

use agentwire_codegen::emit::proto::emit_proto;
use agentwire_codegen::front::proto::{Tag, load_proto};

fn coven_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/coven")
}

#[test]
fn coven_loads_with_constraints() {
    let spec = load_proto(&coven_dir(), "coven.proto")
        .map_err(report)
        .unwrap();
    let tags = &spec.constraints["coven.RegisterAgent.agent_id"];
    assert_eq!(tags[0].tag, Tag::MinLength(1));
    assert!(spec.sources.contains_key("coven.proto"));
}

#[test]
fn emission_is_deterministic() {
    let spec = load_proto(&coven_dir(), "coven.proto")
        .map_err(report)
        .unwrap();
    let first = emit_proto(&spec, "coven").map_err(report).unwrap();
    let again = load_proto(&coven_dir(), "coven.proto")
        .map_err(report)
        .unwrap();
    let second = emit_proto(&again, "coven").map_err(report).unwrap();
    assert_eq!(first, second);
    let names: Vec<_> = first.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(names, ["mod.rs", "types.rs", "json.rs", "validate.rs"]);
    let validate = &first[3].1;
    assert!(validate.contains("impl Validate for AgentMessage"));
    assert!(validate.contains("pub const KINDS"));
}

fn report(e: agentwire_codegen::diag::SpecErrors) -> String {
    e.errors
        .iter()
        .map(|e| e.one_line())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writes `name` into a fresh folder and loads it; returns every error as one line.
fn errors_for(name: &str, text: &str) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    let lines = match load_proto(dir.path(), name) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.iter().map(|e| e.one_line()).collect(),
    };
    (dir, lines)
}

#[test]
fn syntax_error_has_file_line_col() {
    let text = "syntax = \"proto3\";\npackage p;\n\nmessage A {\n  string a = 1\n}\n";
    let (dir, lines) = errors_for("broken.proto", text);
    assert!(!lines.is_empty());
    let expected = format!("{}:6:1: ", dir.path().join("broken.proto").display());
    assert!(lines[0].starts_with(&expected), "{lines:?}");
}

#[test]
fn unknown_type_has_file_line_col() {
    let text = "syntax = \"proto3\";\npackage p;\n\nmessage A {\n  Missing a = 1;\n}\n";
    let (dir, lines) = errors_for("types.proto", text);
    let expected = format!("{}:5:3: ", dir.path().join("types.proto").display());
    assert!(lines[0].starts_with(&expected), "{lines:?}");
}

#[test]
fn bad_tags_point_at_the_comment() {
    let text = "syntax = \"proto3\";\npackage p;\n\nmessage A {\n  // The id.\n  // @minLength one\n  string a = 1;\n  int32 b = 2; // @maxLength 3\n  string c = 3; // @format email\n  // @minlength 2\n  string d = 4;\n  // @minLength 5\n  // @maxLength 2\n  string e = 5;\n}\n";
    let (dir, lines) = errors_for("tags.proto", text);
    let file = dir.path().join("tags.proto").display().to_string();
    let expected = [
        format!("{file}:6:6: `@minLength` needs a whole number"),
        format!("{file}:8:19: `@maxLength` does not apply to field `b`"),
        format!("{file}:9:20: unknown `@format` `email`"),
        format!("{file}:10:6: unknown constraint tag `@minlength`"),
        format!("{file}:13:6: `@maxLength` 2 is below `@minLength` 5"),
    ];
    assert_eq!(lines.len(), expected.len(), "{lines:#?}");
    for (line, want) in lines.iter().zip(&expected) {
        assert!(line.starts_with(want.as_str()), "{line}\n  wanted {want}");
    }
}

#[test]
fn good_tags_are_collected() {
    let text = "syntax = \"proto3\";\npackage p;\n\nmessage A {\n  repeated string tags = 1; // @minItems 1\n  /* @pattern ^[a-z]+$ */\n  string name = 2;\n  double ratio = 3; // @maximum 1.5\n}\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ok.proto"), text).unwrap();
    let spec = load_proto(dir.path(), "ok.proto").map_err(report).unwrap();
    assert_eq!(spec.constraints["p.A.tags"][0].tag, Tag::MinItems(1));
    assert_eq!(
        spec.constraints["p.A.name"][0].tag,
        Tag::Pattern("^[a-z]+$".to_owned())
    );
    assert_eq!(spec.constraints["p.A.ratio"][0].tag, Tag::Maximum(1.5));
    // A tagged spec emits regex statics and bound checks.
    let out = emit_proto(&spec, "p").map_err(report).unwrap();
    let validate = &out[3].1;
    assert!(validate.contains("PATTERN_0"), "{validate}");
    assert!(validate.contains("min_items"), "{validate}");
}
