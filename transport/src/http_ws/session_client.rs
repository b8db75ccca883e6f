//! The WebSocket client of a session server: sends frames validated and sequence-checked
//! (a hello's id trimmed as the server will read it), and yields the server's frames
//! validated and checked, priming the checker when a hello is answered.

use serde_json::Value;

use super::client::{ClientError, WsClient};
use super::engine::{Engine, get_path};
use super::layout::Binding;
use crate::check::{CheckMode, Gate};

/// A client connection, as JSON values of the protocol's two unions.
#[derive(Debug)]
pub struct SessionClient<B: Binding> {
    ws: WsClient,
    gate: Gate<B::Checker>,
}

impl<B: Binding> SessionClient<B>
where
    B::Checker: std::fmt::Debug,
{
    /// Connects to `url` (e.g. `ws://127.0.0.1:8080/ws`).
    pub async fn connect(url: &str, mode: CheckMode) -> Result<Self, ClientError> {
        Self::connect_with_token(url, None, mode).await
    }

    /// Connects presenting the server's shared token (when given) as a bearer credential.
    pub async fn connect_with_token(
        url: &str,
        token: Option<&str>,
        mode: CheckMode,
    ) -> Result<Self, ClientError> {
        Ok(Self {
            ws: WsClient::connect_with_token(url, token).await?,
            gate: Gate::new(mode, B::new_checker(1024)),
        })
    }

    /// Validates, sequence-checks and sends one frame (a hello's id trimmed first).
    pub async fn send(&mut self, json: &str) -> Result<(), ClientError> {
        let frame = B::decode(B::LAYOUT.inbound, json)?;
        let frame = Engine::<B>::trimmed_hello(&frame).unwrap_or(frame);
        self.gate.admit(|c| Engine::<B>::observe_in(c, &frame))?;
        self.ws.send_text(frame.to_string()).await
    }

    /// The next server frame, validated and sequence-checked; `None` once the server closed
    /// the connection.
    pub async fn next(&mut self) -> Option<Result<Value, ClientError>> {
        let text = match self.ws.next_text().await? {
            Ok(t) => t,
            Err(e) => return Some(Err(e)),
        };
        Some(self.admit(&text))
    }

    fn admit(&mut self, text: &str) -> Result<Value, ClientError> {
        let l = B::LAYOUT;
        let msg = B::decode(l.outbound, text)?;
        if let Some((session, owner)) = Self::answered_hello(&msg) {
            // The session existed before this connection: tell the checker so.
            let _ = self.gate.admit(|c| {
                Engine::<B>::prime(c, &session, &owner);
                Ok(())
            });
        }
        self.gate.admit(|c| Engine::<B>::observe_out(c, &msg))?;
        Ok(msg)
    }

    /// `(session, owner)` when `msg` is the hello's answer: it matches the answer
    /// template's discriminator and the session and owner are where the template puts them.
    fn answered_hello(msg: &Value) -> Option<(String, String)> {
        let tpl: Value = serde_json::from_str(B::LAYOUT.hello_answer).ok()?;
        let tpl = tpl.as_object()?;
        let mut session = None;
        let mut owner = None;
        for (k, v) in tpl {
            match v.as_str() {
                Some("$session") => session = get_path(msg, k)?.as_str().map(str::to_owned),
                Some("$owner") => owner = get_path(msg, k)?.as_str().map(str::to_owned),
                Some(lit) if !lit.starts_with('$') && msg.get(k)?.as_str()? != lit => {
                    return None;
                }
                _ => {}
            }
        }
        Some((session?, owner.unwrap_or_default()))
    }

    /// Closes the connection.
    pub async fn close(&mut self) -> Result<(), ClientError> {
        self.ws.close().await
    }
}
