//! Parse-and-validate throughput of the generated decoders next to the usual alternatives,
//! per protocol, on the corpora of `agentwire_bench::corpus`. Each iteration decodes the
//! whole corpus, so the reported bytes/s is over a realistic mix of kinds and sizes.
//!
//! Routes, in report order:
//! - `gen`: generated `from_json` (decode + every spec constraint);
//! - `gen_decode_only`: the same decoder without the validation pass;
//! - `a_value`: `serde_json::from_str::<Value>`;
//! - `b_serde_typed`: hand-written `#[derive(Deserialize)]` types, no validation;
//! - `c_jsonschema_typed`: `Value`, then jsonschema, then `from_value` into the (b) types.

use std::time::Duration;

use agentwire_bench::routes::{self, AgentLoop, Eca, ExternalAgents, HelixZed, Protocol, run_all};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn protocol<P: Protocol>(c: &mut Criterion) {
    let corpus = P::corpus();
    // Schema compilation happens here, once, outside every timed loop.
    let schemas = P::compile();
    let (min, max) = corpus.size_range();
    eprintln!(
        "{}: {} messages, {} bytes (smallest {min} B, largest {max} B)",
        P::NAME,
        corpus.samples.len(),
        corpus.bytes()
    );

    let routes = routes::all_routes(&schemas);
    let mut group = c.benchmark_group(P::NAME);
    group.throughput(Throughput::Bytes(corpus.bytes()));
    for (name, route) in routes {
        // A refusal here would mean timing an error path: fail loudly before measuring.
        run_all(&corpus, &route).unwrap_or_else(|e| panic!("{name}: {e}"));
        group.bench_function(name, |b| b.iter(|| run_all(&corpus, &route)));
    }
    group.finish();
}

fn all(c: &mut Criterion) {
    protocol::<HelixZed>(c);
    protocol::<AgentLoop>(c);
    protocol::<ExternalAgents>(c);
    protocol::<Eca>(c);
}

criterion_group! {
    name = benches;
    // Short defaults so a full run fits in a few minutes on a small machine; the command
    // line (`--warm-up-time`, `--measurement-time`) still overrides them.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = all
}
criterion_main!(benches);
