//! One suite, two backends: every store test runs against SQLite (a file) and PostgreSQL (a
//! real server from the distribution's packages, one per test process, a database per
//! test), both opened by location through `open_session_store` / `open_keyed_store` the way
//! the examples do. "Two instances" are two stores opened on the same location.

use std::sync::{Arc, Barrier};
use std::time::Duration;

use agentwire_tests::postgres;
use agentwire_transport::store::sessions::{SessionRecord, SessionStore};
use agentwire_transport::store::{FeedEvent, KeyedStore, open_keyed_store, open_session_store};
use serde_json::json;

/// Where one test's store lives, and how to open another instance of it.
struct Backend {
    location: String,
    _dir: Option<tempfile::TempDir>,
}

impl Backend {
    fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let location = dir.path().join("store.sqlite").display().to_string();
        Self {
            location,
            _dir: Some(dir),
        }
    }

    fn postgres() -> Self {
        Self {
            location: postgres::server().database(),
            _dir: None,
        }
    }

    fn sessions(&self) -> Arc<dyn SessionStore> {
        open_session_store(&self.location).unwrap()
    }

    fn keyed(&self) -> Arc<dyn KeyedStore> {
        open_keyed_store(&self.location).unwrap()
    }
}

macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn sqlite() {
                super::$name(&super::Backend::sqlite());
            }
            #[test]
            fn postgres() {
                super::$name(&super::Backend::postgres());
            }
        }
    )*};
}

both_backends!(
    sessions_are_stored_deleted_and_counted,
    the_log_keeps_append_order_and_reads_from_a_position,
    insert_new_and_revive_have_one_winner_across_instances,
    keyed_mappings_and_states,
    advance_is_a_compare_and_set_across_instances,
    state_survives_reopening,
    idle_sessions_expire_and_active_ones_stay,
);

fn record(id: &str, owner: &str, deleted: bool) -> SessionRecord {
    SessionRecord {
        session_id: id.into(),
        owner: owner.into(),
        deleted,
        created_at: "2026-01-01T00:00:00.000Z".into(),
    }
}

fn sessions_are_stored_deleted_and_counted(b: &Backend) {
    let store = b.sessions();
    assert_eq!(store.session("S-1").unwrap(), None);
    store.put_session(&record("S-1", "a", false)).unwrap();
    store.put_session(&record("S-2", "b", false)).unwrap();
    assert_eq!(store.live_sessions().unwrap(), 2);
    assert_eq!(
        store.session("S-1").unwrap(),
        Some(record("S-1", "a", false))
    );
    assert!(store.delete_session("S-1").unwrap());
    assert!(!store.delete_session("S-1").unwrap(), "already deleted");
    assert!(!store.delete_session("nope").unwrap());
    assert_eq!(store.live_sessions().unwrap(), 1);
    assert!(store.session("S-1").unwrap().unwrap().deleted);
    // A put replaces the record (a revival through the plain call).
    store.put_session(&record("S-1", "a", false)).unwrap();
    assert_eq!(store.live_sessions().unwrap(), 2);
}

/// Sessions with no activity for the idle time expire (marked deleted, returned once);
/// an append or a touch counts as activity, and a revival makes a session live again.
fn idle_sessions_expire_and_active_ones_stay(b: &Backend) {
    let store = b.sessions();
    for id in ["E-1", "E-2", "E-3"] {
        assert!(store.insert_new(&record(id, "a", false)).unwrap());
    }
    let idle = std::time::Duration::from_millis(300);
    assert_eq!(store.expire_idle(idle).unwrap(), Vec::<String>::new());
    std::thread::sleep(std::time::Duration::from_millis(200));
    store.append("E-2", &serde_json::json!({"n": 1})).unwrap();
    store.touch(&["E-3".to_owned()]).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(store.expire_idle(idle).unwrap(), vec!["E-1".to_owned()]);
    assert!(store.session("E-1").unwrap().unwrap().deleted);
    assert_eq!(store.live_sessions().unwrap(), 2);
    assert_eq!(store.expire_idle(idle).unwrap(), Vec::<String>::new());
    assert!(store.revive("E-1", "a").unwrap());
    assert_eq!(store.expire_idle(idle).unwrap(), Vec::<String>::new());
    assert_eq!(store.log("E-2").unwrap().len(), 1, "the log is kept");
}

