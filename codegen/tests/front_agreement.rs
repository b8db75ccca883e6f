//! The TypeScript and JSON Schema front ends read one protocol the same way: each pair below
//! declares the same types in both formats and must lower to the same IR (documentation and
//! origins aside). Also the exact wording of every TypeScript refusal, each of which says what
//! to write instead.

use std::collections::BTreeMap;
use std::sync::Arc;

use agentwire_codegen::diag::SourceFile;
use agentwire_codegen::emit::types::own_tag;
use agentwire_codegen::front::{jsonschema, ts};
use agentwire_codegen::ir::{Ty, TypeDef, TypeKind};

fn source(name: &str, text: &str) -> SourceFile {
    SourceFile {
        path: name.into(),
        text: Arc::from(text),
    }
}

/// The IR without what only says where and why: docs and origins.
fn bare(mut types: BTreeMap<String, TypeDef>) -> BTreeMap<String, TypeDef> {
    for def in types.values_mut() {
        def.doc.clear();
        def.origin = Default::default();
        match &mut def.kind {
            TypeKind::Struct(fields) => {
                for f in fields {
                    f.doc.clear();
                    f.origin = Default::default();
                }
            }
            TypeKind::Union { variants, .. } => {
                for v in variants {
                    v.origin = Default::default();
                }
            }
            _ => {}
        }
    }
    types
}

fn from_ts(text: &str) -> BTreeMap<String, TypeDef> {
    let file = source("messages.ts", text);
    bare(ts::load_types(&file, "messages.ts").unwrap_or_else(|e| panic!("{e:?}")))
}

fn from_json(text: &str) -> BTreeMap<String, TypeDef> {
    let file = source("schema.json", text);
    bare(jsonschema::load_types(&file, "schema.json").unwrap_or_else(|e| panic!("{e:?}")))
}

/// The named (not inline) types of both sides are the same IR.
fn agree(ts_text: &str, json_text: &str, names: &[&str]) -> BTreeMap<String, TypeDef> {
    let (a, b) = (from_ts(ts_text), from_json(json_text));
    for name in names {
        assert_eq!(
            (name, a.get(*name).map(|d| (&d.kind, &d.open))),
            (name, b.get(*name).map(|d| (&d.kind, &d.open))),
            "TypeScript left, JSON Schema right"
        );
    }
    a
}

#[test]
fn objects_are_open_only_where_extension_members_are_declared() {
    let types = agree(
        "interface Closed { a: string }\n\
         interface Open { a: string; [key: string]: unknown }\n\
         interface Typed { a: string; [key: string]: number }\n\
         interface Meta { _meta?: { [key: string]: unknown } }\n",
        r##"{"$defs": {
            "Closed": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            "Open": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                     "additionalProperties": true},
            "Typed": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                      "additionalProperties": {"type": "number"}},
            "Meta": {"type": "object", "properties": {"_meta": {"type": "object", "additionalProperties": {}}}}
        }}"##,
        &["Closed", "Open", "Typed", "Meta"],
    );
    assert_eq!(types["Closed"].open, None);
    // A base that is a map alias gives its index signature (MCP's `RequestMetaObject extends
    // MetaObject`, `type MetaObject = Record<string, unknown>`).
    let inherited = agree(
        "type MetaObject = Record<string, unknown>;\n\
         interface RequestMeta extends MetaObject { progressToken?: string }\n",
        r##"{"$defs": {
            "MetaObject": {"type": "object", "additionalProperties": {}},
            "RequestMeta": {"type": "object", "properties": {"progressToken": {"type": "string"}},
                            "additionalProperties": {}}
        }}"##,
        &["MetaObject", "RequestMeta"],
    );
    assert_eq!(inherited["RequestMeta"].open, Some(Ty::Any));
    assert_eq!(types["Open"].open, Some(Ty::Any));
    assert_eq!(types["Typed"].open, Some(Ty::Number));
    // `additionalProperties: false` and `unevaluatedProperties: true` say it outright.
    let json = from_json(
        r##"{"$defs": {
            "Shut": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false},
            "Wide": {"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": true}
        }}"##,
    );
    assert_eq!(json["Shut"].open, None);
    assert_eq!(json["Wide"].open, Some(Ty::Any));
}

