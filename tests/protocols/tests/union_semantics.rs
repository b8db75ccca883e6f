//! Union semantics that match the schema (`tagmix`): a type several tags of a union share,
//! and that is also used on its own, decodes and writes every tag it carries and, alone, no
//! tag at all; numbers behind aliases, lists and maps keep their JSON form on a round trip;
//! an untagged union reads a value as the member that keeps it whole.

use agentwire_test_protocols::tagmix;
use serde_json::{Value, json};

fn round_trip(name: &str, value: Value) -> Value {
    tagmix::decode_type(name, &value.to_string())
        .expect("a type of the module")
        .unwrap_or_else(|e| panic!("{name} {value}: {e}"))
}

#[test]
fn a_type_shared_by_several_tags_decodes_and_writes_each_of_them() {
    for kind in ["user", "agent"] {
        let update = json!({"kind": kind, "text": "hi"});
        assert_eq!(round_trip("Update", update.clone()), update);
        let typed: tagmix::Update = serde_json::from_value(update.clone()).unwrap();
        assert_eq!(typed.kind(), kind);
        assert_eq!(serde_json::to_value(&typed).unwrap(), update);
    }
    let plan = json!({"kind": "plan", "steps": ["a"]});
    assert_eq!(round_trip("Update", plan.clone()), plan);
    let wrong = tagmix::decode_type("Update", r#"{"kind": "system", "text": "hi"}"#)
        .unwrap()
        .unwrap_err();
    assert_eq!(
        wrong.errors[0].rule,
        agentwire_runtime::error::Rule::UnknownKind,
        "{wrong}"
    );
}

#[test]
fn members_written_before_the_tag_decode_into_optional_fields() {
    // The tag need not come first: an optional string member ahead of it (a chunk's message
    // id) is read into its `Option` as the same member after the tag is.
    for text in [
        r#"{"messageId": "m-1", "note": "n", "text": "hi", "kind": "agent"}"#,
        r#"{"messageId": null, "kind": "user", "text": "hi"}"#,
        r#"{"kind": "agent", "messageId": "m-1", "note": "n", "text": "hi"}"#,
    ] {
        let value: Value = serde_json::from_str(text).unwrap();
        let back = tagmix::decode_type("Update", text)
            .unwrap()
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, value);
        let typed: tagmix::Update = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_value(&typed).unwrap(), value);
    }
    // A wrong type ahead of the tag is still refused at its member.
    let wrong = tagmix::decode_type("Update", r#"{"note": 7, "kind": "agent", "text": "hi"}"#)
        .unwrap()
        .unwrap_err();
    assert_eq!(wrong.errors[0].pointer, "/note", "{wrong}");
}

#[test]
fn a_union_member_used_on_its_own_carries_no_tag() {
    // The schema gives `Chunk` no `kind`: alone, and as a field, it is read and written without.
    let chunk = json!({"text": "alone"});
    assert_eq!(round_trip("Chunk", chunk.clone()), chunk);
    let log =
        json!({"version": 1, "updates": [{"kind": "agent", "text": "a"}], "last": {"text": "b"}});
    assert_eq!(round_trip("Log", log.clone()), log);
    let schema: Value = serde_json::from_str(tagmix::SCHEMA).unwrap();
    assert!(
        schema["$defs"]["Chunk"]["properties"].get("kind").is_none(),
        "{:#}",
        schema["$defs"]["Chunk"]
    );
}

#[test]
fn numbers_keep_their_json_form_behind_aliases_lists_and_maps() {
    let log = json!({
        "version": 1,
        "updates": [],
        "score": 3,
        "versions": [1, 2.5, 3],
        "weights": {"a": 2, "b": 0.25},
        "samples": [4, null, 1.5]
    });
    assert_eq!(round_trip("Log", log.clone()), log);
    assert_eq!(round_trip("Version", json!(7)), json!(7));
    assert_eq!(round_trip("Score", json!(7)), json!(7));
    let typed: tagmix::Log = serde_json::from_value(log.clone()).unwrap();
    // `Value` tells `1` from `1.0`.
    assert_eq!(serde_json::to_value(&typed).unwrap(), log);
    let negative = tagmix::decode_type("Log", r#"{"version": 1, "updates": [], "score": -1}"#)
        .unwrap()
        .unwrap_err();
    assert_eq!(negative.errors[0].pointer, "/score");
}

#[test]
fn an_untagged_union_reads_a_value_as_the_member_that_keeps_it_whole() {
    // `BriefReply` is tried first (it declares more members) and reads this object too, but
    // it would drop `commands`; `FullReply` keeps every member, so it is the one chosen.
    let full = json!({"id": "r-1", "commands": ["run", "stop"]});
    assert_eq!(round_trip("Reply", full.clone()), full);
    let typed: tagmix::Reply = serde_json::from_value(full.clone()).unwrap();
    assert!(matches!(typed, tagmix::Reply::FullReply(_)), "{typed:?}");
    // A value both keep whole stays with the member tried first.
    let brief = json!({"id": "r-2", "note": "ok"});
    assert_eq!(round_trip("Reply", brief.clone()), brief);
    let typed: tagmix::Reply = serde_json::from_value(brief).unwrap();
    assert!(matches!(typed, tagmix::Reply::BriefReply(_)), "{typed:?}");
}

#[test]
fn an_untagged_union_accepts_a_value_one_member_is_valid_for() {
    // `mood` breaks `BriefReply`'s rule; `FullReply` (open, it ignores `mood`) is valid, and
    // `anyOf` needs only one valid member.
    let text = r#"{"id": "r-3", "mood": ""}"#;
    let back = tagmix::decode_type("Reply", text)
        .unwrap()
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(back, json!({"id": "r-3"}));
    // Valid for neither: the first member that reads it reports its rule.
    let wrong = tagmix::decode_type("Reply", r#"{"mood": "", "commands": "x"}"#)
        .unwrap()
        .unwrap_err();
    assert_eq!(wrong.errors[0].pointer, "/mood", "{wrong}");
}
