//! JSON Schema as an input: each construct's IR (and so Rust) form, and errors at the JSON
//! file's line and column.

use std::collections::BTreeMap;
use std::path::Path;

use agentwire_codegen::diag::SourceFile;
use agentwire_codegen::front::jsonschema::load_types_noted;
use agentwire_codegen::ir::{Ty, TypeDef, TypeKind};

fn load(schema: &str) -> Result<BTreeMap<String, TypeDef>, Vec<String>> {
    load_noted(schema).map(|(types, _)| types)
}

/// The types and the loader's notes.
type Noted = (BTreeMap<String, TypeDef>, Vec<String>);

fn load_noted(schema: &str) -> Result<Noted, Vec<String>> {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("schema.json");
    std::fs::write(&path, schema).unwrap();
    let file = SourceFile::read(&path).unwrap();
    load_types_noted(&file, "schema.json").map_err(|e| {
        e.errors
            .iter()
            .map(|e| {
                e.one_line()
                    .replace(&path.display().to_string(), "schema.json")
            })
            .collect()
    })
}

fn ok(schema: &str) -> BTreeMap<String, TypeDef> {
    load(schema).unwrap_or_else(|e| panic!("{e:#?}"))
}

fn fields(types: &BTreeMap<String, TypeDef>, name: &str) -> Vec<(String, Ty, bool)> {
    match &types[name].kind {
        TypeKind::Struct(fields) => fields
            .iter()
            .map(|f| (f.name.clone(), f.ty.clone(), f.optional))
            .collect(),
        other => panic!("{name} is {other:?}"),
    }
}

fn named(n: &str) -> Ty {
    Ty::Named(n.to_owned())
}

#[test]
fn refs_defs_definitions_docs_and_defaults() {
    // draft-07's `definitions` and 2020-12's `$defs` alike.
    for key in ["definitions", "$defs"] {
        let types = ok(&format!(
            r##"{{"{key}": {{
              "Session": {{"description": "One session.", "type": "object",
                "properties": {{
                  "id": {{"$ref": "#/{key}/SessionId", "description": "Its id."}},
                  "load": {{"type": "boolean", "default": false}},
                  "tags": {{"type": "array", "items": {{"type": "string"}}, "minItems": 1}}
                }},
                "required": ["id"]}},
              "SessionId": {{"type": "string", "minLength": 1, "pattern": "^s-"}}
            }}}}"##
        ));
        let session = &types["Session"];
        assert_eq!(session.doc, "One session.");
        assert_eq!(session.open, None);
        assert_eq!(
            fields(&types, "Session"),
            [
                ("id".into(), named("SessionId"), false),
                ("load".into(), Ty::Bool, true),
                ("tags".into(), Ty::Array(Box::new(Ty::String)), true),
            ]
        );
        let TypeKind::Struct(f) = &session.kind else {
            unreachable!()
        };
        assert_eq!(f[1].doc, "Default: `false`.");
        assert_eq!(
            f[2].constraints.count(&agentwire_codegen::rules::MIN_ITEMS),
            Some(1)
        );
        let TypeKind::Alias {
            target,
            constraints,
        } = &types["SessionId"].kind
        else {
            panic!("{:?}", types["SessionId"]);
        };
        assert_eq!(*target, Ty::String);
        assert_eq!(
            constraints.count(&agentwire_codegen::rules::MIN_LENGTH),
            Some(1)
        );
        assert_eq!(
            constraints.text(&agentwire_codegen::rules::PATTERN),
            Some("^s-")
        );
    }
}

#[test]
fn a_shared_constant_makes_a_tagged_union_inline_or_by_reference() {
    let types = ok(r##"{"$defs": {
      "Content": {"oneOf": [
        {"$ref": "#/$defs/Text"},
        {"allOf": [{"$ref": "#/$defs/Image"}],
         "properties": {"kind": {"const": "image", "type": "string"}}, "required": ["kind"]},
        {"type": "object", "properties": {"kind": {"enum": ["audio"]}, "data": {"type": "string"}},
         "required": ["kind", "data"]}
      ]},
      "Text": {"type": "object", "properties": {"kind": {"const": "text"}, "text": {"type": "string"}},
               "required": ["kind", "text"]},
      "Image": {"type": "object", "properties": {"data": {"type": "string"}}, "required": ["data"]}
    }}"##);
    let TypeKind::Union { tag, variants } = &types["Content"].kind else {
        panic!("{:?}", types["Content"]);
    };
    assert_eq!(tag, "kind");
    let v: Vec<(&str, &str)> = variants
        .iter()
        .map(|v| (v.value.as_str(), v.type_name.as_str()))
        .collect();
    assert_eq!(
        v,
        [
            ("text", "Text"),
            ("image", "Image"),
            ("audio", "ContentAudio")
        ]
    );
    // The member's tag moves to the union (as the TypeScript loader does).
    assert_eq!(fields(&types, "Text"), [("text".into(), Ty::String, false)]);
    assert_eq!(
        fields(&types, "ContentAudio"),
        [("data".into(), Ty::String, false)]
    );
    assert!(types["ContentAudio"].inline);
}

