//! agentwire's JSON reader against serde_json: where serde_json refuses, the reader refuses;
//! where both accept, the values are identical; a key given twice is refused by the reader
//! (rule `duplicate`) and by the scan every `Value` reader goes through.
#![no_main]

use agentwire_runtime::json::{self, unique};
use libfuzzer_sys::fuzz_target;
use serde::de::IgnoredAny;
use serde_json::Value;

fuzz_target!(|text: &str| {
    let reference = serde_json::from_str::<Value>(text);
    let fast = json::from_str::<Value>(text);
    let duplicate = unique::check(text.as_bytes()).is_err();
    match (&reference, &fast) {
        (Ok(a), Ok(b)) => {
            assert!(!duplicate, "accepted a key given twice");
            assert_eq!(a, b);
        }
        (Err(_), Ok(_)) => panic!("the reader accepted what serde_json refuses"),
        (Ok(_), Err(e)) => assert!(
            e.is_duplicate() == duplicate || depth(text) > json::MAX_DEPTH,
            "refused ({e}) what serde_json accepts"
        ),
        (Err(_), Err(_)) => {}
    }
    let skipped_ref = serde_json::from_str::<IgnoredAny>(text).is_ok();
    let skipped = json::from_str::<IgnoredAny>(text);
    if skipped.is_ok() {
        assert!(skipped_ref, "skipped what serde_json refuses");
    }
    if skipped_ref && !duplicate && depth(text) <= json::MAX_DEPTH {
        assert!(skipped.is_ok(), "refused to skip what serde_json skips");
    }
    // parse_value is the same as serde_json plus the duplicate check.
    let parsed = unique::parse_value(text);
    assert_eq!(parsed.is_ok(), reference.is_ok() && !duplicate);
});

fn depth(text: &str) -> usize {
    let (mut now, mut max) = (0usize, 0usize);
    for b in text.bytes() {
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
