//! The protobuf front end and emitter: the coven spec loads, emission is deterministic, and
//! broken `.proto` files or constraint tags become located diagnostics.

use std::path::{Path, PathBuf};

use agentwire_codegen::emit::proto::emit_proto;
use agentwire_codegen::front::proto::{ProtoSpec, load_proto};
use agentwire_codegen::front::proto_lower::lower;
use agentwire_codegen::ir::{Protocol, Transport, TypeKind};

fn coven_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/coven")
}

#[test]
fn coven_loads_with_constraints() {
    let spec = load_proto(&coven_dir(), "coven.proto")
        .map_err(report)
        .unwrap();
    let tags = &spec.constraints["coven.RegisterAgent.agent_id"];
    assert_eq!(tags.count(&agentwire_codegen::rules::MIN_LENGTH), Some(1));
    assert!(spec.sources.contains_key("coven.proto"));
}

#[test]
fn emission_is_deterministic() {
    let emit = || {
        let spec = agentwire_codegen::front::load::load_spec(&coven_dir())
            .map_err(report)
            .unwrap();
        let proto = spec.proto.as_ref().unwrap();
        emit_proto(&spec.protocol, proto).map_err(report).unwrap()
    };
    let first = emit();
    let second = emit();
    assert_eq!(first, second);
    let names: Vec<_> = first.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(names, ["mod.rs", "types.rs", "json.rs", "validate.rs"]);
    let validate = &first[3].1;
    assert!(validate.contains("Validate for AgentMessage"));
    assert!(validate.contains("pub const KINDS"));
}