#[test]
fn without_a_discriminator_the_union_is_untagged_in_order() {
    let types = ok(r##"{"$defs": {
      "Server": {"anyOf": [
        {"type": "object", "properties": {"type": {"const": "http"}, "url": {"type": "string"}},
         "required": ["type", "url"]},
        {"title": "Stdio", "type": "object", "properties": {"command": {"type": "string"}},
         "required": ["command"]},
        {"$ref": "#/$defs/Other"},
        {}
      ]},
      "Other": {"type": "object", "properties": {"x": {"type": "integer"}}},
      "Id": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
      "Ids": {"type": ["string", "integer", "null"]}
    }}"##);
    assert_eq!(
        types["Server"].kind,
        TypeKind::Untagged(vec![
            named("ServerHttp"),
            named("ServerStdio"),
            named("Other"),
            Ty::Any
        ])
    );
    assert_eq!(
        types["Id"].kind,
        TypeKind::Untagged(vec![Ty::Integer, Ty::String])
    );
    assert_eq!(
        types["Ids"].kind,
        TypeKind::Alias {
            target: Ty::Nullable(Box::new(named("IdsValue"))),
            constraints: Default::default()
        }
    );
    assert_eq!(
        types["IdsValue"].kind,
        TypeKind::Untagged(vec![Ty::String, Ty::Integer])
    );
}

#[test]
fn enums_consts_nullables_and_all_of_merging() {
    let types = ok(r##"{"$defs": {
      "Stop": {"oneOf": [{"const": "end_turn", "description": "Done."}, {"const": "refusal"}]},
      "Role": {"type": "string", "enum": ["user", "assistant"]},
      "Base": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "number"}},
               "required": ["a"]},
      "Both": {"allOf": [
        {"$ref": "#/$defs/Base"},
        {"properties": {"b": {"type": "integer"}, "c": {"anyOf": [{"$ref": "#/$defs/Role"}, {"type": "null"}]},
                        "d": {"type": ["string", "null"]}, "v": {"const": "2.0"}},
         "required": ["b", "c", "v"]}
      ]}
    }}"##);
    assert_eq!(
        types["Stop"].kind,
        TypeKind::Enum(vec!["end_turn".into(), "refusal".into()])
    );
    assert_eq!(
        types["Role"].kind,
        TypeKind::Enum(vec!["user".into(), "assistant".into()])
    );
    assert_eq!(
        fields(&types, "Both"),
        [
            ("a".into(), Ty::String, false),
            // The later schema's `b` replaces the earlier one.
            ("b".into(), Ty::Integer, false),
            ("c".into(), Ty::Nullable(Box::new(named("Role"))), false),
            ("d".into(), Ty::Nullable(Box::new(Ty::String)), true),
            ("v".into(), named("BothV"), false),
        ]
    );
    assert_eq!(types["BothV"].kind, TypeKind::Enum(vec!["2.0".into()]));
}

#[test]
fn additional_properties_make_open_structs_or_maps() {
    let types = ok(r##"{"$defs": {
      "Meta": {"type": "object", "properties": {"token": {"type": "string"}}, "additionalProperties": {}},
      "Scores": {"type": "object", "properties": {"label": {"type": "string"}},
                 "additionalProperties": {"type": "integer"}},
      "Closed": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false},
      "Silent": {"type": "object", "properties": {"a": {"type": "string"}}},
      "Headers": {"type": "object", "additionalProperties": {"type": "string"}},
      "Anything": {"type": "object"}
    }}"##);
    assert_eq!(types["Meta"].open, Some(Ty::Any));
    assert_eq!(types["Scores"].open, Some(Ty::Integer));
    assert_eq!(types["Closed"].open, None);
    // Absent `additionalProperties` reads as the interface the schema came from: closed.
    assert_eq!(types["Silent"].open, None);
    let map = |t: Ty| TypeKind::Alias {
        target: Ty::Map(Box::new(t)),
        constraints: Default::default(),
    };
    assert_eq!(types["Headers"].kind, map(Ty::String));
    assert_eq!(types["Anything"].kind, map(Ty::Any));
}

#[test]
fn errors_point_at_the_json_file_line_and_column() {
    let e = load("{\"$defs\": {\n  \"A\": {\"type\": \"object\",\n    \"properties\": {\"b\": {\"$ref\": \"#/$defs/Missing\"}}}\n}}").unwrap_err();
    assert_eq!(
        e,
        [
            "schema.json:3:34: `$ref` \"#/$defs/Missing\" reaches no schema of this document (hint: refer to a definition of this file: `#/$defs/Name`)"
        ]
    );
    let e = load("{\"$defs\": {\"A\": {\"type\": \"string\",}}}").unwrap_err();
    assert_eq!(e.len(), 1);
    assert!(
        e[0].starts_with("schema.json:1:35: JSON syntax error: expected a quoted key"),
        "{e:?}"
    );
    let e = load("{\"title\": \"only a title\"}").unwrap_err();
    assert!(e[0].contains("defines no types"), "{e:?}");
}

