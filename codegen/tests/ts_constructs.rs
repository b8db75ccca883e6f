//! TypeScript as protocol authors write it: each construct's JSON Schema (the form
//! ts-json-schema-generator gives) and its Rust form.

use std::path::Path;

use agentwire_codegen::generate;
use serde_json::Value;

const YAML: &str = "protocol: demo
title: Demo
summary: One message kind carrying the type under test.
transport: {kind: websocket, framing: json-text}
roles: [client, server]
types: messages.ts
channels:
  - {from: client, to: server, union: ClientMessage}
messages:
  - {kind: probe, from: client, type: Probe}
";

/// Generates a spec whose only message is `interface Probe { type: 'probe'; ... }` plus
/// `ts`; returns the module's Rust source and its JSON Schema definitions.
fn generate_ts(probe_fields: &str, ts: &str) -> Result<(String, Value), Vec<String>> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), YAML).unwrap();
    let text = format!(
        "type ClientMessage = Probe;\ninterface Probe {{\n  type: 'probe';\n{probe_fields}\n}}\n{ts}"
    );
    std::fs::write(dir.join("messages.ts"), text).unwrap();
    let g = generate(Path::new(&dir))
        .map_err(|e| e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>())?;
    let file = |p: &str| {
        g.files
            .iter()
            .find(|f| f.path == p)
            .unwrap()
            .render("a test spec")
    };
    let schema: Value = serde_json::from_str(&file("schemas/demo.schema.json")).unwrap();
    let defs = schema
        .get("definitions")
        .or_else(|| schema.get("$defs"))
        .cloned()
        .unwrap_or_else(|| panic!("no definitions in {schema}"));
    Ok((file("src/demo.rs"), defs))
}

fn ok(probe_fields: &str, ts: &str) -> (String, Value) {
    generate_ts(probe_fields, ts).unwrap_or_else(|e| panic!("{e:?}"))
}

