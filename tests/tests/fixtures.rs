//! Fixture-driven tests: every example of the five protocols decodes, validates and re-encodes
//! to the same JSON value, and every broken example gets exactly the errors it lists.

use agentwire_protocols::{agentloop, coven, eca, external_agents, helix_zed};
use agentwire_runtime::Invalid;
use agentwire_tests::fixtures::{self, input_text};
use serde_json::Value;

const MODULES: &[&str] = &["helix_zed", "agentloop", "external_agents", "eca", "coven"];

/// Decodes the fixture's input the way its keys say, returning the re-encoded value.
fn decode(module: &str, fixture: &Value) -> Result<Value, Invalid> {
    let text = input_text(fixture)
        .unwrap_or_else(|| panic!("fixture has none of raw/message/value: {fixture}"));
    let field = |k: &str| fixture.get(k).and_then(Value::as_str);
    let decoded = if let Some(type_name) = field("type") {
        match module {
            "helix_zed" => helix_zed::decode_type(type_name, &text),
            "agentloop" => agentloop::decode_type(type_name, &text),
            "external_agents" => external_agents::decode_type(type_name, &text),
            "eca" => eca::decode_type(type_name, &text),
            _ => None,
        }
    } else if let Some(method) = field("response_to") {
        eca::decode_response(method, &text)
    } else {
        let from = field("from").expect("fixture names `from` or `type`");
        match module {
            "helix_zed" => helix_zed::decode_message(from, &text),
            "agentloop" => agentloop::decode_message(from, &text),
            "external_agents" => external_agents::decode_message(from, &text),
            "eca" => eca::decode_message(from, &text),
            "coven" => match from {
                "agent" => {
                    Some(coven::AgentMessage::from_json(&text).map(|m| reparse(&m.to_json())))
                }
                "gateway" => {
                    Some(coven::ServerMessage::from_json(&text).map(|m| reparse(&m.to_json())))
                }
                _ => None,
            },
            _ => None,
        }
    };
    decoded.unwrap_or_else(|| panic!("{module}: fixture names an unknown type or role: {fixture}"))
}

fn reparse(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn input_value(fixture: &Value) -> Value {
    fixture
        .get("message")
        .or_else(|| fixture.get("value"))
        .cloned()
        .expect("valid fixtures carry message or value")
}

#[test]
fn valid_fixtures_round_trip() {
    let mut failures = Vec::new();
    let mut count = 0;
    for module in MODULES {
        for (path, fixture) in fixtures::load(module, "valid") {
            count += 1;
            match decode(module, &fixture) {
                Ok(reencoded) if reencoded == input_value(&fixture) => {}
                Ok(reencoded) => failures.push(format!(
                    "{}: re-encoded differs:\n  sent {}\n  got  {reencoded}",
                    path.display(),
                    input_value(&fixture)
                )),
                Err(e) => failures.push(format!("{}: rejected: {e}", path.display())),
            }
        }
    }
    assert!(count > 100, "expected the full fixture set, found {count}");
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn invalid_fixtures_get_their_exact_errors() {
    let mut failures = Vec::new();
    let mut count = 0;
    for module in MODULES {
        for (path, fixture) in fixtures::load(module, "invalid") {
            count += 1;
            let expected: Vec<(String, String)> = fixture["errors"]
                .as_array()
                .unwrap_or_else(|| panic!("{}: no errors listed", path.display()))
                .iter()
                .map(|e| {
                    (
                        e["pointer"].as_str().unwrap().to_owned(),
                        e["rule"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            match decode(module, &fixture) {
                Ok(v) => failures.push(format!("{}: accepted as {v}", path.display())),
                Err(e) => {
                    let got: Vec<(String, String)> = e
                        .errors
                        .iter()
                        .map(|x| (x.pointer.clone(), x.rule.name().to_owned()))
                        .collect();
                    if got != expected {
                        failures.push(format!(
                            "{}: expected {expected:?}, got {got:?} ({e})",
                            path.display()
                        ));
                    }
                }
            }
        }
    }
    assert!(count > 100, "expected the full fixture set, found {count}");
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
