//! Every protocol's generated sequence checker fed decoded messages: each input line is a
//! trace entry `{"from": ROLE, "message": ...}`; whatever decodes is observed, in order, then
//! the checker is finished. Violations are answers; a panic is a bug.
#![no_main]

use agentwire_protocols::{agentloop, coven, eca, external_agents, helix_zed};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

macro_rules! drive {
    ($module:ident, $entries:expr) => {{
        let mut checker = $module::machine::Checker::new();
        for entry in $entries {
            let from = entry.get("from").and_then(Value::as_str).unwrap_or("");
            if let Some(Ok(msg)) = $module::machine::Recorded::decode(from, entry) {
                let _ = checker.observe(msg.as_message());
            }
        }
        let _ = checker.finish();
    }};
}

fuzz_target!(|text: &str| {
    let entries: Vec<Value> = text
        .lines()
        .take(64)
        .filter_map(|l| agentwire_runtime::json::unique::parse_value(l).ok())
        .collect();
    drive!(helix_zed, &entries);
    drive!(agentloop, &entries);
    drive!(external_agents, &entries);
    drive!(eca, &entries);
    drive!(coven, &entries);
});
