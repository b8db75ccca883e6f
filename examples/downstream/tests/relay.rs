//! The downstream example's own tests: what `#[derive(Protocol)]` generated from
//! `spec/chat_relay` decodes, validates and checks sequences, and `#[derive(Validate)]` on a
//! hand-written struct reports errors in the same shape.

use agentwire::runtime::serde_json;
use agentwire::{Rule, Validate};
use agentwire_example_downstream::{RelayConfig, chat_relay, check_conversation};

#[test]
fn messages_decode_into_typed_values() {
    let msg =
        chat_relay::ClientMessage::from_json(r#"{"type":"ask","id":"q1","text":"why?"}"#).unwrap();
    let chat_relay::ClientMessage::Ask(ask) = &msg;
    assert_eq!(ask.text, "why?");
    assert_eq!(ask.id.0, "q1");
    assert_eq!(msg.to_json(), r#"{"type":"ask","id":"q1","text":"why?"}"#);

    let done =
        chat_relay::RelayMessage::from_json(r#"{"type":"done","id":"q1","chunks":2}"#).unwrap();
    assert!(matches!(done, chat_relay::RelayMessage::Done(ref d) if d.chunks == 2));
    assert_eq!(chat_relay::MODULE, "chat_relay");
    assert_eq!(chat_relay::ROLES, ["client", "relay"]);
}

#[test]
fn bad_messages_are_refused_with_pointer_and_rule() {
    let err =
        chat_relay::ClientMessage::from_json(r#"{"type":"ask","id":"Q 1","text":""}"#).unwrap_err();
    let found: Vec<(&str, &str)> = err
        .errors
        .iter()
        .map(|e| (e.pointer.as_str(), e.rule.name()))
        .collect();
    assert_eq!(found, [("/id", "pattern"), ("/text", "min_length")]);

    let err = chat_relay::RelayMessage::from_json(r#"{"type":"shout","id":"q1"}"#).unwrap_err();
    assert_eq!(err.errors[0].rule, Rule::UnknownKind);
    let err = chat_relay::RelayMessage::from_json(r#"{"type":"done","id":"q1","chunks":-1}"#)
        .unwrap_err();
    assert_eq!(err.errors[0].pointer, "/chunks");
    assert_eq!(err.errors[0].rule.name(), "minimum");
}

#[test]
fn the_schema_is_embedded() {
    let schema: serde_json::Value = serde_json::from_str(chat_relay::SCHEMA).unwrap();
    assert!(schema["$defs"]["Ask"].is_object(), "{schema}");
}

#[test]
fn the_checker_follows_machine_yaml() {
    let good = [
        ("client", r#"{"type":"ask","id":"q1","text":"why?"}"#),
        ("relay", r#"{"type":"chunk","id":"q1","text":"because"}"#),
        ("client", r#"{"type":"ask","id":"q2","text":"how?"}"#),
        ("relay", r#"{"type":"done","id":"q1","chunks":1}"#),
        ("relay", r#"{"type":"done","id":"q2","chunks":0}"#),
    ];
    assert_eq!(check_conversation(&good), Vec::<String>::new());

    let bad = [
        ("relay", r#"{"type":"chunk","id":"q9","text":"unasked"}"#),
        ("client", r#"{"type":"ask","id":"q1","text":"why?"}"#),
    ];
    let problems = check_conversation(&bad);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].starts_with("message 0: question q9 in state new: got relay.chunk"),
        "{problems:?}"
    );
    assert!(
        problems[1].starts_with("end of stream: question q1 in state asked"),
        "{problems:?}"
    );
}

fn config() -> RelayConfig {
    RelayConfig {
        url: "wss://relay.example/ws".into(),
        max_open_questions: 8,
        warm_up: None,
        banned_words: vec!["spam".into()],
    }
}

#[test]
fn a_good_config_validates() {
    config().validate().unwrap();
}

#[test]
fn derived_validation_reports_like_generated_code() {
    let warm_up = chat_relay::ClientMessage::from_json(r#"{"type":"ask","id":"w","text":"x"}"#)
        .map(|chat_relay::ClientMessage::Ask(a)| a)
        .unwrap();
    let mut bad_warm_up = warm_up.clone();
    bad_warm_up.text.clear();
    let cfg = RelayConfig {
        url: "http://relay.example".into(),
        max_open_questions: 1,
        warm_up: Some(bad_warm_up),
        banned_words: vec!["ok".into(), " ".into()],
    };
    let errors = cfg.validate().unwrap_err().errors;
    let found: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e.pointer.as_str(), e.rule.name()))
        .collect();
    assert_eq!(
        found,
        [
            ("/url", "pattern"),
            ("/warm_up/text", "min_length"),
            ("/banned_words/1", "blank_word"),
            ("", "warm_up_needs_room"),
        ]
    );
    // The nested error is exactly what the generated validator reports on its own.
    let alone = chat_relay::Ask {
        text: String::new(),
        ..warm_up
    }
    .validate()
    .unwrap_err();
    assert_eq!(alone.errors[0].message, errors[1].message);
    assert_eq!(alone.errors[0].rule, errors[1].rule);

    let empty = RelayConfig {
        banned_words: Vec::new(),
        max_open_questions: 65,
        ..config()
    };
    let found: Vec<String> = empty
        .validate()
        .unwrap_err()
        .errors
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        found,
        [
            "/max_open_questions: 65 is above the maximum 64 [maximum 64]",
            "/banned_words: 0 items, at least 1 required [min_items 1]",
        ]
    );
}

#[cfg(feature = "schemars")]
#[test]
fn schemars_derives_are_kept_when_asked_for() {
    let schema = chat_relay::schemars_schema("Ask").unwrap();
    assert!(
        schema.as_value()["properties"]["text"].is_object(),
        "{schema:?}"
    );
}
