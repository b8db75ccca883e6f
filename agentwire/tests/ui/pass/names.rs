//! A spec whose type, field and value names collide with Rust's prelude, primitives and
//! keywords and with the generated module's own items compiles warning-free: colliding types
//! get a Rust name of their own (`Result` -> `ResultType`), the JSON keeps the spec's names.
#![deny(warnings)]

use agentwire::Protocol;

#[derive(Protocol)]
#[protocol(spec = "spec/names")]
pub(crate) struct Names;

fn main() {
    let params = r#"{"self":"s","type":"t","crate":true,"super":{"box":{"vec":{"items":["a"]}}},"ref":{"items":[]},"async":[],"$":{"kind":"some","checker":{"bool":true}},"value":"Self","ok":"k"}"#;
    let request = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{params}}}"#);
    let message = names::ClientMessage::from_json(&request).unwrap();
    let wire = agentwire::runtime::serde_json::to_value(&message).unwrap();
    let sent: agentwire::runtime::serde_json::Value =
        agentwire::runtime::serde_json::from_str(&request).unwrap();
    assert_eq!(wire, sent);

    let p: names::ClientRequestType = agentwire::runtime::serde_json::from_str(params).unwrap();
    assert_eq!(p.self_, "s");
    assert_eq!(p.r#type, "t");
    assert_eq!(p.value, names::ErrType::SelfValue2);
    assert!(matches!(p.field, names::MODULEType::Some(names::SomeType { checker: names::CheckerType { bool: true } })));
    let _: names::ResultType = names::ResultType {
        string: String::from("x"),
        vec: names::VecType { items: Vec::new() },
        status: names::KindType::Machine,
    };
    // Built from the required fields (keywords and all), the optional one set after.
    let built = names::ClientRequestType::new(
        "s",
        "t",
        true,
        p.super_.clone(),
        names::VecType { items: Vec::new() },
        Vec::new(),
        p.field.clone(),
        names::ErrType::SelfValue2,
        names::OkType(String::from("k")),
    );
    assert_eq!(built, p);
    assert_eq!(built.with_match(2.0).r#match, Some(2.0));
    let b = names::Builders::new("w").with_new("n").with_x("x").with_default(true);
    assert_eq!((b.new.as_deref(), b.with_x.as_str(), b.x.as_deref(), b.default), (Some("n"), "w", Some("x"), Some(true)));
    let _: Option<names::Match> = None;
    assert_eq!(names::ErrType::ALL.len(), 5);
    assert_eq!(names::ErrType::SelfValue2.as_str(), "Self");
    assert_eq!(names::MODULE, "names");
    assert!(names::SCHEMA.contains("\"ResultType\""));
}
