//! Callbacks per second through the external_agents agent server, on three stores in one
//! run: one instance on SQLite (the default), one instance on PostgreSQL, and two instances
//! on one PostgreSQL database (callbacks alternate between them, as behind a balancer).
//! Every instance has a web UI attached to the session that drains its broadcasts, so each
//! callback is stored, checked and broadcast (across instances too, for the pair). The
//! servers run in this process; PostgreSQL is the distribution's server, started for this
//! run (`agentwire_tests::postgres`). After the three, stderr gets callbacks/s (median
//! sample) and the ratios.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use agentwire_protocols::external_agents as proto;
use agentwire_protocols::skeletons::external_agents as sk;
use agentwire_transport::CheckMode;
use agentwire_transport::http_ws::{ServerConfig, ServerHandle};
use agentwire_transport::store::open_session_store;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tokio::runtime::Runtime;

/// Callbacks per measured iteration, posted by `CONCURRENCY` clients at once.
const BATCH: usize = 64;
const CONCURRENCY: usize = 8;
const SESSION: &str = "BENCH-1";
const AGENT: &str = "chat-agent";
const SETUPS: [&str; 3] = ["sqlite_1", "postgres_1", "postgres_2"];

static TIMES: Mutex<[Vec<Duration>; 3]> = Mutex::new([Vec::new(), Vec::new(), Vec::new()]);

fn median(slot: usize) -> Option<f64> {
    let mut times = TIMES.lock().unwrap()[slot].clone();
    times.sort();
    let t = times.get(times.len() / 2)?;
    Some(BATCH as f64 / t.as_secs_f64())
}

struct Instance {
    base: String,
    _handle: ServerHandle,
}

async fn instance(location: &str) -> Instance {
    let agents = [proto::AgentConfig::Chat(proto::ChatAgentConfig {
        agent_id: AGENT.into(),
        display_name: "Chat Agent".into(),
        description: None,
    })];
    let config = ServerConfig {
        owners: sk::owners(&agents),
        limits: Default::default(),
        mode: CheckMode::Enforce,
        guard: Default::default(),
    };
    let store = open_session_store(location).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = sk::AgentServer::new(config, store).serve(listener).unwrap();
    Instance {
        base,
        _handle: handle,
    }
}

/// A web UI attached to the session that reads (and drops) every broadcast.
async fn drain(inst: &Instance) {
    let ws = format!("{}/ws", inst.base.replacen("http", "ws", 1));
    let mut ui = sk::WebUiClient::connect(&ws, CheckMode::Off).await.unwrap();
    ui.hello(proto::HelloMessage {
        session_id: proto::SessionId(SESSION.into()),
    })
    .await
    .unwrap();
    tokio::spawn(async move { while let Some(Ok(_)) = ui.next().await {} });
}

/// Starts the instances of one setup on `location`, with the session and the UIs.
async fn setup(location: &str, count: usize) -> Vec<Instance> {
    let mut instances = Vec::new();
    for _ in 0..count {
        let inst = instance(location).await;
        let created = sk::WebUiHttp::new(&inst.base)
            .create_session(&proto::CreateSessionRequest {
                agent_id: AGENT.into(),
                session_id: Some(proto::SessionId(SESSION.into())),
            })
            .await
            .unwrap();
        assert!(!matches!(created, sk::CreateSessionReply::Other(_)));
        drain(&inst).await;
        instances.push(inst);
    }
    instances
}

/// Posts `BATCH` callbacks, `CONCURRENCY` at a time, spread over the instances.
async fn batch(clients: &[sk::ExternalSystemHttp]) -> Duration {
    let start = Instant::now();
    let per = BATCH / CONCURRENCY;
    let tasks = (0..CONCURRENCY).map(|w| async move {
        for i in 0..per {
            let client = &clients[(w + i) % clients.len()];
            let reply = client.inject_message(SESSION, "a reply").await.unwrap();
            assert!(matches!(reply, sk::InjectMessageReply::Status200(_)));
        }
    });
    futures_util::future::join_all(tasks).await;
    start.elapsed()
}

fn benches(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = dir.path().join("bench.sqlite").display().to_string();
    let pg = agentwire_tests::postgres::server();
    let locations = [(sqlite, 1), (pg.database(), 1), (pg.database(), 2)];
    let mut group = c.benchmark_group("pg_scale");
    group.throughput(Throughput::Elements(BATCH as u64));
    for (slot, (location, count)) in locations.iter().enumerate() {
        // The servers live until the end of the run.
        let instances = rt.block_on(setup(location, *count));
        let clients: Vec<_> = instances
            .iter()
            .map(|i| sk::ExternalSystemHttp::new(&i.base))
            .collect();
        group.bench_function(SETUPS[slot], |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let took = rt.block_on(batch(&clients));
                    TIMES.lock().unwrap()[slot].push(took);
                    total += took;
                }
                total
            })
        });
    }
    group.finish();
    let rates: Vec<Option<f64>> = (0..3).map(median).collect();
    for (name, rate) in SETUPS.iter().zip(&rates) {
        if let Some(r) = rate {
            eprintln!("pg_scale/{name}: {r:.0} callbacks/s (median sample)");
        }
    }
    if let [Some(s), Some(p1), Some(p2)] = rates[..] {
        eprintln!(
            "pg_scale: postgres_1/sqlite_1 = {:.2}, postgres_2/postgres_1 = {:.2}",
            p1 / s,
            p2 / p1
        );
    }
}

criterion_group! {
    name = pg_scale;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(pg_scale);
