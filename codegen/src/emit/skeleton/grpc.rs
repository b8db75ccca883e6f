//! Skeleton emitter for gRPC bidi streams through tonic.
//!
//! The engines (handshake, request routing, feature gating, limits, shutdown, heartbeats)
//! are library code in `agentwire_transport::grpc`. This emitter writes only the binding,
//! from the spec's `grpc:` section (`ir::GrpcSkeleton`), `features:` and `events:`: the
//! `grpc::Binding` impl that names the protocol's prost types, kinds and fields, the handler
//! traits with one method per kind, and typed senders. Names come from the roles: roles
//! `agent` (sends the hello) and `gateway` give `Gateway`, `GatewayHandler`, `AgentHandle`,
//! `AgentHandler`, `AgentConfig` and `RunningAgent`.

mod agent;
mod binding;
mod gateway;
mod proto_view;

// A glob import: prost spells names with heck's conversions.
use heck::*;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::front::proto::ProtoSpec;
use crate::ir::{GrpcSkeleton, MessageKind, Protocol};

/// The tonic items generated for the protocol's rpc: the server module, trait and service
/// type, the client, the rpc method and its stream type.
struct Service {
    server_mod: Ident,
    server_ty: Ident,
    trait_name: Ident,
    client_mod: Ident,
    client_ty: Ident,
    rpc: Ident,
    stream_ty: Ident,
}

/// Everything the parts of the module share.
struct Ctx<'a> {
    p: &'a Protocol,
    s: &'a GrpcSkeleton,
    svc: Service,
    view: proto_view::View<'a>,
    /// `proto::AgentMessage` and `proto::agent_message::Payload` (client), and the server's.
    up: TokenStream,
    up_case: TokenStream,
    up_oneof: Ident,
    down: TokenStream,
    down_case: TokenStream,
    down_oneof: Ident,
    /// The response's event enum, e.g. `proto::message_response::Event`.
    event: TokenStream,
}

fn ident(name: &str) -> Ident {
    format_ident!("{name}")
}

/// `snake_case` as prost spells fields and modules.
fn snake(name: &str) -> Ident {
    ident(&snake_name(name))
}

/// A name in `snake_case` as prost spells fields, modules and methods.
fn snake_name(name: &str) -> String {
    name.to_snake_case()
}

/// A oneof case's variant name as prost spells it.
fn variant(case: &str) -> Ident {
    ident(&case.to_upper_camel_case())
}

