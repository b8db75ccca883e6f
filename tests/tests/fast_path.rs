//! `decode_json` reads with agentwire's own JSON reader first and asks serde_json only when it
//! refuses. This holds the reader to serde_json on the generated types: on every fixture,
//! valid or broken, and on mutated messages, both accept with the same value or both refuse.

use std::fmt::Debug;
use std::sync::LazyLock;

use agentwire_protocols::{agentloop, eca, external_agents, helix_zed};
use agentwire_tests::fixtures;
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Decodes `text` both ways; returns whether it was accepted.
fn agree<T: DeserializeOwned + PartialEq + Debug>(text: &str) -> bool {
    let reference = serde_json::from_str::<T>(text);
    let fast = agentwire_runtime::json::from_str::<T>(text);
    let name = std::any::type_name::<T>();
    match (reference, fast) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "{name}: different values for {text}");
            true
        }
        (Err(e), Ok(v)) => panic!("{name}: accepted {text} as {v:?}; serde_json refuses: {e}"),
        // Correct either way (serde_json decides), but the fast path is what the benchmark
        // measures, so it must not hand well-formed messages back.
        (Ok(_), Err(e)) => panic!("{name}: fast path refused {text} ({e}); serde_json accepts"),
        (Err(_), Err(_)) => false,
    }
}

/// Runs every generated message and payload type over `text`; returns how many accepted it.
fn agree_on_every_type(text: &str) -> usize {
    let results = [
        agree::<helix_zed::HelixMessage>(text),
        agree::<helix_zed::ZedEvent>(text),
        agree::<agentloop::ClientMessage>(text),
        agree::<agentloop::ServerMessage>(text),
        agree::<agentloop::ResponseItem>(text),
        agree::<external_agents::WebUiMessage>(text),
        agree::<external_agents::AgentServerMessage>(text),
        agree::<external_agents::AgentConfig>(text),
        agree::<external_agents::CreateSessionRequest>(text),
        agree::<external_agents::ExternalInputPayload>(text),
        agree::<external_agents::ApiErrorResponse>(text),
        agree::<eca::InitializeParams>(text),
        agree::<eca::InitializeResponse>(text),
        agree::<eca::ChatPromptParams>(text),
        agree::<eca::ChatContentReceivedParams>(text),
        agree::<eca::ChatQueryContextResponse>(text),
        agree::<eca::ToolServerUpdatedParams>(text),
        agree::<Value>(text),
    ];
    results.into_iter().filter(|&ok| ok).count()
}

/// The JSON text of every fixture (valid and broken) of the JSON protocols, read once.
fn fixture_texts() -> &'static [String] {
    static TEXTS: LazyLock<Vec<String>> = LazyLock::new(read_fixture_texts);
    &TEXTS
}

fn read_fixture_texts() -> Vec<String> {
    let mut texts = Vec::new();
    for module in ["helix_zed", "agentloop", "external_agents", "eca"] {
        for kind in ["valid", "invalid"] {
            for (_, fixture) in fixtures::load(module, kind) {
                let Some(text) = fixtures::input_text(&fixture) else {
                    continue;
                };
                // Also as a producer that pretty-prints would send it.
                if let Ok(value) = serde_json::from_str::<Value>(&text) {
                    texts.push(serde_json::to_string_pretty(&value).unwrap());
                }
                texts.push(text);
            }
        }
    }
    texts
}

#[test]
fn every_fixture_decodes_alike_both_ways() {
    let texts = fixture_texts();
    assert!(texts.len() > 300, "only {} fixture texts", texts.len());
    let accepted: usize = texts.iter().map(|t| agree_on_every_type(t)).sum();
    eprintln!("{} texts, {accepted} acceptances", texts.len());
    // Every text is at least JSON (`Value`), and the valid fixtures are typed messages too:
    // the comparison must have exercised the typed decoders, not only refusals.
    assert!(
        accepted > texts.len() + 150,
        "{accepted} acceptances over {} texts",
        texts.len()
    );
}

/// What a mutation splices in: JSON punctuation, escapes, literals, numbers at the edges of
/// the integer types, and bytes a string must not hold raw.
const TOKENS: &[&str] = &[
    "\"",
    "\\",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    " ",
    "\n",
    "0",
    "-",
    ".",
    "e",
    "null",
    "true",
    "false",
    "-0",
    "1e400",
    "18446744073709551616",
    "-9223372036854775809",
    "2.5",
    "\\/",
    "\\u00e9",
    "\\ud83d",
    "\\ude00",
    "\\ud83d\\ude00",
    "\\x",
    "\u{1}",
    "\u{1f}",
    "é",
    "[1,]",
    "{}",
    "[]",
    "\"\"",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, .. ProptestConfig::default() })]

    #[test]
    fn mutated_fixtures_decode_alike_both_ways(
        pick in any::<prop::sample::Index>(),
        edits in proptest::collection::vec(
            (any::<prop::sample::Index>(), prop::sample::select(TOKENS), 0u8..3),
            1..4,
        ),
    ) {
        let mut text = pick.get(fixture_texts()).clone();
        for (at, token, op) in edits {
            // Edit on a character boundary so the result stays a `&str`.
            let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            let Some(&i) = boundaries.get(at.index(boundaries.len().max(1))) else {
                text.push_str(token);
                continue;
            };
            match op {
                0 => {
                    text.remove(i);
                    text.insert_str(i, token);
                }
                1 => {
                    text.remove(i);
                }
                _ => text.insert_str(i, token),
            }
        }
        agree_on_every_type(&text);
    }
}
