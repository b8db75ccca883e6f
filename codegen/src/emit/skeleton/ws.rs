//! Skeleton emitter for WebSocket protocols with JSON text frames.
//!
//! The first role of the spec is the side that connects (the client), the second the side
//! that accepts (the server). From the two
//! channels it emits, per protocol: a `Side` binding for each role (decode, encode,
//! checker), the server's `Handler` trait with one method per inbound kind, a `Sender` with
//! one method per outbound kind, `serve`, and a `Client` with one method per kind it sends.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Protocol, Ty, TypeKind};
use crate::naming::pascal_case;
use crate::naming::type_ident;

mod tracking;

/// One direction as the emitter needs it.
struct Direction<'a> {
    role: &'a str,
    union: Ident,
    /// `(kind, variant, member type, summary)` per message kind, in union order.
    kinds: Vec<(String, Ident, Ident, String)>,
}

fn direction<'a>(p: &'a Protocol, role: &'a str) -> Option<Direction<'a>> {
    let channel = p.channel_from(role)?;
    let (_, variants) = p.union_variants(&channel.union)?;
    let cases = crate::naming::variant_names(variants.iter().map(|v| v.value.as_str()));
    let kinds = variants
        .iter()
        .zip(cases)
        .map(|(v, case)| {
            let summary = p
                .messages
                .iter()
                .find(|m| m.kind == v.value && m.from == role)
                .map(|m| m.summary.clone())
                .unwrap_or_default();
            (
                v.value.clone(),
                format_ident!("{case}"),
                type_ident(&v.type_name),
                summary,
            )
        })
        .collect();
    Some(Direction {
        role,
        union: type_ident(&channel.union),
        kinds,
    })
}

impl Direction<'_> {
    /// One typed send per kind of this direction, for a wrapper around a `ws::Link`
    /// (`self.0`); the server's `Sender` and the client share them.
    fn send_methods(&self) -> Vec<TokenStream> {
        let union = &self.union;
        self.kinds
            .iter()
            .map(|(kind, variant, ty, summary)| {
                let method = method_ident(kind);
                let doc = format!(" `{kind}`: {summary}");
                quote! {
                    #[doc = #doc]
                    pub async fn #method(&self, msg: protocol::#ty) -> Result<(), ws::SendError> {
                        self.0.send(&protocol::#union::#variant(msg)).await
                    }
                }
            })
            .collect()
    }
}

/// The method name for a message kind (`user_input`, `error`, ...): named as a field is.
fn method_ident(kind: &str) -> Ident {
    crate::naming::field_ident(kind)
}

fn side_ident(role: &str) -> Ident {
    format_ident!("{}Side", pascal_case(role))
}

/// The client and server skeletons of `p`, or `None` when its spec lacks the two
/// channels a WebSocket skeleton needs.
pub fn emit(p: &Protocol) -> Option<TokenStream> {
    let [client_role, server_role] = p.roles.as_slice() else {
        return None;
    };
    let up = direction(p, client_role)?;
    let down = direction(p, server_role)?;
    let module = crate::naming::module_path(p);
    let extras = tracking::extras(p);
    let server_side = emit_side(&up, &down, &extras.server_resume, refusal_answer(p, &down));
    let client_side = emit_side(&down, &up, &extras.client_resume, TokenStream::new());
    let server = emit_server(&up, &down);
    let client = emit_client(&up, &down);
    let extra_items = extras.items;
    // One attribute per line: prettyplease prints those as `//!` lines.
    let doc = [
        format!(
            " {}: both roles over WebSocket, one JSON message per text frame.",
            p.title
        ),
        format!(
            " `{}` accepts connections (`serve` with a `Handler`); `{}` connects (`Client`).",
            down.role, up.role
        ),
    ];
    Some(quote! {
        #(#![doc = #doc])*

        use std::future::Future;

        use agentwire_transport::ws;

        use crate::#module::{self as protocol, machine};

        #server_side
        #client_side
        #server
        #client
        #extra_items
    })
}