/// The IR of a lone `.proto` file, as the loader builds it (no catalogue, no channels).
fn protocol_of(spec: &ProtoSpec, module: &str) -> Protocol {
    let package = spec.package().map_err(report).unwrap();
    Protocol {
        module: module.to_owned(),
        title: module.to_owned(),
        summary: String::new(),
        transport: Transport {
            kind: agentwire_codegen::transport::lookup("grpc").expect("grpc is registered"),
            framing: "grpc".to_owned(),
            grpc: None,
            rpc: Default::default(),
            port: None,
            content_type: None,
            carriers: Vec::new(),
        },
        roles: Vec::new(),
        types: lower(spec, &package),
        channels: Vec::new(),
        messages: Vec::new(),
        methods: Vec::new(),
        routes: Vec::new(),
        types_file: spec.file.clone(),
        machines: Vec::new(),
        proto_package: Some(package),
        options: Default::default(),
        role_aliases: Default::default(),
        features: Vec::new(),
        events: Vec::new(),
        versioning: None,
        version: None,
        sessions: None,
        tracking: None,
    }
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
fn a_misspelt_tag_in_a_proto_comment_gets_the_closest_tag() {
    let text =
        "syntax = \"proto3\";\npackage p;\n\nmessage A {\n  // @minimun 0\n  int32 n = 1;\n}\n";
    let (dir, lines) = errors_for("tags.proto", text);
    let file = dir.path().join("tags.proto").display().to_string();
    assert_eq!(
        lines,
        [format!(
            "{file}:5:6: unknown constraint tag `@minimun` (hint: did you mean `@minimum`?)"
        )]
    );
}

#[test]
fn bad_tags_point_at_the_comment() {
    let text = "syntax = \"proto3\";\npackage p;\n\nmessage A {\n  // The id.\n  // @minLength one\n  string a = 1;\n  int32 b = 2; // @maxLength 3\n  string c = 3; // @format email\n  // @minlength 2\n  string d = 4;\n  // @minLength 5\n  // @maxLength 2\n  string e = 5;\n}\n";
    let (dir, lines) = errors_for("tags.proto", text);
    let file = dir.path().join("tags.proto").display().to_string();
    let expected = [
        format!("{file}:6:6: `@minLength` needs a whole number, found `one`"),
        format!("{file}:8:19: `@maxLength` applies to strings, and this field is not one"),
        format!("{file}:9:20: unknown format `email` for `@format`"),
        format!("{file}:10:6: unknown constraint tag `@minlength`"),
        format!("{file}:13:6: `@minLength 5` is above `@maxLength 2`: no value passes"),
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
    assert_eq!(
        spec.constraints["p.A.tags"].count(&agentwire_codegen::rules::MIN_ITEMS),
        Some(1)
    );
    assert_eq!(
        spec.constraints["p.A.name"].text(&agentwire_codegen::rules::PATTERN),
        Some("^[a-z]+$")
    );
    assert_eq!(
        spec.constraints["p.A.ratio"].number(&agentwire_codegen::rules::MAXIMUM),
        Some(1.5)
    );
    // The IR carries them on the fields.
    let p = protocol_of(&spec, "p");
    let TypeKind::Struct(fields) = &p.types["A"].kind else {
        panic!("A is a struct")
    };
    assert_eq!(
        fields[0]
            .constraints
            .count(&agentwire_codegen::rules::MIN_ITEMS),
        Some(1)
    );
    // A tagged spec emits regex statics and bound checks.
    let out = emit_proto(&p, &spec).map_err(report).unwrap();
    let validate = &out[3].1;
    assert!(validate.contains("PATTERN"), "{validate}");
    assert!(validate.contains("min_items"), "{validate}");
}

/// The coven JSON Schema (emitted from the IR, as `generated/schemas/coven.schema.json` is)
/// accepts every valid proto3 JSON fixture and every `json` example of the protocol doc, and
/// rejects every invalid fixture and every `json invalid` example.
#[cfg(feature = "docs")]
#[test]
fn the_coven_schema_accepts_real_messages_and_rejects_broken_ones() {
    use serde_json::{Value, json};

    let spec = agentwire_codegen::front::load::load_spec(&coven_dir())
        .map_err(report)
        .unwrap();
    let p = &spec.protocol;
    let doc: Value =
        serde_json::from_str(&agentwire_codegen::emit::schema::emit_schema(p)).unwrap();
    let validator = |type_name: &str| {
        let narrowed = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": doc["$defs"],
            "$ref": format!("#/$defs/{type_name}"),
        });
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&narrowed)
            .unwrap()
    };
    let channel = |from: &str| {
        let c = p.channel_from(from).unwrap();
        validator(&c.union)
    };
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/coven");
    let mut checked = 0;
    for (folder, valid) in [("valid", true), ("invalid", false)] {
        let mut entries: Vec<_> = std::fs::read_dir(fixtures.join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let fixture: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let Some(from) = fixture["from"].as_str() else {
                continue;
            };
            let ok = channel(from).is_valid(&fixture["message"]);
            assert_eq!(ok, valid, "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} fixtures");

    // The protocol doc's examples: each is a message of one of the two directions.
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/protocols/coven.md"),
    )
    .unwrap();
    let unions: Vec<_> = p.channels.iter().map(|c| validator(&c.union)).collect();
    let mut examples = 0;
    let mut block: Option<(bool, String)> = None;
    for line in text.lines() {
        match &mut block {
            None => {
                let fence = line.trim_start();
                if fence == "```json" || fence == "```json invalid" {
                    block = Some((fence.ends_with("invalid"), String::new()));
                }
            }
            Some((invalid, body)) if line.trim_start().starts_with("```") => {
                let value: Value = serde_json::from_str(body).unwrap();
                let ok = unions.iter().any(|v| v.is_valid(&value));
                assert_eq!(ok, !*invalid, "doc example:\n{body}");
                examples += 1;
                block = None;
            }
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    assert!(examples > 10, "only {examples} examples");
}

/// The coven spec in the IR: oneofs as unions keyed by the case name, proto3 scalars with
/// their JSON forms, presence as prost represents it, enums by value name.
#[test]
fn coven_is_lowered_into_the_ir() {
    use agentwire_codegen::ir::{Scalar, Ty};

    let spec = agentwire_codegen::front::load::load_spec(&coven_dir())
        .map_err(report)
        .unwrap();
    let p = &spec.protocol;
    assert_eq!(p.proto_package.as_deref(), Some("coven"));
    let (field, cases) = p.wrapper_oneof("AgentMessage").unwrap();
    assert_eq!(field.name, "payload");
    assert_eq!(cases[0].name, "register");
    assert_eq!(cases[0].ty, Ty::Named("RegisterAgent".to_owned()));
    assert!(matches!(
        p.types["AgentMessage.payload"].kind,
        TypeKind::Oneof { required: true, .. }
    ));
    // A oneof among other fields may be unset.
    let TypeKind::Struct(fields) = &p.types["MessageResponse"].kind else {
        panic!("a struct")
    };
    let event = fields.iter().find(|f| f.name == "event").unwrap();
    assert!(event.optional);
    assert!(matches!(
        p.types["MessageResponse.event"].kind,
        TypeKind::Oneof {
            required: false,
            ..
        }
    ));
    let field = |ty: &str, name: &str| {
        let TypeKind::Struct(fields) = &p.types[ty].kind else {
            panic!("{ty} is a struct")
        };
        fields.iter().find(|f| f.name == name).unwrap().clone()
    };
    let ts = field("Heartbeat", "timestamp_ms");
    assert_eq!(ts.ty, Ty::Scalar(Scalar::Int64));
    assert!(ts.optional && ts.defaulted);
    let reason = field("InjectionAck", "reason");
    assert!(
        reason.optional && !reason.defaulted,
        "proto3 optional is an Option"
    );
    let metadata = field("RegisterAgent", "metadata");
    assert!(!metadata.defaulted, "a message field is an Option");
    assert_eq!(
        field("RegisterAgent", "agent_id")
            .constraints
            .count(&agentwire_codegen::rules::MIN_LENGTH),
        Some(1)
    );
    assert!(
        field("RegisterAgent", "agent_id")
            .doc
            .ends_with("identity.")
    );
    let TypeKind::Enum(values) = &p.types["InjectionPriority"].kind else {
        panic!("an enum")
    };
    assert_eq!(values[0], "INJECTION_PRIORITY_UNSPECIFIED");
}

/// JSDoc tags and proto comment tags go through one pipeline: the same mistake reads the same.
#[test]
fn jsdoc_and_proto_tags_share_their_wording() {
    let dir = tempfile::tempdir().unwrap();
    let ts_path = dir.path().join("messages.ts");
    std::fs::write(
        &ts_path,
        "interface A {\n  /** @minItems 1 */\n  name: string;\n  /**\n   * @minLength 5\n   * @maxLength 2\n   */\n  code: string;\n}\n",
    )
    .unwrap();
    let file = agentwire_codegen::diag::SourceFile::read(&ts_path).unwrap();
    let ts_errors: Vec<String> = agentwire_codegen::front::ts::load_types(&file, "messages.ts")
        .unwrap_err()
        .errors
        .iter()
        .map(|e| e.message.clone())
        .collect();
    let proto = "syntax = \"proto3\";\npackage p;\n\nmessage A {\n  // @minItems 1\n  string name = 1;\n  // @minLength 5\n  // @maxLength 2\n  string code = 2;\n}\n";
    std::fs::write(dir.path().join("a.proto"), proto).unwrap();
    let proto_errors: Vec<String> = load_proto(dir.path(), "a.proto")
        .unwrap_err()
        .errors
        .iter()
        .map(|e| e.message.clone())
        .collect();
    assert_eq!(
        ts_errors,
        [
            "`@minItems` applies to lists, and this field is not one",
            "`@minLength 5` is above `@maxLength 2`: no value passes",
        ]
    );
    assert_eq!(ts_errors, proto_errors);
}

/// Element rules on lists and map values, enum lists and maps with integer keys: the shared
/// validator emitter walks each element of prost's types under its pointer.
#[test]
fn element_rules_reach_every_element() {
    let text = "syntax = \"proto3\";\npackage p;\n\nenum Color {\n  COLOR_UNSPECIFIED = 0;\n  RED = 1;\n}\n\nmessage Inner {\n  string id = 1; // @minLength 1\n}\n\nmessage A {\n  // @minItems 1\n  // @maxLength 8\n  repeated string tags = 1;\n  repeated Color colors = 2;\n  map<int32, Inner> by_number = 3;\n  map<string, string> labels = 4; // @pattern ^[a-z]+$\n  optional int64 count = 5; // @minimum 1\n}\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("e.proto"), text).unwrap();
    let spec = load_proto(dir.path(), "e.proto").map_err(report).unwrap();
    let p = protocol_of(&spec, "e");
    let out = emit_proto(&p, &spec).map_err(report).unwrap();
    let validate = &out[3].1;
    syn::parse_file(validate).unwrap();
    // Compared without whitespace: prettyplease breaks long calls over lines.
    let flat: String = validate.split_whitespace().collect();
    for needle in [
        "min_items(v, 1u64",
        "with_index(i",
        "max_length(v, 8u64",
        "Color::try_from(*v)",
        "is not a value of p.Color",
        "ToString::to_string(k)",
        "pattern(v, &PATTERN",
        "minimum(*v as f64, 1f64",
    ] {
        let needle: String = needle.split_whitespace().collect();
        assert!(flat.contains(&needle), "no `{needle}` in\n{validate}");
    }
}

/// A protobuf spec's catalogue is checked against its stream wrappers' oneofs, as a
/// TypeScript spec's is against its unions.
#[test]
fn the_catalogue_must_list_every_oneof_case() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("mini");
    std::fs::create_dir(&folder).unwrap();
    let proto = "syntax = \"proto3\";\npackage mini;\n\nservice S {\n  rpc Talk(stream Up) returns (stream Down);\n}\n\nmessage Up {\n  oneof payload {\n    Hello hello = 1;\n    Bye bye = 2;\n  }\n}\n\nmessage Down {\n  oneof payload {\n    Hello welcome = 1;\n  }\n}\n\nmessage Hello {\n  string id = 1; // @minLength 1\n}\n\nmessage Bye {}\n";
    std::fs::write(folder.join("mini.proto"), proto).unwrap();
    let yaml = "protocol: mini\ntitle: Mini\nsummary: A test.\ntransport:\n  kind: grpc\n  framing: grpc\nroles: [client, server]\ntypes: mini.proto\ngrpc:\n  service: mini.S\n  rpc: Talk\n  handshake: {hello: hello, peer_id: id, accept: welcome, refuse: welcome}\n  exchange: {request: welcome, response: hello, correlation: id, event: id, failure: done}\nevents:\n  - {name: done, terminal: true}\nchannels:\n  - from: client\n    to: server\n    union: Up\n  - from: server\n    to: client\n    union: Down\nmessages:\n  - kind: hello\n    from: client\n    type: Hello\n    summary: Hi.\n  - kind: welcome\n    from: server\n    type: Hello\n    summary: Hi back.\n";
    std::fs::write(folder.join("protocol.yaml"), yaml).unwrap();
    let errors: Vec<String> = agentwire_codegen::front::load::load_spec(&folder)
        .unwrap_err()
        .errors
        .iter()
        .map(|e| e.one_line())
        .collect();
    // (The skeleton sections are incomplete on purpose; only the catalogue is under test.)
    assert!(
        errors.iter().any(|e| e.contains("protocol.yaml:19:")
            && e.contains(
                "`Up` carries kind `bye` (Bye) but the catalogue has no such entry from `client`"
            )),
        "{errors:#?}"
    );
}

/// Loads `proto` as `p.proto`, lowers it and emits its module: every error as one line.
fn emit_or_errors(proto: &str) -> Result<Vec<(String, String)>, Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.proto"), proto).unwrap();
    let lines = |e: agentwire_codegen::diag::SpecErrors| -> Vec<String> {
        e.errors.iter().map(|e| e.one_line()).collect()
    };
    let spec = load_proto(dir.path(), "p.proto").map_err(lines)?;
    spec.package().map_err(lines)?;
    emit_proto(&protocol_of(&spec, "p"), &spec).map_err(lines)
}

