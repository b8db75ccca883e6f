//! Sequence-checker cost per message, next to the parse+validate cost of the same messages.
//!
//! `checker/<module>` runs on one long, valid trace per protocol (bench/src/long_traces.rs,
//! a few thousand messages on one connection): `check` feeds every already-decoded message
//! to a fresh `Checker` and finishes it; `decode` parses each trace line and decodes it with
//! `Recorded::decode`, as `agentwire trace check` does. Both report per-message throughput.
//! `checker_short/<module>` replays the short accepted fixture traces, where setting up the
//! checker weighs more than the messages.
//!
//! Before the benchmarks, stderr gets the long traces' sizes and a memory table: for each
//! keyed machine, a trace prefix leaves N instances open, and the table lists what one of
//! them costs (instance, map slot, key and remembered strings).

use std::hint::black_box;
use std::mem::size_of;
use std::time::Duration;

use agentwire_bench::long_traces::{self, OpenInstances};
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use serde_json::Value;

/// Instances each memory prefix leaves open.
const OPEN: usize = 1_000;

/// Bytes of the one B-tree leaf node a non-empty `BTreeSet<String>` with at most 11
/// elements allocates in today's std: eleven 24-byte `String` slots, a parent pointer and two
/// `u16`s, rounded up to 8. An estimate: std's node layout is not a stable API.
const SET_NODE_BYTES: usize = 280;

fn from(entry: &Value) -> &str {
    entry["from"].as_str().unwrap_or_default()
}

/// `check` and `decode` of one protocol over a list of traces, in the benchmark group
/// `$group/<module>`. Each trace gets a fresh checker; `decode` starts from the line text.
macro_rules! bench_traces {
    ($c:expr, $group:expr, $module:ident, $traces:expr) => {{
        use agentwire_protocols::$module::machine::{Checker, Recorded};
        let traces: Vec<Vec<Value>> = $traces;
        let texts: Vec<Vec<(String, String)>> = traces
            .iter()
            .map(|t| {
                t.iter()
                    .map(|e| (from(e).to_owned(), e.to_string()))
                    .collect()
            })
            .collect();
        let decoded: Vec<Vec<Recorded>> = traces
            .iter()
            .map(|t| {
                t.iter()
                    .map(|e| {
                        Recorded::decode(from(e), e)
                            .expect("known sender")
                            .expect("valid message")
                    })
                    .collect()
            })
            .collect();
        let messages: usize = decoded.iter().map(Vec::len).sum();
        let mut group = $c.benchmark_group(format!("{}/{}", $group, stringify!($module)));
        group.throughput(Throughput::Elements(messages as u64));
        // One iteration of a long trace takes milliseconds: equal-sized samples, fewer of
        // them, keep a run within the measurement time.
        if traces.len() == 1 {
            group.sampling_mode(SamplingMode::Flat).sample_size(30);
        }
        group.bench_function(BenchmarkId::new("check", messages), |b| {
            b.iter(|| {
                for trace in black_box(&decoded) {
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
                        black_box(Recorded::decode(from, &entry));
                    }
                }
            })
        });
        group.finish();
    }};
}

/// Size, messages and live instances at the end of one long trace, for the stderr summary.
macro_rules! long_trace_line {
    ($module:ident, $trace:expr) => {{
        use agentwire_protocols::$module::machine::{Checker, Recorded};
        let trace: &[Value] = $trace;
        let bytes: usize = trace.iter().map(|e| e.to_string().len() + 1).sum();
        let mut checker = Checker::new();
        for e in trace {
            let m = Recorded::decode(from(e), e)
                .expect("known sender")
                .expect("valid message");
            checker.observe(m.as_message()).expect("valid trace");
        }
        format!(
            "  {:<16} {:>5} messages {:>9} bytes  {:>4} instances live at the end",
            stringify!($module),
            trace.len(),
            bytes,
            checker.live_instances()
        )
    }};
}

/// One line of the memory table: observes the prefix, confirms the live count, and adds up
/// what one open instance of `$inst` holds.
macro_rules! memory_line {
    ($module:ident, $inst:ident, $open:expr) => {{
        use agentwire_protocols::$module::machine::{Checker, Recorded, $inst};
        let o: &OpenInstances = $open;
        let mut checker = Checker::new();
        for e in &o.entries {
            let m = Recorded::decode(from(e), e)
                .expect("known sender")
                .expect("valid message");
            checker.observe(m.as_message()).expect("valid prefix");
        }
        let live = checker.live_instances();
        assert_eq!(live, o.live, "{}: live instances", o.machine);
        // The map stores (String, instance) pairs plus one control byte per bucket.
        let slot = size_of::<(String, $inst)>() + 1;
        let per = |total: usize| total as f64 / o.count as f64;
        let sets = per(o.sets);
        let total =
            slot as f64 + per(o.key_bytes) + per(o.remembered_bytes) + sets * SET_NODE_BYTES as f64;
        format!(
            "  {:<24} {:<17} {:>5} {:>5} {:>5} {:>5} {:>6.1} {:>6.1} {:>5.1} {:>7.0}",
            o.machine,
            o.state,
            o.count,
            live,
            size_of::<$inst>(),
            slot,
            per(o.key_bytes),
            per(o.remembered_bytes),
            sets,
            total
        )
    }};
}

