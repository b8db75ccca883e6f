//! Instances of MCP's shapes, written for this test (none copied from MCP's repository),
//! through the module generated from MCP's schema as its SDK ships it (`spec/mcp`): each
//! decodes, validates and re-encodes to an equal JSON value. The shapes are those MCP's
//! published examples use: open `_meta` with extension members, tagged and untagged unions,
//! `string | number` ids kept apart, open enums, and the tag of a union member decoded alone.
//! Also the rule for members a type does not declare (spec/README.md, "Open and closed
//! objects"): kept where the schema declares extension members, dropped elsewhere.

use agentwire_protocols::mcp::v2025_11_25::{
    self as mcp, CallToolRequestParams, ProgressToken, RequestId,
};
use serde_json::{Value, json};

/// decode -> validate -> encode of `value` as the type `name` gives `value` back.
fn round_trip(name: &str, value: Value) {
    let back = mcp::decode_type(name, &value.to_string())
        .unwrap_or_else(|| panic!("no type `{name}`"))
        .unwrap_or_else(|e| panic!("{name}: {value}: {e}"));
    assert_eq!(back, value, "{name}");
}

#[test]
fn open_meta_keeps_its_typed_and_extension_members() {
    let params = json!({
        "name": "search",
        "arguments": {"query": "rust", "limit": 5},
        "_meta": {
            "progressToken": "job-17",
            "io.example/trace": {"span": [1, 2, 3], "sampled": true},
            "note": null
        }
    });
    round_trip("CallToolRequestParams", params.clone());
    // A handler sees the token, typed, and the extension members in the order they came.
    let typed: CallToolRequestParams = serde_json::from_value(params).unwrap();
    let meta = typed.meta.expect("_meta");
    assert_eq!(
        meta.progress_token,
        Some(ProgressToken::String("job-17".into()))
    );
    let keys: Vec<&str> = meta.extra.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["io.example/trace", "note"]);
    // `_meta` on a result is a map of anything.
    round_trip(
        "CallToolResult",
        json!({"content": [], "_meta": {"io.example/cost": {"tokens": 12}}}),
    );
}

#[test]
fn ids_of_both_json_types_stay_apart() {
    for id in [json!(2), json!("2"), json!(-7), json!("req-a")] {
        round_trip(
            "JSONRPCRequest",
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
        );
    }
    let number: RequestId = serde_json::from_value(json!(2)).unwrap();
    let string: RequestId = serde_json::from_value(json!("2")).unwrap();
    assert_ne!(number, string);
    assert_eq!(serde_json::to_value(&number).unwrap(), json!(2));
    assert_eq!(serde_json::to_value(&string).unwrap(), json!("2"));
    round_trip(
        "ProgressNotificationParams",
        json!({"progressToken": 99, "progress": 0.5, "total": 1}),
    );
}

#[test]
fn unions_tagged_and_untagged_round_trip() {
    round_trip(
        "CallToolResult",
        json!({
            "content": [
                {"type": "text", "text": "found 2", "annotations": {"audience": ["user"], "priority": 0.5}},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///tmp/a.txt", "name": "a.txt"},
                {"type": "resource", "resource": {"uri": "file:///tmp/b.bin", "blob": "AAE=", "mimeType": "application/octet-stream"}},
                {"type": "resource", "resource": {"uri": "file:///tmp/c.txt", "text": "hello"}}
            ],
            "structuredContent": {"count": 2, "items": ["a", "b"]},
            "isError": false
        }),
    );
    // An open enum: a known stop reason and one MCP does not list.
    for reason in ["endTurn", "maxTokens", "io.example/budget"] {
        round_trip(
            "CreateMessageResult",
            json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m-1", "stopReason": reason}),
        );
    }
    // Untagged members: an enum schema is not read as a plain string schema.
    round_trip(
        "ElicitRequestFormParams",
        json!({
            "mode": "form",
            "message": "Pick one",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "colour": {"type": "string", "enum": ["red", "green"]},
                    "name": {"type": "string", "minLength": 1},
                    "age": {"type": "integer", "minimum": 0},
                    "agree": {"type": "boolean", "default": false}
                },
                "required": ["colour"]
            }
        }),
    );
}

#[test]
fn a_union_member_decoded_alone_requires_its_tag() {
    round_trip("TextContent", json!({"type": "text", "text": "hi"}));
    for (value, rule) in [
        (json!({"type": "image", "text": "hi"}), "/type"),
        (json!({"text": "hi"}), "/type"),
    ] {
        let e = mcp::decode_type("TextContent", &value.to_string())
            .unwrap()
            .unwrap_err();
        assert_eq!(e.errors[0].pointer, rule, "{value}: {e}");
    }
}

#[test]
fn members_a_type_does_not_declare_are_dropped_unless_it_declares_extension_members() {
    // `Tool` declares no extension members: an unknown one is accepted and not written back.
    let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "io.example/x": 1});
    let back = mcp::decode_type("Tool", &tool.to_string())
        .unwrap()
        .unwrap();
    assert_eq!(
        back,
        json!({"name": "t", "inputSchema": {"type": "object"}})
    );
    // `Result` declares them (`[key: string]: unknown`), and so does everything extending it.
    round_trip(
        "ListToolsResult",
        json!({"tools": [], "nextCursor": "c2", "io.example/page": {"of": 3}}),
    );
}
