//! Skeleton emitter for `http+websocket` protocols: thin bindings to the session engine in
//! `agentwire_transport::http_ws`.
//!
//! Everything the engine needs to know about the protocol comes from its `sessions:`
//! section (checked when the spec loads): which role serves, which route creates sessions,
//! which kind says hello, the message templates, ... This emitter writes that section as a
//! `static` [`Layout`](agentwire_transport::http_ws::Layout), a `Binding` to the generated
//! decoders and checker, a typed reply enum and client method per HTTP route, the receiving
//! side of the server's forwards, and the WebSocket client with one send method per kind.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{Protocol, Route, Sessions};
use crate::naming::type_ident;
use crate::naming::{pascal_case, snake_case};

mod layout;
mod receiver;
mod routes;

/// The skeleton module, or `None` when the spec has no `sessions:` section (the loader
/// already reported that as an error for `http+websocket` specs).
pub fn emit(p: &Protocol) -> Option<TokenStream> {
    let s = p.sessions.as_ref()?;
    let forward = find(p, &s.input.forward)?;
    let module = crate::naming::module_path(p);
    let binding = layout::emit_binding(p, s)?;
    let server = format_ident!("{}", pascal_case(&s.server));
    let owners = emit_owners(s);
    let replies = p
        .routes
        .iter()
        .filter(|r| r.from != s.server)
        .map(routes::emit_reply);
    let clients = routes::emit_http_clients(p, &s.server);
    let receipt = s.input.receipt.to_string();
    let receiver = receiver::emit_receiver(p, forward, &receipt);
    let ws_client = emit_ws_client(p, s)?;
    let doc = [
        format!(
            " Client and server skeletons of {}, over HTTP and a WebSocket (`{}`).",
            p.title, s.websocket
        ),
        format!(
            " [`{server}`] is the session server (the engine in `agentwire_transport::http_ws`, bound"
        ),
        " by [`Binding`] to this protocol's `sessions:` section); the other roles get typed"
            .to_owned(),
        " HTTP clients, a receiver for the server's forwards, and a WebSocket client.".to_owned(),
    ];
    let server_doc = format!(
        " The `{}` role: sessions, `{}`, forwarding, callbacks.",
        s.server, s.websocket
    );
    Some(quote! {
        #(#![doc = #doc])*

        use std::future::Future;
        use std::sync::Arc;

        use agentwire_runtime::Validate as _;
        use agentwire_transport::http_ws as hw;
        use agentwire_transport::axum;

        use crate::#module as proto;
        use crate::#module::machine::Checker;

        #binding

        #[doc = #server_doc]
        pub type #server = hw::SessionServer<Binding>;

        #owners
        #(#replies)*
        #clients
        #receiver
        #ws_client
    })
}

