//! Types-only protocols (a `protocol.yaml` without `transport`): `ledger` (protobuf over two
//! packages) and `glossary` (TypeScript) yield types, validators and a JSON Schema, and no
//! machine, skeleton or registry entry.

use agentwire_runtime::Validate as _;
use agentwire_test_protocols::{glossary, ledger};
use serde_json::{Value, json};

#[test]
fn a_types_only_proto_module_decodes_validates_and_describes_its_types() {
    let entry = r#"{"id": "e-1", "amount": {"minor": "1250", "currency": "EUR"},
                    "booked_at": "2026-11-27T09:00:00Z", "fee_currency": "USD"}"#;
    let back = ledger::decode_type("Entry", entry).unwrap().unwrap();
    assert_eq!(back["amount"], json!({"minor": "1250", "currency": "EUR"}));
    // The other package's type is its own Rust module, and its rules are checked in place.
    let amount = ledger::common::money::Amount {
        minor: -1,
        currency: ledger::common::money::Currency::Eur as i32,
    };
    let entry = ledger::Entry {
        id: String::new(),
        amount: Some(amount),
        ..Default::default()
    };
    let pointers: Vec<String> = entry
        .validate()
        .unwrap_err()
        .errors
        .into_iter()
        .map(|e| e.pointer)
        .collect();
    assert_eq!(pointers, ["/id", "/amount/minor"]);
    let schema: Value = serde_json::from_str(ledger::SCHEMA).unwrap();
    assert!(
        schema["$defs"]["common.money.Amount"].is_object(),
        "{schema:#}"
    );
    assert_eq!(
        schema["$defs"]["Entry"]["properties"]["booked_at"]["format"],
        "date-time"
    );
    assert!(ledger::ROLES.is_empty());
}

#[test]
fn a_types_only_typescript_module_has_its_types_and_no_protocol_entry() {
    let term = glossary::decode_type("Term", r#"{"word": "", "meaning": "m"}"#)
        .unwrap()
        .unwrap_err();
    assert_eq!(term.errors[0].pointer, "/word");
    assert!(glossary::Term::new("wire", "a line").validate().is_ok());
    // `@multipleOf`: the typed error names the rule and the pointer; the schema carries it.
    let known = glossary::decode_type("Term", r#"{"word": "w", "meaning": "m", "known": 0.3}"#)
        .unwrap()
        .unwrap_err();
    assert_eq!(known.errors.len(), 1, "{known}");
    assert_eq!(known.errors[0].pointer, "/known");
    assert_eq!(
        known.errors[0].rule,
        agentwire_runtime::Rule::MultipleOf(0.25)
    );
    assert_eq!(known.errors[0].rule.name(), "multiple_of");
    // `@exclusiveMinimum` / `@exclusiveMaximum` refuse the bound itself; `@uniqueItems` a
    // repeated element. Each error names the rule and the value's pointer.
    let edges = glossary::decode_type(
        "Term",
        r#"{"word": "w", "meaning": "m", "difficulty": 10, "seeAlso": ["a", "b", "a"]}"#,
    )
    .unwrap()
    .unwrap_err();
    let found: Vec<(&str, &str)> = (edges.errors.iter())
        .map(|e| (e.pointer.as_str(), e.rule.name()))
        .collect();
    assert_eq!(
        found,
        [
            ("/seeAlso", "unique_items"),
            ("/difficulty", "exclusive_maximum")
        ],
        "{edges}"
    );
    let low = glossary::decode_type("Term", r#"{"word": "w", "meaning": "m", "difficulty": 0}"#)
        .unwrap()
        .unwrap_err();
    assert_eq!(
        low.errors[0].rule,
        agentwire_runtime::Rule::ExclusiveMinimum(0.0)
    );
    let fine = r#"{"word": "w", "meaning": "m", "difficulty": 9.5, "seeAlso": ["a", "b"]}"#;
    assert!(glossary::decode_type("Term", fine).unwrap().is_ok());
    assert_eq!(
        schema_of_term()["properties"]["difficulty"]["exclusiveMaximum"],
        json!(10)
    );
    assert_eq!(
        schema_of_term()["properties"]["seeAlso"]["uniqueItems"],
        json!(true)
    );
    let fine = r#"{"word": "w", "meaning": "m", "known": 0.75}"#;
    assert!(glossary::decode_type("Term", fine).unwrap().is_ok());
    let schema: Value = serde_json::from_str(glossary::SCHEMA).unwrap();
    assert_eq!(
        schema["$defs"]["Term"]["properties"]["known"]["multipleOf"],
        json!(0.25)
    );
    let registered: Vec<&str> = agentwire_test_protocols::protocols()
        .iter()
        .map(|p| p.name())
        .collect();
    assert!(!registered.contains(&"glossary") && !registered.contains(&"ledger"));
    assert!(registered.contains(&"jobs"), "{registered:?}");
}

/// The JSON Schema the glossary module carries for `Term`.
fn schema_of_term() -> Value {
    let schema: Value = serde_json::from_str(glossary::SCHEMA).unwrap();
    schema["$defs"]["Term"].clone()
}

#[test]
fn a_json_schema_module_checks_object_rules_exclusive_bounds_and_unique_items() {
    use agentwire_test_protocols::catchall;
    let ok = r#"{"amount": 0.5, "card": "4111", "billing": "Main St", "tags": ["a", "b"]}"#;
    assert!(catchall::decode_type("Payment", ok).unwrap().is_ok());
    let bad = r#"{"amount": 0, "card": "4111", "tags": ["a", "a"]}"#;
    let e = catchall::decode_type("Payment", bad).unwrap().unwrap_err();
    let found: Vec<(&str, &str)> = (e.errors.iter())
        .map(|e| (e.pointer.as_str(), e.rule.name()))
        .collect();
    assert_eq!(
        found,
        [
            ("/amount", "exclusive_minimum"),
            ("/tags", "unique_items"),
            ("", "dependent_required"),
        ],
        "{e}"
    );
    assert_eq!(
        e.errors[2].message,
        "`billing` is required where `card` is present"
    );
    // The module's schema says the same in 2020-12's words.
    let schema: Value = serde_json::from_str(catchall::SCHEMA).unwrap();
    let payment = &schema["$defs"]["Payment"];
    assert_eq!(payment["dependentRequired"], json!({"card": ["billing"]}));
    assert_eq!(
        payment["properties"]["amount"]["exclusiveMinimum"],
        json!(0)
    );
}
