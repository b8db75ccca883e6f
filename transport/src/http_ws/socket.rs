//! One client WebSocket on the session server: decode, validate and check every frame,
//! answer refusals with the protocol's refusal frame (the connection stays open), attach on
//! the hello kind, and relay the session's broadcasts.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use tokio::sync::{OwnedSemaphorePermit, mpsc};

use serde_json::Value;

use super::engine::{Engine, get_path};
use super::layout::{Binding, WsError};
use super::routes::pointer;
use super::server::{ServerError, Shared};
use crate::check::Gate;
use crate::store::sessions::SessionRecord;

/// Close codes: 1001 going away (shutdown), 1008 policy (the client fell too far behind).
const GOING_AWAY: u16 = 1001;
const POLICY: u16 = 1008;

struct Conn<B: Binding> {
    gate: Gate<B::Checker>,
    attached: Option<(SessionRecord, u64)>,
    rx: Option<mpsc::Receiver<Value>>,
    violations: Arc<AtomicU64>,
}

async fn next_broadcast<T>(rx: &mut Option<mpsc::Receiver<T>>) -> Option<T> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

pub(crate) async fn run<B: Binding>(
    s: Arc<Shared<B>>,
    mut socket: WebSocket,
    _held: (OwnedSemaphorePermit, crate::budget::Lease),
) {
    // One session instance per distinct session this connection says hello to.
    let max_instances = 1024;
    let mut conn = Conn::<B> {
        gate: Gate::new(s.mode, B::new_checker(max_instances)),
        attached: None,
        rx: None,
        violations: s.violations.clone(),
    };
    let close = loop {
        // Biased: broadcasts already queued (such as the echo of the user's last message)
        // go out before the next frame is read, so the connection's checker sees the
        // conversation in the order the server produced it.
        tokio::select! {
            biased;
            () = s.shutdown.cancelled() => break Some((GOING_AWAY, "server shutting down")),
            out = next_broadcast(&mut conn.rx) => match out {
                Some(msg) => {
                    if send::<B>(&conn.violations, &mut socket, &mut conn.gate, &msg).await.is_err() {
                        break None;
                    }
                }
                None => break Some((POLICY, "client too slow")),
            },
            frame = socket.recv() => match frame {
                Some(Ok(Message::Text(t))) => {
                    if let Err(e) = on_text(&s, &mut socket, &mut conn, t.as_str()).await {
                        tracing::debug!(error = %e, "websocket ended");
                        break None;
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    let m = "binary frames are not part of the protocol";
                    if refuse(&s, &mut socket, &mut conn, WsError::InvalidMessage, m).await.is_err() {
                        break None;
                    }
                }
                Some(Ok(Message::Close(_))) | None => break None,
                // The RFC 6455 code for what the WebSocket layer could not read (1002/1007/1009).
                Some(Err(e)) => break crate::ws::close::for_axum_error(&e),
                Some(Ok(_)) => {}
            },
        }
    };
    if let Some((code, reason)) = close {
        let frame = CloseFrame {
            code,
            reason: reason.into(),
        };
        let _ = socket.send(Message::Close(Some(frame))).await;
    }
    detach(&s, &mut conn);
}

fn detach<B: Binding>(s: &Shared<B>, conn: &mut Conn<B>) {
    conn.rx = None;
    if let Some((rec, id)) = conn.attached.take() {
        s.detach(&rec.session_id, id);
    }
}

/// Sends one outbound message through the connection's checker; in enforce mode a message
/// the checker refuses is not sent (and logged, since it is the server's own mistake).
async fn send<B: Binding>(
    violations: &AtomicU64,
    socket: &mut WebSocket,
    gate: &mut Gate<B::Checker>,
    msg: &Value,
) -> Result<(), axum::Error> {
    if let Err(v) = gate.admit(|c| Engine::<B>::observe_out(c, msg)) {
        violations.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::error!(violation = %v, "outbound frame refused by the sequence checker");
        return Ok(());
    }
    socket.send(Message::Text(msg.to_string().into())).await
}

#[derive(Debug, thiserror::Error)]
enum ConnError {
    #[error(transparent)]
    Socket(#[from] axum::Error),
    #[error(transparent)]
    Server(#[from] ServerError),
}

async fn refuse<B: Binding>(
    s: &Shared<B>,
    socket: &mut WebSocket,
    conn: &mut Conn<B>,
    code: WsError,
    message: &str,
) -> Result<(), ConnError> {
    let msg = s
        .engine
        .refusal(code.word(), message)
        .map_err(ServerError::Build)?;
    send::<B>(&conn.violations, socket, &mut conn.gate, &msg).await?;
    Ok(())
}

async fn on_text<B: Binding>(
    s: &Arc<Shared<B>>,
    socket: &mut WebSocket,
    conn: &mut Conn<B>,
    text: &str,
) -> Result<(), ConnError> {
    let l = B::LAYOUT;
    if text.len() > s.limits.max_frame_bytes {
        let m = format!(
            "a frame of {} bytes exceeds the limit of {}",
            text.len(),
            s.limits.max_frame_bytes
        );
        return refuse(s, socket, conn, WsError::InvalidMessage, &m).await;
    }
    let msg = match B::decode(l.inbound, text) {
        Ok(m) => m,
        Err(inv) => {
            let at = pointer(l.hello_session);
            let code = if inv.errors.iter().any(|e| e.pointer.starts_with(&at)) {
                WsError::InvalidSessionId
            } else {
                WsError::InvalidMessage
            };
            return refuse(s, socket, conn, code, &inv.to_string()).await;
        }
    };
    // The server acts on the trimmed id, so the checker sees the hello that way too.
    let msg = Engine::<B>::trimmed_hello(&msg).unwrap_or(msg);
    let kind = Engine::<B>::frame_kind(&msg).unwrap_or_default();
    if let Err(v) = conn.gate.admit(|c| Engine::<B>::observe_in(c, &msg)) {
        let code = if kind == l.input_kind && conn.attached.is_none() {
            WsError::HelloRequired
        } else {
            WsError::InvalidMessage
        };
        return refuse(s, socket, conn, code, &format!("out of sequence: {v}")).await;
    }
    let field = |path| {
        get_path(&msg, path)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    if kind == l.hello_kind {
        hello(s, socket, conn, field(l.hello_session)).await
    } else if kind == l.input_kind {
        input(s, socket, conn, field(l.input_text)).await
    } else {
        // Other kinds the protocol adds are checked and accepted; the engine has no part
        // for them.
        Ok(())
    }
}

async fn hello<B: Binding>(
    s: &Arc<Shared<B>>,
    socket: &mut WebSocket,
    conn: &mut Conn<B>,
    session_id: &str,
) -> Result<(), ConnError> {
    let Some(rec) = s.live_session(session_id)? else {
        let m = format!("no live session has the id {session_id:?}");
        return refuse(s, socket, conn, WsError::SessionNotFound, &m).await;
    };
    detach(s, conn);
    let (tx, rx) = mpsc::channel(s.limits.max_queued_frames.max(1));
    let id = s.attach(&rec.session_id, tx)?;
    let _ = conn.gate.admit(|c| {
        Engine::<B>::prime(c, &rec.session_id, &rec.owner);
        Ok(())
    });
    let ready = s
        .engine
        .ready(&rec.session_id, &rec.owner)
        .map_err(ServerError::Build)?;
    conn.attached = Some((rec, id));
    conn.rx = Some(rx);
    send::<B>(&conn.violations, socket, &mut conn.gate, &ready).await?;
    Ok(())
}

async fn input<B: Binding>(
    s: &Arc<Shared<B>>,
    socket: &mut WebSocket,
    conn: &mut Conn<B>,
    text: &str,
) -> Result<(), ConnError> {
    let Some((rec, _)) = &conn.attached else {
        return refuse(s, socket, conn, WsError::HelloRequired, "send hello first").await;
    };
    match s.input(rec, text)? {
        Ok(Some(job)) => {
            tokio::spawn(s.clone().forward(rec.clone(), job));
        }
        Ok(None) => {}
        Err(code) => {
            return refuse(s, socket, conn, code, "the session no longer exists").await;
        }
    }
    Ok(())
}