/// `owners`: the server's owner directory from the protocol's owner definitions.
fn emit_owners(s: &Sessions) -> TokenStream {
    let config = type_ident(&s.owners.config);
    let doc = format!(
        " The server's owners from `{}` definitions: those with `{}` get their input \
         forwarded there; the others are stored and echoed only.",
        s.owners.config, s.owners.forward_url
    );
    quote! {
        #[doc = #doc]
        pub fn owners(configs: &[proto::#config]) -> Vec<hw::Owner> {
            configs
                .iter()
                .filter_map(|c| agentwire_runtime::serde_json::to_value(c).ok())
                .filter_map(|v| hw::Owner::from_config::<Binding>(&v))
                .collect()
        }
    }
}

/// The client role's WebSocket connection: one send method per kind it sends, and a
/// stream of validated, sequence-checked server frames.
fn emit_ws_client(p: &Protocol, s: &Sessions) -> Option<TokenStream> {
    let inbound = type_ident(&p.channel_from(&s.client)?.union);
    let outbound = type_ident(&p.channel_from(&s.server)?.union);
    let client = format_ident!("{}Client", pascal_case(&s.client));
    let sends = p.messages.iter().filter(|m| m.from == s.client).map(|m| {
        let method = format_ident!("{}", snake_case(&m.kind));
        let v = format_ident!("{}", pascal_case(&m.kind));
        let t = type_ident(&m.type_name);
        let doc = format!(" Sends `{}`: {}", m.kind, m.summary);
        quote! {
            #[doc = #doc]
            pub async fn #method(&mut self, msg: proto::#t) -> Result<(), hw::ClientError> {
                self.send(proto::#inbound::#v(msg)).await
            }
        }
    });
    let doc = format!(
        " The `{}` role's WebSocket connection to `{}`.",
        s.client, s.websocket
    );
    Some(quote! {
        #[doc = #doc]
        #[derive(Debug)]
        pub struct #client(hw::SessionClient<Binding>);

        impl #client {
            /// Connects to `url` (e.g. `ws://127.0.0.1:8080/ws`).
            pub async fn connect(url: &str, mode: agentwire_transport::CheckMode) -> Result<Self, hw::ClientError> {
                hw::SessionClient::connect(url, mode).await.map(Self)
            }

            /// Connects presenting `token` as `Authorization: Bearer <token>` in the upgrade
            /// request, for a server that demands a shared token (`Guard::token`).
            pub async fn connect_with_token(url: &str, token: &str, mode: agentwire_transport::CheckMode) -> Result<Self, hw::ClientError> {
                hw::SessionClient::connect_with_token(url, Some(token), mode).await.map(Self)
            }

            /// Validates, sequence-checks and sends one message (a hello's session id is
            /// sent trimmed, as the server will read it).
            pub async fn send(&mut self, msg: proto::#inbound) -> Result<(), hw::ClientError> {
                msg.validate()?;
                self.0.send(&msg.to_json()).await
            }

            #(#sends)*

            /// The next server message, validated and sequence-checked; `None` once the
            /// server closed the connection.
            pub async fn next(&mut self) -> Option<Result<proto::#outbound, hw::ClientError>> {
                let value = match self.0.next().await? {
                    Ok(v) => v,
                    Err(e) => return Some(Err(e)),
                };
                Some(proto::#outbound::from_json(&value.to_string()).map_err(Into::into))
            }

            /// Closes the connection.
            pub async fn close(&mut self) -> Result<(), hw::ClientError> {
                self.0.close().await
            }
        }
    })
}

/// The route named `name`.
fn find<'p>(p: &'p Protocol, name: &str) -> Option<&'p Route> {
    p.routes.iter().find(|r| r.name == name)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn spec() -> Protocol {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/external_agents");
        crate::front::load::load_spec(&dir)
            .expect("the external_agents spec loads")
            .protocol
    }

    #[test]
    fn emits_the_same_tokens_every_time() {
        let p = spec();
        let a = emit(&p).expect("a skeleton").to_string();
        let b = emit(&p).expect("a skeleton").to_string();
        assert_eq!(a, b);
        assert!(a.contains("impl hw :: Binding for Binding"));
    }

    #[test]
    fn the_layout_comes_from_the_sessions_section() {
        let mut p = spec();
        let s = p.sessions.as_mut().expect("sessions");
        s.websocket = "/live".into();
        s.hello.kind = "join".into();
        let code = emit(&p).expect("a skeleton").to_string();
        assert!(code.contains("websocket : \"/live\""), "{code}");
        assert!(code.contains("hello_kind : \"join\""));
        let mut p = spec();
        p.sessions = None;
        assert!(emit(&p).is_none());
    }

    #[test]
    fn one_send_method_per_client_kind_and_one_client_method_per_route() {
        let s = emit(&spec()).expect("a skeleton").to_string();
        for needle in [
            "pub async fn hello",
            "pub async fn user_message",
            "pub async fn create_session",
            "pub async fn inject_message",
            "fn forward_input",
            "pub struct WebUiClient",
            "pub type AgentServer",
            "pub trait ExternalSystemHandler",
        ] {
            assert!(s.contains(needle), "missing {needle}");
        }
    }
}
