//! The generated code's surface on the built-in protocols: structs built from their required
//! fields alone, a decode that reports every error of a message, and a message from the wrong
//! side named as such. Exact texts.

use agentwire_protocols::mcp::v2025_11_25 as mcp;
use agentwire_protocols::{agentloop as al, coven, eca, helix_zed};

#[test]
fn a_struct_is_built_from_its_required_fields_only() {
    // `type: 'message'` is a lone literal: filled in, not a parameter.
    let item = al::ResponseInputItem::new(
        al::MessageRole::User,
        vec![al::ContentItem::new(al::ContentItemType::InputText, "hi")],
    );
    let payload = al::UserInputMessagePayload::new(vec![item]);
    let msg = al::ClientMessage::UserInput(al::UserInputMessage::new("1", payload.clone()));
    assert_eq!(
        msg.to_json(),
        r#"{"type":"user_input","id":"1","payload":{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}}"#
    );
    assert_eq!(al::ClientMessage::from_json(&msg.to_json()), Ok(msg));
    // Optional fields are set by chained setters.
    let payload = payload.with_previous_response_id(String::from("r-7"));
    assert_eq!(payload.previous_response_id.as_deref(), Some("r-7"));
    let answer = al::ApprovalResponseMessagePayload::new(al::ReviewDecision::Yes)
        .with_explanation("fine")
        .with_custom_deny_message(None);
    assert_eq!(
        serde_json::to_string(&answer).unwrap(),
        r#"{"review":"yes","customDenyMessage":null,"explanation":"fine"}"#
    );
}

#[test]
fn a_struct_without_required_fields_has_default() {
    let caps = mcp::ClientCapabilities::default();
    assert_eq!(serde_json::to_string(&caps).unwrap(), "{}");
    // A lone `jsonrpc: "2.0"` needs no value from the caller either.
    let note = mcp::InitializedNotification::default();
    assert_eq!(
        serde_json::to_string(&note).unwrap(),
        r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#
    );
    let info = mcp::Implementation::new("agentwire", "1.0").with_title("A.W.");
    assert_eq!(
        serde_json::to_string(&info).unwrap(),
        r#"{"name":"agentwire","title":"A.W.","version":"1.0"}"#
    );
}

/// A `chat_message` with three faults: an empty session id (a constraint), a number where the
/// text goes (a type) and no request id (a required field).
const THREE_FAULTS: &str =
    r#"{"type":"chat_message","data":{"helix_session_id":"","acp_thread_id":null,"message":7}}"#;

#[test]
fn decoding_reports_every_error_of_a_message() {
    let e = helix_zed::decode_message("helix", THREE_FAULTS)
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            "/data/message: invalid type: integer `7`, expected a string [type]",
            "/data/request_id: missing field `request_id` [required]",
            "/data/helix_session_id: length 0 is below the minimum 1 [min_length 1]",
        ]
    );
    // The typed decoder and decode_type say the same.
    let typed = helix_zed::HelixMessage::from_json(THREE_FAULTS).unwrap_err();
    assert_eq!(typed, e);
    let by_type = helix_zed::decode_type("ChatMessage", THREE_FAULTS)
        .unwrap()
        .unwrap_err();
    assert_eq!(by_type, e);
}

#[test]
fn a_protobuf_message_reports_every_error_unknown_members_too() {
    let json = r#"{"register":{"agent_id":"","name":5,"colour":"red"}}"#;
    let e = coven::decode_message("agent", json).unwrap().unwrap_err();
    assert_eq!(
        e.to_string(),
        "/register/name: invalid type: integer `5`, expected a string [type]; \
         /register/colour: unknown field `colour`, expected one of `agent_id`, `agentId`, \
         `name`, `capabilities`, `metadata`, `protocol_features`, `protocolFeatures` \
         [unknown_kind]; \
         /register/agent_id: length 0 is below the minimum 1 [min_length 1]"
    );
}

#[test]
fn json_rpc_params_report_every_error() {
    let json = r#"{"jsonrpc":"2.0","id":1,"method":"chat/prompt","params":{"chatId":5,"requestId":"r","model":7}}"#;
    let e = eca::decode_message("client", json).unwrap().unwrap_err();
    assert_eq!(
        e.to_string(),
        "/params/chatId: invalid type: integer `5`, expected a string [type]; \
         /params/model: invalid type: integer `7`, expected a string [type]; \
         /params/message: missing field `message` [required]"
    );
}

#[test]
fn a_message_from_the_other_side_is_named_as_such() {
    let finished = r#"{"id":"1","type":"agent_finished","payload":{"responseId":"r"}}"#;
    let e = al::decode_message("client", finished).unwrap().unwrap_err();
    assert_eq!(
        e.to_string(),
        "/type: `agent_finished` is sent by the server, not the client [wrong_side]"
    );
    // JSON-RPC: a method only the server sends.
    let note = r#"{"jsonrpc":"2.0","method":"chat/contentReceived","params":{"chatId":"c","role":"assistant","content":{"type":"text","text":"hi"}}}"#;
    let e = eca::decode_message("client", note).unwrap().unwrap_err();
    assert_eq!(
        e.to_string(),
        "/method: `chat/contentReceived` is sent by the server, not the client [wrong_side]"
    );
    // protobuf: the oneof case names the kind.
    let e = coven::decode_message("gateway", r#"{"heartbeat":{}}"#)
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "/heartbeat: `heartbeat` is sent by the agent, not the gateway [wrong_side]"
    );
    // A kind nobody sends stays unknown.
    let nobody = r#"{"id":"1","type":"nobody_sends_this","payload":{}}"#;
    let e = al::decode_message("client", nobody).unwrap().unwrap_err();
    assert_eq!(e.errors[0].rule.name(), "unknown_kind");
}
