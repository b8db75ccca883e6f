//! Every protocol's decoders on arbitrary text: `decode_message` for each sender, the typed
//! `from_json` of each union, eca's typed responses and coven's proto JSON. Any answer is
//! fine but a panic; an accepted message must encode and decode again to the same value.
#![no_main]

use agentwire_protocols::{agentloop, coven, eca, external_agents, helix_zed};
use libfuzzer_sys::fuzz_target;

type DecodeMessage =
    fn(&str, &str) -> Option<Result<serde_json::Value, agentwire_runtime::Invalid>>;

const MODULES: [(DecodeMessage, &[&str]); 4] = [
    (helix_zed::decode_message, &["helix", "zed"]),
    (agentloop::decode_message, &["client", "server"]),
    (external_agents::decode_message, &["web_ui", "agent_server"]),
    (eca::decode_message, &["client", "server"]),
];

fuzz_target!(|text: &str| {
    for (decode, roles) in MODULES {
        for role in roles {
            if let Some(Ok(value)) = decode(role, text) {
                // What was accepted re-encodes to a message that is accepted again, unchanged.
                let again = decode(role, &value.to_string())
                    .expect("role known")
                    .expect("a re-encoded message decodes");
                assert_eq!(value, again);
            }
        }
    }
    let _ = helix_zed::HelixMessage::from_json(text);
    let _ = agentloop::ServerMessage::from_json(text);
    let _ = agentloop::ClientMessage::from_json(text);
    for method in [
        "initialize",
        "chat/prompt",
        "chat/queryContext",
        "chat/delete",
    ] {
        let _ = eca::decode_response(method, text);
    }
    let _ = coven::AgentMessage::from_json(text);
    let _ = coven::ServerMessage::from_json(text);
});
