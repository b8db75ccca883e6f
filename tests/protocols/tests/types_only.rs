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