fn keys(def: &Value) -> Vec<&str> {
    def["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("no properties in {def}"))
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn interfaces_extend_several_bases_with_overrides() {
    let (rust, defs) = ok(
        "  base: Child;",
        "interface Child extends Named, Timed {\n  /** The child's own, narrower name. */\n  name: 'child';\n  extra?: boolean;\n}\n\
         interface Named { name: string; note?: string }\n\
         interface Timed extends Stamp { at: string }\n\
         interface Stamp { seq: integer }\n",
    );
    let child = &defs["Child"];
    // Flattened, as ts-json-schema-generator writes an extending interface.
    assert_eq!(
        keys(child),
        ["at", "extra", "name", "note", "seq"],
        "{child}"
    );
    assert_eq!(
        child["required"],
        serde_json::json!(["name", "seq", "at"]),
        "{child}"
    );
    assert_eq!(
        child["properties"]["name"]["$ref"], "#/$defs/ChildName",
        "{child}"
    );
    assert_eq!(defs["ChildName"]["const"], "child");
    assert_eq!(child["properties"]["seq"]["type"], "integer", "{child}");
    // Bases first, in `extends` order, each override in its base's place.
    let start = rust.find("pub struct Child {").expect("struct Child");
    let at = |field: &str| rust[start..].find(&format!("pub {field}:")).expect(field);
    let order = ["name", "note", "seq", "at", "extra"].map(at);
    assert!(order.is_sorted(), "{order:?}\n{rust}");
    assert!(rust[start..].contains("pub name: ChildName"), "{rust}");
}

#[test]
fn an_inherited_literal_can_be_the_discriminator() {
    let (rust, defs) = ok(
        "  event: Event;",
        "type Event = Started | Stopped;\n\
         interface Tagged { kind: 'started' }\n\
         interface Started extends Tagged { at: string }\n\
         interface Stopped { kind: 'stopped' }\n",
    );
    assert!(
        defs["Event"].to_string().contains("started"),
        "{}",
        defs["Event"]
    );
    assert!(rust.contains("pub enum Event {"), "{rust}");
}

#[test]
fn bases_that_cannot_be_flattened_are_refused_with_what_to_write() {
    for (ts, want) in [
        (
            "interface Child extends Child { a: string }\n",
            "extends itself",
        ),
        (
            "interface Child extends Missing { a: string }\n",
            "unknown type `Missing`",
        ),
        (
            "type Alias = string;\ninterface Child extends Alias { a: string }\n",
            "only interfaces can be extended",
        ),
        (
            "interface G<T> { a: T }\ninterface Child extends G<string> { b: string }\n",
            "extend an interface that spells out its members",
        ),
    ] {
        let errors = generate_ts("  base: Child;", ts).expect_err(ts);
        assert!(errors.iter().any(|e| e.contains(want)), "{ts}: {errors:?}");
    }
}

#[test]
fn string_constants_and_typeof() {
    let (rust, defs) = ok(
        "  jsonrpc: typeof JSONRPC_VERSION;\n  version: Version;\n  event: Event;",
        "export const JSONRPC_VERSION = \"2.0\";\n\
         const LATEST = 'v2' as const;\n\
         type Version = typeof LATEST;\n\
         export const STARTED = 'started';\n\
         type Event = Started | Stopped;\n\
         interface Started { kind: typeof STARTED }\n\
         interface Stopped { kind: 'stopped' }\n",
    );
    // A const type, as ts-json-schema-generator writes `typeof` of a string constant.
    assert_eq!(
        defs["ProbeJsonrpc"],
        serde_json::json!({"type": "string", "const": "2.0"})
    );
    assert_eq!(
        defs["Version"],
        serde_json::json!({"type": "string", "const": "v2"})
    );
    assert!(
        defs["Event"].to_string().contains("\"started\""),
        "{}",
        defs["Event"]
    );
    assert!(rust.contains("pub jsonrpc: ProbeJsonrpc"), "{rust}");
    assert!(rust.contains("pub enum Event {"), "{rust}");
}

#[test]
fn constants_that_are_not_strings_are_refused_with_what_to_write() {
    for (ts, want) in [
        (
            "export const N = true;\n",
            "`N` is not a string or number constant",
        ),
        ("export let S = 'a';\n", "`let` and `var` are not read"),
        ("const { a } = { a: 'x' };\n", "destructuring is not read"),
        (
            "interface Other { v: typeof Missing }\n",
            "`Missing` is not a string constant of this file",
        ),
    ] {
        let errors = generate_ts("  x?: string;", ts).expect_err(ts);
        assert!(
            errors
                .iter()
                .any(|e| e.contains(want) && e.contains("write the literal type")),
            "{ts}: {errors:?}"
        );
    }
}

#[test]
fn object_is_any_json_object() {
    let (rust, defs) = ok("  meta: object;\n  data?: unknown;", "");
    let meta = &defs["Probe"]["properties"]["meta"];
    assert_eq!(meta["type"], "object", "{meta}");
    assert_eq!(defs["Probe"]["properties"]["data"], serde_json::json!({}));
    assert!(
        rust.contains(
            "pub meta: ::std::collections::BTreeMap<String, agentwire_runtime::serde_json::Value>"
        ),
        "{rust}"
    );
}

#[test]
fn integer_by_tag() {
    let (rust, defs) = ok(
        "  /** @TJS-type integer */\n  count: number;\n  /**\n   * Sizes.\n   * @asType integer\n   * @minimum 0\n   */\n  sizes?: number[] | null;\n  ratio: number;\n  total: Total;",
        "/** @TJS-type integer */\nexport type Total = number;\n",
    );
    let probe = &defs["Probe"]["properties"];
    assert_eq!(probe["count"], serde_json::json!({"type": "integer"}));
    assert_eq!(probe["ratio"], serde_json::json!({"type": "number"}));
    assert!(
        probe["sizes"].to_string().contains("\"integer\""),
        "{}",
        probe["sizes"]
    );
    assert_eq!(defs["Total"]["type"], "integer", "{}", defs["Total"]);
    assert!(rust.contains("pub count: i64"), "{rust}");
    assert!(
        rust.contains("pub sizes: Option<Option<Vec<i64>>>"),
        "{rust}"
    );
    assert!(rust.contains("pub type Total = i64;"), "{rust}");
}

#[test]
fn type_tags_that_cannot_apply_are_refused_with_what_to_write() {
    for (field, want) in [
        (
            "  /** @TJS-type integer */\n  name: string;",
            "needs a `number` type",
        ),
        (
            "  /** @TJS-type string */\n  name: number;",
            "only `@TJS-type integer` and `@TJS-type number` are; write the type itself",
        ),
    ] {
        let errors = generate_ts(field, "").expect_err(field);
        assert!(
            errors.iter().any(|e| e.contains(want)),
            "{field}: {errors:?}"
        );
    }
}

#[test]
fn unknown_formats_are_carried_into_the_schema_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), YAML).unwrap();
    std::fs::write(
        dir.join("messages.ts"),
        "type ClientMessage = Probe;\ninterface Probe {\n  type: 'probe';\n  /**\n   * Base64 bytes.\n   * @format byte\n   */\n  data: string;\n  /** @format uri */\n  link: string;\n  template: Template;\n}\n/** @format uri-template */\ntype Template = string;\n",
    )
    .unwrap();
    let g = generate(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let file = |p: &str| {
        g.files
            .iter()
            .find(|f| f.path == p)
            .unwrap()
            .render("a test spec")
    };
    let schema: Value = serde_json::from_str(&file("schemas/demo.schema.json")).unwrap();
    let defs = &schema["$defs"];
    assert_eq!(
        defs["Probe"]["properties"]["data"]["format"], "byte",
        "{schema}"
    );
    assert_eq!(
        defs["Probe"]["properties"]["data"]["description"],
        "Base64 bytes."
    );
    assert_eq!(defs["Template"]["format"], "uri-template", "{schema}");
    let rust = file("src/demo.rs");
    // Only the known format is checked.
    assert!(rust.contains("\"uri\", at, errors"), "{rust}");
    assert!(!rust.contains("\"byte\", at, errors"), "{rust}");
    assert!(!rust.contains("\"uri-template\", at, errors"), "{rust}");
    // ... and the schemars form still says it.
    assert!(rust.contains("extend(\"format\" = \"byte\")"), "{rust}");
    for place in [
        "Probe.data: format `byte`",
        "Template: format `uri-template`",
    ] {
        assert!(g.summary.contains(place), "{}", g.summary);
    }
    assert!(!g.summary.contains("Probe.link"), "{}", g.summary);
}