fn report(long: &[(&str, &[Value])]) {
    use agentwire_protocols as p;
    let mut lines = vec!["long traces:".to_owned()];
    for (module, trace) in long {
        lines.push(match *module {
            "helix_zed" => long_trace_line!(helix_zed, trace),
            "agentloop" => long_trace_line!(agentloop, trace),
            "external_agents" => long_trace_line!(external_agents, trace),
            "eca" => long_trace_line!(eca, trace),
            _ => long_trace_line!(coven, trace),
        });
    }
    lines.push(format!(
        "live memory per open instance ({OPEN} open; bytes; `est.` = map slot + key + \
         remembered strings + {SET_NODE_BYTES} per non-empty set, before allocator rounding \
         and the map's spare buckets):"
    ));
    lines.push(format!(
        "  {:<24} {:<17} {:>5} {:>5} {:>5} {:>5} {:>6} {:>6} {:>5} {:>7}",
        "machine", "state", "open", "live", "inst", "slot", "key", "strs", "sets", "est."
    ));
    let eca = long_traces::eca_open(OPEN);
    let coven = long_traces::coven_open(OPEN);
    lines.push(memory_line!(
        helix_zed,
        SessionMachineInstance,
        &long_traces::helix_zed_open(OPEN)
    ));
    lines.push(memory_line!(
        external_agents,
        SessionMachineInstance,
        &long_traces::external_agents_open(OPEN)
    ));
    lines.push(memory_line!(eca, RequestMachineInstance, &eca.request));
    lines.push(memory_line!(eca, ChatMachineInstance, &eca.chat));
    lines.push(memory_line!(eca, ToolCallMachineInstance, &eca.tool_call));
    lines.push(memory_line!(eca, ReasonMachineInstance, &eca.reason));
    lines.push(memory_line!(eca, McpServerMachineInstance, &eca.mcp_server));
    lines.push(memory_line!(coven, ToolMachineInstance, &coven.tool));
    lines.push(memory_line!(
        coven,
        ToolApprovalMachineInstance,
        &coven.tool_approval
    ));
    lines.push(memory_line!(
        coven,
        InjectionMachineInstance,
        &coven.injection
    ));
    lines.push(memory_line!(
        coven,
        PackToolMachineInstance,
        &coven.pack_tool
    ));
    lines.push(format!(
        "per-connection machines (one slot each, no key): agentloop turn {} / context_info {} / \
         compaction {}, external_agents connection {}, eca lifecycle {}, coven stream {} \
         (coven request, at most one open: {})",
        size_of::<p::agentloop::machine::TurnMachineInstance>(),
        size_of::<p::agentloop::machine::ContextInfoMachineInstance>(),
        size_of::<p::agentloop::machine::CompactionMachineInstance>(),
        size_of::<p::external_agents::machine::ConnectionMachineInstance>(),
        size_of::<p::eca::machine::LifecycleMachineInstance>(),
        size_of::<p::coven::machine::StreamMachineInstance>(),
        size_of::<p::coven::machine::RequestMachineInstance>(),
    ));
    eprintln!("{}", lines.join("\n"));
}

fn all(c: &mut Criterion) {
    let helix_zed = long_traces::helix_zed();
    let agentloop = long_traces::agentloop();
    let external_agents = long_traces::external_agents();
    let eca = long_traces::eca();
    let coven = long_traces::coven();
    report(&[
        ("helix_zed", &helix_zed),
        ("agentloop", &agentloop),
        ("external_agents", &external_agents),
        ("eca", &eca),
        ("coven", &coven),
    ]);

    bench_traces!(c, "checker", helix_zed, vec![helix_zed]);
    bench_traces!(c, "checker", agentloop, vec![agentloop]);
    bench_traces!(c, "checker", external_agents, vec![external_agents]);
    bench_traces!(c, "checker", eca, vec![eca]);
    bench_traces!(c, "checker", coven, vec![coven]);

    bench_traces!(
        c,
        "checker_short",
        helix_zed,
        agentwire_tests::traces::accepted_traces("helix_zed")
    );
    bench_traces!(
        c,
        "checker_short",
        agentloop,
        agentwire_tests::traces::accepted_traces("agentloop")
    );
    bench_traces!(
        c,
        "checker_short",
        external_agents,
        agentwire_tests::traces::accepted_traces("external_agents")
    );
    bench_traces!(
        c,
        "checker_short",
        eca,
        agentwire_tests::traces::accepted_traces("eca")
    );
    bench_traces!(
        c,
        "checker_short",
        coven,
        agentwire_tests::traces::accepted_traces("coven")
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = all
}
criterion_main!(benches);
