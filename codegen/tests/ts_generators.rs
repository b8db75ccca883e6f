//! TypeScript as code generators emit it (ts-proto, hey-api, Stainless and quicktype output, in
//! the fixtures of `ts_shapes/generator_shapes`, written for these tests): each form loads, into
//! the IR and the JSON Schema its meaning calls for. `tests/tests/ts_published.rs` compiles the
//! generated module.

use std::path::Path;

use agentwire_codegen::generate::Generated;
use agentwire_codegen::ir::{Ty, TypeKind};
use serde_json::{Value, json};

fn shapes() -> Generated {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ts_shapes/generator_shapes");
    agentwire_codegen::generate(&dir).unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    })
}

fn definitions(g: &Generated) -> Value {
    let file = g
        .files
        .iter()
        .find(|f| f.path.ends_with(".schema.json"))
        .unwrap_or_else(|| {
            panic!(
                "no schema among {:?}",
                g.files.iter().map(|f| &f.path).collect::<Vec<_>>()
            )
        });
    let schema: Value = serde_json::from_str(&file.render("a test spec")).unwrap();
    schema
        .get("definitions")
        .or_else(|| schema.get("$defs"))
        .cloned()
        .unwrap_or_else(|| panic!("no definitions in {schema}"))
}

fn required(def: &Value) -> Vec<&str> {
    def["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[test]
fn ts_proto_enums_and_undefined_members() {
    let g = shapes();
    let types = &g.spec.protocol.types;
    // Numbered 0..=3 with UNRECOGNIZED = -1: no gap, so the bounds are exact.
    let TypeKind::Alias {
        target,
        constraints,
    } = &types["JobState"].kind
    else {
        panic!("{:?}", types["JobState"]);
    };
    assert_eq!(*target, Ty::Integer);
    assert_eq!(
        constraints.number(&agentwire_codegen::rules::MINIMUM),
        Some(-1.0)
    );
    assert_eq!(
        constraints.number(&agentwire_codegen::rules::MAXIMUM),
        Some(3.0)
    );
    // `detail: JobDetail | undefined` may be left out; `state: JobState` may not.
    let defs = definitions(&g);
    let status = &defs["JobStatus"];
    assert_eq!(required(status), ["state"], "{status}");
    assert_eq!(
        status["properties"]["detail"]["$ref"],
        json!("#/$defs/JobDetail")
    );
}

#[test]
fn string_enums_and_numbered_enums() {
    let g = shapes();
    let types = &g.spec.protocol.types;
    for (name, values) in [("Shade", ["light", "dark"]), ("Weight", ["thin", "bold"])] {
        let TypeKind::Enum(got) = &types[name].kind else {
            panic!("{name}: {:?}", types[name]);
        };
        assert_eq!(got, &values, "{name}");
    }
    let TypeKind::Alias { constraints, .. } = &types["Step"].kind else {
        panic!("{:?}", types["Step"]);
    };
    assert_eq!(
        constraints.number(&agentwire_codegen::rules::MINIMUM),
        Some(0.0)
    );
    assert_eq!(
        constraints.number(&agentwire_codegen::rules::MAXIMUM),
        Some(2.0)
    );
}

#[test]
fn number_literals_never_and_null() {
    let g = shapes();
    let defs = definitions(&g);
    let sample = &defs["Sample"];
    let props = sample["properties"].as_object().unwrap();
    // `legacyId?: never` has no field; `cleared: null` is required and holds only null.
    assert!(!props.contains_key("legacyId"), "{sample}");
    assert_eq!(required(sample), ["kind", "version", "cleared"], "{sample}");
    let version = &defs["SchemaVersion"];
    assert_eq!(version["minimum"], json!(1), "{version}");
    assert_eq!(version["maximum"], json!(2), "{version}");
    let types = &g.spec.protocol.types;
    let TypeKind::Alias { target, .. } = &types["SampleRatio"].kind else {
        panic!("{:?}", types.keys().collect::<Vec<_>>());
    };
    assert_eq!(*target, Ty::Number);
}

#[test]
fn namespaces_qualified_names_and_enum_members_as_tags() {
    let g = shapes();
    let types = &g.spec.protocol.types;
    // `Completion.Choice` is `CompletionChoice`; inside it, `Choice.Finish` resolves from the
    // enclosing namespace to `CompletionChoiceFinish`.
    for name in [
        "Completion",
        "CompletionChoice",
        "CompletionUsage",
        "CompletionChoiceFinish",
    ] {
        assert!(
            types.contains_key(name),
            "{name}: {:?}",
            types.keys().collect::<Vec<_>>()
        );
    }
    let defs = definitions(&g);
    assert_eq!(
        defs["CompletionChoice"]["properties"]["finish"]["$ref"],
        json!("#/$defs/CompletionChoiceFinish")
    );
    // `kind: BlockKind.Text` fixes the tag as `kind: 'text'` would.
    let TypeKind::Union { tag, variants } = &types["Block"].kind else {
        panic!("{:?}", types["Block"]);
    };
    assert_eq!(tag, "kind");
    let values: Vec<&str> = variants.iter().map(|v| v.value.as_str()).collect();
    assert_eq!(values, ["text", "image"]);
}
