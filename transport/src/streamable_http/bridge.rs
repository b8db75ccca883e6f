//! Running a message-channel engine (such as the JSON-RPC engine's message link) over a
//! [`Client`]: the engine's messages are POSTed (each request on its own task, so that a slow
//! answer holds up nothing else; notifications and responses in order), and every server
//! message is handed to the engine.

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::client::{Client, Received};
use super::error::ClientError;
use super::message::{Kind, classify};
use crate::jsonrpc::Delivered;

/// The error code of the answer made up for a request the transport could not deliver (the
/// same implementation-defined code the server uses for transport failures).
const UNDELIVERED: i64 = -32000;

impl Client {
    /// Joins this client to an engine: messages from `outgoing` (turned into JSON text by
    /// `text`) are sent; messages from `received` (this client's receiver) go into
    /// `incoming`. A request that cannot be sent is answered in `incoming` with a JSON-RPC
    /// error carrying the reason, so that its caller does not wait for ever; a stream failure
    /// is logged. Ends when the engine drops `outgoing` or `incoming`'s receiver.
    pub fn bridge<T: Send + 'static>(
        self,
        mut received: mpsc::Receiver<Received>,
        incoming: mpsc::Sender<Delivered>,
        mut outgoing: mpsc::Receiver<T>,
        text: impl Fn(T) -> String + Send + 'static,
    ) -> JoinHandle<()> {
        let inbound = incoming.clone();
        let reader = tokio::spawn(async move {
            while let Some(item) = received.recv().await {
                match item {
                    Ok(json) => {
                        if inbound.send(Delivered::from(json)).await.is_err() {
                            return;
                        }
                    }
                    Err(e) => crate::warn_throttled!(error = %e, "Streamable HTTP stream failed"),
                }
            }
        });
        tokio::spawn(async move {
            while let Some(message) = outgoing.recv().await {
                let json = text(message);
                let request = matches!(classify(&json), Ok(Kind::Request { .. }));
                let (client, incoming) = (self.clone(), incoming.clone());
                let send = async move {
                    let Err(e) = client.send(&json).await else {
                        return;
                    };
                    // A server that answers a request with an error status may still carry
                    // the JSON-RPC answer in the body (a request served alone: 404 for an
                    // unknown method, 400 for invalid params): that answer is the caller's.
                    if let Some(answer) = answer_in(&e, &json) {
                        let _ = incoming.send(Delivered::from(answer)).await;
                        return;
                    }
                    crate::warn_throttled!(error = %e, "Streamable HTTP send failed");
                    if let Ok(Kind::Request { id, .. }) = classify(&json) {
                        let answer = serde_json::json!({
                            "jsonrpc": "2.0",
                            "id": id,
                            "error": {"code": UNDELIVERED, "message": e.to_string()},
                        });
                        let _ = incoming.send(Delivered::from(answer.to_string())).await;
                    }
                };
                // A request's answer may stream for long, so it is sent on its own task. A
                // notification or a response is accepted at once (202) and is sent before the
                // next message, so the server reads them in the engine's order: a request
                // never overtakes the `initialized`-style notification written before it.
                if request {
                    tokio::spawn(send);
                } else {
                    send.await;
                }
            }
            reader.abort();
        })
    }
}

/// The JSON-RPC answer to the request `sent` that an error status carried in its body, if
/// the body is one: a response with the request's id.
fn answer_in(error: &ClientError, sent: &str) -> Option<String> {
    let ClientError::Status { body, .. } = error else {
        return None;
    };
    let Ok(Kind::Request { id: asked, .. }) = classify(sent) else {
        return None;
    };
    match classify(body) {
        Ok(Kind::Response { id }) if id == asked => Some(body.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_status_carrying_the_requests_answer_is_that_answer() {
        let sent = r#"{"jsonrpc":"2.0","id":7,"method":"x/y","params":{}}"#;
        let answer = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}"#;
        let status = |body: &str| ClientError::Status {
            status: 404,
            body: body.to_owned(),
        };
        assert_eq!(answer_in(&status(answer), sent).as_deref(), Some(answer));
        // Another request's answer, a body that is no message, another failure: none.
        let other = r#"{"jsonrpc":"2.0","id":"7","error":{"code":-32601,"message":"no"}}"#;
        assert_eq!(answer_in(&status(other), sent), None);
        assert_eq!(answer_in(&status("Not Found"), sent), None);
        assert_eq!(answer_in(&ClientError::SessionExpired, sent), None);
    }
}
