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
        ("  n: 1n;", "or `number` (or `integer`)"),
        (
            "  t: [string, number];",
            "write an interface with named fields",
        ),
        (
            "  j: string & { c: string };",
            "an intersection may join only interfaces, `Omit<...>` of one and object literals; write an interface that extends them",
        ),
        (
            "  k: Pick<Probe, \"type\">;",
            "unsupported generic type `Pick<...>`",
        ),
    ] {
        let errors = generate_ts(field, "interface Other { o: string }").expect_err(field);
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

/// The protocol `generate_ts` builds, loaded: for what the emitted files do not show yet.
fn loaded(probe_fields: &str, ts: &str) -> agentwire_codegen::generate::Generated {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), YAML).unwrap();
    let text = format!(
        "type ClientMessage = Probe;\ninterface Probe {{\n  type: 'probe';\n{probe_fields}\n}}\n{ts}"
    );
    std::fs::write(dir.join("messages.ts"), text).unwrap();
    generate(Path::new(&dir)).unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    })
}

#[test]
fn index_signatures_beside_properties_are_open_objects() {
    use agentwire_codegen::ir::Ty;
    let g = loaded(
        "  meta: Meta;\n  result: Res;\n  labels: Labels;",
        "interface Meta { progressToken?: string; [key: string]: unknown }\n\
         interface Res extends Meta { total: integer }\n\
         interface Labels { name: string; [key: string]: string }\n\
         interface Lone { [key: string]: number }\n",
    );
    let types = &g.spec.protocol.types;
    assert_eq!(types["Meta"].open, Some(Ty::Any));
    // An index signature is inherited, as in TypeScript.
    assert_eq!(types["Res"].open, Some(Ty::Any));
    assert_eq!(types["Labels"].open, Some(Ty::String));
    assert_eq!(types["Lone"].open, Some(Ty::Number));
    assert_eq!(types["Probe"].open, None);
    let agentwire_codegen::ir::TypeKind::Struct(fields) = &types["Res"].kind else {
        panic!("Res is not a struct");
    };
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["progressToken", "total"]);
}

#[test]
fn omit_and_intersections_read_as_extending() {
    let (rust, defs) = ok(
        "  failure: UrlFailure;\n  both: Both;\n  inline: Base & { extra: string };",
        "interface Failure { jsonrpc: string; id: string; error: Problem }\n\
         interface Problem { code: integer; message: string }\n\
         interface UrlFailure extends Omit<Failure, \"error\" | \"id\"> {\n\
           error: Problem & { data: { url: string } };\n\
         }\n\
         interface Base { a: string }\n\
         interface Other { b?: number; a: string }\n\
         type Both = Base & Other & { c: boolean };\n",
    );
    assert_eq!(keys(&defs["UrlFailure"]), ["error", "jsonrpc"]);
    assert_eq!(keys(&defs["UrlFailureError"]), ["code", "data", "message"]);
    assert_eq!(keys(&defs["Both"]), ["a", "b", "c"]);
    assert_eq!(keys(&defs["ProbeInline"]), ["a", "extra"]);
    assert!(rust.contains("pub struct Both {"), "{rust}");
    assert!(rust.contains("pub struct UrlFailureErrorData {"), "{rust}");
}

#[test]
fn numeric_constants_and_typeof() {
    let (_, defs) = ok(
        "  code: typeof URL_REQUIRED;\n  ratio: typeof HALF;",
        "export declare const URL_REQUIRED = -32042;\nexport const HALF = 0.5;\n",
    );
    let props = &defs["Probe"]["properties"];
    assert_eq!(props["code"]["type"], "integer", "{props}");
    assert_eq!(props["ratio"]["type"], "number", "{props}");
}

#[test]
fn unions_without_a_shared_literal_are_untagged() {
    let (rust, defs) = ok(
        "  read: ReadResult;\n  content: Block | Block[];\n  either: { a: string } | { b: number };\n  \
         tagged: { kind: 'x'; a: string } | { kind: 'y' };\n  value: string | number | boolean | string[];",
        "interface ReadResult { contents: (TextContents | BlobContents)[] }\n\
         interface Contents { uri: string; mimeType?: string }\n\
         interface TextContents extends Contents { text: string }\n\
         interface BlobContents extends Contents { blob: string }\n\
         interface Block { type: 'text'; text: string }\n\
         type Loose = Opt | TextContents;\n\
         interface Opt { note?: string }\n",
    );
    assert!(rust.contains("pub enum ReadResultContentsItem {"), "{rust}");
    // The member with the most required fields is tried first.
    let loose = rust.split("pub enum Loose {").nth(1).unwrap();
    let (text, opt) = (
        loose.find("TextContents(").unwrap(),
        loose.find("Opt(").unwrap(),
    );
    assert!(text < opt, "{loose}");
    assert!(rust.contains("BlockList(Vec<Block>)"), "{rust}");
    let item = defs["ReadResultContentsItem"].to_string();
    assert!(
        item.contains("anyOf") && item.contains("TextContents"),
        "{item}"
    );
    assert!(defs["ProbeEither"].to_string().contains("anyOf"));
    // Inline objects that share a literal are still a tagged union.
    let tagged = defs["ProbeTagged"].to_string();
    assert!(tagged.contains("\"propertyName\":\"kind\""), "{tagged}");
    let value = defs["ProbeValue"].to_string();
    assert!(value.contains("\"array\""), "{value}");
}