fn the_log_keeps_append_order_and_reads_from_a_position(b: &Backend) {
    let store = b.sessions();
    let other = b.sessions();
    store.put_session(&record("L-1", "a", false)).unwrap();
    store.put_session(&record("L-2", "a", false)).unwrap();
    assert_eq!(store.last_seq("L-1").unwrap(), 0);
    let mut seqs = Vec::new();
    for i in 0..10 {
        // Alternating instances and sessions: each session's order is its append order.
        let s = if i % 2 == 0 { &store } else { &other };
        seqs.push(s.append("L-1", &json!({"n": i})).unwrap());
        s.append("L-2", &json!({"other": i})).unwrap();
    }
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let log = other.log("L-1").unwrap();
    let ns: Vec<i64> = log.iter().map(|e| e.value["n"].as_i64().unwrap()).collect();
    assert_eq!(ns, (0..10).collect::<Vec<_>>());
    assert_eq!(log.iter().map(|e| e.seq).collect::<Vec<_>>(), seqs);
    assert_eq!(store.last_seq("L-1").unwrap(), seqs[9]);
    let tail = store.log_after("L-1", seqs[6]).unwrap();
    assert_eq!(tail.len(), 3);
    assert_eq!(tail[0].value["n"], 7);
    assert!(store.log_after("L-1", seqs[9]).unwrap().is_empty());
    // Values come back as stored, whatever they hold.
    let odd = json!({"text": "line\nbreak \u{1F600} \"quoted\"", "nested": [1, {"a": null}]});
    store.append("L-2", &odd).unwrap();
    assert_eq!(store.log("L-2").unwrap().last().unwrap().value, odd);
    assert!(store.append("missing", &json!(1)).is_err());
}

