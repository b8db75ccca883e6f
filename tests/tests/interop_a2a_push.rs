//! A2A push notifications end to end (specification 3.1.7, 4.3.3, 13.2): our agent, given
//! the explicit local webhook policy, POSTs every update of a task to the webhook registered
//! for it (with the message that opened the task, or later by `CreateTaskPushNotificationConfig`)
//! as ProtoJSON `StreamResponse`s of the A2A media type, in the order a stream carries them,
//! with the config's credentials and token; a receiver in the test checks each through the
//! task-lifecycle checker. With the default policy the same webhooks are refused by the SSRF
//! guard (plain `http`, a loopback address) and the receiver gets nothing.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentwire_examples::a2a::{PushStats, WebhookPolicy};
use agentwire_protocols::a2a::machine::{Checker, Message as Observed};
use agentwire_protocols::a2a::{
    AuthenticationInfo, CancelTaskRequest, SendMessageConfiguration, SendMessageRequest,
    SendMessageResponse, StreamResponse, Task, TaskPushNotificationConfig, send_message_response,
};
use agentwire_protocols::skeletons::a2a::JSONRPC_HTTP;
use agentwire_transport::grpc_jsonrpc::Client;
use agentwire_transport::tokio;
use agentwire_transport::tokio::io::{AsyncReadExt, AsyncWriteExt};
use serde_json::Value;

use super::interop_a2a_jsonrpc::{kind, send, serve_agent_with};

/// How long a test waits for notifications to arrive.
const LIMIT: Duration = Duration::from_secs(60);

/// One notification as the receiver got it.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    /// Header names in lower case.
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) body: Value,
}

impl Received {
    /// The body read as the stream response it must be.
    pub(crate) fn update(&self) -> StreamResponse {
        serde_json::from_value(self.body.clone())
            .unwrap_or_else(|e| panic!("a notification is a StreamResponse: {e}: {}", self.body))
    }
}

/// A webhook on loopback answering every POST with 204 and keeping what it was sent.
pub(crate) struct Receiver {
    pub(crate) url: String,
    seen: Arc<Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Receiver {
    pub(crate) async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&seen);
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                // One request per connection: the agent's deliveries open one each.
                if let Some(received) = read_post(&mut socket).await {
                    kept.lock().unwrap().push(received);
                }
                let ok =
                    "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
                let _ = socket.write_all(ok.as_bytes()).await;
            }
        });
        Receiver { url, seen, task }
    }

    /// What it got so far.
    pub(crate) fn seen(&self) -> Vec<Received> {
        self.seen.lock().unwrap().clone()
    }

    /// The first `n` notifications, once they arrived.
    pub(crate) async fn wait_for(&self, n: usize) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + LIMIT;
        loop {
            let seen = self.seen();
            if seen.len() >= n {
                return seen;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{n} notifications expected, {} arrived: {seen:?}",
                seen.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// One HTTP request: its headers and JSON body (read to its `Content-Length`, 5 s at most).
async fn read_post(socket: &mut tokio::net::TcpStream) -> Option<Received> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).into_owned();
            let headers: BTreeMap<String, String> = head
                .lines()
                .skip(1)
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                .collect();
            let length: usize = headers.get("content-length")?.parse().ok()?;
            if buf.len() >= end + 4 + length {
                let body = serde_json::from_slice(&buf[end + 4..end + 4 + length]).ok()?;
                return Some(Received { headers, body });
            }
        }
        let n = tokio::time::timeout(Duration::from_secs(5), socket.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

fn config(url: &str, token: &str, secret: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        url: url.to_owned(),
        token: token.to_owned(),
        authentication: Some(AuthenticationInfo {
            scheme: "Bearer".to_owned(),
            credentials: secret.to_owned(),
        }),
        ..Default::default()
    }
}

/// A message carrying a push config for the task it opens (3.2.2).
fn send_with_push(id: &str, text: &str, push: TaskPushNotificationConfig) -> SendMessageRequest {
    SendMessageRequest {
        configuration: Some(SendMessageConfiguration {
            task_push_notification_config: Some(push),
            ..Default::default()
        }),
        ..send(id, text)
    }
}

/// The headers every notification for `config(_, token, secret)` carries.
fn assert_headers(r: &Received, token: &str, secret: &str) {
    let h = &r.headers;
    assert_eq!(
        h.get("content-type").map(String::as_str),
        Some("application/a2a+json")
    );
    assert_eq!(h.get("authorization"), Some(&format!("Bearer {secret}")));
    assert_eq!(
        h.get("x-a2a-notification-token").map(String::as_str),
        Some(token)
    );
}

