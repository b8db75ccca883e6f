//! The fast JSON reader against serde_json: on every input, the same value or a refusal, and
//! never a value where serde_json refuses (the property `decode_json` relies on).

use agentwire_runtime::json;
use proptest::prelude::*;
use serde::de::IgnoredAny;
use serde_json::Value;

/// Checks one input: an object with a key twice is refused; otherwise where serde_json
/// refuses, the reader refuses; where serde_json accepts,
/// the reader yields the identical value (or refuses only for nesting past its depth limit).
fn agrees(input: &str) {
    // A key given twice: serde_json keeps the last value, the reader refuses, read or skipped.
    if serde_json::from_str::<IgnoredAny>(input).is_ok()
        && json::unique::check(input.as_bytes()).is_err()
    {
        let as_value = serde_json::from_str::<Value>(input).is_ok();
        for (fast, parses) in [
            (json::from_str::<Value>(input).map(drop), as_value),
            (json::from_str::<IgnoredAny>(input).map(drop), true),
        ] {
            match fast {
                Err(e) if e.is_duplicate() || !parses => {}
                Err(_) if depth(input) > json::MAX_DEPTH => {}
                other => panic!("{input:?} has a key twice, the reader gave {other:?}"),
            }
        }
        return;
    }
    let reference = serde_json::from_str::<Value>(input);
    let fast = json::from_str::<Value>(input);
    match (&reference, &fast) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "different values for {input:?}"),
        (Err(_), Ok(v)) => panic!("accepted {input:?} as {v:?}; serde_json refuses it"),
        (Ok(_), Err(e)) => assert!(
            depth(input) > json::MAX_DEPTH,
            "refused {input:?} ({e}); serde_json accepts it"
        ),
        (Err(_), Err(_)) => {}
    }
    // A value nobody reads (an unknown field's) is skipped, not decoded, and serde_json checks
    // less there (1e400 and lone surrogates pass): the skipping must check exactly as much.
    let reference = serde_json::from_str::<IgnoredAny>(input).is_ok();
    let fast = json::from_str::<IgnoredAny>(input).is_ok();
    assert!(
        reference == fast || (reference && depth(input) > json::MAX_DEPTH),
        "skipping {input:?}: serde_json {reference}, fast path {fast}"
    );
}

fn depth(input: &str) -> usize {
    let (mut now, mut max) = (0usize, 0usize);
    for b in input.bytes() {
        match b {
            b'[' | b'{' => {
                now += 1;
                max = max.max(now);
            }
            b']' | b'}' => now = now.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[test]
fn edge_cases_agree_with_serde_json() {
    let cases = [
        "",
        " ",
        "null",
        "true",
        "false",
        "nul",
        "tru",
        "0",
        "-0",
        "-",
        "01",
        "1.",
        ".5",
        "1e",
        "1e+",
        "1E-2",
        "1.5e300",
        "1e400",
        "-1e400",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "0.1",
        "2.2250738585072014e-308",
        "\"\"",
        "\"a\"",
        "\"\\u0041\"",
        "\"\\ud83d\\ude00\"",
        "\"\\ud83d\"",
        "\"\\ude00\"",
        "\"\\ud83dx\"",
        "\"\\ud83d\\u0041\"",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\u12g4\"",
        "\"tab\there\"",
        "\"nl\nhere\"",
        "\"\\/\\b\\f\\n\\r\\t\\\\\\\"\"",
        "\"unterminated",
        "\"é ü 😀\"",
        "[]",
        "[ ]",
        "[1,]",
        "[,1]",
        "[1 2]",
        "[1,2]",
        "{}",
        "{ }",
        "{\"a\":1,}",
        "{,\"a\":1}",
        "{\"a\" 1}",
        "{\"a\":}",
        "{1:2}",
        "{\"a\":1 \"b\":2}",
        "{\"a\":1,\"a\":2}",
        "{\"a\":1,\"\\u0061\":2}",
        "{\"x\":{\"a\":1,\"b\":{},\"a\":2}}",
        "[{\"a\":1},{\"a\":1}]",
        "{\"\\ud83d\":1,\"\\ud83d\":2}",
        "[1] x",
        "[1]   ",
        "  [1]",
        "\t\n\r[1]",
        "[1]\u{c}",
        "\u{a0}1",
        "{\"k\\u0041\":[true,false,null,{\"x\":-1.25}]}",
        "[[[[]]]]",
        "]",
        "}",
        "[",
        "{",
    ];
    for case in cases {
        agrees(case);
    }
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    for n in [
        json::MAX_DEPTH - 1,
        json::MAX_DEPTH,
        json::MAX_DEPTH + 1,
        127,
        128,
        129,
        100_000,
    ] {
        agrees(&format!("{}{}", "[".repeat(n), "]".repeat(n)));
        agrees(&format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n)));
    }
}

fn arbitrary_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[\\\\\"\\n\\t/a-zé😀\\x00-\\x1f]{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::btree_map(any::<String>(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn printed_values_read_back_identically(value in arbitrary_value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        agrees(&text);
        // Printed JSON is never too deep here, so the reader must take it itself.
        prop_assert!(json::from_str::<Value>(&text).is_ok());
    }

    #[test]
    fn mutated_documents_agree(
        value in arbitrary_value(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4),
    ) {
        let mut bytes = serde_json::to_vec(&value).unwrap();
        for (at, byte, op) in edits {
            if bytes.is_empty() {
                bytes.push(byte);
                continue;
            }
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => { bytes.remove(i); }
                _ => bytes.insert(i, byte),
            }
        }
        if let Ok(text) = std::str::from_utf8(&bytes) {
            agrees(text);
        }
    }

    #[test]
    fn json_flavoured_noise_agrees(text in "[\\[\\]{}:,\"\\\\0-9eE.+\\- a-z]{0,48}") {
        agrees(&text);
    }
}