#[test]
fn a_misspelt_tag_is_refused_at_its_line_with_a_suggestion() {
    let errors = generate_ts(
        "  /**\n   * A count.\n   * @minimun 1\n   */\n  n: number;",
        "",
    )
    .expect_err("misspelt tag");
    let hit = errors
        .iter()
        .find(|e| e.contains("unknown constraint tag `@minimun`"))
        .unwrap_or_else(|| panic!("{errors:?}"));
    assert!(hit.contains("messages.ts:6:6:"), "{hit}");
    assert!(hit.ends_with("(hint: did you mean `@minimum`?)"), "{hit}");
    // Tags that document are never taken for a misspelt rule.
    ok(
        "  /**\n   * @deprecated use m\n   * @category a\n   * @example 1\n   */\n  n: number;",
        "",
    );
}

#[test]
fn deprecated_is_kept_in_the_docs_without_an_attribute() {
    let (rust, defs) = ok(
        "  /**\n   * The old name.\n   * @deprecated use `label`\n   */\n  name?: string;",
        "",
    );
    let description = defs["Probe"]["properties"]["name"]["description"].to_string();
    assert!(
        description.contains("Deprecated: use `label`"),
        "{description}"
    );
    assert!(rust.contains("Deprecated: use `label`"), "{rust}");
    assert!(!rust.contains("#[deprecated"), "{rust}");
}

#[test]
fn number_literals_beside_number_are_a_number() {
    let (rust, defs) = ok(
        "  code: ErrorCode;\n  other?: -1 | 0 | number;",
        "export type ErrorCode = -32700 | -32600 | number;\n",
    );
    assert_eq!(defs["ErrorCode"]["type"], "number");
    assert_eq!(defs["Probe"]["properties"]["other"]["type"], "number");
    assert!(rust.contains("pub type ErrorCode = f64;"), "{rust}");
}

#[test]
fn an_intersection_with_a_union_is_the_union_of_the_intersections() {
    let (rust, defs) = ok(
        "  scoped: Scoped;",
        "interface BySession { sessionId: string }\n\
         interface ByRequest { requestId: string }\n\
         type Scoped = ((BySession & { mode: 'form' }) | (ByRequest & { mode: 'url' })) & { message: string };\n",
    );
    // `mode` is the union's tag: each member's definition requires its own value.
    assert_eq!(keys(&defs["Scoped1"]), ["message", "mode", "sessionId"]);
    assert_eq!(keys(&defs["Scoped2"]), ["message", "mode", "requestId"]);
    assert_eq!(defs["Scoped1"]["properties"]["mode"]["const"], "form");
    assert_eq!(defs["Scoped2"]["properties"]["mode"]["const"], "url");
    let scoped = defs["Scoped"].to_string();
    assert!(scoped.contains("\"propertyName\":\"mode\""), "{scoped}");
    assert!(rust.contains("pub enum Scoped {"), "{rust}");
}

#[test]
fn the_eca_vscode_shapes_generate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ts_shapes/eca_shapes");
    let g = generate(&dir).unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    });
    let rust = g
        .files
        .iter()
        .find(|f| f.path == "src/eca_shapes.rs")
        .unwrap()
        .render("a test spec");
    for item in [
        "pub enum Progress {",
        "pub enum Reference {",
        "pub enum Outcome {",
        "pub enum ToolsChanged {",
        "pub struct StartParamsFeaturesEditingLint {",
    ] {
        assert!(rust.contains(item), "{item}");
    }
    // The inline objects of `Progress` share `type`: a tagged union.
    let tagged = g.spec.protocol.types["Progress"].kind.clone();
    assert!(
        matches!(tagged, agentwire_codegen::ir::TypeKind::Union { ref tag, .. } if tag == "type"),
        "{tagged:?}"
    );
}

/// Functions and classes, as generated `.d.ts` files mix them with their types, declare no
/// wire type: they are left out with a note each (file:line:col), not refused; a type that
/// names one is still an unknown type.
#[test]
fn functions_and_classes_are_left_out_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), YAML).unwrap();
    let ts = "type ClientMessage = Probe;\ninterface Probe {\n  type: 'probe';\n  size: number;\n}\n\
              export declare function probeOf(json: string): Probe;\n\
              declare class Codec {\n  encode(p: Probe): string;\n}\n\
              export declare class Client { send(p: Probe): void; }\n";
    std::fs::write(dir.join("messages.ts"), ts).unwrap();
    let g = generate(&dir).unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    });
    let notes: Vec<&str> = g.summary.lines().filter(|l| l.contains("note:")).collect();
    for (what, line) in [
        ("function `probeOf`", 6),
        ("class `Codec`", 7),
        ("class `Client`", 10),
    ] {
        assert!(
            notes.iter().any(|n| n.contains(what)
                && n.contains(&format!("messages.ts:{line}:"))
                && n.contains("declares no wire type")),
            "{what}: {notes:?}"
        );
    }
    let rust = g.files.iter().find(|f| f.path == "src/demo.rs").unwrap();
    let rust = rust.render("a test spec");
    assert!(
        !rust.contains("Codec") && !rust.contains("probe_of"),
        "{rust}"
    );
    let named = generate_ts("  codec: Codec;", "declare class Codec { x: string; }\n").unwrap_err();
    assert!(
        named.iter().any(|e| e.contains("unknown type `Codec`")),
        "{named:?}"
    );
}