/// The push statistics once `n` notifications were settled, delivered or not.
async fn settled(stats: impl Fn() -> PushStats, n: u64) -> PushStats {
    let deadline = tokio::time::Instant::now() + LIMIT;
    loop {
        let s = stats();
        if s.delivered + s.failed >= n || tokio::time::Instant::now() >= deadline {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_update_of_a_task_reaches_its_webhook_in_order() {
    let hook = Receiver::start().await;
    let (addr, server, agent) = serve_agent_with(WebhookPolicy::local()).await;
    let client = Client::new(&format!("http://{addr}/"), &JSONRPC_HTTP).unwrap();

    // A config with the message: the task as it opens, then each update, as a stream has them.
    let request = send_with_push("p-1", "hello", config(&hook.url, "tok-1", "secret-1"));
    let answer: SendMessageResponse = client.call("SendMessage", &request).await.unwrap();
    let Some(send_message_response::Payload::Task(task)) = answer.payload else {
        panic!("a task")
    };
    let got = hook.wait_for(4).await;
    let mut checker = Checker::new();
    let kinds: Vec<String> = got
        .iter()
        .map(|r| {
            assert_headers(r, "tok-1", "secret-1");
            let update = r.update();
            checker
                .observe(Observed::Server(&update))
                .unwrap_or_else(|v| panic!("the notifications broke the task lifecycle: {v}"));
            kind(&update)
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "task:Some(Submitted)",
            "status_update:Some(Working)",
            "artifact_update",
            "status_update:Some(Completed)"
        ]
    );
    // ProtoJSON as the JSON bindings write it: lowerCamelCase members (5.5).
    assert_eq!(got[1].body["statusUpdate"]["taskId"], Value::from(task.id));

    // A config registered later by its rpc: the updates after it, here the cancellation.
    let mut stream = client
        .stream::<_, StreamResponse>("SendStreamingMessage", &send("p-2", "wait for me"))
        .await
        .unwrap();
    let first = stream.next().await.unwrap().unwrap();
    let Some(agentwire_protocols::a2a::stream_response::Payload::Task(waiting)) = first.payload
    else {
        panic!("the task first")
    };
    // Working before the config exists, so the cancellation is its first notification.
    let working = stream.next().await.unwrap().unwrap();
    assert_eq!(kind(&working), "status_update:Some(Working)");
    let later = TaskPushNotificationConfig {
        task_id: waiting.id.clone(),
        ..config(&hook.url, "tok-2", "secret-2")
    };
    let created: TaskPushNotificationConfig = client
        .call("CreateTaskPushNotificationConfig", &later)
        .await
        .unwrap();
    assert!(!created.id.is_empty());
    let cancel = CancelTaskRequest {
        id: waiting.id.clone(),
        ..Default::default()
    };
    let _: Task = client.call("CancelTask", &cancel).await.unwrap();
    let got = hook.wait_for(5).await;
    let last = &got[4];
    assert_headers(last, "tok-2", "secret-2");
    assert_eq!(kind(&last.update()), "status_update:Some(Canceled)");
    let stats = settled(|| agent.push_stats(), 5).await;
    assert_eq!((stats.delivered, stats.failed, stats.dropped), (5, 0, 0));
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_policy_refuses_local_webhooks() {
    let hook = Receiver::start().await;
    let (addr, server, agent) = serve_agent_with(WebhookPolicy::default()).await;
    let client = Client::new(&format!("http://{addr}/"), &JSONRPC_HTTP).unwrap();
    // The receiver's plain `http` URL, then the same port as `https` on loopback.
    let https = hook.url.replacen("http://", "https://", 1);
    for (id, url) in [("g-1", hook.url.as_str()), ("g-2", https.as_str())] {
        let request = send_with_push(id, "hello", config(url, "t", "s"));
        let _: SendMessageResponse = client.call("SendMessage", &request).await.unwrap();
    }
    // Two tasks of four notifications each, every one refused before a connection.
    let stats = settled(|| agent.push_stats(), 8).await;
    assert_eq!((stats.delivered, stats.failed), (0, 8), "{stats:?}");
    assert!(
        stats
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("not a public address")),
        "{stats:?}"
    );
    assert!(hook.seen().is_empty(), "{:?}", hook.seen());
    server.abort();
}