/// Every well-known type lowers to its JSON form and reaches prost as `pbjson_types`' type;
/// before, the first one made prost panic inside the generator.
#[test]
fn well_known_types_emit_without_panicking() {
    let proto = "syntax = \"proto3\";\npackage p;\nimport \"google/protobuf/timestamp.proto\";\nimport \"google/protobuf/struct.proto\";\nimport \"google/protobuf/wrappers.proto\";\nmessage A {\n  google.protobuf.Timestamp at = 1;\n  google.protobuf.Struct meta = 2;\n  repeated google.protobuf.Value values = 3;\n  google.protobuf.Int64Value n = 4;\n}\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.proto"), proto).unwrap();
    let spec = load_proto(dir.path(), "p.proto").map_err(report).unwrap();
    let p = protocol_of(&spec, "p");
    let TypeKind::Struct(fields) = &p.types["A"].kind else {
        panic!("A is a struct")
    };
    use agentwire_codegen::ir::{Scalar, Ty, WellKnown};
    assert_eq!(fields[0].ty, Ty::WellKnown(WellKnown::Timestamp));
    assert_eq!(
        fields[3].ty,
        Ty::WellKnown(WellKnown::Wrapper(Box::new(Ty::Scalar(Scalar::Int64))))
    );
    let out = emit_proto(&p, &spec).map_err(report).unwrap();
    assert!(
        out[1].1.contains("::pbjson_types::Timestamp"),
        "{}",
        out[1].1
    );
    let schema = agentwire_codegen::emit::schema::emit_schema(&p);
    assert!(schema.contains("date-time"), "{schema}");
    // A tag cannot reach inside a well-known type: a diagnostic, not code that does not build.
    let tagged = proto.replace("Timestamp at = 1;", "Timestamp at = 1; // @minLength 1");
    let errors = emit_or_errors(&tagged).unwrap_err();
    assert!(
        errors[0].contains(":7:40: `@minLength` applies to strings"),
        "{errors:?}"
    );
}

