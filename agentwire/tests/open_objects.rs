//! A JSON Schema spec through the derive: open objects keep their unknown members in order and
//! write them back, their typed members are validated, closed objects keep today's rule
//! (unknown members are skipped, not kept), and a tagged union's member decoded alone still
//! requires its tag.
#![deny(warnings)]

use agentwire::Protocol;
use agentwire::runtime::serde_json::{self, Value, json};
use agentwire::runtime::{Members, Rule};

#[derive(Protocol)]
#[protocol(spec = "tests/spec/open_schema")]
pub(crate) struct OpenSchema;

use open_schema::*;

/// decode -> encode gives back the same JSON value, and the message validates.
fn round_trip(text: &str) -> ClientMessage {
    let message = ClientMessage::from_json(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let back: Value = serde_json::from_str(&message.to_json()).unwrap();
    let sent: Value = serde_json::from_str(text).unwrap();
    assert_eq!(back, sent, "{text}");
    message
}

#[test]
fn instances_with_unknown_members_round_trip() {
    // The derive's anchor: nothing is implemented for it.
    let OpenSchema = OpenSchema;
    let instances = [
        // Nested open `_meta` with a typed member and extension members of every JSON type.
        r#"{"type":"call_tool","id":7,"params":{"name":"search","arguments":{"q":"x","n":2},
            "_meta":{"progressToken":"p-1","vendor.example/trace":{"span":[1,2]},"flag":true,"z":null}}}"#,
        // An open object's own unknown members (`params` is open), and a string id.
        r#"{"type":"call_tool","id":"a","params":{"name":"n","extension":{"deep":{"er":[{}]}}}}"#,
        // Open members of a tagged union's member (`Image`) and of an inline member.
        r#"{"type":"call_tool","id":1,"params":{"name":"n"},"content":[
            {"type":"text","text":"hi","_meta":{"k":"v"}},
            {"type":"image","data":"AA==","mimeType":"image/png","alt":"a cat","w":640}]}"#,
        // Typed extra members: each value is a `Score`.
        r#"{"type":"ping","scores":{"label":"l","math":90,"art":12},"note":null}"#,
        r#"{"type":"ping"}"#,
    ];
    for text in instances {
        round_trip(text);
    }
}

#[test]
fn unknown_members_keep_their_order_and_are_reachable() {
    let text = r#"{"type":"call_tool","id":7,"params":{"name":"s","_meta":{"z":1,"a":2,"progressToken":3,"m":4}}}"#;
    let ClientMessage::CallTool(call) = round_trip(text) else {
        panic!("not a call");
    };
    let meta = call.params.meta.clone().expect("_meta kept");
    assert_eq!(meta.progress_token, Some(RequestId::Integer(3)));
    let keys: Vec<&str> = meta.extra.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["z", "a", "m"]);
    assert_eq!(meta.extra.get("a"), Some(&json!(2)));
    // The text keeps the extra members in arrival order after the declared ones.
    let params = serde_json::to_string(&call.params).unwrap();
    assert!(
        params.contains(r#""_meta":{"progressToken":3,"z":1,"a":2,"m":4}"#),
        "{params}"
    );
    // Built in code, extra members go out too.
    let mut extra = Members::new();
    extra.insert("x-trace", json!("t"));
    let built = Meta {
        progress_token: None,
        extra,
    };
    assert_eq!(serde_json::to_string(&built).unwrap(), r#"{"x-trace":"t"}"#);
}

#[test]
fn typed_extra_members_are_checked() {
    let e = ClientMessage::from_json(r#"{"type":"ping","scores":{"label":"l","math":101}}"#)
        .unwrap_err();
    assert_eq!(e.errors[0].pointer, "/scores/math");
    assert!(matches!(e.errors[0].rule, Rule::Maximum(_)), "{e}");
    let e = ClientMessage::from_json(r#"{"type":"ping","scores":{"label":"l","math":"A"}}"#)
        .unwrap_err();
    assert_eq!(e.errors[0].pointer, "/scores/math");
    assert_eq!(e.errors[0].rule, Rule::Type);
}

#[test]
fn closed_objects_keep_todays_rule() {
    // `Ping` says `additionalProperties: false`; `CallTool` does not say: both closed, so an
    // unknown member is skipped on decode and not written back.
    for (text, expect) in [
        (r#"{"type":"ping","unknown":1}"#, json!({"type": "ping"})),
        (
            r#"{"type":"call_tool","id":1,"params":{"name":"n"},"stray":[1]}"#,
            json!({"type": "call_tool", "id": 1, "params": {"name": "n"}}),
        ),
    ] {
        let message = ClientMessage::from_json(text).unwrap();
        let back: Value = serde_json::from_str(&message.to_json()).unwrap();
        assert_eq!(back, expect);
    }
}

#[test]
fn a_union_member_decoded_alone_requires_its_tag() {
    let ok = decode_type(
        "Image",
        r#"{"type":"image","data":"AA==","mimeType":"m","x":1}"#,
    )
    .expect("Image is a type")
    .unwrap();
    assert_eq!(ok["type"], "image");
    assert_eq!(ok["x"], 1);
    let wrong = decode_type("Image", r#"{"type":"text","data":"AA==","mimeType":"m"}"#)
        .unwrap()
        .unwrap_err();
    assert_eq!(wrong.errors[0].pointer, "/type");
    let missing = decode_type("Image", r#"{"data":"AA==","mimeType":"m"}"#)
        .unwrap()
        .unwrap_err();
    assert_eq!(missing.errors[0].pointer, "/type");
    assert_eq!(missing.errors[0].rule, Rule::Required);
    // Through the union the tag is read once and the member written with it.
    let image: Image =
        serde_json::from_str(r#"{"type":"image","data":"AA==","mimeType":"m"}"#).unwrap();
    let content = serde_json::to_value(Content::Image(image)).unwrap();
    assert_eq!(content["type"], "image");
}

#[test]
fn the_schema_says_which_objects_are_open() {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    let defs = &schema["$defs"];
    assert_eq!(defs["Meta"]["additionalProperties"], json!({}));
    assert_eq!(
        defs["Scores"]["additionalProperties"],
        json!({"$ref": "#/$defs/Score"})
    );
    assert!(defs["Ping"].get("additionalProperties").is_none());
    assert_eq!(defs["Image"]["properties"]["type"]["const"], "image");
    assert!(
        defs["Image"]["required"]
            .as_array()
            .unwrap()
            .contains(&json!("type"))
    );
}
