//! Fixture-driven tests: every example of every built-in protocol (the registry) decodes, validates and re-encodes
//! to the same JSON value, and every broken example gets exactly the errors it lists.

use agentwire_runtime::Invalid;
use agentwire_runtime::registry::Protocol;
use agentwire_tests::fixtures::{self, input_text};
use serde_json::Value;

/// Decodes the fixture's input the way its keys say (with the version it names), returning the
/// re-encoded value.
fn decode(p: &'static dyn Protocol, fixture: &Value) -> Result<Value, Invalid> {
    let p = fixtures::protocol_of(p, fixture);
    let text = input_text(fixture)
        .unwrap_or_else(|| panic!("fixture has none of raw/message/value: {fixture}"));
    let field = |k: &str| fixture.get(k).and_then(Value::as_str);
    let decoded = if let Some(type_name) = field("type") {
        p.decode_type(type_name, &text)
    } else if let Some(method) = field("response_to") {
        p.decode_response(method, &text)
    } else {
        let from = field("from").expect("fixture names `from` or `type`");
        p.decode_message(from, &text)
    };
    decoded.unwrap_or_else(|| {
        panic!(
            "{}: fixture names an unknown type, method or role: {fixture}",
            p.name()
        )
    })
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
    for p in agentwire_protocols::protocols() {
        for (path, fixture) in fixtures::load(p.name(), "valid") {
            count += 1;
            match decode(*p, &fixture) {
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
    for p in agentwire_protocols::protocols() {
        for (path, fixture) in fixtures::load(p.name(), "invalid") {
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
            match decode(*p, &fixture) {
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