/// Broken protos of every kind are diagnostics with a location, never a panic.
#[test]
fn bad_protos_are_diagnostics_not_panics() {
    let cases = [
        (
            "syntax = \"proto3\";\npackage p;\nimport \"google/protobuf/nope.proto\";\n",
            "p.proto:3:1: import",
        ),
        (
            "syntax = \"proto3\";\npackage p;\nmessage A { google.protobuf.Timestamp at = 1; }\n",
            "p.proto:3:13: ",
        ),
        (
            "syntax = \"proto3\";\npackage p;\nmessage A { int32 a = 1; int32 b = 1; }\n",
            "p.proto:3:23: field number",
        ),
        (
            "syntax = \"proto3\";\npackage p;\nmessage A { oneof o { } }\n",
            "p.proto:3:",
        ),
        ("syntax = \"proto4\";\n", "p.proto:1:10: "),
    ];
    for (proto, at) in cases {
        let errors = emit_or_errors(proto).expect_err(proto);
        assert!(errors[0].contains(at), "{proto}\n{errors:?}");
    }
}

/// Imports resolve through `proto.include` folders; the packages the main one uses get types
/// of their own (named in full in the IR, nested modules in Rust); custom options reach the
/// IR as data.
#[test]
fn includes_several_packages_and_options() {
    use agentwire_codegen::front::proto_include::ImportRoots;
    let root = tempfile::tempdir().unwrap();
    let spec_dir = root.path().join("chat");
    let shared = root.path().join("shared");
    std::fs::create_dir_all(spec_dir.join("opts")).unwrap();
    std::fs::create_dir_all(shared.join("acme/common")).unwrap();
    std::fs::write(
        spec_dir.join("opts/behavior.proto"),
        "syntax = \"proto3\";\npackage acme.opts;\nimport \"google/protobuf/descriptor.proto\";\nenum Behavior { UNSPECIFIED = 0; REQUIRED = 1; }\nextend google.protobuf.FieldOptions { repeated Behavior behavior = 50001; }\nmessage Route { string get = 1; string post = 2; }\nextend google.protobuf.MethodOptions { Route route = 50002; }\n",
    )
    .unwrap();
    std::fs::write(
        shared.join("acme/common/ids.proto"),
        "syntax = \"proto3\";\npackage acme.common;\nmessage Id { string value = 1; // @minLength 1\n}\nenum Level { LEVEL_UNSPECIFIED = 0; HIGH = 1; }\n",
    )
    .unwrap();
    std::fs::write(
        spec_dir.join("chat.proto"),
        "syntax = \"proto3\";\npackage acme.chat;\nimport \"opts/behavior.proto\";\nimport \"acme/common/ids.proto\";\nmessage Say {\n  acme.common.Id id = 1 [(acme.opts.behavior) = REQUIRED];\n  acme.common.Level level = 2;\n  string text = 3;\n}\nservice Chat {\n  rpc Send(Say) returns (Say) { option (acme.opts.route) = { post: \"/say\" }; }\n}\n",
    )
    .unwrap();
    // Without the include folder the import is a located error.
    let alone = load_proto(&spec_dir, "chat.proto")
        .map_err(report)
        .unwrap_err();
    assert!(
        alone.contains("chat.proto:4:1: import 'acme/common/ids.proto' not found"),
        "{alone}"
    );
    let roots = ImportRoots {
        extra: vec![shared.clone()],
        ..ImportRoots::folder(&spec_dir)
    };
    let spec = agentwire_codegen::front::proto::load_proto_in(&roots, "chat.proto")
        .map_err(report)
        .unwrap();
    let packages: Vec<String> = spec.packages().into_iter().collect();
    assert_eq!(packages, ["acme.chat", "acme.common"]);
    let mut p = protocol_of(&spec, "chat");
    p.options = agentwire_codegen::front::proto_lower::options(&spec, "acme.chat");
    assert!(p.types.contains_key("Say"));
    assert!(p.types.contains_key("acme.common.Id"));
    assert!(
        !p.types.keys().any(|k| k.contains("Route")),
        "options-only imports get no types"
    );
    assert_eq!(
        p.options["Say.id"]["acme.opts.behavior"],
        serde_json::json!(["REQUIRED"])
    );
    assert_eq!(
        p.options["Chat.Send"]["acme.opts.route"],
        serde_json::json!({"post": "/say"})
    );
    // A tag in an included file is read too.
    assert_eq!(
        spec.constraints["acme.common.Id.value"].count(&agentwire_codegen::rules::MIN_LENGTH),
        Some(1)
    );
    let out = emit_proto(&p, &spec).map_err(report).unwrap();
    let types = &out[1].1;
    assert!(types.contains("pub use self::acme::chat::*;"), "{types}");
    assert!(types.contains("pub mod common"), "{types}");
    let validate = &out[3].1;
    assert!(validate.contains("acme::common::Id"), "{validate}");
}