#[test]
fn a_json_schema_spec_generates_with_its_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("protocol.yaml"),
        "protocol: demo\ntitle: Demo\nsummary: A JSON Schema spec.\n\
         transport: {kind: websocket, framing: json-text}\nroles: [client, server]\n\
         types: schema.json\nchannels:\n  - {from: client, to: server, union: ClientMessage}\n\
         messages:\n  - {kind: probe, from: client, type: Probe}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("schema.json"),
        r##"{"$defs": {
          "ClientMessage": {"oneOf": [{"$ref": "#/$defs/Probe"}]},
          "Probe": {"type": "object", "properties": {"type": {"const": "probe"},
                    "_meta": {"type": "object", "additionalProperties": {}, "properties": {}}},
                    "required": ["type"]}
        }}"##,
    )
    .unwrap();
    let g = agentwire_codegen::generate(Path::new(&dir)).unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    });
    let rust = g
        .files
        .iter()
        .find(|f| f.path == "src/demo.rs")
        .unwrap()
        .render("a test spec");
    assert!(
        rust.contains("pub extra: agentwire_runtime::Members<"),
        "{rust}"
    );
    assert!(
        rust.contains("#[serde(tag = \"type\", rename = \"probe\")]"),
        "{rust}"
    );
}

#[test]
fn unknown_and_unchecked_keywords_are_notes_not_refusals() {
    // A vendor's own keywords (no `x-` prefix), a bound and a fastjsonschema
    // `$$description`: JSON Schema ignores what it does not know, and so does the loader.
    let (types, notes) = load_noted(
        "{\"$defs\": {\"Pet\": {\"type\": \"object\", \"frobnicate\": true,\n\
           \"$$description\": [\"a\", \"b\"],\n\
           \"properties\": {\"age\": {\"type\": \"integer\", \"frobnicate\": 1,\n\
             \"exclusiveMinimum\": 0},\n\
           \"tags\": {\"type\": \"array\", \"items\": [{\"type\": \"string\"}]}}}}}",
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(
        fields(&types, "Pet"),
        [
            ("age".into(), Ty::Integer, true),
            // A tuple is a list of any JSON values with its positions checked at run time.
            ("tags".into(), named("PetTags"), true),
        ]
    );
    assert_eq!(
        notes,
        [
            "note: schema.json (line 2): `$$description` is no JSON Schema keyword and is ignored",
            "note: schema.json (2 places, the first at line 1): `frobnicate` is no JSON Schema keyword and is ignored",
        ]
    );
}

#[test]
fn exclusive_bounds_in_either_draft_form_and_unique_items_are_rules() {
    use agentwire_codegen::rules::{
        EXCLUSIVE_MAXIMUM, EXCLUSIVE_MINIMUM, MAXIMUM, MINIMUM, UNIQUE_ITEMS,
    };
    // Draft-06 on: the bound is the keyword's number. Draft-04: a boolean beside `minimum` /
    // `maximum` makes that bound exclusive; `false` leaves it inclusive.
    let (types, notes) = load_noted(
        r#"{"$defs": {"A": {"type": "object", "properties": {
            "new": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "old": {"type": "integer", "minimum": 0, "exclusiveMinimum": true,
                    "maximum": 9, "exclusiveMaximum": false},
            "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string"}},
            "any": {"type": "array", "uniqueItems": false}}}}}"#,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    assert!(notes.is_empty(), "{notes:?}");
    let TypeKind::Struct(f) = &types["A"].kind else {
        panic!("{:?}", types["A"]);
    };
    let by = |n: &str| &f.iter().find(|f| f.name == n).unwrap().constraints;
    assert_eq!(by("new").number(&EXCLUSIVE_MINIMUM), Some(0.0));
    assert_eq!(by("new").number(&EXCLUSIVE_MAXIMUM), Some(1.0));
    assert_eq!(by("old").number(&EXCLUSIVE_MINIMUM), Some(0.0));
    assert!(!by("old").has(&MINIMUM));
    assert_eq!(by("old").number(&MAXIMUM), Some(9.0));
    assert!(!by("old").has(&EXCLUSIVE_MAXIMUM));
    assert!(by("tags").has(&UNIQUE_ITEMS));
    assert!(by("any").is_empty());
    // The bounds check sees exclusive bounds as every bound.
    let e = load(
        r#"{"$defs": {"A": {"type": "number", "exclusiveMinimum": 3, "exclusiveMaximum": 2}}}"#,
    )
    .unwrap_err();
    assert!(
        e[0].contains("`exclusiveMinimum: 3` is above `exclusiveMaximum: 2`"),
        "{e:?}"
    );
}

