//! Union semantics checked against a reference validator (the `jsonschema` crate) on the
//! unchanged source schema: a catch-all member (`not` of the named members' tag values, as
//! ACP admits future and extension kinds) takes only what no named member takes, so a known
//! tag with a broken body is refused, as the schema refuses it, instead of falling through.

use agentwire_test_protocols::catchall;
use serde_json::{Value, json};

fn reference(type_name: &str) -> jsonschema::Validator {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocols/catchall/schema.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": doc["$defs"],
        "$ref": format!("#/$defs/{type_name}"),
    });
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .unwrap()
}

#[test]
fn a_catch_all_member_takes_only_what_no_named_member_takes() {
    let block = reference("Block");
    let valid = [
        json!({"type": "text", "text": "hi"}),
        json!({"type": "picture", "data": "AAAA", "mimeType": "image/png"}),
        json!({"type": "audio", "data": "AAAA", "seconds": 3}),
        json!({"type": "_vendor.x", "anything": {"at": ["all"]}}),
    ];
    let invalid = [
        json!({"type": "text"}),
        json!({"type": "text", "text": ""}),
        json!({"type": "text", "text": 7}),
        json!({"type": "picture", "data": "AAAA"}),
        json!({"type": 3}),
        json!({"text": "no tag"}),
        json!("text"),
    ];
    for value in valid.iter().chain(&invalid) {
        let ours = catchall::decode_type("Block", &value.to_string()).unwrap();
        assert_eq!(
            ours.is_ok(),
            block.is_valid(value),
            "{value}: agentwire says {ours:?}"
        );
        if let Ok(back) = ours {
            assert_eq!(&back, value, "a lossy round trip");
        }
    }
    // The refusal names the tag and the rule.
    let broken = catchall::decode_type("Block", r#"{"type": "picture", "data": "AAAA"}"#)
        .unwrap()
        .unwrap_err();
    assert!(
        broken
            .errors
            .iter()
            .any(|e| e.pointer == "/type" && e.rule.name() == "not"),
        "{broken}"
    );
    // Inside a list too, at the element's pointer.
    let note = catchall::decode_type(
        "Note",
        r#"{"blocks": [{"type": "text", "text": "a"}, {"type": "text"}]}"#,
    )
    .unwrap()
    .unwrap_err();
    assert!(
        note.errors.iter().any(|e| e.pointer == "/blocks/1/type"),
        "{note}"
    );
    let schema: Value = serde_json::from_str(catchall::SCHEMA).unwrap();
    assert_eq!(
        schema["$defs"]["BlockOther"]["properties"]["type"]["not"],
        json!({"enum": ["text", "picture"]})
    );
}