/// An include folder that carries its own `google/protobuf/*` (a whole `google-proto-files`
/// package root does) does not shadow protox's bundled well-known protos: protox cannot
/// parse every copy of `descriptor.proto`, and the bundled ones are the ones it was built for.
#[test]
fn bundled_well_known_protos_win_over_include_folders() {
    use agentwire_codegen::front::proto_include::ImportRoots;
    let root = tempfile::tempdir().unwrap();
    let spec_dir = root.path().join("clock");
    let shared = root.path().join("shared");
    std::fs::create_dir_all(&spec_dir).unwrap();
    std::fs::create_dir_all(shared.join("google/protobuf")).unwrap();
    // Copies protox 0.10 cannot read (an edition it does not know, and plain junk).
    std::fs::write(
        shared.join("google/protobuf/descriptor.proto"),
        "edition = \"2024\";\npackage google.protobuf;\noption features.enforce_naming_style = STYLE2024;\n",
    )
    .unwrap();
    std::fs::write(
        shared.join("google/protobuf/timestamp.proto"),
        "this is not a proto file\n",
    )
    .unwrap();
    std::fs::write(
        spec_dir.join("clock.proto"),
        "syntax = \"proto3\";\npackage clock;\nimport \"google/protobuf/timestamp.proto\";\nimport \"google/protobuf/descriptor.proto\";\nextend google.protobuf.FieldOptions { string unit = 50001; }\nmessage Tick { google.protobuf.Timestamp at = 1 [(unit) = \"s\"]; }\n",
    )
    .unwrap();
    let roots = ImportRoots {
        extra: vec![shared.clone()],
        ..ImportRoots::folder(&spec_dir)
    };
    assert_eq!(roots.path_of("google/protobuf/timestamp.proto"), None);
    let spec = agentwire_codegen::front::proto::load_proto_in(&roots, "clock.proto")
        .map_err(report)
        .unwrap();
    let p = protocol_of(&spec, "clock");
    assert!(p.types.contains_key("Tick"));
    // A name protox does not bundle is still looked up in the folders.
    std::fs::write(
        shared.join("google/protobuf/extra.proto"),
        "syntax = \"proto3\";\npackage google.protobuf;\nmessage Extra { string x = 1; }\n",
    )
    .unwrap();
    assert_eq!(
        roots.path_of("google/protobuf/extra.proto"),
        Some(shared.join("google/protobuf/extra.proto"))
    );
}

