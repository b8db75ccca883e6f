//! What the helix_zed skeleton adds on top of the generic WebSocket one: the Helix side's
//! stored state (`session -> acp_thread_id`, interaction states) and resumed sessions.
//!
//! Zed keeps no session state, so a Helix that reconnects (or restarts) continues a session
//! by sending its stored thread id on a new connection. The generated checker is per
//! connection and would see that follow-up as a first message carrying a thread; both sides
//! therefore prime a fresh checker with the completed first turn the thread id proves.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::Protocol;

/// Pieces spliced into the generic skeleton; empty for protocols without extras.
#[derive(Default)]
pub struct Extras {
    /// Body items of the server `Side` impl.
    pub server_resume: TokenStream,
    /// Body items of the client `Side` impl.
    pub client_resume: TokenStream,
    /// Items appended to the module.
    pub items: TokenStream,
}

pub fn extras(p: &Protocol) -> Extras {
    if p.module != "helix_zed" {
        return Extras::default();
    }
    Extras {
        server_resume: quote! {
            fn resume_inbound(checker: &mut Self::Checker, msg: &Self::Inbound) {
                resume_session(checker, msg);
            }
        },
        client_resume: quote! {
            fn resume_outbound(checker: &mut Self::Checker, msg: &Self::Outbound) {
                resume_session(checker, msg);
            }
        },
        items: items(),
    }
}

fn items() -> TokenStream {
    quote! {
        /// The placeholder ids of the first turn a resumed session is primed with.
        const RESUMED: &str = "resumed";

        /// A follow-up (`acp_thread_id` set) for a session this connection's checker has not
        /// seen continues a session from an earlier connection: the checker is first shown a
        /// completed first turn that created that thread. A session already live on this
        /// connection refuses the primer's first message and is checked as it stands.
        fn resume_session(checker: &mut machine::Checker, msg: &protocol::HelixMessage) {
            let protocol::HelixMessage::ChatMessage(chat) = msg;
            let Some(thread) = &chat.data.acp_thread_id else {
                return;
            };
            let session = &chat.data.helix_session_id;
            let first = protocol::HelixMessage::ChatMessage(protocol::ChatMessage {
                data: protocol::ChatMessageData {
                    helix_session_id: session.clone(),
                    acp_thread_id: None,
                    message: String::new(),
                    request_id: RESUMED.to_owned(),
                },
            });
            if checker.observe(machine::Message::Helix(&first)).is_err() {
                return;
            }
            let turn = [
                protocol::ZedEvent::ContextCreated(protocol::ContextCreatedEvent {
                    session_id: session.clone(),
                    data: protocol::ContextCreatedData {
                        acp_thread_id: thread.clone(),
                        helix_session_id: session.clone(),
                    },
                }),
                protocol::ZedEvent::MessageAdded(protocol::MessageAddedEvent {
                    session_id: session.clone(),
                    data: protocol::MessageAddedData {
                        acp_thread_id: thread.clone(),
                        message_id: RESUMED.to_owned(),
                        role: protocol::MessageAddedDataRole::Assistant,
                        content: String::new(),
                        timestamp: 0,
                    },
                }),
                protocol::ZedEvent::MessageCompleted(protocol::MessageCompletedEvent {
                    session_id: session.clone(),
                    data: protocol::MessageCompletedData {
                        acp_thread_id: thread.clone(),
                        message_id: RESUMED.to_owned(),
                        request_id: RESUMED.to_owned(),
                    },
                }),
            ];
            for event in &turn {
                if let Err(v) = checker.observe(machine::Message::Zed(event)) {
                    agentwire_transport::tracing::warn!(violation = %v, "could not resume session");
                    return;
                }
            }
        }

        /// The Helix side with its state: sends each session's stored `acp_thread_id` (or
        /// `null` for a new session), records every interaction as `waiting`, binds the
        /// thread from `context_created` and completes the interaction on
        /// `message_completed`. The store survives restarts, so a new `HelixAgent` over the
        /// same store continues every session.
        #[derive(Debug)]
        pub struct HelixAgent<St> {
            client: Client,
            store: St,
            /// Interactions started on this connection and not finished yet.
            open: std::sync::Mutex<Vec<String>>,
        }

        impl<St: agentwire_transport::store::helix::HelixStore> HelixAgent<St> {
            /// Connects to the Zed side at `url`.
            pub async fn connect(
                url: &str,
                config: ws::ClientConfig,
                store: St,
            ) -> Result<Self, ws::ConnectError> {
                Ok(Self {
                    client: Client::connect(url, config).await?,
                    store,
                    open: std::sync::Mutex::new(Vec::new()),
                })
            }

            /// The state store.
            pub fn store(&self) -> &St {
                &self.store
            }

            /// Sends one user turn of `session`, marking interaction `request_id` waiting.
            pub async fn chat(
                &self,
                session: &str,
                message: &str,
                request_id: &str,
            ) -> Result<(), agentwire_transport::store::helix::HelixError> {
                use agentwire_transport::store::helix::Interaction;
                let thread = self.store.thread(session)?;
                self.store.begin(session, request_id)?;
                let chat = protocol::ChatMessage {
                    data: protocol::ChatMessageData {
                        helix_session_id: session.to_owned(),
                        acp_thread_id: thread,
                        message: message.to_owned(),
                        request_id: request_id.to_owned(),
                    },
                };
                if let Err(e) = self.client.chat_message(chat).await {
                    self.store.finish(request_id, Interaction::Error)?;
                    return Err(e.into());
                }
                if let Ok(mut open) = self.open.lock() {
                    open.push(request_id.to_owned());
                }
                Ok(())
            }

            /// The next event from Zed, after the store took it into account. When the
            /// connection ends, interactions still waiting on it become `error`: Zed keeps
            /// no state, so their replies can never arrive.
            pub async fn next(
                &mut self,
            ) -> Option<Result<protocol::ZedEvent, agentwire_transport::store::helix::HelixError>> {
                use agentwire_transport::store::helix::Interaction;
                let Some(item) = self.client.next().await else {
                    let open = self.open.lock().map(|mut o| std::mem::take(&mut *o)).unwrap_or_default();
                    for request_id in open {
                        if let Err(e) = self.store.finish(&request_id, Interaction::Error) {
                            return Some(Err(e.into()));
                        }
                    }
                    return None;
                };
                let event = match item {
                    Ok(event) => event,
                    Err(refused) => return Some(Err(refused.into())),
                };
                let stored = match &event {
                    protocol::ZedEvent::ContextCreated(e) => {
                        self.store.bind_thread(&e.session_id, &e.data.acp_thread_id)
                    }
                    protocol::ZedEvent::MessageCompleted(e) => {
                        if let Ok(mut open) = self.open.lock() {
                            open.retain(|r| r != &e.data.request_id);
                        }
                        self.store
                            .finish(&e.data.request_id, Interaction::Complete)
                            .map(|_| ())
                    }
                    protocol::ZedEvent::MessageAdded(_) => Ok(()),
                };
                Some(stored.map(|()| event).map_err(Into::into))
            }

            /// Closes the connection and hands the store back.
            pub async fn close(self) -> St {
                self.client.close().await;
                self.store
            }
        }
    }
}