#[test]
fn dependent_required_and_listed_dependencies_are_the_objects_rule() {
    use agentwire_codegen::rules::{DEPENDENT_REQUIRED, Value};
    // 2019-09 on: `dependentRequired`. Draft-04 to 07: `dependencies`, whose list entries say
    // the same; an entry with a schema is not checked, and noted.
    let (types, notes) = load_noted(
        r#"{"$defs": {
            "Pay": {"type": "object", "properties": {"card": {"type": "string"}},
                    "dependentRequired": {"card": ["billing"]}},
            "Old": {"type": "object", "properties": {"a": {}},
                    "dependencies": {"a": ["b", "c"], "d": {"required": ["e"]}}}}}"#,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    let lists = |n: &str| types[n].rules.get(&DEPENDENT_REQUIRED).cloned();
    assert_eq!(
        lists("Pay"),
        Some(Value::KeyLists(vec![(
            "card".into(),
            vec!["billing".into()]
        )]))
    );
    assert_eq!(
        lists("Old"),
        Some(Value::KeyLists(vec![(
            "a".into(),
            vec!["b".into(), "c".into()]
        )]))
    );
    // The entry with a schema is the struct's subschema (`dependentSchemas`), not a note.
    assert!(notes.is_empty(), "{notes:#?}");
    let doc = types["Old"].rules.get(&agentwire_codegen::rules::SUBSCHEMA);
    assert_eq!(
        doc.map(Value::to_json),
        Some(serde_json::json!({"dependentSchemas": {"d": {"required": ["e"]}}}))
    );
}

/// The subschema document of the struct `name`, compiled as generated code compiles it.
fn subschema(
    types: &BTreeMap<String, TypeDef>,
    name: &str,
) -> agentwire_runtime::subschema::Schema {
    let doc = (types[name].rules.get(&agentwire_codegen::rules::SUBSCHEMA))
        .unwrap_or_else(|| panic!("{name} has no subschema"))
        .to_text();
    agentwire_runtime::subschema::Schema::parse(&doc).unwrap()
}

/// Each error of `value` against `schema`: (pointer, rule).
fn broken(
    schema: &agentwire_runtime::subschema::Schema,
    value: serde_json::Value,
) -> Vec<(String, String)> {
    let mut errors = Vec::new();
    schema.check_value(
        &value,
        &mut agentwire_runtime::JsonPointer::new(),
        &mut errors,
    );
    (errors.into_iter())
        .map(|e| (e.pointer, e.rule.name().to_owned()))
        .collect()
}

#[test]
fn conditions_on_a_struct_are_one_document_with_the_definitions_their_refs_reach() {
    use serde_json::json;
    // Each keyword beside `properties`, nested under a `$ref`, and reaching definitions
    // through `$ref` (one of them recursive), in a struct merged from `allOf` parts.
    let (types, notes) = load_noted(
        r##"{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {
            "Code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "Tree": {"properties": {"kids": {"items": {"$ref": "#/definitions/Tree"}},
                                    "n": {"not": {"const": 0}}}},
            "Legacy": {"required": ["legacy"]},
            "Priced": {
                "if": {"properties": {"price": {"exclusiveMinimum": 100}}, "required": ["price"]},
                "then": {"required": ["currency"], "properties": {
                    "currency": {"$ref": "#/definitions/Code"}, "tree": {"$ref": "#/definitions/Tree"}}},
                "else": {"not": {"required": ["currency"]}}},
            "Item": {"type": "object",
                "properties": {"price": {"type": "number"}, "currency": {"type": "string"},
                               "tree": {"type": "object"}, "ship": {"type": "string"}},
                "allOf": [{"$ref": "#/definitions/Priced"},
                          {"properties": {"tree": {"$ref": "#/definitions/Tree"}}}],
                "not": {"$ref": "#/definitions/Legacy"},
                "patternProperties": {"^x-": {"$ref": "#/definitions/Code"}},
                "dependencies": {"ship": {"properties": {"price": {"minimum": 1}}}},
                "propertyNames": {"maxLength": 8},
                "additionalProperties": false}}}"##,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    // `Priced` is no struct's schema and `Tree`'s `n` no struct: their conditions are their
    // own types' rules, and checked again where a struct merges them.
    assert!(notes.is_empty(), "{notes:#?}");
    assert!(matches!(
        &types["Priced"].kind,
        agentwire_codegen::ir::TypeKind::Alias { constraints, .. }
            if constraints.has(&agentwire_codegen::rules::SUBSCHEMA)
    ));
    let schema = subschema(&types, "Item");
    // Its definitions travel with it, each `$ref` pointing into it.
    let doc = types["Item"]
        .rules
        .get(&agentwire_codegen::rules::SUBSCHEMA)
        .unwrap()
        .to_json();
    let defs: Vec<&String> = doc["$defs"].as_object().unwrap().keys().collect();
    assert_eq!(defs, ["Code", "Legacy", "Tree"]);
    assert_eq!(doc["$id"], "urn:agentwire:subschema:Item");
    // The pattern members are kept (an open struct) for the document to check.
    assert_eq!(types["Item"].open, Some(Ty::Any));
    let cases = [
        (json!({"price": 5}), vec![]),
        (
            json!({"price": 500, "currency": "EUR", "x-id": "ABC"}),
            vec![],
        ),
        (json!({"price": 500}), vec![("/currency", "required")]),
        (
            json!({"price": 500, "currency": "eur"}),
            vec![("/currency", "pattern")],
        ),
        (json!({"price": 5, "currency": "EUR"}), vec![("", "not")]),
        (
            json!({"legacy": 1}),
            vec![("/legacy", "additional_properties"), ("", "not")],
        ),
        (json!({"x-id": "no"}), vec![("/x-id", "pattern")]),
        (
            json!({"ship": "sea", "price": 0}),
            vec![("/price", "minimum")],
        ),
        (
            json!({"tree": {"kids": [{"n": 1}, {"kids": [{"n": 0}]}]}}),
            vec![],
        ),
        (
            json!({"price": 500, "currency": "EUR", "tree": {"kids": [{"n": 1}, {"kids": [{"n": 0}]}]}}),
            vec![("/tree/kids/1/kids/0/n", "not")],
        ),
        (
            json!({"x-longname": "ABC"}),
            vec![("/x-longname", "property_names")],
        ),
    ];
    for (value, want) in cases {
        let want: Vec<(String, String)> = (want.into_iter())
            .map(|(p, r)| (p.to_owned(), r.to_owned()))
            .collect();
        assert_eq!(broken(&schema, value.clone()), want, "{value}");
    }
}

