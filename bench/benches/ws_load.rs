//! WebSocket load: 200 concurrent helix_zed sessions, one connection each, each streaming
//! 1,000 `message_added` snapshots (content growing one character per update) between a
//! `context_created` and a `message_completed`.
//!
//! `ws_load/skeleton` runs the generated Zed server and Helix client: every frame is
//! encoded from typed messages, decoded, validated and checked (enforce mode) on both ends.
//! `ws_load/skeleton_limits_off` runs the same skeletons with every hardening limit
//! effectively off through the public config (no idle timeout, day-long handshake
//! deadlines, caps far above the load), so the difference is what the timeouts and caps
//! cost. `ws_load/plain` sends the same frames through bare tokio-tungstenite on both ends,
//! with no parsing or checking: the ceiling of the socket layer on this machine. All run in
//! this process on one runtime; each client also counts its frames, so a lost or extra
//! frame fails the run. After them, stderr gets messages/s (median sample) and the ratios,
//! and the defaults against limits off once more as the median of alternating pairs, which
//! a shared machine's drifting load cannot bias towards either.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use agentwire_protocols::helix_zed as hz;
use agentwire_protocols::skeletons::helix_zed as skel;
use agentwire_transport::ws::{ClientConfig, ServerConfig};
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio_tungstenite::tungstenite::Message;

const SESSIONS: usize = 200;
const UPDATES: usize = 1_000;
/// Frames one session receives: context_created, the updates, message_completed.
const FRAMES: usize = UPDATES + 2;

/// Alternating pairs of the limits comparison run after the criterion group.
const PAIRS: usize = 6;

/// Slots of [`TIMES`].
const DEFAULTS: usize = 0;
const PLAIN: usize = 1;
const LIMITS_OFF: usize = 2;

/// Every wall time measured per variant, for the closing summary.
static TIMES: Mutex<[Vec<Duration>; 3]> = Mutex::new([Vec::new(), Vec::new(), Vec::new()]);

fn record(slot: usize, took: Duration) {
    TIMES.lock().unwrap()[slot].push(took);
}

/// The median of the recorded runs (the machine is shared: the median resists the odd
/// run that lost its core to another process).
fn median(slot: usize) -> Option<Duration> {
    let mut times = TIMES.lock().unwrap()[slot].clone();
    times.sort();
    times.get(times.len() / 2).copied()
}

fn chat(session: &str) -> hz::ChatMessage {
    hz::ChatMessage {
        data: hz::ChatMessageData {
            helix_session_id: session.to_owned(),
            acp_thread_id: None,
            message: "go".to_owned(),
            request_id: format!("req-{session}"),
        },
    }
}

/// The Zed side under test: a context, then the snapshots, then completion.
struct StreamingZed;

impl skel::Handler for StreamingZed {
    async fn chat_message(&self, out: &skel::Sender, msg: hz::ChatMessage) {
        let session = msg.data.helix_session_id;
        let thread = format!("thread-{session}");
        let created = hz::ContextCreatedEvent {
            session_id: session.clone(),
            data: hz::ContextCreatedData {
                acp_thread_id: thread.clone(),
                helix_session_id: session.clone(),
            },
        };
        if out.context_created(created).await.is_err() {
            return;
        }
        for i in 1..=UPDATES {
            let added = hz::MessageAddedEvent {
                session_id: session.clone(),
                data: hz::MessageAddedData {
                    acp_thread_id: thread.clone(),
                    message_id: "m1".to_owned(),
                    role: hz::MessageAddedDataRole::Assistant,
                    content: "x".repeat(i),
                    timestamp: 1_700_000_000,
                },
            };
            if out.message_added(added).await.is_err() {
                return;
            }
        }
        let done = hz::MessageCompletedEvent {
            session_id: session,
            data: hz::MessageCompletedData {
                acp_thread_id: thread,
                message_id: "m1".to_owned(),
                request_id: msg.data.request_id,
            },
        };
        let _ = out.message_completed(done).await;
    }
}

/// Server and client configs with the safe defaults (`true`) or with every timeout and cap
/// the hardening added effectively off.
fn configs(limits: bool) -> (ServerConfig, ClientConfig) {
    if limits {
        let server = ServerConfig {
            max_connections: SESSIONS * 2,
            ..ServerConfig::default()
        };
        return (server, ClientConfig::default());
    }
    const DAY: Duration = Duration::from_secs(24 * 60 * 60);
    const HUGE: usize = 1 << 30;
    let server = ServerConfig {
        max_frame_bytes: HUGE,
        max_connections: HUGE,
        max_sessions: HUGE,
        max_in_flight: HUGE,
        handshake_timeout: DAY,
        max_handshakes: HUGE,
        idle_timeout: None,
        ..ServerConfig::default()
    };
    let client = ClientConfig {
        max_frame_bytes: HUGE,
        max_sessions: HUGE,
        handshake_timeout: DAY,
        ..ClientConfig::default()
    };
    (server, client)
}

async fn run_skeleton(limits: bool) -> Duration {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (config, client_config) = configs(limits);
    let server = skel::serve(listener, StreamingZed, config).await.unwrap();
    let url = server.url();
    let start = Instant::now();
    let clients = (0..SESSIONS).map(|s| {
        let url = url.clone();
        let client_config = client_config.clone();
        tokio::spawn(async move {
            let mut client = skel::Client::connect(&url, client_config).await.unwrap();
            client
                .chat_message(chat(&format!("ses_{s}")))
                .await
                .unwrap();
            let mut frames = 0;
            let mut last_len = 0;
            while let Some(ev) = client.next().await {
                frames += 1;
                match ev.expect("valid, in-sequence event") {
                    hz::ZedEvent::MessageAdded(m) => {
                        assert_eq!(m.data.content.len(), last_len + 1, "lost or reordered");
                        last_len += 1;
                    }
                    hz::ZedEvent::MessageCompleted(_) => break,
                    hz::ZedEvent::ContextCreated(_) => {}
                }
            }
            assert_eq!(frames, FRAMES);
            client.close().await;
        })
    });
    let clients: Vec<_> = clients.collect();
    for c in clients {
        c.await.unwrap();
    }
    let took = start.elapsed();
    server.shutdown().await.unwrap();
    took
}

