//! Times the decode paths on the same inputs, each the fastest of many interleaved passes:
//! valid messages through the old `from_json` body (`decode_json`, then `validate`) and the
//! new one (`decode_checked`), and broken ones (three faults each) through the first-error
//! path (`decode_json`) and the every-error path (`decode_checked`). Run it with
//! `cargo run --release -p agentwire-runtime --example decode_paths`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use agentwire_runtime::validate::min_length;
use agentwire_runtime::{FieldError, JsonPointer, Validate, decode_checked, decode_json};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Message {
    id: String,
    r#type: String,
    payload: Payload,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Payload {
    input: Vec<Item>,
    loading: bool,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Item {
    role: String,
    text: String,
}

impl Validate for Message {
    fn validate_at(&self, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
        at.with("id", |at| min_length(&self.id, 1, at, errors));
        at.with("payload", |at| {
            at.with("input", |at| {
                for (i, item) in self.payload.input.iter().enumerate() {
                    at.with_index(i, |at| {
                        at.with("text", |at| min_length(&item.text, 1, at, errors));
                    });
                }
            });
        });
    }
}

/// Messages from 60 B to about 9 KB of text with an escape every line.
fn corpus() -> Vec<String> {
    (0..40)
        .map(|i| {
            let line = "a line of agent output with \\\"quotes\\\" and ünïcödé\\n";
            let text = line.repeat(1 + i * i / 8);
            format!(
                r#"{{"id":"m-{i}","type":"user_input","payload":{{"input":[{{"role":"user","text":"{text}"}}],"loading":true}}}}"#
            )
        })
        .collect()
}

/// The same messages with three faults: an empty id, a number for `loading`, no `role`.
fn broken(corpus: &[String]) -> Vec<String> {
    corpus
        .iter()
        .map(|m| {
            let m = m.replacen(r#""id":"m-"#, r##""id":"","x":""##, 1);
            let m = m.replacen(r#""loading":true"#, r#""loading":1"#, 1);
            m.replacen(r#""role":"user","#, "", 1)
        })
        .collect()
}

fn fastest(passes: &mut Duration, run: impl Fn()) {
    let start = Instant::now();
    run();
    *passes = (*passes).min(start.elapsed());
}

fn main() {
    let good = corpus();
    let bad = broken(&good);
    let errors = decode_checked::<Message>(&bad[0]).unwrap_err();
    assert_eq!(errors.errors.len(), 3, "{errors}");
    let mut best = [Duration::MAX; 4];
    for _ in 0..300 {
        fastest(&mut best[0], || {
            for m in &good {
                let v: Message = decode_json(m).unwrap();
                v.validate().unwrap();
                black_box(v);
            }
        });
        fastest(&mut best[1], || {
            for m in &good {
                black_box(decode_checked::<Message>(m).unwrap());
            }
        });
        fastest(&mut best[2], || {
            for m in &bad {
                black_box(decode_json::<Message>(m).unwrap_err());
            }
        });
        fastest(&mut best[3], || {
            for m in &bad {
                black_box(decode_checked::<Message>(m).unwrap_err());
            }
        });
    }
    let bytes: usize = good.iter().map(String::len).sum();
    println!("{} messages, {bytes} bytes", good.len());
    let names = [
        "valid, old (decode_json + validate)",
        "valid, new (decode_checked)",
        "3 faults, first error (decode_json)",
        "3 faults, every error (decode_checked)",
    ];
    for (name, t) in names.iter().zip(best) {
        println!("{name}: {t:?}");
    }
    let ratio = |a: usize, b: usize| best[a].as_secs_f64() / best[b].as_secs_f64();
    println!("valid: new / old = {:.3}", ratio(1, 0));
    println!("3 faults: every / first = {:.2}", ratio(3, 2));
}
