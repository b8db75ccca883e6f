//! The published JSON Schemas: each is a valid draft 2020-12 schema that accepts every valid
//! fixture and rejects every invalid one, and the schema schemars derives from the Rust types
//! (feature `schemars`) agrees with it on every fixture.

use agentwire_runtime::registry::{Framing, Protocol};
use serde_json::{Value, json};

/// Every built-in protocol that publishes a JSON Schema, with its schema text.
fn modules() -> impl Iterator<Item = (&'static dyn Protocol, &'static str)> {
    agentwire_protocols::protocols()
        .iter()
        .filter_map(|p| Some((*p, p.schema()?)))
}

fn compile(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("schema does not compile: {e}"))
}

/// The published schema narrowed to one of its definitions.
fn published_for(doc: &Value, type_name: &str) -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": doc["$defs"],
        "$ref": format!("#/$defs/{type_name}"),
    })
}

/// The type a fixture is an instance of: its `type`, or the union of its sender's channel.
/// JSON-RPC envelopes and non-JSON input are outside the schemas.
fn fixture_type(doc: &Value, fixture: &Value) -> Option<String> {
    if fixture.get("raw").is_some() || fixture.get("response_to").is_some() {
        return None;
    }
    if let Some(t) = fixture.get("type").and_then(Value::as_str) {
        return Some(t.to_owned());
    }
    let from = fixture.get("from")?.as_str()?;
    let channels = doc["x-channels"].as_object()?;
    let (_, channel) = channels
        .iter()
        .find(|(k, _)| k.starts_with(&format!("{from}_to_")))?;
    channel["$ref"]
        .as_str()?
        .strip_prefix("#/$defs/")
        .map(str::to_owned)
}

/// The registry entry and schema a fixture is checked with: those of the version it names
/// (`"version"`), else the protocol's own.
fn of_version<'a>(
    p: &'static dyn Protocol,
    doc: &'a Value,
    fixture: &Value,
) -> (&'static dyn Protocol, std::borrow::Cow<'a, Value>) {
    if fixture.get("version").is_none() {
        return (p, std::borrow::Cow::Borrowed(doc));
    }
    let v = agentwire_tests::fixtures::protocol_of(p, fixture);
    let text = v
        .schema()
        .unwrap_or_else(|| panic!("{}: no schema", v.name()));
    (
        v,
        std::borrow::Cow::Owned(serde_json::from_str(text).unwrap()),
    )
}

fn instance(fixture: &Value) -> &Value {
    fixture
        .get("message")
        .or_else(|| fixture.get("value"))
        .unwrap()
}

/// Rules a JSON Schema cannot see: a key given twice collapses when the JSON is parsed.
fn schema_can_express(fixture: &Value) -> bool {
    fixture["errors"]
        .as_array()
        .is_none_or(|errs| errs.iter().all(|e| e["rule"] != "duplicate"))
}

/// The fixtures of one kind, named by file name.
fn fixtures(module: &str, kind: &str) -> Vec<(String, Value)> {
    agentwire_tests::fixtures::load(module, kind)
        .into_iter()
        .map(|(p, v)| (p.file_name().unwrap().to_string_lossy().into_owned(), v))
        .collect()
}

/// Tools reach every module through the registry: each entry, protobuf or JSON, hands out its
/// schema and decodes a value of each of its object types by type name.
#[test]
fn every_registry_entry_offers_schema_and_decode_type() {
    for p in agentwire_protocols::protocols() {
        let text = p
            .schema()
            .unwrap_or_else(|| panic!("{}: no schema", p.name()));
        let doc: Value = serde_json::from_str(text).unwrap();
        let defs = doc["$defs"].as_object().expect("a schema with $defs");
        let objects = defs.iter().filter(|(_, d)| d["type"] == "object");
        for (ty, _) in objects {
            assert!(
                p.decode_type(ty, "{}").is_some(),
                "{}: decode_type does not know `{ty}`",
                p.name()
            );
        }
    }
}

#[test]
fn published_schemas_are_valid_and_match_the_fixtures() {
    let meta = compile(&json!({"$ref": "https://json-schema.org/draft/2020-12/schema"}));
    let mut failures = Vec::new();
    let mut checked = 0;
    for (p, text) in modules() {
        let module = p.name();
        let doc: Value = serde_json::from_str(text).unwrap();
        assert!(
            meta.is_valid(&doc),
            "{module}: not a valid draft 2020-12 schema"
        );
        for (kind, expect_valid) in [("valid", true), ("invalid", false)] {
            for (name, fixture) in fixtures(module, kind) {
                let (_, doc) = of_version(p, &doc, &fixture);
                let Some(ty) = fixture_type(&doc, &fixture) else {
                    continue;
                };
                if !expect_valid && !schema_can_express(&fixture) {
                    continue;
                }
                checked += 1;
                let ok = compile(&published_for(&doc, &ty)).is_valid(instance(&fixture));
                if ok != expect_valid {
                    failures.push(format!("{module}/{kind}/{name}: schema says valid={ok}"));
                }
            }
        }
    }
    assert!(checked > 300, "too few fixtures checked: {checked}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn schemars_schemas_agree_with_the_published_ones() {
    let mut disagreements = Vec::new();
    let mut checked = 0;
    // prost's message types derive no `JsonSchema`: protobuf modules offer no schemars schema.
    for (p, text) in modules().filter(|(p, _)| p.framing() != Framing::Grpc) {
        let module = p.name();
        let doc: Value = serde_json::from_str(text).unwrap();
        for kind in ["valid", "invalid"] {
            for (name, fixture) in fixtures(module, kind) {
                let (p, doc) = of_version(p, &doc, &fixture);
                let Some(ty) = fixture_type(&doc, &fixture) else {
                    continue;
                };
                if kind == "invalid" && !schema_can_express(&fixture) {
                    continue;
                }
                let derived = p
                    .schemars_schema(&ty)
                    .unwrap_or_else(|| panic!("{module}: no Rust type `{ty}`"));
                let derived = compile(&serde_json::to_value(&derived).unwrap());
                let published = compile(&published_for(&doc, &ty));
                checked += 1;
                let (a, b) = (
                    published.is_valid(instance(&fixture)),
                    derived.is_valid(instance(&fixture)),
                );
                if a != b {
                    disagreements.push(format!(
                        "{module}/{kind}/{name} ({ty}): published valid={a}, schemars valid={b}"
                    ));
                }
            }
        }
    }
    assert!(checked > 300, "too few fixtures checked: {checked}");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