#[test]
fn a_tag_beside_a_named_type_moves_to_the_union_in_both() {
    agree(
        "type Text = { text: string };\n\
         type Image = { data: string };\n\
         type Block = (Text & { type: \"text\" }) | (Image & { type: \"image\" }) | { type: \"empty\" };\n\
         type Update = (Text & { kind: \"user\" }) | (Text & { kind: \"agent\" });\n",
        r##"{"$defs": {
            "Text": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            "Image": {"type": "object", "properties": {"data": {"type": "string"}}, "required": ["data"]},
            "Block": {"anyOf": [
                {"type": "object", "properties": {"type": {"const": "text"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/Text"}]},
                {"type": "object", "properties": {"type": {"const": "image"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/Image"}]},
                {"type": "object", "properties": {"type": {"const": "empty"}}, "required": ["type"]}
            ]},
            "Update": {"oneOf": [
                {"properties": {"kind": {"const": "user"}}, "required": ["kind"], "allOf": [{"$ref": "#/$defs/Text"}]},
                {"properties": {"kind": {"const": "agent"}}, "required": ["kind"], "allOf": [{"$ref": "#/$defs/Text"}]}
            ]}
        }}"##,
        &["Text", "Image"],
    );
    for types in [
        from_ts(
            "type Text = { text: string };\ntype Image = { data: string };\n\
             type Block = (Text & { type: \"text\" }) | (Image & { type: \"image\" });\n",
        ),
        from_json(
            r##"{"$defs": {
                "Text": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                "Image": {"type": "object", "properties": {"data": {"type": "string"}}, "required": ["data"]},
                "Block": {"anyOf": [
                    {"properties": {"type": {"const": "text"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/Text"}]},
                    {"properties": {"type": {"const": "image"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/Image"}]}
                ]}
            }}"##,
        ),
    ] {
        let TypeKind::Union { tag, variants } = &types["Block"].kind else {
            panic!("{:?}", types["Block"]);
        };
        assert_eq!(tag, "type");
        let members: Vec<(&str, &str)> = variants
            .iter()
            .map(|v| (v.value.as_str(), v.type_name.as_str()))
            .collect();
        assert_eq!(members, [("text", "Text"), ("image", "Image")]);
        // Neither definition declares `type`: decoded alone, each has no tag to require, as a
        // validator of the definition alone accepts it without one.
        assert!(variants.iter().all(|v| v.beside), "{variants:?}");
        for name in ["Text", "Image"] {
            assert_eq!(own_tag(&types, name), None, "{name}");
        }
    }
    // A definition that declares the tag itself keeps it when decoded alone.
    let types = from_json(
        r##"{"$defs": {
            "Text": {"type": "object", "properties": {"type": {"const": "text"}, "text": {"type": "string"}}, "required": ["type", "text"]},
            "Image": {"type": "object", "properties": {"type": {"const": "image"}, "data": {"type": "string"}}, "required": ["type", "data"]},
            "Block": {"oneOf": [{"$ref": "#/$defs/Text"}, {"$ref": "#/$defs/Image"}]}
        }}"##,
    );
    assert_eq!(
        own_tag(&types, "Text"),
        Some(("type".to_owned(), "text".to_owned()))
    );
}

#[test]
fn untagged_members_are_tried_most_demanding_first_in_both() {
    // The loose member is written first; both front ends try the stricter one first.
    agree(
        "interface Loose { a?: string; b?: string }\n\
         interface Strict { a: string; c: string }\n\
         type Either = Loose | Strict;\n\
         type Id = string | number;\n\
         type Level = \"low\" | \"high\" | string;\n",
        r##"{"$defs": {
            "Loose": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
            "Strict": {"type": "object", "properties": {"a": {"type": "string"}, "c": {"type": "string"}}, "required": ["a", "c"]},
            "Either": {"anyOf": [{"$ref": "#/$defs/Loose"}, {"$ref": "#/$defs/Strict"}]},
            "Id": {"type": ["string", "number"]},
            "Level": {"anyOf": [{"const": "low"}, {"const": "high"}, {"type": "string"}]}
        }}"##,
        &["Loose", "Strict", "Either", "Id", "Level", "LevelKnown"],
    );
    let types = from_json(
        r##"{"$defs": {
            "Loose": {"type": "object", "properties": {"a": {"type": "string"}}},
            "Strict": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            "Either": {"anyOf": [{"$ref": "#/$defs/Loose"}, {"$ref": "#/$defs/Strict"}]}
        }}"##,
    );
    assert_eq!(
        types["Either"].kind,
        TypeKind::Untagged(vec![Ty::Named("Strict".into()), Ty::Named("Loose".into())])
    );
}

#[test]
fn an_intersection_with_an_alias_of_a_union_distributes_in_both() {
    let types = agree(
        "type Session = { sessionId: string };\n\
         type Request = { requestId: string };\n\
         type Form = (Session | Request) & { schema: string };\n\
         type Ask = ((Form & { mode: \"form\" }) | ((Session | Request) & { mode: string; [key: string]: unknown })) & { message: string };\n",
        r##"{"$defs": {
            "Session": {"type": "object", "properties": {"sessionId": {"type": "string"}}, "required": ["sessionId"]},
            "Request": {"type": "object", "properties": {"requestId": {"type": "string"}}, "required": ["requestId"]},
            "Form": {"type": "object", "properties": {"schema": {"type": "string"}}, "required": ["schema"],
                     "anyOf": [{"allOf": [{"$ref": "#/$defs/Session"}]}, {"allOf": [{"$ref": "#/$defs/Request"}]}]},
            "Ask": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"],
                    "anyOf": [
                        {"properties": {"mode": {"const": "form"}}, "required": ["mode"], "allOf": [{"$ref": "#/$defs/Form"}]},
                        {"properties": {"mode": {"type": "string"}}, "required": ["mode"],
                         "anyOf": [{"allOf": [{"$ref": "#/$defs/Session"}]}, {"allOf": [{"$ref": "#/$defs/Request"}]}],
                         "unevaluatedProperties": true,
                         "not": {"anyOf": [{"properties": {"mode": {"const": "form"}}, "required": ["mode"]}]}}
                    ]}
        }}"##,
        &["Session", "Request"],
    );
    // `Form` is the union of `Form1` (Session's members, then `schema`) and `Form2`; `Ask`
    // of the form modes over both scopes and the catch-all over both scopes.
    let TypeKind::Untagged(form) = &types["Form"].kind else {
        panic!("{:?}", types["Form"]);
    };
    assert_eq!(form.len(), 2);
    let TypeKind::Struct(fields) = &types[form[0].named().unwrap()].kind else {
        panic!("Form1");
    };
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["sessionId", "schema"]);
    let TypeKind::Untagged(ask) = &types["Ask"].kind else {
        panic!("{:?}", types["Ask"]);
    };
    assert_eq!(ask.len(), 2);
}