#[test]
fn a_choice_of_objects_merged_into_an_object_is_optional_fields_and_a_condition() {
    use serde_json::json;
    // As schemastore's tsconfig schema says "files, include or references": the root merges
    // definitions and a choice among definitions that add members. Before, a refusal.
    let (types, _notes) = load_noted(
        r##"{"$schema": "http://json-schema.org/draft-04/schema#", "definitions": {
            "Base": {"properties": {"extends": {"type": "string"}}},
            "Files": {"properties": {"files": {"type": "array", "items": {"type": "string"}}},
                      "required": ["files"]},
            "Include": {"properties": {"include": {"type": "array", "items": {"type": "string"}}},
                        "required": ["include"]},
            "Config": {"type": "object",
                "allOf": [{"$ref": "#/definitions/Base"},
                          {"anyOf": [{"$ref": "#/definitions/Files"},
                                     {"$ref": "#/definitions/Include"}]}]}}}"##,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    let strings = Ty::Array(Box::new(Ty::String));
    assert_eq!(
        fields(&types, "Config"),
        [
            ("extends".into(), Ty::String, true),
            ("files".into(), strings.clone(), true),
            ("include".into(), strings, true),
        ]
    );
    let schema = subschema(&types, "Config");
    assert_eq!(broken(&schema, json!({"files": ["a.ts"]})), []);
    assert_eq!(
        broken(&schema, json!({"include": ["src"], "extends": "x"})),
        []
    );
    let none = broken(&schema, json!({"extends": "x"}));
    assert_eq!(none.len(), 1, "{none:?}");
    assert_eq!(none[0].0, "");
}

#[test]
fn a_closed_map_of_pattern_properties_checks_its_values() {
    // `additionalProperties: false` with one schema for every pattern: a map of that schema
    // (its member names noted as unchecked).
    let (types, notes) = load_noted(
        r#"{"$defs": {"A": {"type": "object", "properties": {
            "cmd": {"type": "object", "additionalProperties": false,
                    "patternProperties": {"^.*$": {"type": "string"}}},
            "open": {"type": "object",
                     "patternProperties": {"^x-": {"type": "integer"}}}}}}}"#,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(
        fields(&types, "A"),
        [
            ("cmd".into(), Ty::Map(Box::new(Ty::String)), true),
            // Any other `patternProperties`: a map whose rule checks the patterns.
            ("open".into(), named("AOpen"), true),
        ]
    );
    let open = value_subschema(&types, "AOpen");
    assert!(broken(&open, serde_json::json!({"x-a": 1, "b": "c"})).is_empty());
    assert_eq!(
        broken(&open, serde_json::json!({"x-a": "1"})),
        [("/x-a".to_owned(), "type".to_owned())]
    );
    assert_eq!(
        notes,
        [
            "note: schema.json (line 3): member names are not checked against `patternProperties`; each value is read as its pattern's schema",
        ]
    );
}