fn insert_new_and_revive_have_one_winner_across_instances(b: &Backend) {
    let stores: Vec<Arc<dyn SessionStore>> = (0..4).map(|_| b.sessions()).collect();
    let barrier = Arc::new(Barrier::new(16));
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let store = stores[i % stores.len()].clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                let owner = format!("owner-{i}");
                store.insert_new(&record("R-1", &owner, false)).unwrap()
            })
        })
        .collect();
    let wins = handles
        .into_iter()
        .map(|h| h.join().unwrap())
        .filter(|w| *w)
        .count();
    assert_eq!(wins, 1);
    let owner = stores[0].session("R-1").unwrap().unwrap().owner;
    // Revive: only the owner, only a deleted session, only once.
    assert!(
        !stores[1].revive("R-1", &owner).unwrap(),
        "live: nothing to revive"
    );
    assert!(stores[2].delete_session("R-1").unwrap());
    assert!(!stores[3].revive("R-1", "someone-else").unwrap());
    let barrier = Arc::new(Barrier::new(8));
    let revived = (0..8)
        .map(|i| {
            let (store, barrier, owner) = (stores[i % 4].clone(), barrier.clone(), owner.clone());
            std::thread::spawn(move || {
                barrier.wait();
                store.revive("R-1", &owner).unwrap()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .filter(|w| *w)
        .count();
    assert_eq!(revived, 1);
    assert!(!stores[0].session("R-1").unwrap().unwrap().deleted);
}

fn keyed_mappings_and_states(b: &Backend) {
    let store = b.keyed();
    assert_eq!(store.get("ses_1").unwrap(), None);
    store.put("ses_1", "thread-a").unwrap();
    store.put("ses_1", "thread-b").unwrap();
    assert_eq!(store.get("ses_1").unwrap().as_deref(), Some("thread-b"));
    for key in ["req-3", "req-1", "req-2"] {
        store.set_state("ses_1", key, "waiting").unwrap();
    }
    store.set_state("ses_2", "req-9", "waiting").unwrap();
    // Setting a key again keeps its place in the order.
    store.set_state("ses_1", "req-3", "waiting").unwrap();
    assert_eq!(
        store.keys_in("ses_1", "waiting").unwrap(),
        ["req-3", "req-1", "req-2"]
    );
    assert!(store.advance("req-1", "waiting", "complete").unwrap());
    assert_eq!(
        store.keys_in("ses_1", "waiting").unwrap(),
        ["req-3", "req-2"]
    );
    assert_eq!(store.keys_in("ses_1", "complete").unwrap(), ["req-1"]);
    assert_eq!(store.state("req-1").unwrap().as_deref(), Some("complete"));
    assert_eq!(store.state("unknown").unwrap(), None);
}

fn advance_is_a_compare_and_set_across_instances(b: &Backend) {
    let first = b.keyed();
    first.set_state("s", "r", "waiting").unwrap();
    let stores: Vec<Arc<dyn KeyedStore>> = (0..3).map(|_| b.keyed()).collect();
    let barrier = Arc::new(Barrier::new(12));
    let wins = (0..12)
        .map(|i| {
            let (store, barrier) = (stores[i % 3].clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let to = if i % 2 == 0 { "complete" } else { "error" };
                store.advance("r", "waiting", to).unwrap()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .filter(|w| *w)
        .count();
    assert_eq!(wins, 1);
    assert!(!first.advance("unknown", "waiting", "complete").unwrap());
    assert_ne!(first.state("r").unwrap().as_deref(), Some("waiting"));
}

fn state_survives_reopening(b: &Backend) {
    {
        let sessions = b.sessions();
        sessions.put_session(&record("P-1", "a", false)).unwrap();
        sessions.append("P-1", &json!({"text": "kept"})).unwrap();
        let keyed = b.keyed();
        keyed.put("ses", "thread").unwrap();
    }
    let sessions = b.sessions();
    assert_eq!(sessions.log("P-1").unwrap()[0].value["text"], "kept");
    assert_eq!(b.keyed().get("ses").unwrap().as_deref(), Some("thread"));
}

/// SQLite has no feed (one process owns the file); PostgreSQL's tells every instance what
/// any instance appended.
#[test]
fn only_a_shared_store_has_a_feed() {
    assert!(Backend::sqlite().sessions().feed().is_none());
}

#[test]
fn postgres_feed_reports_appends_of_another_instance() {
    let b = Backend::postgres();
    let (writer, reader) = (b.sessions(), b.sessions());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut feed = reader.feed().expect("postgres has a feed");
        // The listener reports its (re)connection first: from then on nothing is missed.
        let first = tokio::time::timeout(Duration::from_secs(10), feed.next()).await;
        assert_eq!(first.unwrap(), Some(FeedEvent::Resync));
        writer.put_session(&record("F-1", "a", false)).unwrap();
        let seqs: Vec<i64> = (0..3)
            .map(|i| writer.append("F-1", &json!({"n": i})).unwrap())
            .collect();
        for seq in seqs {
            let event = tokio::time::timeout(Duration::from_secs(10), feed.next()).await;
            assert_eq!(
                event.unwrap(),
                Some(FeedEvent::Appended {
                    session_id: "F-1".into(),
                    seq
                })
            );
        }
    });
}

/// Instances starting at once each apply the migrations or find them applied: none fails,
/// and the schema is there once.
#[test]
fn postgres_migrations_are_safe_for_instances_starting_at_once() {
    let url = postgres::server().database();
    let barrier = Arc::new(Barrier::new(8));
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                if i % 2 == 0 {
                    open_session_store(&url).map(drop)
                } else {
                    open_keyed_store(&url).map(drop)
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap().unwrap();
    }
    let store = open_session_store(&url).unwrap();
    store.put_session(&record("M-1", "a", false)).unwrap();
    assert_eq!(store.live_sessions().unwrap(), 1);
}

#[test]
fn a_postgres_url_that_reaches_no_server_is_an_error_not_a_panic() {
    let err = open_session_store("postgres://postgres@127.0.0.1:1/none")
        .err()
        .expect("nothing listens on port 1");
    assert!(err.to_string().contains("postgres"), "{err}");
}
