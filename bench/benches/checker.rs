//! Sequence-checker cost per message, next to the parse+validate cost of the same messages, on
//! every accepted trace of every protocol (tests/fixtures/<module>/traces), replayed many times
//! per iteration. Also prints the size of each machine's live instance.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

/// The accepted traces of a module, each as its lines' JSON entries.
fn traces(module: &str) -> Vec<Vec<Value>> {
    let dir: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(module)
        .join("traces");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("trace fixtures")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter(|p| !p.with_extension("expect.json").exists())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            std::fs::read_to_string(p)
                .expect("trace")
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str(l).expect("trace line"))
                .collect()
        })
        .collect()
}

/// Benchmarks one protocol: `check` observes already-decoded messages; `decode` is the
/// parse+validate of the same messages from their JSON text.
macro_rules! bench_module {
    ($c:expr, $module:ident) => {{
        use agentwire_protocols::$module::machine::{Checker, Recorded};
        let name = stringify!($module);
        let entries = traces(name);
        let texts: Vec<Vec<(String, String)>> = entries
            .iter()
            .map(|t| {
                t.iter()
                    .map(|e| (e["from"].as_str().unwrap_or_default().to_owned(), e.to_string()))
                    .collect()
            })
            .collect();
        let decoded: Vec<Vec<Recorded>> = entries
            .iter()
            .map(|t| {
                t.iter()
                    .map(|e| {
                        Recorded::decode(e["from"].as_str().unwrap_or_default(), e)
                            .expect("known sender")
                            .expect("valid message")
                    })
                    .collect()
            })
            .collect();
        let messages: usize = decoded.iter().map(Vec::len).sum();
        let mut group = $c.benchmark_group(format!("checker/{name}"));
        group.throughput(Throughput::Elements(messages as u64));
        group.bench_function(BenchmarkId::new("check", messages), |b| {
            b.iter(|| {
                for trace in &decoded {
                    let mut checker = Checker::new();
                    for m in trace {
                        checker.observe(m.as_message()).expect("accepted trace");
                    }
                    checker.finish().expect("accepted trace");
                }
            })
        });
        group.bench_function(BenchmarkId::new("decode", messages), |b| {
            b.iter(|| {
                for trace in &texts {
                    for (from, line) in trace {
                        let entry: Value = serde_json::from_str(line).expect("json");
                        std::hint::black_box(Recorded::decode(from, &entry));
                    }
                }
            })
        });
        group.finish();
    }};
}

fn all(c: &mut Criterion) {
    use std::mem::size_of;
    eprintln!(
        "live instance sizes (bytes, plus the key and remembered strings on the heap): helix_zed session {}, agentloop turn {}, external_agents session {}, eca request {}, eca chat {}, coven stream {}",
        size_of::<agentwire_protocols::helix_zed::machine::SessionMachineInstance>(),
        size_of::<agentwire_protocols::agentloop::machine::TurnMachineInstance>(),
        size_of::<agentwire_protocols::external_agents::machine::SessionMachineInstance>(),
        size_of::<agentwire_protocols::eca::machine::RequestMachineInstance>(),
        size_of::<agentwire_protocols::eca::machine::ChatMachineInstance>(),
        size_of::<agentwire_protocols::coven::machine::StreamMachineInstance>(),
    );
    bench_module!(c, helix_zed);
    bench_module!(c, agentloop);
    bench_module!(c, external_agents);
    bench_module!(c, eca);
    bench_module!(c, coven);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = all
}
criterion_main!(benches);