/// `impl ws::Side` for the role that receives `inbound` and sends `outbound`.
fn emit_side(
    inbound: &Direction<'_>,
    outbound: &Direction<'_>,
    resume: &TokenStream,
    refusal: TokenStream,
) -> TokenStream {
    let side = side_ident(outbound.role);
    let role = outbound.role;
    let in_union = &inbound.union;
    let out_union = &outbound.union;
    let in_role = format_ident!("{}", pascal_case(inbound.role));
    let in_role_name = inbound.role;
    let out_role = format_ident!("{}", pascal_case(outbound.role));
    let doc = format!(
        " The `{role}` role: receives `{}`, sends `{}`.",
        inbound.union, outbound.union
    );
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, Copy, Default)]
        pub struct #side;

        impl ws::Side for #side {
            type Inbound = protocol::#in_union;
            type Outbound = protocol::#out_union;
            type Checker = machine::Checker;
            const ROLE: &'static str = #role;

            fn decode(text: &str) -> Result<Self::Inbound, agentwire_runtime::Invalid> {
                // A frame only this side sends is named as such (rule `wrong_side`); the
                // second decode runs on refused frames only.
                protocol::#in_union::from_json(text).map_err(|refused| {
                    let by_role = protocol::decode_message(#in_role_name, text);
                    agentwire_runtime::side::prefer_wrong_side(refused, by_role)
                })
            }

            fn encode(msg: &Self::Outbound) -> String {
                msg.to_json()
            }

            fn checker(limits: agentwire_runtime::machine::Limits) -> Self::Checker {
                machine::Checker::with_limits(limits)
            }

            fn observe_inbound(
                checker: &mut Self::Checker,
                msg: &Self::Inbound,
            ) -> Result<(), agentwire_runtime::machine::Violation> {
                checker.observe(machine::Message::#in_role(msg))
            }

            fn observe_outbound(
                checker: &mut Self::Checker,
                msg: &Self::Outbound,
            ) -> Result<(), agentwire_runtime::machine::Violation> {
                checker.observe(machine::Message::#out_role(msg))
            }

            #refusal
            #resume
        }
    }
}