/// The same frames as the skeleton sends, formatted directly.
fn plain_frames(session: &str) -> impl Iterator<Item = String> + use<'_> {
    let thread = format!("thread-{session}");
    let created = format!(
        r#"{{"session_id":"{session}","event_type":"context_created","data":{{"acp_thread_id":"{thread}","helix_session_id":"{session}"}}}}"#
    );
    let done = format!(
        r#"{{"session_id":"{session}","event_type":"message_completed","data":{{"acp_thread_id":"{thread}","message_id":"m1","request_id":"req-{session}"}}}}"#
    );
    let updates = (1..=UPDATES).map(move |i| {
        format!(
            r#"{{"session_id":"{session}","event_type":"message_added","data":{{"acp_thread_id":"thread-{session}","message_id":"m1","role":"assistant","content":"{}","timestamp":1700000000}}}}"#,
            "x".repeat(i)
        )
    });
    std::iter::once(created)
        .chain(updates)
        .chain(std::iter::once(done))
}

async fn run_plain() -> Duration {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        for _ in 0..SESSIONS {
            let (tcp, _) = listener.accept().await.unwrap();
            tokio::spawn(async move {
                let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
                // The session id is read without parsing: the frame is known.
                let Some(Ok(Message::Text(first))) = ws.next().await else {
                    return;
                };
                let text = first.as_str();
                let start = text.find("ses_").unwrap_or(0);
                let end = text[start..].find('"').map_or(text.len(), |e| start + e);
                let session = text[start..end].to_owned();
                for frame in plain_frames(&session) {
                    if ws.feed(Message::text(frame)).await.is_err() {
                        return;
                    }
                }
                let _ = ws.flush().await;
                let _ = ws.next().await;
            });
        }
    });
    let url = format!("ws://{addr}/");
    let start = Instant::now();
    let clients: Vec<_> = (0..SESSIONS)
        .map(|s| {
            let url = url.clone();
            tokio::spawn(async move {
                let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
                let msg = hz::HelixMessage::ChatMessage(chat(&format!("ses_{s}")));
                ws.send(Message::text(msg.to_json())).await.unwrap();
                let mut frames = 0;
                while frames < FRAMES {
                    match ws.next().await {
                        Some(Ok(Message::Text(_))) => frames += 1,
                        other => panic!("plain client: {other:?}"),
                    }
                }
                let _ = ws.close(None).await;
            })
        })
        .collect();
    for c in clients {
        c.await.unwrap();
    }
    let took = start.elapsed();
    server.await.unwrap();
    took
}

fn ws_load(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let mut group = c.benchmark_group("ws_load");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(1));
    group.measurement_time(Duration::from_secs(1));
    group.throughput(Throughput::Elements((SESSIONS * UPDATES) as u64));
    let mut timed = |name: &str, slot: usize, run: &dyn Fn() -> Duration| {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        let took = run();
                        record(slot, took);
                        took
                    })
                    .sum()
            })
        });
    };
    timed("skeleton", DEFAULTS, &|| rt.block_on(run_skeleton(true)));
    timed("skeleton_limits_off", LIMITS_OFF, &|| {
        rt.block_on(run_skeleton(false))
    });
    timed("plain", PLAIN, &|| rt.block_on(run_plain()));
    group.finish();
    summary(&rt);
}

/// Prints the rates and ratios, then runs the limits comparison as alternating pairs.
fn summary(rt: &Runtime) {
    let rate = |d: Duration| (SESSIONS * UPDATES) as f64 / d.as_secs_f64();
    if let (Some(skeleton), Some(off), Some(plain)) =
        (median(DEFAULTS), median(LIMITS_OFF), median(PLAIN))
    {
        eprintln!(
            "ws_load: {SESSIONS} sessions x {UPDATES} message_added: skeleton {:.0} msg/s, plain tokio-tungstenite {:.0} msg/s, ratio {:.2}",
            rate(skeleton),
            rate(plain),
            rate(skeleton) / rate(plain)
        );
        eprintln!(
            "ws_load: skeleton with default limits {:.0} msg/s, limits off {:.0} msg/s, ratio {:.3}",
            rate(skeleton),
            rate(off),
            rate(skeleton) / rate(off)
        );
    }
    // Each pair runs both, in alternating order, so neither side always goes first.
    let mut ratios: Vec<f64> = (0..PAIRS)
        .map(|i| {
            let (on, off) = if i % 2 == 0 {
                let on = rt.block_on(run_skeleton(true));
                (on, rt.block_on(run_skeleton(false)))
            } else {
                let off = rt.block_on(run_skeleton(false));
                (rt.block_on(run_skeleton(true)), off)
            };
            off.as_secs_f64() / on.as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    eprintln!(
        "ws_load: default limits / limits off, throughput ratio per alternating pair: median {:.3} (min {:.3}, max {:.3}, {PAIRS} pairs)",
        ratios[PAIRS / 2],
        ratios[0],
        ratios[PAIRS - 1]
    );
}

criterion_group!(benches, ws_load);
criterion_main!(benches);
