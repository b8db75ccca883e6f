//! The TypeScript constructs real schemas use (interfaces extending several bases with
//! overrides, string constants and `typeof`, `object`, `unknown`, integer tags, formats the
//! validators do not know) generate a module that compiles warning-free and round-trips.
#![deny(warnings)]

use agentwire::Protocol;
use agentwire::runtime::serde_json::{Value, from_str};

#[derive(Protocol)]
#[protocol(spec = "spec/ts_constructs")]
pub(crate) struct TsConstructs;

fn main() {
    let json = r#"{"type":"call","jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"b":1,"a":[true]}},"_meta":{"progressToken":1},"sizes":[1,2],"template":"/a/{b}","data":"AAEC","extra":null}"#;
    let call = ts_constructs::ClientMessage::from_json(json).unwrap();
    let ts_constructs::ClientMessage::Call(c) = &call;
    assert_eq!(c.id, 7_i64);
    assert_eq!(c.sizes, vec![1_i64, 2]);
    assert_eq!(c.params.name, "echo");
    let back: Value = from_str(&call.to_json()).unwrap();
    assert_eq!(back, from_str::<Value>(json).unwrap());
    // The constant is the only value `typeof` allows, and `integer` refuses a fraction.
    assert!(ts_constructs::ClientMessage::from_json(&json.replace("\"2.0\"", "\"1.0\"")).is_err());
    assert!(ts_constructs::ClientMessage::from_json(&json.replace("\"id\":7", "\"id\":7.5")).is_err());
    assert!(ts_constructs::SCHEMA.contains("uri-template"));
    // `2` and `"2"` stay apart, and a whole number is written back without `.0`.
    for (token, alt) in [("2", "3"), ("\"2\"", "3.5"), ("2", "true"), ("\"x\"", "null")] {
        let text = json.replace(r#""extra":null"#, &format!(r#""progressToken":{token},"alt":{alt}"#));
        let decoded = ts_constructs::ClientMessage::from_json(&text).unwrap();
        let ts_constructs::ClientMessage::Call(c) = &decoded;
        let is_number = matches!(c.progress_token, Some(ts_constructs::ProgressToken::Integer(2)));
        assert_eq!(is_number, token == "2", "{text}");
        let back: Value = from_str(&decoded.to_json()).unwrap();
        assert_eq!(back, from_str::<Value>(&text).unwrap(), "{text}");
    }
    // An open enum names the known values and keeps any other string.
    for (reason, known) in [("endTurn", true), ("toolUse", false)] {
        let text = json.replace(r#""extra":null"#, &format!(r#""stopReason":"{reason}""#));
        let decoded = ts_constructs::ClientMessage::from_json(&text).unwrap();
        let ts_constructs::ClientMessage::Call(c) = &decoded;
        let named = matches!(
            c.stop_reason,
            Some(ts_constructs::CallStopReason::Known(ts_constructs::CallStopReasonKnown::EndTurn))
        );
        assert_eq!(named, known, "{text}");
        let back: Value = from_str(&decoded.to_json()).unwrap();
        assert_eq!(back, from_str::<Value>(&text).unwrap(), "{text}");
    }
    let bad = json.replace(r#""extra":null"#, r#""progressToken":2.5"#);
    assert!(ts_constructs::ClientMessage::from_json(&bad).is_err());
    // The override makes `params` required.
    let without = json.replace(r#""params":{"name":"echo","arguments":{"b":1,"a":[true]}},"#, "");
    assert!(ts_constructs::ClientMessage::from_json(&without).is_err());
}