/// Where the sending role has a message kind `error` shaped `{id?, <tag>, payload:
/// {message, details?}}`, the protocol's own answer to a refused frame; otherwise nothing
/// (the frame is dropped and logged).
fn refusal_answer(p: &Protocol, out: &Direction<'_>) -> TokenStream {
    let Some(channel) = p.channel_from(out.role) else {
        return TokenStream::new();
    };
    let Some((tag, variants)) = p.union_variants(&channel.union) else {
        return TokenStream::new();
    };
    let Some(member) = variants.iter().find(|v| v.value == "error") else {
        return TokenStream::new();
    };
    let Some(TypeKind::Struct(fields)) = p.types.get(&member.type_name).map(|t| &t.kind) else {
        return TokenStream::new();
    };
    let has_id = fields.iter().any(|f| f.name == "id" && f.ty == Ty::String);
    let Some(Ty::Named(payload)) = fields.iter().find(|f| f.name == "payload").map(|f| &f.ty)
    else {
        return TokenStream::new();
    };
    let Some(TypeKind::Struct(payload_fields)) = p.types.get(payload).map(|t| &t.kind) else {
        return TokenStream::new();
    };
    if !payload_fields
        .iter()
        .any(|f| f.name == "message" && f.ty == Ty::String)
    {
        return TokenStream::new();
    }
    let details = if payload_fields
        .iter()
        .any(|f| f.name == "details" && f.ty == Ty::Any)
    {
        quote!(payload.insert("details".to_owned(), refused.details());)
    } else {
        TokenStream::new()
    };
    let id = if has_id {
        quote!(frame.insert("id".to_owned(), format!("refused-{connection}-{seq}").into());)
    } else {
        // Without an id field the frame's numbering is not needed.
        quote!(let _ = (connection, seq);)
    };
    quote! {
        /// The protocol's `error` message, naming the failing rule in `details`.
        fn refusal_answer(
            refused: &ws::Refused,
            connection: u64,
            seq: u64,
        ) -> Option<Self::Outbound> {
            let mut payload = agentwire_runtime::serde_json::Map::new();
            payload.insert("message".to_owned(), refused.to_string().into());
            #details
            let mut frame = agentwire_runtime::serde_json::Map::new();
            #id
            frame.insert(#tag.to_owned(), "error".into());
            frame.insert("payload".to_owned(), payload.into());
            let json = agentwire_runtime::serde_json::Value::Object(frame).to_string();
            Self::Outbound::from_json(&json).ok()
        }
    }
}

fn emit_server(up: &Direction<'_>, down: &Direction<'_>) -> TokenStream {
    let side = side_ident(down.role);
    let in_union = &up.union;
    let out_union = &down.union;
    let sender_doc = format!(
        " Sends `{}` messages on one connection; every message passes the checker first.",
        down.role
    );
    let send_methods = down.send_methods();
    let handler_doc = [
        format!(
            " The `{}` side's behaviour: one method per message kind `{}` sends.",
            down.role, up.role
        ),
        " Each call runs in its own task; `out` answers on the connection the message came from."
            .to_owned(),
    ];
    let handler_methods = up.kinds.iter().map(|(kind, _, ty, summary)| {
        let method = method_ident(kind);
        let doc = format!(" `{kind}`: {summary}");
        quote! {
            #[doc = #doc]
            fn #method(&self, out: &Sender, msg: protocol::#ty) -> impl Future<Output = ()> + Send;
        }
    });
    let arms = up.kinds.iter().map(|(kind, variant, _, _)| {
        let method = method_ident(kind);
        quote!(protocol::#in_union::#variant(m) => self.0.#method(&out, m).await,)
    });
    quote! {
        #[doc = #sender_doc]
        #[derive(Debug, Clone)]
        pub struct Sender(pub ws::Link<#side>);

        impl Sender {
            /// The connection's number (the same one `Handler::closed` gets).
            pub fn connection(&self) -> u64 {
                self.0.connection()
            }

            /// Whether the connection has ended.
            pub fn is_closed(&self) -> bool {
                self.0.is_closed()
            }

            /// Sends any message of the union.
            pub async fn send(&self, msg: &protocol::#out_union) -> Result<(), ws::SendError> {
                self.0.send(msg).await
            }

            /// Closes the connection.
            pub async fn close(&self) {
                self.0.close().await
            }

            #(#send_methods)*
        }

        #(#[doc = #handler_doc])*
        pub trait Handler: Send + Sync + 'static {
            #(#handler_methods)*

            /// The connection numbered `connection` ended; drop whatever was kept for it.
            fn closed(&self, connection: u64) -> impl Future<Output = ()> + Send {
                let _ = connection;
                async {}
            }
        }

        /// Routes each admitted message to its `Handler` method.
        struct Dispatch<H>(H);

        impl<H: Handler> ws::Handler<#side> for Dispatch<H> {
            async fn message(&self, link: ws::Link<#side>, msg: protocol::#in_union) {
                let out = Sender(link);
                match msg {
                    #(#arms)*
                }
            }

            async fn closed(&self, connection: u64) {
                self.0.closed(connection).await
            }
        }

        /// Serves `handler` on `listener` (any path) until `Server::shutdown`.
        pub async fn serve<H: Handler>(
            listener: agentwire_transport::tokio::net::TcpListener,
            handler: H,
            config: ws::ServerConfig,
        ) -> std::io::Result<ws::Server> {
            ws::serve::<#side, _>(listener, Dispatch(handler), config).await
        }
    }
}

fn emit_client(up: &Direction<'_>, down: &Direction<'_>) -> TokenStream {
    let side = side_ident(up.role);
    let out_union = &up.union;
    let in_union = &down.union;
    let doc = format!(
        " The `{}` side's connection: typed sends, and the `{}` messages as a stream.",
        up.role, down.role
    );
    let send_methods = up.send_methods();
    quote! {
        #[doc = #doc]
        #[derive(Debug)]
        pub struct Client(pub ws::Client<#side>);

        impl Client {
            /// Connects to `url` (`ws://host:port/path`).
            pub async fn connect(url: &str, config: ws::ClientConfig) -> Result<Self, ws::ConnectError> {
                ws::Client::connect(url, config).await.map(Self)
            }

            /// Sends any message of the union.
            pub async fn send(&self, msg: &protocol::#out_union) -> Result<(), ws::SendError> {
                self.0.send(msg).await
            }

            /// The next message from the peer, or the reason a frame was refused; `None` once
            /// the connection has ended.
            pub async fn next(&mut self) -> Option<Result<protocol::#in_union, ws::Refused>> {
                self.0.next().await
            }

            /// A sending handle other tasks can hold.
            pub fn link(&self) -> &ws::Link<#side> {
                self.0.link()
            }

            /// Closes the connection.
            pub async fn close(self) {
                self.0.close().await
            }

            #(#send_methods)*
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::front::load::load_spec;

    fn spec(module: &str) -> Protocol {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../spec")
            .join(module);
        load_spec(&dir).expect("built-in spec loads").protocol
    }

    fn emitted(p: &Protocol) -> String {
        emit(p).expect("skeleton emitted").to_string()
    }

    #[test]
    fn one_handler_method_per_inbound_kind_and_one_sender_method_per_outbound_kind() {
        let code = emitted(&spec("agentloop"));
        for kind in [
            "user_input",
            "approval_response",
            "get_context_info",
            "manual_compact",
        ] {
            assert!(
                code.contains(&format!("fn {kind} (& self , out : & Sender")),
                "{kind}"
            );
        }
        for kind in [
            "response_item",
            "loading_state",
            "approval_request",
            "agent_finished",
            "context_info",
            "context_compacted",
            "error",
        ] {
            assert!(
                code.contains(&format!("pub async fn {kind} (& self , msg")),
                "{kind}"
            );
        }
    }

    #[test]
    fn only_a_protocol_with_an_error_message_answers_refusals() {
        assert!(emitted(&spec("agentloop")).contains("fn refusal_answer"));
        let helix = emitted(&spec("helix_zed"));
        assert!(!helix.contains("fn refusal_answer"));
        assert!(helix.contains("fn resume_inbound"));

        // An `error` kind without `payload.message` is not an answer the emitter can build.
        let mut p = spec("agentloop");
        if let Some(TypeKind::Struct(fields)) =
            p.types.get_mut("ErrorMessagePayload").map(|t| &mut t.kind)
        {
            fields.retain(|f| f.name != "message");
        } else {
            panic!("agentloop's error payload type moved");
        }
        assert!(!emitted(&p).contains("fn refusal_answer"));
    }

    #[test]
    fn needs_exactly_two_roles_with_a_channel_each() {
        let mut p = spec("helix_zed");
        p.roles.push("observer".into());
        assert!(emit(&p).is_none());
        let mut p = spec("helix_zed");
        p.channels.pop();
        assert!(emit(&p).is_none());
    }
}
