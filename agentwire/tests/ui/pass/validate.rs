//! #[derive(Validate)] on structs and enums: JSON pointers follow serde's names and enum
//! representations, Option fields are checked when present, and generics pass through.
#![deny(warnings)]

use agentwire::runtime::serde::Deserialize;
use agentwire::{FieldError, JsonPointer, Rule, Validate};

#[derive(Deserialize, Validate)]
#[serde(crate = "agentwire::runtime::serde", rename_all = "camelCase")]
struct Call {
    #[validate(non_empty, max_length = 8)]
    tool_call_id: String,
    #[validate(min_items = 1, max_items = 2)]
    args: Vec<String>,
    #[validate(nested)]
    #[serde(rename = "x-meta")]
    meta: Option<Meta>,
    #[validate(minimum = -1, maximum = 1.5)]
    weight: Option<Option<f64>>,
}

#[derive(Deserialize, Validate)]
#[serde(crate = "agentwire::runtime::serde")]
struct Meta(#[validate(pattern = "^v[0-9]+$")] String);

#[derive(Validate)]
#[allow(dead_code)]
enum Event {
    Started { #[validate(format = "uuid")] id: String },
    Note(#[validate(trim, non_empty)] String),
    Pair(u8, #[validate(custom = odd)] u8),
    Idle,
}

#[derive(Validate)]
struct Wrapper<T: Validate> {
    #[validate(nested)]
    inner: T,
}

fn odd(n: &u8, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
    if n % 2 == 0 {
        errors.push(FieldError::new(at.as_str(), Rule::Custom("odd"), "even"));
    }
}

fn rules(v: &impl Validate) -> Vec<(String, &'static str)> {
    match v.validate() {
        Ok(()) => Vec::new(),
        Err(e) => e.errors.iter().map(|e| (e.pointer.clone(), e.rule.name())).collect(),
    }
}

fn main() {
    let call: Call = agentwire::decode_json(
        r#"{"toolCallId":"","args":[],"x-meta":"1.0","weight":2}"#,
    )
    .unwrap();
    assert_eq!(
        rules(&call),
        [
            ("/toolCallId".to_owned(), "min_length"),
            ("/args".to_owned(), "min_items"),
            ("/x-meta".to_owned(), "pattern"),
            ("/weight".to_owned(), "maximum"),
        ]
    );
    let fine: Call = agentwire::decode_json(r#"{"toolCallId":"c1","args":["a"],"weight":null}"#)
        .unwrap();
    assert!(rules(&fine).is_empty());

    assert_eq!(rules(&Event::Started { id: "nope".into() }), [("/Started/id".to_owned(), "format")]);
    assert_eq!(rules(&Event::Note("  ".into())), [("/Note".to_owned(), "min_length")]);
    assert_eq!(rules(&Event::Pair(1, 2)), [("/Pair/1".to_owned(), "odd")]);
    assert!(rules(&Event::Idle).is_empty());
    assert_eq!(
        rules(&Wrapper { inner: Meta("x".into()) }),
        [("/inner".to_owned(), "pattern")]
    );
}