#[test]
fn a_shared_constant_is_not_picked_as_the_discriminator() {
    let (rust, defs) = ok(
        "  call: Call;",
        "export const V = '2.0';\n\
         interface Envelope { jsonrpc: typeof V }\n\
         type Call = Ask | Tell;\n\
         interface Ask extends Envelope { kind: 'ask' }\n\
         interface Tell { jsonrpc: typeof V; kind: 'tell' }\n\
         type Single = Only;\n\
         interface Only extends Envelope { method: 'only' }\n",
    );
    assert!(rust.contains("pub enum Call {"), "{rust}");
    let call = defs["Call"].to_string();
    assert!(call.contains("\"propertyName\":\"kind\""), "{call}");
    let single = defs["Single"].to_string();
    assert!(single.contains("\"propertyName\":\"method\""), "{single}");
}

#[test]
fn constructs_not_supported_yet_say_what_to_write() {
    for (field, want) in [
        (
            "  id: number | integer;",
            "cannot be told apart on the wire",
        ),
        ("  n: 1;", "write `number` (or `integer`)"),
        (
            "  t: [string, number];",
            "write an interface with named fields",
        ),
    ] {
        let errors = generate_ts(field, "").expect_err(field);
        assert!(
            errors.iter().any(|e| e.contains(want)),
            "{field}: {errors:?}"
        );
    }
}

#[test]
fn unions_of_primitives_are_untagged() {
    let (rust, defs) = ok(
        "  id: RequestId;\n  alt?: string | number | boolean | null;",
        "/** A request id. */\nexport type RequestId = string | integer;\n",
    );
    // ts-json-schema-generator's form: a list of types.
    assert_eq!(
        defs["RequestId"]["type"],
        serde_json::json!(["string", "integer"])
    );
    assert_eq!(
        defs["ProbeAlt"]["type"],
        serde_json::json!(["string", "number", "boolean"])
    );
    assert!(
        defs["Probe"]["properties"]["alt"]
            .to_string()
            .contains("null")
    );
    assert!(rust.contains("#[serde(untagged)]"), "{rust}");
    assert!(rust.contains("pub enum RequestId {"), "{rust}");
    assert!(rust.contains("String(String)"), "{rust}");
    assert!(rust.contains("Integer(i64)"), "{rust}");
    assert!(rust.contains("pub alt: Option<Option<ProbeAlt>>"), "{rust}");
}

#[test]
fn literals_plus_string_are_an_open_enum() {
    let (rust, defs) = ok(
        "  level: 'debug' | 'info' | string;\n  stop?: StopReason | null;",
        "/** Why sampling stopped. */\ntype StopReason = 'endTurn' | 'maxTokens' | string;\n",
    );
    assert_eq!(
        defs["StopReason"],
        serde_json::json!({"description": "Why sampling stopped.", "anyOf": [{"$ref": "#/$defs/StopReasonKnown"}, {"type": "string"}]})
    );
    assert_eq!(
        defs["StopReasonKnown"]["enum"],
        serde_json::json!(["endTurn", "maxTokens"])
    );
    assert_eq!(
        defs["ProbeLevelKnown"]["enum"],
        serde_json::json!(["debug", "info"])
    );
    assert!(rust.contains("pub enum StopReason {"), "{rust}");
    assert!(rust.contains("Known(StopReasonKnown)"), "{rust}");
    assert!(rust.contains("pub level: ProbeLevel,"), "{rust}");
}

#[test]
fn a_member_can_belong_to_several_tagged_unions() {
    let (rust, defs) = ok(
        "  content: ContentBlock;\n  sampling: SamplingContent;",
        "type ContentBlock = TextContent | ImageContent | AudioContent;\n\
         type SamplingContent = TextContent | ImageContent;\n\
         interface TextContent { type: 'text'; text: string }\n\
         interface ImageContent { type: 'image'; data: string }\n\
         interface AudioContent { type: 'audio'; data: string }\n",
    );
    for union in ["ContentBlock", "SamplingContent"] {
        let def = defs[union].to_string();
        assert!(def.contains("\"propertyName\":\"type\""), "{union}: {def}");
        assert!(
            def.contains("\"text\"") && def.contains("\"image\""),
            "{union}: {def}"
        );
        assert!(rust.contains(&format!("pub enum {union} {{")), "{rust}");
    }
}
