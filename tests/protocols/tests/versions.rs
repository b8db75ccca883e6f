//! A protocol with two versions in one spec folder (`tick`: version 2 widens a type, swaps a
//! method and adds a machine rule): each version has its module, and the dispatching module
//! and the registry hand a message to the version asked for.

use agentwire_runtime::version::{Reader, Said};
use agentwire_test_protocols::tick::{self, Version, machine};
use serde_json::json;

fn request(id: u64, method: &str, params: serde_json::Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

#[test]
fn versions_are_listed_newest_first_and_parsed_by_their_names() {
    assert_eq!(tick::VERSIONS, ["2", "1"]);
    assert_eq!(Version::NEWEST, Version::V2);
    assert_eq!(Version::parse("1"), Some(Version::V1));
    assert_eq!(Version::parse("3"), None);
    assert_eq!(Version::V2.to_string(), "2");
}

#[test]
fn decode_message_reads_a_type_as_the_version_asked_for_has_it() {
    // A step of 50: version 2 allows up to 100, version 1 up to 10.
    let count = request(2, "tick/count", json!({"step": 50}));
    assert!(
        tick::decode_message(Version::V2, "client", &count)
            .unwrap()
            .is_ok()
    );
    let e = tick::decode_message(Version::V1, "client", &count)
        .unwrap()
        .unwrap_err();
    assert_eq!(e.errors[0].pointer, "/params/step");
    // The types of each version by name: version 1 has no `StopParams`.
    assert!(tick::decode_type(Version::V2, "StopParams", "{}").is_some());
    assert!(tick::decode_type(Version::V1, "StopParams", "{}").is_none());
}

/// A type every version defines alike is one Rust type under each version's path (written
/// once, in the folder's shared module); one a version changes is a type per version.
#[test]
fn types_alike_in_every_version_are_one_type() {
    fn same(open: tick::v1::OpenParams) -> tick::v2::OpenParams {
        open
    }
    let open: tick::v1::OpenParams =
        serde_json::from_value(json!({"version": "1"})).expect("an offer decodes");
    assert_eq!(same(open.clone()), open);
    // Version 2 widens the step: `CountParams` stays a type of each version.
    assert_ne!(
        std::any::TypeId::of::<tick::v1::CountParams>(),
        std::any::TypeId::of::<tick::v2::CountParams>()
    );
}

#[test]
fn each_version_has_its_own_methods() {
    let reset = json!({"jsonrpc": "2.0", "method": "tick/reset", "params": {}}).to_string();
    assert!(
        tick::decode_message(Version::V1, "client", &reset)
            .unwrap()
            .is_ok()
    );
    assert!(
        tick::decode_message(Version::V2, "client", &reset)
            .unwrap()
            .is_err()
    );
    let stop = request(3, "tick/stop", json!({}));
    assert!(
        tick::decode_message(Version::V2, "client", &stop)
            .unwrap()
            .is_ok()
    );
    assert!(
        tick::decode_message(Version::V1, "client", &stop)
            .unwrap()
            .is_err()
    );
    assert!(tick::decode_response(Version::V2, "tick/stop", r#"{"total": 4}"#).is_some());
    assert!(tick::decode_response(Version::V1, "tick/stop", r#"{"total": 4}"#).is_none());
}

/// Runs `entries` through a fresh checker of `version`; the first violation's machine.
fn first_violation(version: Version, entries: &[serde_json::Value]) -> Option<&'static str> {
    let mut checker = machine::Checker::new(version);
    for entry in entries {
        let from = entry["from"].as_str().unwrap();
        let msg = machine::Recorded::decode(version, from, entry)
            .unwrap()
            .unwrap();
        assert_eq!(msg.version(), version);
        if let Err(v) = checker.observe(&msg) {
            return Some(v.machine);
        }
    }
    None
}

#[test]
fn the_checker_follows_the_rules_of_its_version() {
    // Counting before opening: version 2's `counter` machine forbids it, version 1 has no order.
    let entries = [
        json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tick/count", "params": {"step": 1}}}),
        json!({"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {"total": 1}}}),
    ];
    assert_eq!(first_violation(Version::V2, &entries), Some("counter"));
    assert_eq!(first_violation(Version::V1, &entries), None);
}

#[test]
fn a_checker_refuses_a_message_of_another_version() {
    let entry = json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tick/open", "params": {"version": "1"}}});
    let v1 = machine::Recorded::decode(Version::V1, "client", &entry)
        .unwrap()
        .unwrap();
    let mut checker = machine::Checker::new(Version::V2);
    assert_eq!(checker.observe(&v1).unwrap_err().machine, "version");
}

#[test]
fn the_registry_lists_the_versions_and_hands_out_each() {
    let p = agentwire_test_protocols::protocols()
        .iter()
        .find(|p| p.name() == "tick")
        .unwrap();
    assert_eq!(p.versions(), ["2", "1"]);
    assert!(p.version("3").is_none());
    let count = request(2, "tick/count", json!({"step": 50}));
    assert!(
        p.version("2")
            .unwrap()
            .decode_message("client", &count)
            .unwrap()
            .is_ok()
    );
    assert!(
        p.version("1")
            .unwrap()
            .decode_message("client", &count)
            .unwrap()
            .is_err()
    );
    // Unasked, the protocol answers as its newest version.
    assert!(p.decode_message("client", &count).unwrap().is_ok());
    // Where a stream names its version, as the spec declares it.
    let mut reader = Reader::new(p.version_source().unwrap());
    let open = json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tick/open", "params": {"version": "2"}}});
    assert_eq!(reader.read(&open), Some(Said::Offered("2".into())));
    let answer = json!({"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {"version": "1"}}});
    assert_eq!(reader.read(&answer), Some(Said::Agreed("1".into())));
}

/// Runs `agentwire trace check --protocol tick` on traces of `tick/traces/`, with the test
/// protocols registered; returns (exit code, stdout).
fn trace_check(extra: &[&str], traces: &[&str]) -> (u8, String) {
    let paths: Vec<String> = traces
        .iter()
        .map(|t| format!("tick/traces/{t}.jsonl"))
        .collect();
    let mut argv = vec!["agentwire", "trace", "check", "--protocol", "tick"];
    argv.extend_from_slice(extra);
    argv.extend(paths.iter().map(String::as_str));
    let mut out = Vec::new();
    let code = agentwire_cli::run(agentwire_test_protocols::protocols(), argv, &mut out).unwrap();
    (code, String::from_utf8(out).unwrap())
}

#[test]
fn trace_check_picks_the_version_of_each_stream_and_says_which() {
    // A stream of version 2 and one of version 1 (with `tick/reset`, which version 2 lacks).
    let (code, out) = trace_check(&[], &["ok", "v1"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out,
        "ok: 11 message(s) in 2 stream(s), 7 sequence instance(s), protocol tick (version 2: 1 stream(s), version 1: 1 stream(s))\n"
    );
    // Offered 2, agreed 1: checked as version 1 from the answer on, so `tick/reset` passes
    // and a step of 50 is above version 1's maximum.
    let (code, out) = trace_check(&[], &["negotiated_down"]);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "tick/traces/negotiated_down.jsonl:line 4: /message/params/step: 50 is above the maximum 10 [maximum 10]\n"
    );
}

#[test]
fn an_undeclared_version_is_reported_once_as_such() {
    // The undeclared stream's messages break every rule of both versions (a step of 500, an
    // unknown member, an unknown method): one finding for the stream, none per message.
    let (code, out) = trace_check(&["--format", "json"], &["ok", "undeclared", "v1"]);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let findings: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["type"] == "finding").collect();
    assert_eq!(findings.len(), 1, "{out}");
    assert_eq!(findings[0]["kind"], "version");
    assert_eq!(findings[0]["line"], 2);
    assert!(findings[0]["text"].as_str().unwrap().starts_with("version `3` (agreed by the handshake's answer) is not a version protocol tick declares (2, 1)"));
    let summary = lines.last().unwrap();
    assert_eq!(
        summary["versions"],
        json!([
            {"version": "2", "streams": 1},
            {"version": "3 (undeclared, not checked)", "streams": 1},
            {"version": "1", "streams": 1}
        ])
    );
}

#[test]
fn trace_check_of_the_spec_folder_picks_versions_as_the_generated_code_does() {
    // The last two name their version in params._meta, not by opening (`version.any`).
    let traces = [
        "ok",
        "undeclared",
        "v1",
        "negotiated_down",
        "named_in_meta",
        "undeclared_in_meta",
    ];
    let paths: Vec<String> = traces
        .iter()
        .map(|t| format!("tick/traces/{t}.jsonl"))
        .collect();
    let mut argv = vec![
        "agentwire",
        "trace",
        "check",
        "--format",
        "json",
        "--spec",
        "tick",
    ];
    argv.extend(paths.iter().map(String::as_str));
    let mut out = Vec::new();
    let code = agentwire_cli::run(agentwire_test_protocols::protocols(), argv, &mut out).unwrap();
    let (generated_code, generated) = trace_check(&["--format", "json"], &traces);
    assert_eq!(
        (code, String::from_utf8(out).unwrap()),
        (generated_code, generated)
    );
}