#[test]
fn an_all_of_part_of_annotations_only_adds_nothing() {
    // Draft-04's meta-schema: `positiveIntegerDefault0` is `positiveInteger` with a default.
    let types = ok(r##"{"definitions": {
        "positiveInteger": {"type": "integer", "minimum": 0},
        "positiveIntegerDefault0": {"allOf": [{"$ref": "#/definitions/positiveInteger"}, {"default": 0}]}
    }}"##);
    match &types["positiveIntegerDefault0"].kind {
        TypeKind::Alias { target, .. } => assert_eq!(*target, named("positiveInteger")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn definition_names_that_are_no_rust_identifier_keep_their_json_name() {
    // setuptools names its definitions in kebab case; the naming pass gives the Rust name.
    let types = ok(r##"{"definitions": {
      "attr-directive": {"type": "object", "properties": {"attr": {"type": "string"}},
        "required": ["attr"]},
      "Holder": {"type": "object", "properties": {"a": {"$ref": "#/definitions/attr-directive"}}}
    }}"##);
    assert_eq!(
        fields(&types, "Holder"),
        [("a".into(), named("attr-directive"), true)]
    );
    assert_eq!(
        fields(&types, "attr-directive"),
        [("attr".into(), Ty::String, false)]
    );
}

#[test]
fn kebab_case_definitions_generate_under_rust_names() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("kebab");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("protocol.yaml"),
        "protocol: kebab\ntitle: Kebab\nsummary: Definitions named in kebab case.\ntypes: schema.json\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("schema.json"),
        r##"{"definitions": {
          "find-directive": {"type": "object", "properties": {
            "where": {"type": "array", "items": {"type": "string"}},
            "name-style": {"enum": ["flat", "nested"]}}},
          "holder": {"type": "object", "properties": {"find": {"$ref": "#/definitions/find-directive"}}},
          "schemaArray": {"type": "array", "items": {"$ref": "#/definitions/holder"}}
        }}"##,
    )
    .unwrap();
    let g = agentwire_codegen::generate(&dir).unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    });
    let rust = g
        .files
        .iter()
        .find(|f| f.path == "src/kebab.rs")
        .unwrap()
        .render("a test spec");
    assert!(rust.contains("pub struct FindDirective {"), "{rust}");
    assert!(rust.contains("pub enum FindDirectiveNameStyle {"), "{rust}");
    assert!(rust.contains("pub find: Option<FindDirective>"), "{rust}");
    // A name in lower camel case takes Rust's upper camel case (no `non_camel_case_types`).
    assert!(rust.contains("pub struct Holder {"), "{rust}");
    assert!(
        rust.contains("pub type SchemaArray = Vec<Holder>;"),
        "{rust}"
    );
    assert!(
        g.summary.contains(
            "type `find-directive` is not a Rust identifier; its Rust type is `FindDirective`"
        ),
        "{}",
        g.summary
    );
}

#[test]
fn the_root_schema_and_every_local_ref_form_are_types() {
    // A root that describes a value is a type named after the file; `#` reaches it, a pointer
    // deeper than a definition gets a type of its own, `~1` and `%25` escapes are decoded,
    // anchors resolve, and a reference to another document is any JSON value, with a note.
    let (types, notes) = load_noted(
        r##"{"$id": "https://example.com/tree", "type": "object",
          "properties": {
            "child": {"type": "array", "items": {"$ref": "#"}},
            "leaf": {"$ref": "#/definitions/a~1b"},
            "size": {"$ref": "#/definitions/box/properties/size"},
            "again": {"$ref": "https://example.com/tree#/definitions/box"},
            "named": {"$ref": "#dee"},
            "away": {"$ref": "other.json#/definitions/x"}},
          "definitions": {
            "a/b": {"type": "string"},
            "box": {"type": "object", "properties": {"size": {"type": "integer", "minimum": 1}}},
            "d": {"$anchor": "dee", "type": "boolean"}}}"##,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(
        fields(&types, "Schema"),
        [
            ("child".into(), Ty::Array(Box::new(named("Schema"))), true),
            ("leaf".into(), named("a/b"), true),
            ("size".into(), named("BoxSize"), true),
            ("again".into(), named("box"), true),
            ("named".into(), named("d"), true),
            ("away".into(), Ty::Any, true),
        ]
    );
    let TypeKind::Alias { constraints, .. } = &types["BoxSize"].kind else {
        panic!("{:?}", types["BoxSize"]);
    };
    assert_eq!(
        constraints.number(&agentwire_codegen::rules::MINIMUM),
        Some(1.0)
    );
    assert_eq!(
        notes,
        ["note: schema.json (line 8): a `$ref` to another document is read as any JSON value"]
    );
    // A local reference that reaches nothing is still an error, at its line.
    let e = load(r##"{"$defs": {"A": {"$ref": "#/$defs/A/properties/nope"}}}"##).unwrap_err();
    assert!(e[0].contains("reaches no schema of this document"), "{e:?}");
}

