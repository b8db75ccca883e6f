//! A downstream crate as a user of agentwire writes one: its own protocol spec in
//! `spec/chat_relay/`, one dependency (`agentwire`), and the two derives. `cargo build` turns
//! the spec into the `chat_relay` module (typed messages, validators, the sequence checker);
//! the relay's settings are a hand-written struct validated by the same rules.

use agentwire::{FieldError, JsonPointer, Protocol, Rule, Validate};

/// The chat relay protocol; the derive adds the `chat_relay` module beside this struct.
#[derive(Protocol)]
#[protocol(spec = "spec/chat_relay")]
#[cfg_attr(feature = "schemars", protocol(schemars))]
pub struct ChatRelay;

/// Settings of a relay, checked with the same rules and error values as generated messages.
#[derive(Debug, Clone, Validate)]
#[validate(custom = questions_fit)]
pub struct RelayConfig {
    /// Where the relay listens for clients.
    #[validate(format = "uri", pattern = "^wss?://")]
    pub url: String,
    /// The most questions one client may have open at once.
    #[validate(minimum = 1, maximum = 64)]
    pub max_open_questions: u32,
    /// A question the relay asks itself on start-up, checked by the generated validator.
    #[validate(nested)]
    pub warm_up: Option<chat_relay::Ask>,
    /// Words the relay refuses to forward; at least one, none blank.
    #[validate(non_empty, custom = no_blank_words)]
    pub banned_words: Vec<String>,
}

fn no_blank_words(words: &[String], at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
    for (i, w) in words.iter().enumerate() {
        if w.trim().is_empty() {
            at.with_index(i, |at| {
                errors.push(FieldError::new(
                    at.as_str(),
                    Rule::Custom("blank_word"),
                    "a banned word is blank",
                ));
            });
        }
    }
}

/// A rule across two fields: the warm-up question's id must leave room under the limit.
fn questions_fit(config: &RelayConfig, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
    if config.warm_up.is_some() && config.max_open_questions < 2 {
        errors.push(FieldError::new(
            at.as_str(),
            Rule::Custom("warm_up_needs_room"),
            "a warm-up question needs max_open_questions of at least 2",
        ));
    }
}

/// Checks one recorded conversation (sender role, JSON text) against the protocol: every
/// message decodes and validates, and the sequence follows `machine.yaml`. Returns one line
/// per problem.
pub fn check_conversation(messages: &[(&str, &str)]) -> Vec<String> {
    use chat_relay::machine::{Checker, Message};
    use chat_relay::{ClientMessage, RelayMessage};

    let mut problems = Vec::new();
    let mut checker = Checker::new();
    for (i, (from, json)) in messages.iter().enumerate() {
        let seen = match *from {
            "client" => {
                ClientMessage::from_json(json).map(|m| checker.observe(Message::Client(&m)))
            }
            "relay" => RelayMessage::from_json(json).map(|m| checker.observe(Message::Relay(&m))),
            other => {
                problems.push(format!("message {i}: unknown sender {other}"));
                continue;
            }
        };
        match seen {
            Ok(Ok(())) => {}
            Ok(Err(violation)) => problems.push(violation.to_string()),
            Err(invalid) => problems.push(format!("message {i}: {invalid}")),
        }
    }
    if let Err(violations) = checker.finish() {
        problems.extend(violations.iter().map(ToString::to_string));
    }
    problems
}
