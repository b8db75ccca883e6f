//! What a WebSocket skeleton adds when its spec has a `tracking:` section: the client's
//! kept state (`agentwire_transport::ws::TrackedClient`, named by the section) and resumed
//! sessions on both sides.
//!
//! A server that keeps no state lets a client continue a session on a new connection by
//! sending its stored thread. The per-connection checker would read that follow-up as a
//! first message carrying a thread; both sides therefore replay the section's `resume`
//! entries (a finished first turn) into a fresh checker first.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{Protocol, Tracking};
use crate::naming::type_ident;

/// Pieces spliced into the generic skeleton; empty for protocols without `tracking:`.
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
    let Some(t) = &p.tracking else {
        return Extras::default();
    };
    let Some(items) = items(p, t) else {
        return Extras::default();
    };
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
        items,
    }
}

fn track_layout(p: &Protocol, t: &Tracking) -> Option<TokenStream> {
    let up = p.roles.first()?;
    let down = p.roles.get(1)?;
    let (out_tag, _) = p.union_variants(&p.channel_from(up)?.union)?;
    let (in_tag, _) = p.union_variants(&p.channel_from(down)?.union)?;
    let tu = &t.turn;
    let (tk, ts, tt, tr, tx) = (&tu.kind, &tu.session, &tu.thread, &tu.request, &tu.text);
    let (bk, bs, bt) = (&t.bind.kind, &t.bind.session, &t.bind.thread);
    let (ck, cf) = (&t.complete.kind, &t.complete.field);
    let word = |w: &str| t.states.get(w).cloned().unwrap_or_else(|| w.to_owned());
    let (waiting, complete, error) = (word("waiting"), word("complete"), word("error"));
    let resume = t.resume.iter().map(|(from, v)| {
        let v = v.to_string();
        quote!((#from, #v),)
    });
    Some(quote! {
        static TRACK: ws::TrackLayout = ws::TrackLayout {
            out_tag: #out_tag,
            in_tag: #in_tag,
            turn_kind: #tk,
            turn_session: #ts,
            turn_thread: #tt,
            turn_request: #tr,
            turn_text: #tx,
            bind_kind: #bk,
            bind_session: #bs,
            bind_thread: #bt,
            complete_kind: #ck,
            complete_request: #cf,
            waiting: #waiting,
            complete: #complete,
            error: #error,
            resume: &[#(#resume)*],
        };
    })
}

fn items(p: &Protocol, t: &Tracking) -> Option<TokenStream> {
    let layout = track_layout(p, t)?;
    let up = p.roles.first()?;
    let side = format_ident!("{}Side", crate::naming::pascal_case(up));
    let out_union = type_ident(&p.channel_from(up)?.union);
    let in_union = type_ident(&p.channel_from(p.roles.get(1)?)?.union);
    let name = format_ident!("{}", t.name);
    let states = type_ident(&t.states_type);
    let doc = format!(
        " The `{up}` side with its kept state: each `{}` carries the session's stored thread \
         (or `null`), `{}` binds it, `{}` completes the turn. The store survives restarts, so \
         a new `{}` over the same store continues every session.",
        t.turn.kind, t.bind.kind, t.complete.kind, t.name
    );
    Some(quote! {
        #layout

        fn resume_session<M: agentwire_runtime::serde::Serialize>(checker: &mut machine::Checker, msg: &M) {
            let Ok(value) = agentwire_runtime::serde_json::to_value(msg) else {
                return;
            };
            ws::resume(checker, &TRACK, &value, |c, from, entry| {
                match machine::Recorded::decode(from, entry) {
                    Some(Ok(m)) => c.observe(m.as_message()),
                    _ => Ok(()),
                }
            });
        }

        impl ws::Track for #side {
            const TRACK: &'static ws::TrackLayout = &TRACK;

            fn outbound(json: &str) -> Result<protocol::#out_union, agentwire_runtime::Invalid> {
                protocol::#out_union::from_json(json)
            }

            fn inbound_json(msg: &protocol::#in_union) -> agentwire_runtime::serde_json::Value {
                agentwire_runtime::serde_json::to_value(msg).unwrap_or_default()
            }
        }

        #[doc = #doc]
        #[derive(Debug)]
        pub struct #name<St>(ws::TrackedClient<#side, St>);

        impl<St> #name<St>
        where
            St: agentwire_transport::store::keyed::MappingStore + agentwire_transport::store::keyed::StateStore,
        {
            /// Connects to the server at `url`.
            pub async fn connect(url: &str, config: ws::ClientConfig, store: St) -> Result<Self, ws::ConnectError> {
                ws::TrackedClient::connect(url, config, store).await.map(Self)
            }

            /// The state store.
            pub fn store(&self) -> &St {
                self.0.store()
            }

            /// The thread bound to `session`, if any.
            pub fn thread(&self, session: &str) -> Result<Option<String>, agentwire_transport::store::StoreError> {
                self.0.thread(session)
            }

            /// Where turn `request` stands.
            pub fn state(&self, request: &str) -> Result<Option<protocol::#states>, ws::TrackError> {
                let Some(s) = self.0.state(request)? else {
                    return Ok(None);
                };
                let json = agentwire_runtime::serde_json::Value::String(s).to_string();
                Ok(Some(agentwire_runtime::decode_json(&json)?))
            }

            /// Sends one turn of `session`, marking turn `request_id` waiting.
            pub async fn chat(&self, session: &str, message: &str, request_id: &str) -> Result<(), ws::TrackError> {
                self.0.turn(session, message, request_id).await
            }

            /// The next server message, after the store took it into account.
            pub async fn next(&mut self) -> Option<Result<protocol::#in_union, ws::TrackError>> {
                self.0.next().await
            }

            /// Closes the connection and hands the store back.
            pub async fn close(self) -> St {
                self.0.close().await
            }
        }
    })
}