#[test]
fn type_lists_of_any_json_types_and_literals_of_any_json_value() {
    let (types, notes) = load_noted(
        r##"{"$defs": {
          "Anything": {"type": ["string", "number", "integer", "boolean", "object", "array", "null"]},
          "Holder": {"type": "object", "properties": {
            "names": {"type": ["string", "array"], "items": {"type": "string"}},
            "spec": {"type": ["string", "object"], "properties": {"attr": {"type": "string"}}},
            "count": {"type": ["integer", "number"]},
            "maybe": {"type": ["object", "null"], "properties": {"x": {"type": "integer"}}},
            "mode": {"enum": ["fast", "slow", null]},
            "on": {"const": true},
            "level": {"enum": [1, 2, 3]},
            "mixed": {"enum": ["a", 1]}}}
        }}"##,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    assert!(
        matches!(
            &types["Anything"].kind,
            TypeKind::Alias {
                target: Ty::Any,
                ..
            }
        ),
        "{:?}",
        types["Anything"]
    );
    let nullable = |t: Ty| Ty::Nullable(Box::new(t));
    assert_eq!(
        fields(&types, "Holder"),
        [
            ("names".into(), named("HolderNames"), true),
            ("spec".into(), named("HolderSpec"), true),
            ("count".into(), Ty::Number, true),
            ("maybe".into(), nullable(named("HolderMaybe")), true),
            ("mode".into(), nullable(named("HolderModeValue")), true),
            ("on".into(), Ty::BoolLiteral(true), true),
            ("level".into(), Ty::Integer, true),
            ("mixed".into(), Ty::Any, true),
        ]
    );
    assert_eq!(
        types["HolderNames"].kind,
        TypeKind::Untagged(vec![Ty::String, Ty::Array(Box::new(Ty::String))])
    );
    assert_eq!(
        types["HolderSpec"].kind,
        // The object asks more of a value, so it is tried first.
        TypeKind::Untagged(vec![named("HolderSpecObject"), Ty::String])
    );
    assert_eq!(
        fields(&types, "HolderSpecObject"),
        [("attr".into(), Ty::String, true)]
    );
    assert_eq!(
        fields(&types, "HolderMaybe"),
        [("x".into(), Ty::Integer, true)]
    );
    assert_eq!(
        types["HolderModeValue"].kind,
        TypeKind::Enum(vec!["fast".into(), "slow".into()])
    );
    assert_eq!(
        notes,
        [
            "note: schema.json (line 10): an `enum` of values that are not all strings is read as an integer; the values themselves are not checked",
            "note: schema.json (line 11): an `enum` of values that are not all strings is read as any JSON value; the values themselves are not checked",
        ]
    );
}

#[test]
fn rules_go_through_the_shared_checks() {
    use agentwire_codegen::rules::{MAX_LENGTH, MIN_ITEMS, MULTIPLE_OF};
    // Each rule keyword is read through the rule table: a list's own rules from the list, the
    // others from its items; `multipleOf` among them.
    let (types, notes) = load_noted(
        r#"{"$defs": {"A": {"type": "object", "properties": {
            "step": {"type": "number", "multipleOf": 0.5},
            "tags": {"type": "array", "minItems": 1, "items": {"type": "string", "maxLength": 3}},
            "name": {"type": "string", "multipleOf": 2}}}}}"#,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    let TypeKind::Struct(f) = &types["A"].kind else {
        panic!("{:?}", types["A"]);
    };
    let by = |n: &str| &f.iter().find(|f| f.name == n).unwrap().constraints;
    assert_eq!(by("step").number(&MULTIPLE_OF), Some(0.5));
    assert_eq!(by("tags").count(&MIN_ITEMS), Some(1));
    assert_eq!(by("tags").count(&MAX_LENGTH), Some(3));
    // A rule on a value it does not apply to constrains nothing in JSON Schema: the shared fit
    // check's wording, as a note, and the rule read as absent.
    assert!(by("name").is_empty());
    assert_eq!(
        notes,
        [
            "note: schema.json (line 4): `multipleOf` applies to numbers, and this field is not one; read as absent"
        ]
    );
    // A bad argument and a lower bound above its upper bound are errors, worded as every
    // front end words them.
    let e = load(r#"{"$defs": {"A": {"type": "number", "multipleOf": 0}}}"#).unwrap_err();
    assert!(
        e[0].contains("`multipleOf` needs a number above zero, found `0`"),
        "{e:?}"
    );
    let e = load(r#"{"$defs": {"A": {"type": "string", "minLength": 3, "maxLength": 2}}}"#)
        .unwrap_err();
    assert!(
        e[0].contains("`minLength: 3` is above `maxLength: 2`: no value passes"),
        "{e:?}"
    );
}

#[test]
fn a_cycle_of_types_held_by_value_is_cut_at_one_field() {
    // `{"$ref": "#"}` under an optional key, as every meta-schema writes it: `Option<Tree>`
    // inside `Tree` would have no size, so that field is any JSON value (a list is fine).
    let (types, notes) = load_noted(
        r##"{"type": "object", "properties": {
          "next": {"$ref": "#"},
          "children": {"type": "array", "items": {"$ref": "#"}},
          "pair": {"$ref": "#/$defs/Pair"}},
          "$defs": {"Pair": {"type": "object", "properties": {"left": {"$ref": "#"}}}}}"##,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    let list = Ty::Array(Box::new(named("Schema")));
    let schema = fields(&types, "Schema");
    let pair = fields(&types, "Pair");
    // One field of each cycle is cut, whichever the search meets first.
    let cut_next = schema[0].1 == Ty::Any;
    let cut_pair = schema[2].1 == Ty::Any || pair[0].1 == Ty::Any;
    assert!(cut_next && cut_pair, "{schema:?} {pair:?}");
    assert_eq!(schema[1].1, list);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].contains("by value in a cycle of types (no list or map between them); it is read as any JSON value"),
        "{notes:?}"
    );
}

