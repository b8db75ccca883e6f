//! A queue of webhook notifications delivered one after another by one background task, so a
//! receiver gets them in the order they were queued; a transient failure is tried again
//! after a growing pause, a final one (a refused address, a redirect, a 4xx) is not. The
//! queue is bounded: a notification that finds it full is dropped and counted, so a slow
//! receiver cannot make its sender hold memory without end.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::HeaderMap;
use tokio::sync::mpsc;

use super::{DeliveryError, Policy, deliver};

/// Tries of one notification, the first included.
const ATTEMPTS: u32 = 3;
/// The pause before the second try; doubled before each later one.
const FIRST_PAUSE: Duration = Duration::from_millis(200);

/// One notification: a JSON body for `url`, with `headers` (authentication, a content type).
#[derive(Debug, Clone)]
pub struct Notification {
    pub url: String,
    pub headers: HeaderMap,
    pub body: serde_json::Value,
}

/// What the outbox did so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Notifications the receiver acknowledged with a 2xx.
    pub delivered: u64,
    /// Notifications given up on, after their last try.
    pub failed: u64,
    /// Notifications that found the queue full.
    pub dropped: u64,
    /// Why the latest failed one failed.
    pub last_error: Option<String>,
}

/// The sending end of the queue; clones share it. The delivering task ends once every
/// clone is dropped and the queue is empty.
#[derive(Debug, Clone)]
pub struct Outbox {
    queue: mpsc::Sender<Notification>,
    stats: Arc<Mutex<Stats>>,
}

impl Outbox {
    /// An outbox holding at most `capacity` waiting notifications, delivering under
    /// `policy`; its task runs on the current tokio runtime.
    pub fn start(policy: Policy, capacity: usize) -> Self {
        let (queue, mut rx) = mpsc::channel::<Notification>(capacity.max(1));
        let stats = Arc::new(Mutex::new(Stats::default()));
        let shared = Arc::clone(&stats);
        tokio::spawn(async move {
            while let Some(n) = rx.recv().await {
                let outcome = deliver_with_retries(&n, policy).await;
                let mut s = shared.lock().unwrap_or_else(|p| p.into_inner());
                match outcome {
                    Ok(()) => s.delivered += 1,
                    Err(e) => {
                        tracing::warn!(url = %n.url, error = %e, "webhook notification not delivered");
                        s.failed += 1;
                        s.last_error = Some(e.to_string());
                    }
                }
            }
        });
        Outbox { queue, stats }
    }

    /// Queues `n`; `false` when the queue is full or closed and `n` was dropped.
    pub fn send(&self, n: Notification) -> bool {
        let queued = self.queue.try_send(n).is_ok();
        if !queued {
            self.stats.lock().unwrap_or_else(|p| p.into_inner()).dropped += 1;
        }
        queued
    }

    /// The counts so far.
    pub fn stats(&self) -> Stats {
        self.stats.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Delivers `n`, trying a transient failure again up to [`ATTEMPTS`] times in all.
async fn deliver_with_retries(n: &Notification, policy: Policy) -> Result<(), DeliveryError> {
    let mut pause = FIRST_PAUSE;
    let mut tries = 1;
    loop {
        match deliver(&n.url, n.headers.clone(), &n.body, policy).await {
            Err(e) if e.is_transient() && tries < ATTEMPTS => {
                tokio::time::sleep(pause).await;
                pause *= 2;
                tries += 1;
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A receiver answering `replies` in turn, one per connection; what it was sent.
    async fn receiver(replies: Vec<&'static str>) -> (String, mpsc::Receiver<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(async move {
            for reply in replies {
                let (mut s, _) = listener.accept().await.unwrap();
                let _ = tx.send(read_request(&mut s).await).await;
                let _ = s.write_all(reply.as_bytes()).await;
            }
        });
        (url, rx)
    }

    /// One request's body, read to its `Content-Length`.
    async fn read_request(s: &mut tokio::net::TcpStream) -> String {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let text = String::from_utf8_lossy(&buf).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                    })
                    .unwrap_or(0);
                if body.len() >= length {
                    return body.to_owned();
                }
            }
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => return String::new(),
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
    }

    async fn settled(outbox: &Outbox, total: u64) -> Stats {
        for _ in 0..600 {
            let s = outbox.stats();
            if s.delivered + s.failed >= total {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the outbox did not settle: {:?}", outbox.stats());
    }

    fn note(url: &str, n: u64) -> Notification {
        Notification {
            url: url.to_owned(),
            headers: HeaderMap::new(),
            body: serde_json::json!({ "n": n }),
        }
    }

    #[tokio::test]
    async fn in_order_with_a_transient_failure_tried_again() {
        let busy = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
        let ok = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n";
        let (url, mut seen) = receiver(vec![busy, ok, ok]).await;
        let outbox = Outbox::start(Policy::local(), 8);
        assert!(outbox.send(note(&url, 1)));
        assert!(outbox.send(note(&url, 2)));
        let stats = settled(&outbox, 2).await;
        assert_eq!((stats.delivered, stats.failed), (2, 0));
        let bodies = [
            seen.recv().await.unwrap(),
            seen.recv().await.unwrap(),
            seen.recv().await.unwrap(),
        ];
        assert_eq!(bodies, [r#"{"n":1}"#, r#"{"n":1}"#, r#"{"n":2}"#]);
    }

    #[tokio::test]
    async fn a_private_target_is_final_and_a_full_queue_drops() {
        let outbox = Outbox::start(Policy::default(), 1);
        assert!(outbox.send(note("https://127.0.0.1:9/hook", 1)));
        let stats = settled(&outbox, 1).await;
        assert_eq!((stats.delivered, stats.failed), (0, 1));
        assert!(
            stats
                .last_error
                .as_deref()
                .unwrap_or("")
                .contains("not a public address"),
            "{stats:?}"
        );
        // A queue of one, its task busy on a receiver that never answers: the third waits
        // for room that does not come.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let slow = Outbox::start(Policy::local(), 1);
        assert!(slow.send(note(&url, 1)));
        let _held = listener.accept().await.unwrap();
        assert!(slow.send(note(&url, 2)));
        assert!(!slow.send(note(&url, 3)));
        assert_eq!(slow.stats().dropped, 1);
    }
}
