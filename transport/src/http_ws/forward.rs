//! Forwarding input to an owner's URL: one attempt, bounded by a timeout, success only on a 2xx status.

use std::time::Duration;

/// Why a forward failed; each case becomes an error line in the conversation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForwardError {
    #[error("the receiver answered HTTP {0}")]
    Status(u16),
    #[error("the receiver did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the receiver could not be reached: {0}")]
    Unreachable(String),
}

impl ForwardError {
    /// The HTTP status, when the external agent gave one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ForwardError::Status(s) => Some(*s),
            _ => None,
        }
    }
}

/// Posts JSON bodies with no retries (the protocol forbids them).
#[derive(Debug, Clone)]
pub struct Forwarder {
    client: reqwest::Client,
    timeout: Duration,
}

impl Forwarder {
    pub fn new(timeout: Duration) -> Self {
        Self {
            client: reqwest::Client::new(),
            timeout,
        }
    }

    /// Posts `json` to `url`; `Ok(status)` for a 2xx answer.
    pub async fn post_json(&self, url: &str, json: String) -> Result<u16, ForwardError> {
        self.send_json("POST", url, json).await
    }

    /// Sends `json` to `url` with `method`; `Ok(status)` for a 2xx answer.
    pub async fn send_json(
        &self,
        method: &str,
        url: &str,
        json: String,
    ) -> Result<u16, ForwardError> {
        let method = reqwest::Method::from_bytes(method.to_ascii_uppercase().as_bytes())
            .unwrap_or(reqwest::Method::POST);
        let sent = self
            .client
            .request(method, url)
            .timeout(self.timeout)
            .header("content-type", "application/json")
            .body(json)
            .send()
            .await;
        match sent {
            Ok(resp) => {
                let status = resp.status().as_u16();
                if resp.status().is_success() {
                    Ok(status)
                } else {
                    Err(ForwardError::Status(status))
                }
            }
            Err(e) if e.is_timeout() => Err(ForwardError::Timeout(self.timeout)),
            Err(e) => Err(ForwardError::Unreachable(e.to_string())),
        }
    }
}