/// A `FileDescriptorSet` (as `buf build` or `protoc --descriptor_set_out` write it) is a types
/// file like a `.proto`: built here by protox from a proto of this test, without its imports
/// (`protoc`'s default), it loads, lowers into the same IR and generates, and a file that is
/// not a set is a diagnostic.
#[test]
fn a_descriptor_set_is_a_types_file() {
    use prost::Message;
    let root = tempfile::tempdir().unwrap();
    let src = root.path().join("src");
    std::fs::create_dir_all(src.join("shelf/v1")).unwrap();
    std::fs::write(
        src.join("shelf/v1/shelf.proto"),
        "syntax = \"proto3\";\npackage shelf.v1;\nimport \"google/protobuf/timestamp.proto\";\nimport \"google/protobuf/descriptor.proto\";\nextend google.protobuf.FieldOptions { bool must = 50007; }\nmessage Book {\n  string title = 1 [(must) = true];\n  google.protobuf.Timestamp shelved_at = 2;\n  repeated string tags = 3;\n}\nmessage Shelf { repeated Book books = 1; }\n",
    )
    .unwrap();
    let mut compiler = protox::Compiler::new([&src]).unwrap();
    compiler.open_file("shelf/v1/shelf.proto").unwrap();
    let set = compiler.file_descriptor_set();
    assert_eq!(set.file.len(), 1, "written without its imports");
    let spec_dir = root.path().join("shelf");
    std::fs::create_dir_all(&spec_dir).unwrap();
    std::fs::write(spec_dir.join("shelf.binpb"), set.encode_to_vec()).unwrap();
    std::fs::write(
        spec_dir.join("protocol.yaml"),
        "protocol: shelf\ntitle: Shelf\nsummary: Books on a shelf, from a compiled descriptor set.\ntypes: shelf.binpb\n",
    )
    .unwrap();
    let spec = agentwire_codegen::front::load::load_spec(&spec_dir)
        .map_err(report)
        .unwrap();
    let p = &spec.protocol;
    assert_eq!(p.proto_package.as_deref(), Some("shelf.v1"));
    let Some(TypeKind::Struct(fields)) = p.types.get("Book").map(|d| &d.kind) else {
        panic!("no Book struct: {:?}", p.types.keys().collect::<Vec<_>>());
    };
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["title", "shelved_at", "tags"]);
    // Custom options are not read from a set yet (spec/README.md, "Descriptor sets").
    assert!(p.options.is_empty(), "{:?}", p.options);
    let generated = agentwire_codegen::generate(&spec_dir)
        .map_err(report)
        .unwrap();
    let types = generated
        .files
        .iter()
        .map(|f| f.render("test"))
        .collect::<String>();
    assert!(types.contains("pub struct Book"), "{types}");
    assert!(types.contains("pbjson_types::Timestamp"), "{types}");

    // Not a set at all: a diagnostic naming the file, not a panic.
    std::fs::write(spec_dir.join("shelf.binpb"), b"\xff\xff\xff not protobuf").unwrap();
    let error = agentwire_codegen::generate(&spec_dir)
        .map(|_| ())
        .map_err(report)
        .unwrap_err();
    assert!(
        error.contains("shelf.binpb: not a FileDescriptorSet"),
        "{error}"
    );
}