/// The `subschema` rule of the named type: a struct's, a union's or an enum's own, or a
/// newtype's among its constraints.
fn value_subschema(
    types: &BTreeMap<String, TypeDef>,
    name: &str,
) -> agentwire_runtime::subschema::Schema {
    let rule = &agentwire_codegen::rules::SUBSCHEMA;
    let doc = match &types[name].kind {
        TypeKind::Alias { constraints, .. } => constraints.get(rule),
        _ => types[name].rules.get(rule),
    };
    let doc = doc
        .unwrap_or_else(|| panic!("{name} has no subschema"))
        .to_text();
    agentwire_runtime::subschema::Schema::parse(&doc).unwrap()
}

#[test]
fn conditions_on_lists_scalars_and_unions_are_their_types_rule() {
    use serde_json::json;
    let (types, notes) = load_noted(
        r##"{"$defs": {
  "Tags": {"type": "array", "items": {"type": "string"}, "contains": {"const": "main"}, "maxContains": 1},
  "Pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false},
  "Code": {"type": "string", "not": {"const": "reserved"}},
  "Even": {"type": "integer", "if": {"minimum": 100}, "then": {"multipleOf": 2}},
  "Shape": {"anyOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}], "not": {"required": ["legacy"]}},
  "Circle": {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
  "Square": {"type": "object", "properties": {"side": {"type": "number"}}, "required": ["side"]},
  "Doc": {"type": "object", "properties": {
    "tags": {"type": "array", "items": {"type": "string"}, "contains": {"const": "x"}},
    "code": {"$ref": "#/$defs/Code", "not": {"const": "zz"}}}},
  "Strict": {"type": "array", "prefixItems": [{"type": "string"}], "unevaluatedItems": false},
  "Tree": {"$dynamicAnchor": "node", "type": "object", "properties": {
    "kids": {"type": "array", "items": {"$dynamicRef": "#node"}}}}
}}"##,
    )
    .unwrap_or_else(|e| panic!("{e:#?}"));
    // Nothing is read as absent any more: each condition is a rule.
    assert!(notes.is_empty(), "{notes:#?}");
    let alias = |name: &str| match &types[name].kind {
        TypeKind::Alias { target, .. } => target.clone(),
        other => panic!("{name} is {other:?}"),
    };
    assert_eq!(alias("Tags"), Ty::Array(Box::new(Ty::String)));
    // A tuple: any values, each position checked by the rule.
    assert_eq!(alias("Pair"), Ty::Array(Box::new(Ty::Any)));
    assert_eq!(alias("Code"), Ty::String);
    assert!(matches!(types["Shape"].kind, TypeKind::Untagged(_)));
    // A property's inline list with a condition, and a `$ref` with one beside it, are types
    // of their own; a `$dynamicRef` is the schema holding its anchor.
    assert_eq!(
        fields(&types, "Doc"),
        [
            ("tags".into(), named("DocTags"), true),
            ("code".into(), named("DocCode"), true),
        ]
    );
    assert_eq!(alias("DocCode"), named("Code"));
    assert_eq!(
        fields(&types, "Tree"),
        [("kids".into(), Ty::Array(Box::new(named("Tree"))), true)]
    );
    let tags = value_subschema(&types, "Tags");
    assert!(broken(&tags, json!(["main", "b"])).is_empty());
    assert_eq!(
        broken(&tags, json!(["a"])),
        [("".into(), "contains".into())]
    );
    assert_eq!(
        broken(&tags, json!(["main", "main"])),
        [("".into(), "contains".into())]
    );
    let pair = value_subschema(&types, "Pair");
    assert!(broken(&pair, json!(["a", 1])).is_empty());
    assert_eq!(broken(&pair, json!([1, 1])), [("/0".into(), "type".into())]);
    assert_eq!(
        broken(&pair, json!(["a", 1, 2])),
        [("/2".into(), "false".into())]
    );
    let code = value_subschema(&types, "Code");
    assert_eq!(
        broken(&code, json!("reserved")),
        [("".into(), "not".into())]
    );
    let even = value_subschema(&types, "Even");
    assert!(broken(&even, json!(7)).is_empty());
    assert_eq!(
        broken(&even, json!(101)),
        [("".into(), "multiple_of".into())]
    );
    let shape = value_subschema(&types, "Shape");
    assert_eq!(
        broken(&shape, json!({"r": 1, "legacy": true})),
        [("".into(), "not".into())]
    );
    let doc_code = value_subschema(&types, "DocCode");
    assert_eq!(broken(&doc_code, json!("zz")), [("".into(), "not".into())]);
    let strict = value_subschema(&types, "Strict");
    assert!(broken(&strict, json!(["a"])).is_empty());
    assert_eq!(
        broken(&strict, json!(["a", "b"])),
        [("/1".into(), "unevaluated_items".into())]
    );
}