/// Each refused construct and the exact diagnostic, which says what to write instead.
#[test]
fn every_refusal_says_what_to_write_instead() {
    let cases: &[(&str, &str)] = &[
        (
            "type P = [string, number];",
            "tuple types are not supported; write an interface with named fields, or `T[]`",
        ),
        (
            "interface Q { b: string }\ninterface P { a: [Q] }",
            "tuple types are not supported; write `T[]` (with a `Spec note:` if the source document writes a tuple)",
        ),
        (
            "interface P { a: 3n }",
            "only string, number and boolean literal types are supported; write a string literal, or `number` (or `integer`) with `@minimum`/`@maximum`",
        ),
        (
            "enum P { A = \"a\", B = 2 }",
            "enum `P` mixes string and number members, which no single JSON type holds; give every member a string value or every member a number",
        ),
        (
            "interface P { a: never }",
            "`a: never` can hold no value, so no object has it; write `a?: never` for a member that must be absent, or leave it out",
        ),
        (
            "type P = number | integer;",
            "a union of primitives of one JSON type (`number | integer`, `string | string`) cannot be told apart on the wire; write one of them",
        ),
        (
            "interface A { a: string }\ntype P = A & string;",
            "an intersection may join only interfaces, `Omit<...>` of one and object literals; write an interface that extends them",
        ),
        (
            "type S = string;\ntype P = S & { a: string };",
            "`S` is not an interface; only interfaces can be extended: extend the interface it names, or write its members out",
        ),
        (
            "interface P<T> { a: T }",
            "generic interfaces are not supported; declare one interface per instantiation",
        ),
        (
            "type P<T> = { a: T };",
            "generic type aliases are not supported; declare one alias per instantiation",
        ),
        (
            "interface G<T> { a: T }\ninterface P extends G<string> { b: string }",
            "extending a generic type is not supported (only `Omit<Interface, \"key\" | ...>` is read); extend an interface that spells out its members",
        ),
        (
            "interface P { a: Pick<Q, 'x'> }\ninterface Q { x: string }",
            "unsupported generic type `Pick<...>`; write `T[]`, `Array<T>`, `Record<string, T>` (or `Omit<Interface, \"key\">` as a base), or declare the instantiation as an interface",
        ),
        ("interface P { a: ns.Q }", "unknown type `ns.Q`"),
        (
            "interface P extends ns.Q { a: string }",
            "unknown type `ns.Q`",
        ),
        (
            "declare module \"pkg\" { interface P { a: string } }",
            "`declare module \"name\"` describes a package's module, which is not read; declare its types at the top level or in a `namespace`",
        ),
        (
            "interface P { a: () => void }",
            "unsupported TypeScript type; write it with interfaces, type aliases, primitives, string literals, `T[]` or `{ [key: string]: T }`",
        ),
        (
            "interface P { a: { [key: number]: string } }",
            "index signatures must have string keys (`[key: string]: T`): JSON object keys are strings",
        ),
        (
            "interface P { a: string; [key: number]: string }",
            "index signatures must have string keys (`[key: string]: T`): JSON object keys are strings",
        ),
        (
            "interface P { a: string; [k: string]: string; [j: string]: number }",
            "an object has at most one index signature; write one whose value type is the union of theirs",
        ),
        (
            "interface P { run(): void }",
            "only plain properties are supported in an interface; leave methods and call signatures out of the message types",
        ),
        (
            "interface P { [\"a\" + \"b\"]: string }",
            "computed property names are not supported; write the key as a name or a string literal",
        ),
        ("interface P { a }", "field `a` has no type; write `a: T`"),
        (
            "interface A { t: 'x'; k: 'a' }\ninterface B { t: 'x'; k: 'b' }\ninterface C { t: 'z'; k: 'a' }\ntype P = A | B;\ntype Q = A | C;",
            "`A` is in unions with different discriminators (`k`, `t`); declare a second interface extending it for the second union",
        ),
    ];
    for (text, want) in cases {
        let file = source("messages.ts", text);
        let errors = ts::load_types(&file, "messages.ts").expect_err(text);
        let messages: Vec<&str> = errors.errors.iter().map(|e| e.message.as_str()).collect();
        assert!(
            messages.contains(want),
            "{text}:\n  got {messages:?}\n  want {want}"
        );
    }
}

#[test]
fn inline_union_members_are_named_alike_in_both() {
    // After the tag value a member fixes, else its position (`naming::inline_type_name`).
    agree(
        "type Text = { text: string };\n\
         type Block = (Text & { type: \"text\" }) | { type: \"empty\" } | { type: \"note\"; note: string };\n\
         type Loose = { a: string } | { b: number };\n",
        r##"{"$defs": {
            "Text": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            "Block": {"anyOf": [
                {"type": "object", "properties": {"type": {"const": "text"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/Text"}]},
                {"type": "object", "properties": {"type": {"const": "empty"}}, "required": ["type"]},
                {"type": "object", "properties": {"type": {"const": "note"}, "note": {"type": "string"}}, "required": ["type", "note"]}
            ]},
            "Loose": {"anyOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {"type": "number"}}, "required": ["b"]}
            ]}
        }}"##,
        &[
            "Block",
            "BlockEmpty",
            "BlockNote",
            "Loose",
            "Loose1",
            "Loose2",
        ],
    );
}