/// The option `google.api.field_behavior`, declared in our own words with the field number
/// Google's API protos give it: enough for a spec folder that holds no copy of theirs.
const FIELD_BEHAVIOR: &str = "syntax = \"proto3\";\npackage google.api;\nimport \"google/protobuf/descriptor.proto\";\nenum FieldBehavior { FIELD_BEHAVIOR_UNSPECIFIED = 0; OPTIONAL = 1; REQUIRED = 2; OUTPUT_ONLY = 3; INPUT_ONLY = 4; IMMUTABLE = 5; }\nextend google.protobuf.FieldOptions { repeated FieldBehavior field_behavior = 1052 [packed = false]; }\n";

/// `[(google.api.field_behavior) = REQUIRED]` on a field of explicit presence (a message, a
/// proto3 `optional` scalar) makes it one that must be present: the validator checks it
/// under rule `required` and the schema requires its key. On a field of implicit presence,
/// and the other behaviours, it stays data only.
#[test]
fn field_behavior_required_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("google/api")).unwrap();
    std::fs::write(
        dir.path().join("google/api/field_behavior.proto"),
        FIELD_BEHAVIOR,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("shop.proto"),
        "syntax = \"proto3\";\npackage acme.shop;\nimport \"google/api/field_behavior.proto\";\nmessage Order {\n  string id = 1 [(google.api.field_behavior) = REQUIRED];\n  repeated string lines = 2 [(google.api.field_behavior) = REQUIRED];\n  State state = 3 [(google.api.field_behavior) = REQUIRED];\n  Buyer buyer = 4 [(google.api.field_behavior) = IMMUTABLE, (google.api.field_behavior) = REQUIRED];\n  string note = 5 [(google.api.field_behavior) = OUTPUT_ONLY];\n  string memo = 6;\n  optional int32 code = 7 [(google.api.field_behavior) = REQUIRED];\n}\nenum State { STATE_UNSPECIFIED = 0; OPEN = 1; }\nmessage Buyer { string name = 1; }\n",
    )
    .unwrap();
    let spec = load_proto(dir.path(), "shop.proto")
        .map_err(report)
        .unwrap();
    let mut p = protocol_of(&spec, "shop");
    p.options = agentwire_codegen::front::proto_lower::options(&spec, "acme.shop");
    assert_eq!(
        p.options["Order.buyer"]["google.api.field_behavior"],
        serde_json::json!(["IMMUTABLE", "REQUIRED"])
    );
    let TypeKind::Struct(fields) = &p.types["Order"].kind else {
        panic!("Order is a message")
    };
    let set: Vec<&str> = (fields.iter())
        .filter(|f| f.must_be_set)
        .map(|f| f.name.as_str())
        .collect();
    // Presence only: a field of implicit presence reads an absent key as its default, a
    // value of its own (A2A's REQUIRED `next_page_token` is empty on the last page).
    assert_eq!(set, ["buyer", "code"]);
    let files = emit_proto(&p, &spec).map_err(report).unwrap();
    let validate = &files
        .iter()
        .find(|(name, _)| name == "validate.rs")
        .unwrap()
        .1;
    assert_eq!(
        validate.matches("validate::required(").count(),
        2,
        "{validate}"
    );
    let schema: serde_json::Value =
        serde_json::from_str(&agentwire_codegen::emit::schema::emit_schema(&p)).unwrap();
    assert_eq!(
        schema["$defs"]["Order"]["required"],
        serde_json::json!(["buyer", "code"])
    );
}
