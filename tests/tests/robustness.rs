//! Bad input never panics: arbitrary text and valid messages with bytes flipped, cut or
//! spliced come back as `Ok` or a typed error, for every protocol and sender.

use agentwire_protocols::{agentloop, coven, eca, external_agents, helix_zed};
use proptest::prelude::*;

/// Every (module, role) decoder; each returns whether the input was accepted.
fn decode_all(text: &str) -> usize {
    let mut accepted = 0;
    for (decode, roles) in [
        (
            helix_zed::decode_message as fn(&str, &str) -> _,
            &["helix", "zed"][..],
        ),
        (agentloop::decode_message, &["client", "server"][..]),
        (
            external_agents::decode_message,
            &["web_ui", "agent_server"][..],
        ),
        (eca::decode_message, &["client", "server"][..]),
    ] {
        for role in roles {
            if let Some(Ok(_)) = decode(role, text) {
                accepted += 1;
            }
        }
    }
    accepted += usize::from(coven::AgentMessage::from_json(text).is_ok());
    accepted += usize::from(coven::ServerMessage::from_json(text).is_ok());
    if let Some(Ok(_)) = eca::decode_response("initialize", text) {
        accepted += 1;
    }
    accepted
}

const SEEDS: &[&str] = &[
    r#"{"type":"chat_message","data":{"helix_session_id":"s","acp_thread_id":null,"message":"hi","request_id":"r"}}"#,
    r#"{"id":"1","type":"response_item","payload":{"id":"x","type":"message","role":"assistant","content":[{"type":"input_text","text":"é\n"}]}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"chat/prompt","params":{"requestId":"r","message":"m","contexts":[{"type":"file","path":"/a"}]}}"#,
    r#"{"register":{"agent_id":"a","name":"n","protocol_features":["injection"]}}"#,
    r#"{"type":"hello","sessionId":"EXTERNAL-123"}"#,
];

#[test]
fn the_seeds_are_accepted() {
    for seed in SEEDS {
        assert!(decode_all(seed) >= 1, "seed rejected everywhere: {seed}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        decode_all(&text);
    }

    #[test]
    fn mutated_messages_never_panic(
        seed in 0..SEEDS.len(),
        at in 0usize..400,
        byte in any::<u8>(),
        cut in 0usize..400,
    ) {
        let mut bytes = SEEDS[seed].as_bytes().to_vec();
        let at = at % bytes.len();
        bytes[at] = byte;
        bytes.truncate(bytes.len() - cut % bytes.len());
        let text = String::from_utf8_lossy(&bytes);
        decode_all(&text);
    }

    #[test]
    fn deeply_nested_input_is_refused_not_overflowed(depth in 100usize..2000) {
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        prop_assert_eq!(decode_all(&text), 0);
    }
}
