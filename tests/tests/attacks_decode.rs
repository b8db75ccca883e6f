//! Hostile input against the decoders and the framer, each attack of the hardening campaign
//! with the answer now expected: a key given twice is refused (rule `duplicate`) by every
//! reader, a bad header block costs no later frame, and deep nesting fits a small stack.

use agentwire_protocols::{agentloop, eca, helix_zed};
use agentwire_runtime::framing::{ContentLengthDecoder, encode_into};
use agentwire_runtime::json::unique;
use agentwire_runtime::jsonrpc::Message;
use agentwire_runtime::{Invalid, Rule};

fn duplicate_at(result: Result<impl std::fmt::Debug, Invalid>) -> String {
    let invalid = result.expect_err("a key twice is refused");
    let e = &invalid.errors[0];
    assert_eq!(e.rule, Rule::Duplicate, "{invalid}");
    e.pointer.clone()
}

#[test]
fn a_discriminator_given_twice_is_refused_not_read_first_wins() {
    // The campaign's frame: first-wins read `loading_state`, every other reader `error`.
    let frame = r#"{"id":"1","type":"loading_state","type":"error","payload":{"loading":true,"message":"m"}}"#;
    assert_eq!(
        duplicate_at(agentloop::ServerMessage::from_json(frame)),
        "/type"
    );
    assert_eq!(
        duplicate_at(agentloop::decode_message("server", frame).unwrap()),
        "/type"
    );
    // The same answer from the scan that `Value` readers (trace check) go through.
    assert_eq!(duplicate_at(unique::check(frame.as_bytes())), "/type");
    assert_eq!(duplicate_at(unique::parse_value(frame)), "/type");
    // Before the discriminator, escaped, inside a field nobody reads, deep inside a payload.
    for (frame, pointer) in [
        (
            r#"{"type":"chat_message","type":"chat_message","data":{}}"#,
            "/type",
        ),
        (
            r#"{"type":"chat_message","\u0074ype":"x","data":{}}"#,
            "/type",
        ),
        (
            r#"{"x":{"a":1,"a":2},"type":"chat_message","data":{"helix_session_id":"s","message":"m","request_id":"r"}}"#,
            "/x/a",
        ),
        (
            r#"{"type":"chat_message","data":{"helix_session_id":"s","message":"m","request_id":"r","extra":[{"k":1,"k":1}]}}"#,
            "/data/extra/0/k",
        ),
        (
            r#"{"type":"chat_message","data":{"helix_session_id":"s","message":"m","message":"n","request_id":"r"}}"#,
            "/data/message",
        ),
    ] {
        assert_eq!(
            duplicate_at(helix_zed::HelixMessage::from_json(frame)),
            pointer,
            "{frame}"
        );
    }
}

#[test]
fn json_rpc_envelopes_refuse_a_member_given_twice() {
    type M = Message<eca::ClientRequest, eca::ClientNotification>;
    let twice =
        r#"{"jsonrpc":"2.0","id":1,"method":"chat/prompt","method":"tool/call","params":{}}"#;
    assert_eq!(duplicate_at(M::from_json(twice)), "/method");
    let ids = r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"exit"}"#;
    assert_eq!(duplicate_at(M::from_json(ids)), "/id");
    let unread = r#"{"jsonrpc":"2.0","method":"exit","x":{"y":[{"z":1,"z":2}]}}"#;
    assert_eq!(duplicate_at(M::from_json(unread)), "/x/y/0/z");
    let params = r#"{"jsonrpc":"2.0","id":1,"method":"chat/prompt","params":{"requestId":"r","message":"a","message":"b"}}"#;
    assert_eq!(duplicate_at(M::from_json(params)), "/params/message");
}

#[test]
fn a_conflicting_length_block_loses_nothing_after_it() {
    let mut input = b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}".to_vec();
    encode_into(r#"{"next":1}"#, &mut input);
    encode_into(r#"{"after":2}"#, &mut input);
    // Byte by byte as well as at once: resynchronising must not depend on chunking.
    for chunk in [1, input.len()] {
        let mut decoder = ContentLengthDecoder::new();
        let (mut bodies, mut errors) = (Vec::new(), 0);
        for piece in input.chunks(chunk) {
            decoder.push(piece);
            loop {
                match decoder.next_frame() {
                    Ok(Some(frame)) => bodies.push(frame.body),
                    Ok(None) => break,
                    Err(_) => errors += 1,
                }
            }
        }
        assert_eq!(bodies, [r#"{"next":1}"#, r#"{"after":2}"#], "chunk {chunk}");
        assert_eq!(errors, 1);
    }
}

/// A server `error` message whose free-form `details` nest `depth` levels, with `details`
/// before or after the discriminator (before: the tagged decoder buffers it).
fn nested_error(depth: usize, details_first: bool) -> String {
    let details = format!(
        "{}1{}",
        "{\"a\":[".repeat(depth / 2),
        "]}".repeat(depth / 2)
    );
    let payload = format!(r#"{{"message":"m","details":{details}}}"#);
    if details_first {
        format!(r#"{{"payload":{payload},"id":"1","type":"error"}}"#)
    } else {
        format!(r#"{{"id":"1","type":"error","payload":{payload}}}"#)
    }
}

#[test]
fn deep_values_decode_on_a_256_kib_stack() {
    let run = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            for details_first in [false, true] {
                // Up to the reader's limit the fast path decodes; past it serde_json decides
                // (its limit is 128); far past it the message is refused, never a crash.
                for depth in [100, 110, 120] {
                    let text = nested_error(depth, details_first);
                    agentloop::ServerMessage::from_json(&text)
                        .unwrap_or_else(|e| panic!("depth {depth}: {e}"));
                    agentloop::decode_message("server", &text).unwrap().unwrap();
                }
                let deep = nested_error(100_000, details_first);
                assert!(agentloop::ServerMessage::from_json(&deep).is_err());
                assert!(unique::parse_value(&deep).is_err());
            }
            // A JSON-RPC envelope (eca) with a deep member it never reads, and deep params:
            // the skeleton gives the answer trace check gives (which reads every value), so
            // decoded up to serde_json's nesting limit and refused past it, however deep.
            type M = Message<eca::ClientRequest, eca::ClientNotification>;
            for depth in [100, 120, 130, 100_000] {
                let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
                let unread = format!(r#"{{"jsonrpc":"2.0","method":"exit","x":{deep}}}"#);
                let params = format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"chat/prompt","params":{{"requestId":"r","message":"m","x":{deep}}}}}"#
                );
                for text in [unread, params] {
                    let decoded = M::from_json(&text);
                    let read_whole = unique::parse_value(&text);
                    assert_eq!(decoded.is_ok(), read_whole.is_ok(), "depth {depth}: {decoded:?}");
                    assert_eq!(decoded.is_ok(), depth < unique::MAX_NESTING, "depth {depth}");
                }
            }
        })
        .unwrap();
    run.join().expect("no stack overflow");
}