impl<'a> Ctx<'a> {
    fn kind(&self, kind: &str) -> Option<&'a MessageKind> {
        self.p.messages.iter().find(|m| m.kind == kind)
    }

    /// The prost type of a catalogue kind.
    fn ty(&self, kind: &str) -> TokenStream {
        let t = ident(self.kind(kind).map_or("", |m| m.type_name.as_str()));
        quote!(proto::#t)
    }

    /// `kind`'s message wrapped in its direction's union.
    fn wrap(&self, kind: &str, value: TokenStream) -> TokenStream {
        let v = variant(kind);
        let client = self.kind(kind).is_some_and(|m| m.from == self.s.client);
        let (union, case, oneof) = if client {
            (&self.up, &self.up_case, &self.up_oneof)
        } else {
            (&self.down, &self.down_case, &self.down_oneof)
        };
        quote!(grpc::build(|m: &mut #union| m.#oneof = Some(#case::#v(#value))))
    }

    /// The pattern matching `kind` in its direction's oneof.
    fn case(&self, kind: &str, binding: TokenStream) -> TokenStream {
        let v = variant(kind);
        let client = self.kind(kind).is_some_and(|m| m.from == self.s.client);
        let case = if client {
            &self.up_case
        } else {
            &self.down_case
        };
        quote!(Some(#case::#v(#binding)))
    }

    /// The kinds `role` sends, without `skip`.
    fn kinds_of(&self, role: &str, skip: &[&str]) -> Vec<&'a MessageKind> {
        self.p
            .messages
            .iter()
            .filter(|m| m.from == role && !skip.contains(&m.kind.as_str()))
            .collect()
    }

    /// The Rust type of an event case (`_` when the proto does not say).
    fn event_type(&self, name: &str) -> TokenStream {
        let x = &self.s.exchange;
        let response = self.kind(&x.response).map_or("", |m| m.type_name.as_str());
        let found = self
            .view
            .cases(response, &x.event)
            .into_iter()
            .find(|(n, _)| n == name);
        match found.and_then(|(_, arg)| arg) {
            Some(proto_view::CaseArg::Value(t)) => t,
            Some(proto_view::CaseArg::Text { message, .. }) => message,
            None => quote!(_),
        }
    }

    /// Role-derived type names: `Gateway`, `AgentHandle`, ...
    fn role_ty(&self, client: bool, suffix: &str) -> Ident {
        let role = if client {
            &self.s.client
        } else {
            &self.s.server
        };
        ident(&format!("{}{suffix}", role.to_upper_camel_case()))
    }
}

fn service(p: &Protocol) -> Option<Service> {
    let grpc = p.transport.grpc.as_ref()?;
    // `pkg.AgentControl` -> `AgentControl`: tonic names items after the unqualified name.
    let svc = grpc.service.rsplit('.').next()?;
    let rpc = &grpc.rpc;
    Some(Service {
        server_mod: format_ident!("{}_server", snake_name(svc)),
        server_ty: format_ident!("{svc}Server"),
        trait_name: format_ident!("{svc}"),
        client_mod: format_ident!("{}_client", snake_name(svc)),
        client_ty: format_ident!("{svc}Client"),
        rpc: snake(rpc),
        stream_ty: format_ident!("{rpc}Stream"),
    })
}

/// A union's type, its oneof enum and its oneof field, read from the proto.
fn union_of(
    p: &Protocol,
    view: &proto_view::View<'_>,
    role: &str,
) -> Option<(TokenStream, TokenStream, Ident)> {
    let union = &p.channels.iter().find(|c| c.from == role)?.union;
    let oneof = view.oneof_of(union)?;
    let t = ident(union);
    let m = snake(union);
    let e = variant(&oneof);
    Some((quote!(proto::#t), quote!(proto::#m::#e), snake(&oneof)))
}

fn context<'a>(p: &'a Protocol, proto: &'a ProtoSpec) -> Option<Ctx<'a>> {
    let s = p.transport.grpc.as_ref()?.skeleton.as_ref()?;
    let view = proto_view::View::new(proto);
    let (up, up_case, up_oneof) = union_of(p, &view, &s.client)?;
    let (down, down_case, down_oneof) = union_of(p, &view, &s.server)?;
    let response = p.messages.iter().find(|m| m.kind == s.exchange.response)?;
    let (m, e) = (snake(&response.type_name), variant(&s.exchange.event));
    Some(Ctx {
        p,
        s,
        svc: service(p)?,
        view,
        up,
        up_case,
        up_oneof,
        down,
        down_case,
        down_oneof,
        event: quote!(proto::#m::#e),
    })
}

/// The skeleton module: the server and client of every service of the spec (every call
/// kind, each message checked), and on top, when `grpc:` declares one, the handshake layer
/// of its bidi rpc. `None` when the spec's files declare no service.
pub fn emit(p: &Protocol, proto: Option<&ProtoSpec>) -> Option<TokenStream> {
    let proto = proto?;
    let services = super::grpc_service::emit(p, proto);
    if let Some(layer) = layer(p, proto) {
        return Some(quote!(#layer #services));
    }
    let doc = format!(
        " The services of `{}` over tonic, as tonic-build writes them: for each, a server \
         trait and service (`<service>_server`) and a client (`<service>_client`), every \
         message checked against the spec both ways (`agentwire_transport::grpc::codec`).",
        p.module
    );
    let services = services?;
    Some(quote! {
        #![doc = #doc]
        #services
    })
}

/// The handshake layer, or `None` when the protocol has no complete `grpc:` section (the
/// loader has reported what is missing).
fn layer(p: &Protocol, proto: &ProtoSpec) -> Option<TokenStream> {
    let cx = context(p, proto)?;
    let module = ident(&p.module);
    let binding = binding::emit(&cx);
    let gateway = gateway::emit(&cx);
    let agent = agent::emit(&cx);
    let doc = format!(
        " Both roles of `{}` over tonic: the `{}` side (server) as [`{}`] with a [`{}`], the `{}` side (client) as [`connect`] with an [`{}`].",
        p.module,
        cx.s.server,
        cx.role_ty(false, ""),
        cx.role_ty(false, "Handler"),
        cx.s.client,
        cx.role_ty(true, "Handler"),
    );
    Some(quote! {
        #![doc = #doc]
        use std::future::Future;

        use agentwire_transport::grpc::{self, GrpcLimits, SendError};
        use agentwire_transport::tonic::{Request, Response, Status, Streaming};
        use agentwire_transport::{tokio, tonic, CheckMode};
        use crate::#module as proto;
        use crate::#module::machine::{Checker, Message};

        #binding
        #gateway
        #agent
    })
}

/// Handler trait methods, one per inbound kind, empty by default, each taking the role's
/// context (`context`, a parameter declaration) before the message.
fn handler_methods(cx: &Ctx<'_>, inbound: &[&MessageKind], context: &TokenStream) -> TokenStream {
    inbound
        .iter()
        .map(|m| {
            let method = format_ident!("on_{}", snake_name(&m.kind));
            let t = cx.ty(&m.kind);
            let doc = format!(" `{}`: {}", m.kind, m.summary);
            quote! {
                #[doc = #doc]
                fn #method(&self, #context, _msg: #t) -> impl Future<Output = ()> + Send {
                    async {}
                }
            }
        })
        .collect()
}

/// Match arms handing each inbound kind to its handler method: `call` gets the method.
fn dispatch_arms(
    cx: &Ctx<'_>,
    inbound: &[&MessageKind],
    call: impl Fn(&Ident) -> TokenStream,
) -> TokenStream {
    inbound
        .iter()
        .map(|m| {
            let method = format_ident!("on_{}", snake_name(&m.kind));
            let pat = cx.case(&m.kind, quote!(m));
            let call = call(&method);
            quote! { #pat => #call, }
        })
        .collect()
}

/// Typed senders, one per outbound kind: `send` turns the wrapped message into the call.
fn senders(
    cx: &Ctx<'_>,
    outbound: &[&MessageKind],
    send: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    outbound
        .iter()
        .map(|m| {
            let method = snake(&m.kind);
            let t = cx.ty(&m.kind);
            let doc = format!(" Sends `{}`: {}", m.kind, m.summary);
            let call = send(cx.wrap(&m.kind, quote!(msg)));
            quote! {
                #[doc = #doc]
                pub async fn #method(&self, msg: #t) -> Result<(), SendError> {
                    #call
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn coven() -> crate::front::load::LoadedSpec {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/coven");
        crate::front::load::load_spec(&dir).unwrap()
    }

    #[test]
    fn every_other_kind_of_the_catalogue_gets_a_handler_method_or_a_sender() {
        let spec = coven();
        let code = emit(&spec.protocol, spec.proto.as_ref())
            .unwrap()
            .to_string();
        // Agent kinds beyond the handshake become gateway handler methods, gateway kinds
        // typed senders on the agent handle; and the other way round for the agent side.
        for needle in [
            "fn on_execute_pack_tool",
            "fn on_heartbeat",
            "fn on_injection_ack",
            "pub async fn tool_approval",
            "pub async fn pack_tool_result",
            "pub async fn inject_context",
            "fn on_tool_approval",
            "fn on_pack_tool_result",
            "fn on_inject_context",
            "pub async fn execute_pack_tool",
            "CovenControlServer",
            "agent_stream",
        ] {
            assert!(code.contains(needle), "missing `{needle}`");
        }
    }

    #[test]
    fn without_the_rpc_only_the_services_and_without_the_proto_nothing() {
        let spec = coven();
        let mut p = spec.protocol.clone();
        p.transport.grpc = None;
        let services = emit(&p, spec.proto.as_ref()).unwrap().to_string();
        assert!(services.contains("coven_control_server") && !services.contains("Binding"));
        assert!(emit(&spec.protocol, None).is_none());
    }
}
