//! One web UI WebSocket on the agent server: decode, validate and check every frame, answer
//! refusals with an `error` frame (the connection stays open), attach on `hello`, and relay
//! the session's broadcasts.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use tokio::sync::{OwnedSemaphorePermit, mpsc};

use super::server::{ServerError, Shared};
use super::wire::{Frame, Wire, WsError};
use crate::check::Gate;
use crate::store::external_agents::SessionRecord;

/// Close codes: 1001 going away (shutdown), 1008 policy (the client fell too far behind).
const GOING_AWAY: u16 = 1001;
const POLICY: u16 = 1008;

struct Conn<W: Wire> {
    gate: Gate<W::Checker>,
    attached: Option<(SessionRecord, u64)>,
    rx: Option<mpsc::Receiver<W::Outbound>>,
    violations: Arc<AtomicU64>,
}

async fn next_broadcast<T>(rx: &mut Option<mpsc::Receiver<T>>) -> Option<T> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

pub(crate) async fn run<W: Wire>(
    s: Arc<Shared<W>>,
    mut socket: WebSocket,
    _permit: OwnedSemaphorePermit,
) {
    // One session instance per distinct session this connection says hello to.
    let max_instances = 1024;
    let mut conn = Conn::<W> {
        gate: Gate::new(s.mode, W::new_checker(max_instances)),
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
                    if send::<W>(&conn.violations, &mut socket, &mut conn.gate, &msg).await.is_err() {
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
                    let msg = W::ws_error(WsError::InvalidMessage, "binary frames are not part of the protocol");
                    if send::<W>(&conn.violations, &mut socket, &mut conn.gate, &msg).await.is_err() {
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

fn detach<W: Wire>(s: &Shared<W>, conn: &mut Conn<W>) {
    conn.rx = None;
    if let Some((rec, id)) = conn.attached.take()
        && let Ok(mut core) = s.lock()
    {
        core.hub.detach(&rec.session_id, id);
    }
}

/// Sends one outbound message through the connection's checker; in enforce mode a message
/// the checker refuses is not sent (and logged, since it is the server's own mistake).
async fn send<W: Wire>(
    violations: &AtomicU64,
    socket: &mut WebSocket,
    gate: &mut Gate<W::Checker>,
    msg: &W::Outbound,
) -> Result<(), axum::Error> {
    if let Err(v) = gate.admit(|c| W::observe_out(c, msg)) {
        violations.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::error!(violation = %v, "outbound frame refused by the sequence checker");
        return Ok(());
    }
    socket.send(Message::Text(W::encode(msg).into())).await
}

#[derive(Debug, thiserror::Error)]
enum ConnError {
    #[error(transparent)]
    Socket(#[from] axum::Error),
    #[error(transparent)]
    Server(#[from] ServerError),
}

async fn refuse<W: Wire>(
    socket: &mut WebSocket,
    conn: &mut Conn<W>,
    code: WsError,
    message: &str,
) -> Result<(), ConnError> {
    let msg = W::ws_error(code, message);
    send::<W>(&conn.violations, socket, &mut conn.gate, &msg).await?;
    Ok(())
}

async fn on_text<W: Wire>(
    s: &Arc<Shared<W>>,
    socket: &mut WebSocket,
    conn: &mut Conn<W>,
    text: &str,
) -> Result<(), ConnError> {
    if text.len() > s.limits.max_frame_bytes {
        let m = format!(
            "a frame of {} bytes exceeds the limit of {}",
            text.len(),
            s.limits.max_frame_bytes
        );
        return refuse(socket, conn, WsError::InvalidMessage, &m).await;
    }
    let msg = match W::decode_frame(text) {
        Ok(m) => m,
        Err(inv) => {
            let code = if inv
                .errors
                .iter()
                .any(|e| e.pointer.starts_with("/sessionId"))
            {
                WsError::InvalidSessionId
            } else {
                WsError::InvalidMessage
            };
            return refuse(socket, conn, code, &inv.to_string()).await;
        }
    };
    let frame = W::frame(&msg);
    if let Err(v) = conn.gate.admit(|c| W::observe_in(c, &msg)) {
        let code = match frame {
            Frame::UserMessage { .. } if conn.attached.is_none() => WsError::HelloRequired,
            _ => WsError::InvalidMessage,
        };
        return refuse(socket, conn, code, &format!("out of sequence: {v}")).await;
    }
    match frame {
        Frame::Hello { session_id } => {
            let Some(rec) = s.live_session(session_id)? else {
                let m = format!("no live session has the id {session_id:?}");
                return refuse(socket, conn, WsError::SessionNotFound, &m).await;
            };
            detach(s, conn);
            let (tx, rx) = mpsc::channel(s.limits.max_queued_frames.max(1));
            let id = s.lock()?.hub.attach(&rec.session_id, tx);
            let _ = conn.gate.admit(|c| {
                W::prime(c, &rec.session_id, &rec.agent_id);
                Ok(())
            });
            let ready = W::session_ready(&rec.session_id, &rec.agent_id);
            conn.attached = Some((rec, id));
            conn.rx = Some(rx);
            send::<W>(&conn.violations, socket, &mut conn.gate, &ready).await?;
        }
        Frame::UserMessage { text } => {
            let Some((rec, _)) = &conn.attached else {
                return refuse(socket, conn, WsError::HelloRequired, "send hello first").await;
            };
            match s.user_message(rec, text)? {
                Ok(Some(job)) => {
                    tokio::spawn(s.clone().forward(rec.clone(), job));
                }
                Ok(None) => {}
                Err(code) => {
                    return refuse(socket, conn, code, "the session no longer exists").await;
                }
            }
        }
    }
    Ok(())
}
