//! `agentwire mock --listen ADDR`: the mocked role over the spec's Streamable HTTP, on the
//! transport's own server (`agentwire_transport::streamable_http`: its session and version
//! headers, its Origin and Host checks, its limits). Each session the peer opens is played
//! as the stdio mock plays its one session, and checked as a stream of its own (named by its
//! session id); what the machines say the peer waits for before an answer travels on that
//! request's stream, ahead of the answer. With `--replay` each session replays the
//! recording afresh, the recorded messages of the mocked role going on the stream of the
//! peer's latest request (the transport moves them to the GET stream once it is answered).

use agentwire_runtime::jsonrpc::RequestId;
use agentwire_transport::streamable_http::{self, Outgoing, Profile, ServerConfig, SessionPipe};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use serde_json::Value;
use tokio::sync::mpsc;

use super::replay::Script;
use super::{Answers, Out, Play};
use crate::proxy::split::Piece;

/// One HTTP session's way back to the peer.
struct Pipe {
    out: mpsc::Sender<Outgoing>,
    /// The peer's request being served, which what is sent before its answer belongs to.
    serving: Option<RequestId>,
}

impl Out for Pipe {
    async fn put(&mut self, text: &str) -> std::io::Result<()> {
        // An answer is routed by its own id.
        let answer = serde_json::from_str::<Value>(text).is_ok_and(|v| v.get("method").is_none());
        let outgoing = match &self.serving {
            Some(id) if !answer => Outgoing::related_to(text, id.clone()),
            _ => Outgoing::unrelated(text),
        };
        self.out
            .send(outgoing)
            .await
            .map_err(|_| std::io::Error::other("the session ended"))
    }
}

impl Play<'_> {
    /// Serves sessions on `listen` until Ctrl-C or SIGTERM; each session starts with the
    /// answers of `template` (its replay from the start) and, unless it replays, a driver
    /// of its own following the machines of `folder`.
    pub(super) async fn listen(
        &self,
        template: Answers,
        folder: Option<&'static crate::interp::Interpreted>,
        listen: &str,
    ) -> Result<(), String> {
        let profile = folder
            .and_then(profile)
            .ok_or("--listen plays a spec folder whose transport declares `streamable_http`")?;
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let (tx, mut rx) = mpsc::unbounded_channel::<SessionPipe>();
        let service = move |pipe: SessionPipe| {
            let _ = tx.send(pipe);
        };
        let server = streamable_http::serve(listener, service, ServerConfig::new(profile))
            .map_err(|e| format!("cannot serve on {listen}: {e}"))?;
        eprintln!("agentwire mock: listening on http://{addr}{}", profile.path);
        let mut sessions = FuturesUnordered::new();
        let stop = crate::proxy::signal::stop();
        tokio::pin!(stop);
        loop {
            tokio::select! {
                Some(pipe) = rx.recv() => {
                    let answers = Answers::new(
                        template.drawn.clone(),
                        template.script.clone(),
                        folder.filter(|_| template.script.is_none()),
                        Some(pipe.id.clone()),
                    );
                    sessions.push(self.session(answers, pipe));
                }
                Some(()) = sessions.next(), if !sessions.is_empty() => {}
                () = &mut stop => break,
            }
        }
        let _ = server.shutdown().await;
        Ok(())
    }

    /// Plays one HTTP session until it ends (or, replaying, until the peer leaves the
    /// recording by going silent or ending the session early).
    async fn session(&self, mut answers: Answers, mut pipe: SessionPipe) {
        let mut out = Pipe {
            out: pipe.outbound.clone(),
            serving: None,
        };
        loop {
            if let Some(script) = answers.script.as_mut() {
                while let Some(text) = script.next_send() {
                    if self.send(Some(&pipe.id), &text, &mut out).await.is_err() {
                        self.session.end(&pipe.id);
                        return;
                    }
                }
            }
            let next = async {
                tokio::select! {
                    m = pipe.inbound.recv() => m,
                    () = pipe.ended.cancelled() => None,
                }
            };
            let text = match answers.script.as_ref().and_then(Script::awaited) {
                Some((line, what)) => match tokio::time::timeout(self.replay_timeout, next).await {
                    Ok(m) => m,
                    Err(_) => {
                        self.silent(answers.script.as_ref(), line, &what);
                        break;
                    }
                },
                None => next.await,
            };
            // What the transport attached (an identity, say) plays no part in a mock.
            let Some(text) = text.map(|d| d.text) else {
                self.ended(answers.script.as_ref());
                break;
            };
            // What is sent next relates to the peer's latest request.
            if let Some(id) = serde_json::from_str::<Value>(&text)
                .ok()
                .filter(|v| v.get("method").is_some())
                .and_then(|v| v.get("id").cloned())
                .and_then(|id| serde_json::from_value::<RequestId>(id).ok())
            {
                out.serving = Some(id);
            }
            let mut pieces = vec![Piece::Frame {
                body: text,
                raw: Vec::new(),
            }];
            if self
                .take(&mut answers, &mut pieces, &mut out)
                .await
                .is_err()
            {
                break;
            }
        }
        self.session.end(&pipe.id);
    }
}

/// The transport's profile of the spec's `transport.streamable_http`, if it declares one.
fn profile(interp: &'static crate::interp::Interpreted) -> Option<Profile> {
    use agentwire_codegen::transport::streamable_http::Profile as Declared;
    let d = interp.types().protocol.transport.carried::<Declared>()?;
    let keep = super::keep;
    let versions: Vec<&'static str> = d.versions.iter().map(|v| keep(v)).collect();
    Some(Profile {
        path: keep(&d.path),
        session_header: keep(&d.session_header),
        version_header: keep(&d.version_header),
        versions: Box::leak(versions.into_boxed_slice()),
        opens_with: keep(&d.opens_with),
        version_member: keep(&d.version_member),
        priming_since: d.priming_since.as_deref().map(keep),
        // The mock serves sessions only: messages naming their version alone, mirrored
        // headers and sealed state are the generated servers' (`serve_versions_http`).
        version_source: None,
        unsupported_code: d
            .unsupported_code
            .unwrap_or(agentwire_transport::streamable_http::DEFAULT_UNSUPPORTED_CODE),
        mirror: &[],
        mirror_since: None,
        mirror_base64: None,
        mismatch_code: d
            .mismatch_code
            .unwrap_or(agentwire_transport::streamable_http::DEFAULT_MISMATCH_CODE),
        sealed_state: None,
    })
}
