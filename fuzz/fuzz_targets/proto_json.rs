//! coven's proto3 JSON (pbjson) on arbitrary text: never a panic, and an accepted message
//! prints to JSON that reads back as the same message.
#![no_main]

use agentwire_protocols::coven::{AgentMessage, ServerMessage};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(m) = AgentMessage::from_json(text) {
        let again = AgentMessage::from_json(&m.to_json()).expect("printed form reads back");
        assert_eq!(m, again);
    }
    if let Ok(m) = ServerMessage::from_json(text) {
        let again = ServerMessage::from_json(&m.to_json()).expect("printed form reads back");
        assert_eq!(m, again);
    }
});
