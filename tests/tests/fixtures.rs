//! Fixture-driven tests: every example of the five protocols decodes, validates and re-encodes
//! to the same JSON value, and every broken example gets exactly the errors it lists.

use std::path::{Path, PathBuf};

use agentwire_protocols::{agentloop, coven, eca, external_agents, helix_zed};
use agentwire_runtime::Invalid;
use serde_json::Value;

const MODULES: &[&str] = &["helix_zed", "agentloop", "external_agents", "eca", "coven"];

fn fixture_dir(module: &str, kind: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(module)
        .join(kind)
}

fn fixtures(module: &str, kind: &str) -> Vec<(PathBuf, Value)> {
    let mut out: Vec<(PathBuf, Value)> = std::fs::read_dir(fixture_dir(module, kind))
        .unwrap_or_else(|e| panic!("fixtures for {module}/{kind}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let v: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", p.display()));
            (p, v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Decodes the fixture's input the way its keys say, returning the re-encoded value.
fn decode(module: &str, fixture: &Value) -> Result<Value, Invalid> {
    let text = match (
        fixture.get("raw"),
        fixture.get("message"),
        fixture.get("value"),
    ) {
        (Some(Value::String(raw)), _, _) => raw.clone(),
        (_, Some(m), _) => m.to_string(),
        (_, _, Some(v)) => v.to_string(),
        _ => panic!("fixture has none of raw/message/value: {fixture}"),
    };
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
        for (path, fixture) in fixtures(module, "valid") {
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
        for (path, fixture) in fixtures(module, "invalid") {
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
