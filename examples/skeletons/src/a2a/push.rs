//! Push notifications (specification 3.1.7, 4.3.3, 13.2): each update of a task, as the
//! `StreamResponse` a stream about it carries, POSTed in ProtoJSON with the A2A media type to
//! every webhook registered for the task, the config's `authentication` as the
//! `Authorization` header (4.3.3) and its `token` as `X-A2A-Notification-Token` (the header
//! the SDKs send and check). Delivery is `agentwire_transport::webhook::Outbox`'s: in order,
//! transient failures tried again, and its SSRF guard (13.2) refusing private and loopback
//! addresses, plain `http` and redirects unless the agent was given the local policy.

use agentwire_protocols::a2a::{StreamResponse, TaskPushNotificationConfig};
use agentwire_protocols::skeletons::a2a::HTTP_JSON;
use agentwire_transport::grpc_json::ProtoJson;
use agentwire_transport::reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use agentwire_transport::webhook::{Notification, Outbox, Policy, Stats};

/// The header carrying a config's `token`.
pub const TOKEN_HEADER: &str = "x-a2a-notification-token";
/// How many notifications may wait for delivery before new ones are dropped.
const QUEUE: usize = 1024;

/// The agent's sender of notifications.
#[derive(Debug, Clone)]
pub struct Pusher {
    outbox: Outbox,
    json: ProtoJson,
}

impl Pusher {
    /// A sender delivering under `policy`; its task runs on the current tokio runtime.
    pub fn start(policy: Policy) -> Self {
        Pusher {
            outbox: Outbox::start(policy, QUEUE),
            // The skeleton's own descriptors: they decode, or nothing generated would work.
            json: ProtoJson::new(HTTP_JSON.descriptors).expect("the skeleton's descriptors"),
        }
    }

    /// Queues `update` for each of `configs`.
    pub fn notify(&self, configs: &[TaskPushNotificationConfig], update: &StreamResponse) {
        if configs.is_empty() {
            return;
        }
        let body = match self.json.write("lf.a2a.v1.StreamResponse", update) {
            Ok(body) => body,
            Err(e) => {
                tracing::warn!(error = %e, "a stream response that does not write as ProtoJSON");
                return;
            }
        };
        for config in configs {
            let sent = self.outbox.send(Notification {
                url: config.url.clone(),
                headers: headers_of(config),
                body: body.clone(),
            });
            if !sent {
                tracing::warn!(url = %config.url, "push queue full: notification dropped");
            }
        }
    }

    /// What was delivered, failed and dropped so far.
    pub fn stats(&self) -> Stats {
        self.outbox.stats()
    }
}

/// The headers of a notification for `config`: the media type, its credentials, its token
/// (a value that cannot be a header is left out rather than sent altered).
fn headers_of(config: &TaskPushNotificationConfig) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(HTTP_JSON.media_type));
    if let Some(auth) = &config.authentication
        && !auth.scheme.is_empty()
    {
        let value = if auth.credentials.is_empty() {
            auth.scheme.clone()
        } else {
            format!("{} {}", auth.scheme, auth.credentials)
        };
        if let Ok(v) = HeaderValue::try_from(value) {
            headers.insert(AUTHORIZATION, v);
        }
    }
    if !config.token.is_empty()
        && let Ok(v) = HeaderValue::try_from(config.token.as_str())
    {
        headers.insert(TOKEN_HEADER, v);
    }
    headers
}
