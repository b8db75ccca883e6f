//! The well-known types (`google.protobuf.*`) in generated code: `jobs.JobRecord` holds each
//! once, and its proto3 JSON form reads and writes every one the way the JSON mapping does,
//! through the module's own entry points.

use agentwire_test_protocols::jobs::{self, JobRecord, job_record::Outcome};
use prost::Message as _;
use serde_json::{Value, json};

/// One record with every field set, in the JSON form the generated code writes back.
fn full() -> Value {
    json!({
        "finished_at": "2026-11-27T09:00:00.500+00:00",
        "took": "90.250s",
        "labels": {"team": "infra", "retries": 2.0, "nested": {"ok": true}},
        "result": [1.0, "two", null, {"three": false}],
        "outputs": ["a.txt", 3.0],
        "nothing": {},
        "detail": {"typeUrl": "type.googleapis.com/jobs.Job", "value": "CgNqLTE="},
        "changed": {"paths": ["took", "labels.team"]},
        "retried": false,
        "host": "worker-7",
        "digest": "3q2+7w==",
        "exit_code": -1,
        "attempts": 3,
        "bytes_out": "-9007199254740993",
        "rows": "18446744073709551615",
        "load": 0.5,
        "cost": 12.75,
        "checkpoints": ["1970-01-01T00:00:00+00:00", "2000-02-29T23:59:59.999999999+00:00"],
        "phases": {"build": "1s", "test": "0.000001s"},
        "error": "disk full",
    })
}

#[test]
fn every_well_known_type_round_trips_through_proto3_json() {
    let text = full().to_string();
    let record: JobRecord = serde_json::from_str(&text).unwrap();
    let at = record.finished_at.unwrap();
    assert_eq!((at.seconds, at.nanos), (1_795_770_000, 500_000_000));
    let took = record.took.unwrap();
    assert_eq!((took.seconds, took.nanos), (90, 250_000_000));
    assert_eq!(record.bytes_out.unwrap().value, -9_007_199_254_740_993);
    assert_eq!(record.rows.unwrap().value, u64::MAX);
    assert_eq!(
        &record.digest.as_ref().unwrap().value[..],
        [0xde, 0xad, 0xbe, 0xef]
    );
    assert_eq!(
        record.changed.as_ref().unwrap().paths,
        ["took", "labels.team"]
    );
    assert_eq!(
        record.outcome,
        Some(Outcome::Error(pbjson_types::StringValue {
            value: "disk full".into()
        }))
    );
    // Written back unchanged, and through prost's binary form unchanged too.
    assert_eq!(serde_json::to_value(&record).unwrap(), full());
    let binary = JobRecord::decode(record.encode_to_vec().as_slice()).unwrap();
    assert_eq!(binary, record);
    // The module's dynamic entry point takes the same JSON.
    let reencoded = jobs::decode_type("JobRecord", &text).unwrap().unwrap();
    assert_eq!(reencoded, full());
}

#[test]
fn the_json_mapping_s_other_spellings_are_read() {
    let record: JobRecord = serde_json::from_str(
        r#"{"finished_at": "1972-01-01T10:00:20.021Z", "took": "-1.5s", "rows": 7,
            "bytes_out": 7, "ok": {}, "result": null, "load": "NaN"}"#,
    )
    .unwrap();
    let at = record.finished_at.unwrap();
    assert_eq!((at.seconds, at.nanos), (63_108_020, 21_000_000));
    let took = record.took.unwrap();
    assert_eq!((took.seconds, took.nanos), (-1, -500_000_000));
    assert_eq!(record.rows.unwrap().value, 7);
    assert!(record.load.unwrap().value.is_nan());
    assert_eq!(record.outcome, Some(Outcome::Ok(pbjson_types::Empty {})));
    // An unset record is `{}`.
    assert_eq!(serde_json::to_string(&JobRecord::default()).unwrap(), "{}");
}

#[test]
fn malformed_well_known_values_are_refused() {
    for bad in [
        r#"{"finished_at": "yesterday"}"#,
        r#"{"took": "90"}"#,
        r#"{"labels": [1]}"#,
        r#"{"outputs": {"a": 1}}"#,
        r#"{"attempts": -1}"#,
        r#"{"digest": "not base64!"}"#,
        r#"{"nothing": {"x": 1}}"#,
    ] {
        let err = jobs::decode_type("JobRecord", bad).unwrap();
        assert!(err.is_err(), "{bad} was accepted");
    }
}
