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
    // `bytes` as `Buffer` or `Uint8Array`: the base64 text JSON carries.
    let detail = &defs["JobDetail"];
    assert_eq!(
        detail["properties"]["checksum"]["type"],
        json!("string"),
        "{detail}"
    );
    assert_eq!(
        required(detail),
        ["attempts", "summary", "checksum"],
        "{detail}"
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

#[test]
fn declarations_spread_over_files_that_import_one_another() {
    let g = shapes();
    let types = &g.spec.protocol.types;
    for (name, file) in [
        ("Everything", "messages.ts"),
        ("Shade", "quicktype.d.ts"),
        ("JobStatus", "proto/job.ts"),
        ("CompletionJob", "stainless.ts"),
    ] {
        assert_eq!(types[name].origin.file, file, "{name}");
    }
    // Each file read is one the derive rebuilds on.
    for file in [
        "messages.ts",
        "quicktype.d.ts",
        "proto/job.ts",
        "stainless.ts",
    ] {
        assert!(
            g.spec.files.iter().any(|f| f.ends_with(file)),
            "{file}: {:?}",
            g.spec.files
        );
    }
}

/// A spec folder holding `files` (path, text), `messages.ts` the types file; its diagnostics.
fn refusals(files: &[(&str, &str)]) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("split");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("protocol.yaml"),
        "protocol: split\ntitle: Split\nsummary: Types over several files.\ntypes: messages.ts\n",
    )
    .unwrap();
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::write(
        tmp.path().join("outside.ts"),
        "export interface Far { a: string }\n",
    )
    .unwrap();
    match agentwire_codegen::generate(&dir) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .errors
            .iter()
            .map(|e| {
                let line = e.one_line();
                line.split_once("/split/")
                    .map_or(line.clone(), |(_, l)| l.to_owned())
            })
            .collect(),
    }
}

#[test]
fn imports_that_cannot_be_read_are_located_with_what_to_write() {
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[(
                "messages.ts",
                "import { A } from './missing';\nexport interface P { a: A }\n",
            )],
            "messages.ts:1:19: cannot find `./missing`: none of ./missing.ts, ./missing.d.ts, ./missing.mts, ./missing.d.mts, ./missing/index.ts, ./missing/index.d.ts is a file beside this one; name a `.ts` or `.d.ts` file of the spec folder",
        ),
        (
            &[
                (
                    "messages.ts",
                    "import { A as B } from './a';\nexport interface P { b: B }\n",
                ),
                ("a.ts", "export interface A { a: string }\n"),
            ],
            "messages.ts:1:10: `A as B` renames an imported type; import it under its own name (`import { A }`)",
        ),
        (
            &[
                ("messages.ts", "import * as ns from './a';\n"),
                ("a.ts", "export interface A { a: string }\n"),
            ],
            "messages.ts:1:8: a namespace import (`import * as ns`) is not read; import the types by name (`import { A } from ...`)",
        ),
        (
            &[("messages.ts", "export { Far } from '../outside';\n")],
            "messages.ts:1:21: `../outside` is outside the spec folder; keep the types files in it",
        ),
        (
            // An error in an imported file names that file, line and column.
            &[
                ("messages.ts", "export * from './types/a';\n"),
                ("types/a.ts", "export interface A {\n  a: Strng;\n}\n"),
            ],
            "types/a.ts:2:6: unknown type `Strng`",
        ),
    ];
    for (files, want) in cases {
        let got = refusals(files);
        assert!(
            got.iter().any(|e| e.starts_with(want)),
            "want {want}\ngot {got:#?}"
        );
    }
}

#[test]
fn files_importing_each_other_are_read_once() {
    let got = refusals(&[
        (
            "messages.ts",
            "import { B } from './b';\nexport interface A { b?: B }\n",
        ),
        (
            "b.ts",
            "import { A } from './messages';\nexport interface B { a?: A }\n",
        ),
    ]);
    assert!(got.is_empty(), "{got:?}");
}
