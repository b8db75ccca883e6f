//! Skeleton emitter for HTTP routes plus a WebSocket channel (external_agents).
//!
//! The agent server's behaviour (sessions, forwarding, callbacks) is fixed by the protocol and
//! lives in `agentwire_transport::http_ws`; this emitter writes the typed glue around it: the
//! `Wire` binding of the generated messages and checker, a typed reply enum and client method
//! per HTTP route, the external system's handler trait and `inputUrl` receiver, and the web
//! UI's WebSocket client with one send method per message kind. Type names come from the IR
//! (channels, message kinds, route bodies and responses), so renaming a type in the spec
//! flows through; a spec missing one of the kinds the agent server relies on gets no skeleton.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit::http::{exchange_ident, path_params};
use crate::emit::types::{field_ident, type_ident};
use crate::ir::{Body, Protocol, Route, Ty, TypeKind};
use crate::naming::{pascal_case, snake_case};

/// A message kind as the skeleton uses it: the union variant and its member type.
struct Kind {
    variant: Ident,
    ty: Ident,
    type_name: String,
}

/// Every name the `Wire` binding needs, looked up in the IR.
struct Names {
    inbound: Ident,
    outbound: Ident,
    in_role: Ident,
    out_role: Ident,
    hello: Kind,
    user_message: Kind,
    session_ready: Kind,
    message: Kind,
    error: Kind,
    role_enum: Ident,
    ws_code: Ident,
    session_id: Ident,
    create: Route,
    create_req: Ident,
    create_resp: Ident,
    create_result: Ident,
    api_error: Ident,
    api_error_inner: Ident,
    api_code: Ident,
    ok: Ident,
    forward: Route,
    payload: Ident,
    payload_msg: Ident,
    payload_msg_type: Ident,
    inject: Route,
}

/// The named type of field `field` of struct `ty`.
fn field_type(p: &Protocol, ty: &str, field: &str) -> Option<String> {
    let TypeKind::Struct(fields) = &p.types.get(ty)?.kind else {
        return None;
    };
    match &fields.iter().find(|f| f.name == field)?.ty {
        Ty::Named(n) => Some(n.clone()),
        Ty::Nullable(inner) => match inner.as_ref() {
            Ty::Named(n) => Some(n.clone()),
            _ => None,
        },
        _ => None,
    }
}

fn kind(p: &Protocol, from: &str, name: &str) -> Option<Kind> {
    let m = p
        .messages
        .iter()
        .find(|m| m.from == from && m.kind == name)?;
    Some(Kind {
        variant: format_ident!("{}", pascal_case(&m.kind)),
        ty: type_ident(&m.type_name),
        type_name: m.type_name.clone(),
    })
}

fn json_body(body: &Body) -> Option<&str> {
    match body {
        Body::Json(t) => Some(t),
        _ => None,
    }
}

fn response_type(route: &Route, status: u16) -> Option<&str> {
    route
        .responses
        .iter()
        .find(|r| r.status == status)
        .and_then(|r| json_body(&r.body))
}

fn names(p: &Protocol) -> Option<Names> {
    let (ui, server) = ("web_ui", "agent_server");
    let in_ch = p.channels.iter().find(|c| c.from == ui && c.to == server)?;
    let out_ch = p.channels.iter().find(|c| c.from == server && c.to == ui)?;
    let route = |name: &str| p.routes.iter().find(|r| r.name == name).cloned();
    let (create, forward, inject) = (
        route("create_session")?,
        route("forward_input")?,
        route("inject_message")?,
    );
    let hello = kind(p, ui, "hello")?;
    let message = kind(p, server, "message")?;
    let error = kind(p, server, "error")?;
    let create_resp = response_type(&create, 201)?.to_owned();
    let api_error = response_type(&create, 400)?.to_owned();
    let api_error_inner = field_type(p, &api_error, "error")?;
    let payload = json_body(&forward.body)?.to_owned();
    let payload_msg = field_type(p, &payload, "message")?;
    Some(Names {
        inbound: type_ident(&in_ch.union),
        outbound: type_ident(&out_ch.union),
        in_role: format_ident!("{}", pascal_case(ui)),
        out_role: format_ident!("{}", pascal_case(server)),
        session_id: type_ident(&field_type(p, &hello.type_name, "sessionId")?),
        role_enum: type_ident(&field_type(p, &message.type_name, "role")?),
        ws_code: type_ident(&field_type(p, &error.type_name, "code")?),
        create_req: type_ident(json_body(&create.body)?),
        create_result: type_ident(&field_type(p, &create_resp, "result")?),
        create_resp: type_ident(&create_resp),
        api_code: type_ident(&field_type(p, &api_error_inner, "code")?),
        api_error_inner: type_ident(&api_error_inner),
        api_error: type_ident(&api_error),
        ok: type_ident(response_type(&forward, 200)?),
        payload_msg_type: type_ident(&field_type(p, &payload_msg, "type")?),
        payload_msg: type_ident(&payload_msg),
        payload: type_ident(&payload),
        hello,
        user_message: kind(p, ui, "user_message")?,
        session_ready: kind(p, server, "session_ready")?,
        message,
        error,
        create,
        forward,
        inject,
    })
}

/// The skeleton module for an HTTP + WebSocket protocol shaped like external_agents.
pub fn emit(p: &Protocol) -> Option<TokenStream> {
    let n = names(p)?;
    let module = format_ident!("{}", p.module);
    let wire = emit_wire(&n);
    let replies = p
        .routes
        .iter()
        .filter(|r| r.from != "agent_server")
        .map(emit_reply);
    let clients = emit_http_clients(p);
    let receiver = emit_receiver(p);
    let ui_client = emit_ws_client(p, &n);
    let agents = emit_agents(p);
    let doc = format!(
        " Client and server skeletons of {}, over HTTP and a WebSocket (`/ws`).",
        p.title
    );
    Some(quote! {
        #![doc = #doc]
        //!
        //! - [`AgentServer`]: the agent server (sessions, `/ws`, forwarding, callbacks); its
        //!   behaviour is the protocol's and lives in `agentwire_transport::http_ws`.
        //! - [`ExternalSystemHandler`] + [`ExternalSystemServer`]: the external system's
        //!   `inputUrl` receiver; [`ExternalSystemHttp`]: its callback client.
        //! - [`WebUiHttp`] and [`WebUiClient`]: the web UI's HTTP and WebSocket clients.

        use std::sync::Arc;

        use agentwire_runtime::Validate as _;
        use agentwire_transport::http_ws as hw;
        use agentwire_transport::axum;

        use crate::#module as proto;
        use crate::#module::machine::{Checker, Message};

        #wire
        #agents
        #(#replies)*
        #clients
        #receiver
        #ui_client
    })
}

fn emit_wire(n: &Names) -> TokenStream {
    let Names {
        inbound,
        outbound,
        in_role,
        out_role,
        role_enum,
        ws_code,
        session_id,
        create_req,
        create_resp,
        create_result,
        api_error,
        api_error_inner,
        api_code,
        ok,
        payload,
        payload_msg,
        payload_msg_type,
        ..
    } = n;
    let (hello_v, hello_t, user_v) = (&n.hello.variant, &n.hello.ty, &n.user_message.variant);
    let (ready_v, ready_t) = (&n.session_ready.variant, &n.session_ready.ty);
    let (msg_v, msg_t) = (&n.message.variant, &n.message.ty);
    let (err_v, err_t) = (&n.error.variant, &n.error.ty);
    let create_x = exchange_ident(&n.create);
    let create_xv = format_ident!("{}", pascal_case(&n.create.name));
    let forward_x = exchange_ident(&n.forward);
    let forward_xv = format_ident!("{}", pascal_case(&n.forward.name));
    let inject_x = exchange_ident(&n.inject);
    let inject_xv = format_ident!("{}", pascal_case(&n.inject.name));
    quote! {
        /// Binds `agentwire_transport::http_ws` to this protocol's generated messages,
        /// validators and sequence checker.
        #[derive(Debug, Clone, Copy, Default)]
        pub struct Wire;

        /// The agent server over this protocol.
        pub type AgentServer = hw::AgentServer<Wire>;

        fn session_id(raw: &str) -> proto::#session_id {
            proto::#session_id(raw.to_owned())
        }

        fn ws_code(code: hw::WsError) -> proto::#ws_code {
            match code {
                hw::WsError::InvalidMessage => proto::#ws_code::InvalidMessage,
                hw::WsError::HelloRequired => proto::#ws_code::HelloRequired,
                hw::WsError::InvalidSessionId => proto::#ws_code::InvalidSessionId,
                hw::WsError::SessionNotFound => proto::#ws_code::SessionNotFound,
            }
        }

        fn api_code(code: hw::ApiError) -> proto::#api_code {
            match code {
                hw::ApiError::InvalidRequest => proto::#api_code::InvalidRequest,
                hw::ApiError::InvalidSessionId => proto::#api_code::InvalidSessionId,
                hw::ApiError::AgentNotFound => proto::#api_code::AgentNotFound,
                hw::ApiError::SessionAgentMismatch => proto::#api_code::SessionAgentMismatch,
                hw::ApiError::SessionNotFound => proto::#api_code::SessionNotFound,
                hw::ApiError::EmptyMessage => proto::#api_code::EmptyMessage,
                hw::ApiError::PayloadTooLarge => proto::#api_code::PayloadTooLarge,
            }
        }

        fn to_json<T: agentwire_runtime::serde::Serialize>(value: &T) -> String {
            // Generated types hold only strings, enums and literals: serializing cannot fail.
            agentwire_runtime::serde_json::to_string(value).unwrap_or_default()
        }

        /// A human-readable message never empty, as the error types require.
        fn non_empty(message: &str) -> String {
            if message.trim().is_empty() {
                "refused".to_owned()
            } else {
                message.to_owned()
            }
        }

        impl hw::Wire for Wire {
            type Inbound = proto::#inbound;
            type Outbound = proto::#outbound;
            type Payload = proto::#payload;
            type Checker = Checker;

            fn new_checker(max_instances: usize) -> Checker {
                Checker::with_limits(agentwire_runtime::machine::Limits { max_instances })
            }

            fn decode_frame(text: &str) -> Result<proto::#inbound, agentwire_runtime::Invalid> {
                proto::#inbound::from_json(text)
            }

            fn frame(msg: &proto::#inbound) -> hw::Frame<'_> {
                match msg {
                    proto::#inbound::#hello_v(m) => hw::Frame::Hello {
                        session_id: m.session_id.0.trim(),
                    },
                    proto::#inbound::#user_v(m) => hw::Frame::UserMessage { text: &m.text },
                }
            }

            fn encode(msg: &proto::#outbound) -> String {
                msg.to_json()
            }

            fn session_ready(session: &str, agent_id: &str) -> proto::#outbound {
                proto::#outbound::#ready_v(proto::#ready_t {
                    session_id: session_id(session),
                    agent_id: agent_id.to_owned(),
                })
            }

            fn chat_message(
                session: &str,
                role: agentwire_transport::store::external_agents::LogRole,
                text: &str,
                created_at: &str,
            ) -> proto::#outbound {
                use agentwire_transport::store::external_agents::LogRole;
                let role = match role {
                    LogRole::User => proto::#role_enum::User,
                    LogRole::Assistant => proto::#role_enum::Assistant,
                    LogRole::Error => proto::#role_enum::Error,
                };
                proto::#outbound::#msg_v(proto::#msg_t {
                    session_id: session_id(session),
                    role,
                    text: text.to_owned(),
                    created_at: created_at.to_owned(),
                })
            }

            fn ws_error(code: hw::WsError, message: &str) -> proto::#outbound {
                proto::#outbound::#err_v(proto::#err_t {
                    code: ws_code(code),
                    message: non_empty(message),
                })
            }

            fn decode_create(body: &str) -> Result<hw::CreateRequest, agentwire_runtime::Invalid> {
                let req: proto::#create_req = agentwire_runtime::decode_json(body)?;
                req.validate()?;
                Ok(hw::CreateRequest {
                    agent_id: req.agent_id,
                    session_id: req.session_id.map(|s| s.0.trim().to_owned()),
                })
            }

            fn session_id(raw: &str) -> Result<String, agentwire_runtime::Invalid> {
                let id = session_id(raw.trim());
                id.validate().map_err(|e| e.under("/path/sessionId"))?;
                Ok(id.0)
            }

            fn create_reply(session: &str, agent_id: &str, created_at: &str) -> String {
                to_json(&proto::#create_resp {
                    ok: agentwire_runtime::literal::True,
                    result: proto::#create_result {
                        session_id: session_id(session),
                        agent_id: agent_id.to_owned(),
                        created_at: created_at.to_owned(),
                    },
                })
            }

            fn api_error(code: hw::ApiError, message: &str) -> String {
                to_json(&proto::#api_error {
                    ok: agentwire_runtime::literal::False,
                    error: proto::#api_error_inner {
                        code: api_code(code),
                        message: non_empty(message),
                    },
                })
            }

            fn ok_reply() -> String {
                to_json(&proto::#ok { ok: agentwire_runtime::literal::True })
            }

            fn payload(
                session: &str,
                agent_id: &str,
                callback_url: &str,
                text: &str,
                created_at: &str,
            ) -> proto::#payload {
                proto::#payload {
                    session_id: session_id(session),
                    agent_id: agent_id.to_owned(),
                    callback_url: callback_url.to_owned(),
                    message: proto::#payload_msg {
                        r#type: proto::#payload_msg_type::User,
                        text: text.to_owned(),
                        created_at: created_at.to_owned(),
                    },
                }
            }

            fn encode_payload(payload: &proto::#payload) -> String {
                to_json(payload)
            }

            fn prime(c: &mut Checker, session: &str, agent_id: &str) {
                // A create answered 200 for a session the checker has not seen reads as the
                // revival of an earlier session: exactly what a session from before this
                // checker started is.
                let _ = observe_create(c, agent_id, session, 200);
            }

            fn prime_connection(c: &mut Checker, session: &str, agent_id: &str) {
                let hello = proto::#inbound::#hello_v(proto::#hello_t {
                    session_id: session_id(session),
                });
                let _ = c.observe(Message::#in_role(&hello));
                let _ = c.observe(Message::#out_role(&Self::session_ready(session, agent_id)));
            }

            fn observe_in(c: &mut Checker, msg: &proto::#inbound) -> Result<(), agentwire_runtime::machine::Violation> {
                match trimmed(msg) {
                    Some(t) => c.observe(Message::#in_role(&t)),
                    None => c.observe(Message::#in_role(msg)),
                }
            }

            fn observe_out(c: &mut Checker, msg: &proto::#outbound) -> Result<(), agentwire_runtime::machine::Violation> {
                c.observe(Message::#out_role(msg))
            }

            fn observe_create(
                c: &mut Checker,
                agent_id: &str,
                session: &str,
                status: u16,
            ) -> Result<(), agentwire_runtime::machine::Violation> {
                observe_create(c, agent_id, session, status)
            }

            fn observe_forward(
                c: &mut Checker,
                payload: &proto::#payload,
                status: Option<u16>,
            ) -> Result<(), agentwire_runtime::machine::Violation> {
                let x = proto::HttpExchange::#forward_xv(proto::#forward_x {
                    status,
                    body: payload.clone(),
                });
                c.observe(Message::Http(&x))
            }

            fn observe_inject(
                c: &mut Checker,
                session: &str,
                text: &str,
                status: u16,
            ) -> Result<(), agentwire_runtime::machine::Violation> {
                let x = proto::HttpExchange::#inject_xv(proto::#inject_x {
                    status: Some(status),
                    session_id: session_id(session),
                    body: text.to_owned(),
                });
                c.observe(Message::Http(&x))
            }
        }

        /// `hello` with its session id trimmed, when trimming changes it. The server acts on
        /// the trimmed id (and answers with it), so the checker must see that one too: its
        /// rules compare ids as plain strings.
        fn trimmed(msg: &proto::#inbound) -> Option<proto::#inbound> {
            match msg {
                proto::#inbound::#hello_v(m) if m.session_id.0.trim() != m.session_id.0 => {
                    Some(proto::#inbound::#hello_v(proto::#hello_t {
                        session_id: session_id(m.session_id.0.trim()),
                    }))
                }
                _ => None,
            }
        }

        fn observe_create(
            c: &mut Checker,
            agent_id: &str,
            session: &str,
            status: u16,
        ) -> Result<(), agentwire_runtime::machine::Violation> {
            let x = proto::HttpExchange::#create_xv(proto::#create_x {
                status: Some(status),
                body: proto::#create_req {
                    agent_id: agent_id.to_owned(),
                    session_id: Some(session_id(session)),
                },
            });
            c.observe(Message::Http(&x))
        }
    }
}

/// `agent_entries`, when the spec declares the agent definition union.
fn emit_agents(p: &Protocol) -> TokenStream {
    let Some(def) = p.types.get("AgentConfig") else {
        return TokenStream::new();
    };
    let TypeKind::Union { variants, .. } = &def.kind else {
        return TokenStream::new();
    };
    let arms = variants.iter().map(|v| {
        let variant = format_ident!("{}", pascal_case(&v.value));
        let has_external = field_type(p, &v.type_name, "external").is_some();
        if has_external {
            quote! {
                proto::AgentConfig::#variant(a) => hw::AgentEntry {
                    agent_id: a.agent_id.clone(),
                    external: Some(hw::ExternalEndpoints {
                        input_url: a.external.input_url.clone(),
                        callback_base_url: a.external.callback_base_url.clone(),
                    }),
                },
            }
        } else {
            quote! {
                proto::AgentConfig::#variant(a) => hw::AgentEntry {
                    agent_id: a.agent_id.clone(),
                    external: None,
                },
            }
        }
    });
    quote! {
        /// The agent server's directory from agent definitions: external agents get their
        /// `inputUrl` and callback base; the others are stored-and-echoed only.
        pub fn agent_entries(configs: &[proto::AgentConfig]) -> Vec<hw::AgentEntry> {
            configs
                .iter()
                .map(|c| match c {
                    #(#arms)*
                })
                .collect()
        }
    }
}

fn reply_ident(r: &Route) -> Ident {
    format_ident!("{}Reply", pascal_case(&r.name))
}

/// One variant per documented status of a route, plus `Other`.
fn emit_reply(r: &Route) -> TokenStream {
    let name = reply_ident(r);
    let doc = format!(" What `{} {}` answered, by status.", r.method, r.path);
    let mut variants = Vec::new();
    let mut arms = Vec::new();
    for resp in &r.responses {
        let v = format_ident!("Status{}", resp.status);
        let status = resp.status;
        let d = format!(" {}: {}", resp.status, resp.when);
        match &resp.body {
            Body::Json(t) => {
                let t = type_ident(t);
                variants.push(quote!(#[doc = #d] #v(proto::#t),));
                arms.push(quote! {
                    #status => {
                        let value: proto::#t = agentwire_runtime::decode_json(&reply.body)?;
                        value.validate()?;
                        Self::#v(value)
                    }
                });
            }
            Body::Text(_) => {
                variants.push(quote!(#[doc = #d] #v(String),));
                arms.push(quote!(#status => Self::#v(reply.body),));
            }
            Body::None => {
                variants.push(quote!(#[doc = #d] #v,));
                arms.push(quote!(#status => Self::#v,));
            }
        }
    }
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq)]
        pub enum #name {
            #(#variants)*
            /// A status the spec does not list.
            Other(hw::HttpReply),
        }

        impl #name {
            /// Decodes and validates the body of a documented status.
            pub fn decode(reply: hw::HttpReply) -> Result<Self, hw::ClientError> {
                Ok(match reply.status {
                    #(#arms)*
                    _ => Self::Other(reply),
                })
            }
        }
    }
}

/// One HTTP client per role that calls routes (the agent server's own calls are the
/// transport's business): a method per route, its body and path parameters validated first.
fn emit_http_clients(p: &Protocol) -> TokenStream {
    let mut out = TokenStream::new();
    for role in &p.roles {
        let routes: Vec<&Route> = p
            .routes
            .iter()
            .filter(|r| &r.from == role && r.from != "agent_server" && !r.path.starts_with('{'))
            .collect();
        if routes.is_empty() {
            continue;
        }
        let client = format_ident!("{}Http", pascal_case(role));
        let doc = format!(" HTTP client of the `{role}` role: one method per route it calls.");
        let methods = routes.iter().map(|r| emit_client_method(r));
        out.extend(quote! {
            #[doc = #doc]
            #[derive(Debug, Clone)]
            pub struct #client {
                http: agentwire_transport::reqwest::Client,
                base_url: String,
            }

            impl #client {
                /// A client of the server at `base_url` (e.g. `http://127.0.0.1:8080`).
                pub fn new(base_url: impl Into<String>) -> Self {
                    Self {
                        http: agentwire_transport::reqwest::Client::new(),
                        base_url: base_url.into().trim_end_matches('/').to_owned(),
                    }
                }

                #(#methods)*
            }
        });
    }
    out
}

fn emit_client_method(r: &Route) -> TokenStream {
    let method = format_ident!("{}", snake_case(&r.name));
    let reply = reply_ident(r);
    let params = path_params(r);
    let args = params.iter().map(|n| {
        let a = field_ident(n);
        quote!(#a: &str,)
    });
    let checks = params.iter().map(|n| {
        let a = field_ident(n);
        let ptr = format!("/path/{n}");
        match r.path_params.get(n).map(String::as_str) {
            Some(t) if t != "string" => {
                let t = type_ident(t);
                quote! {
                    let #a = #a.trim();
                    proto::#t(#a.to_owned()).validate().map_err(|e| e.under(#ptr))?;
                }
            }
            _ => TokenStream::new(),
        }
    });
    let mut fmt = String::from("{}");
    for seg in r.path.split('/').skip(1) {
        fmt.push('/');
        fmt.push_str(if seg.starts_with(':') { "{}" } else { seg });
    }
    let fmt_args = params.iter().map(|n| field_ident(n));
    let (body_arg, body_expr, content_type) = match &r.body {
        Body::Json(t) => {
            let t = type_ident(t);
            (
                quote!(body: &proto::#t),
                quote! {{
                    body.validate().map_err(|e| e.under("/body"))?;
                    agentwire_runtime::serde_json::to_string(body).unwrap_or_default()
                }},
                "application/json",
            )
        }
        Body::Text(_) => (
            quote!(body: &str),
            quote!(body.to_owned()),
            "text/plain; charset=utf-8",
        ),
        Body::None => (quote!(), quote!(String::new()), "text/plain"),
    };
    let doc = format!(
        " `{} {}`{}",
        r.method,
        r.path,
        if r.summary.is_empty() {
            String::new()
        } else {
            format!(": {}", r.summary)
        }
    );
    quote! {
        #[doc = #doc]
        pub async fn #method(&self, #(#args)* #body_arg) -> Result<#reply, hw::ClientError> {
            #(#checks)*
            let url = format!(#fmt, self.base_url, #(#fmt_args),*);
            let body = #body_expr;
            let reply = hw::post(&self.http, &url, #content_type, body).await?;
            #reply::decode(reply)
        }
    }
}

/// The external system's side of the routes the agent server calls: a handler trait with
/// one method per route and an axum server that validates each body before calling it.
fn emit_receiver(p: &Protocol) -> TokenStream {
    let routes: Vec<&Route> = p
        .routes
        .iter()
        .filter(|r| r.to == "external_system")
        .collect();
    let mut methods = Vec::new();
    let mut handlers = Vec::new();
    let mut mounts = Vec::new();
    let mut path_args = Vec::new();
    for r in &routes {
        let Some(body_t) = json_body(&r.body) else {
            continue;
        };
        let body_t = type_ident(body_t);
        let Some(ok_t) = r
            .responses
            .iter()
            .find(|x| (200..300).contains(&x.status))
            .and_then(|x| json_body(&x.body))
        else {
            continue;
        };
        let ok_t = type_ident(ok_t);
        let m = format_ident!("{}", snake_case(&r.name));
        let h = format_ident!("route_{}", snake_case(&r.name));
        let doc = format!(" `{} {}`: {}", r.method, r.path, r.summary);
        methods.push(quote! {
            #[doc = #doc]
            fn #m(&self, body: proto::#body_t) -> impl Future<Output = Result<(), HandlerError>> + Send;
        });
        handlers.push(quote! {
            async fn #h<H: ExternalSystemHandler>(
                axum::extract::State(s): axum::extract::State<Arc<Receiver<H>>>,
                body: axum::body::Body,
            ) -> axum::response::Response {
                use axum::response::IntoResponse as _;
                let bytes = match axum::body::to_bytes(body, s.max_body_bytes).await {
                    Ok(b) => b,
                    Err(_) => {
                        return (axum::http::StatusCode::PAYLOAD_TOO_LARGE, "body too large")
                            .into_response();
                    }
                };
                let text = String::from_utf8_lossy(&bytes);
                let value: proto::#body_t = match agentwire_runtime::decode_json(&text)
                    .and_then(|v: proto::#body_t| v.validate().map(|()| v))
                {
                    Ok(v) => v,
                    Err(e) => {
                        agentwire_transport::tracing::warn!(error = %e, "invalid forwarded input");
                        return (axum::http::StatusCode::BAD_REQUEST, e.to_string()).into_response();
                    }
                };
                match s.handler.#m(value).await {
                    Ok(()) => (
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        to_json(&proto::#ok_t { ok: agentwire_runtime::literal::True }),
                    )
                        .into_response(),
                    Err(e) => (
                        axum::http::StatusCode::from_u16(e.status)
                            .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR),
                        e.message,
                    )
                        .into_response(),
                }
            }
        });
        if r.path.starts_with('{') {
            let arg = format_ident!("{}_path", snake_case(&r.name));
            path_args.push(quote!(#arg: &str,));
            mounts.push(quote!(.route(#arg, axum::routing::post(#h::<H>))));
        } else {
            let path = axum_path(&r.path);
            mounts.push(quote!(.route(#path, axum::routing::post(#h::<H>))));
        }
    }
    if methods.is_empty() {
        return TokenStream::new();
    }
    let call_args = routes
        .iter()
        .filter(|r| r.path.starts_with('{'))
        .map(|r| format_ident!("{}_path", snake_case(&r.name)));
    quote! {
        /// Why the external system refused a request: the status and text it answers with.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct HandlerError {
            pub status: u16,
            pub message: String,
        }

        impl HandlerError {
            /// A refusal with `status` (4xx or 5xx) and a reason.
            pub fn new(status: u16, message: impl Into<String>) -> Self {
                Self { status, message: message.into() }
            }
        }

        impl std::fmt::Display for HandlerError {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "HTTP {}: {}", self.status, self.message)
            }
        }

        impl std::error::Error for HandlerError {}

        /// The external system's behaviour: one method per request the agent server sends
        /// it. The agent server waits at most its forward timeout (5 s by default) for the
        /// answer, so long work belongs in a spawned task.
        pub trait ExternalSystemHandler: Send + Sync + 'static {
            #(#methods)*
        }

        struct Receiver<H> {
            handler: H,
            max_body_bytes: usize,
        }

        #(#handlers)*

        /// The external system's HTTP server (its `inputUrl`): validates each body, then
        /// hands it to the handler; 2xx tells the agent server the input was taken.
        pub struct ExternalSystemServer<H> {
            receiver: Arc<Receiver<H>>,
        }

        impl<H: ExternalSystemHandler> ExternalSystemServer<H> {
            /// Bodies up to 1 MiB are read; larger ones get 413.
            pub fn new(handler: H) -> Self {
                Self::with_max_body_bytes(handler, 1024 * 1024)
            }

            pub fn with_max_body_bytes(handler: H, max_body_bytes: usize) -> Self {
                Self {
                    receiver: Arc::new(Receiver { handler, max_body_bytes }),
                }
            }

            /// The routes, at the paths the external system chose for its URLs.
            pub fn router(&self, #(#path_args)*) -> axum::Router {
                axum::Router::new()
                    #(#mounts)*
                    .layer(axum::extract::DefaultBodyLimit::disable())
                    .with_state(self.receiver.clone())
            }

            /// Serves on `listener` until the handle is shut down.
            pub fn serve(
                &self,
                listener: agentwire_transport::tokio::net::TcpListener,
                #(#path_args)*
            ) -> std::io::Result<hw::ServerHandle> {
                hw::serve_router(
                    listener,
                    self.router(#(#call_args),*),
                    agentwire_transport::tokio_util::sync::CancellationToken::new(),
                )
            }
        }
    }
}

/// `/a/:b/c` to axum's `/a/{b}/c`.
fn axum_path(path: &str) -> String {
    path.split('/')
        .map(|s| match s.strip_prefix(':') {
            Some(n) => format!("{{{n}}}"),
            None => s.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The web UI's WebSocket client: one send method per message kind it sends, and a stream
/// of validated, sequence-checked server messages.
fn emit_ws_client(p: &Protocol, n: &Names) -> TokenStream {
    let inbound = &n.inbound;
    let outbound = &n.outbound;
    let (ready_v, in_role, out_role) = (&n.session_ready.variant, &n.in_role, &n.out_role);
    let sends = p.messages.iter().filter(|m| m.from == "web_ui").map(|m| {
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
    quote! {
        /// The web UI's WebSocket connection to the agent server's `/ws`.
        #[derive(Debug)]
        pub struct WebUiClient {
            ws: hw::WsClient,
            gate: agentwire_transport::Gate<Checker>,
        }

        impl WebUiClient {
            /// Connects to `url` (e.g. `ws://127.0.0.1:8080/ws`).
            pub async fn connect(url: &str, mode: agentwire_transport::CheckMode) -> Result<Self, hw::ClientError> {
                Ok(Self {
                    ws: hw::WsClient::connect(url).await?,
                    gate: agentwire_transport::Gate::new(mode, Checker::new()),
                })
            }

            /// Validates, sequence-checks and sends one message.
            /// A `hello` id is sent trimmed, as the server will read it.
            pub async fn send(&mut self, msg: proto::#inbound) -> Result<(), hw::ClientError> {
                let msg = trimmed(&msg).unwrap_or(msg);
                msg.validate()?;
                self.gate.admit(|c| c.observe(Message::#in_role(&msg)))?;
                self.ws.send_text(msg.to_json()).await
            }

            #(#sends)*

            /// The next server message, validated and sequence-checked; `None` once the
            /// server closed the connection.
            pub async fn next(&mut self) -> Option<Result<proto::#outbound, hw::ClientError>> {
                let text = match self.ws.next_text().await? {
                    Ok(t) => t,
                    Err(e) => return Some(Err(e)),
                };
                let msg = match proto::#outbound::from_json(&text) {
                    Ok(m) => m,
                    Err(e) => return Some(Err(e.into())),
                };
                if let proto::#outbound::#ready_v(m) = &msg {
                    let _ = self.gate.admit(|c| {
                        <Wire as hw::Wire>::prime(c, &m.session_id.0, &m.agent_id);
                        Ok(())
                    });
                }
                if let Err(v) = self.gate.admit(|c| c.observe(Message::#out_role(&msg))) {
                    return Some(Err(v.into()));
                }
                Some(Ok(msg))
            }

            /// Closes the connection.
            pub async fn close(&mut self) -> Result<(), hw::ClientError> {
                self.ws.close().await
            }
        }
    }
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
        assert!(a.contains("impl hw :: Wire for Wire"));
    }

    #[test]
    fn a_spec_without_a_kind_the_server_relies_on_gets_no_skeleton() {
        let mut p = spec();
        p.messages.retain(|m| m.kind != "hello");
        assert!(emit(&p).is_none());
        let mut p = spec();
        p.routes.retain(|r| r.name != "forward_input");
        assert!(emit(&p).is_none());
    }

    #[test]
    fn one_send_method_per_web_ui_kind_and_one_client_method_per_route() {
        let s = emit(&spec()).expect("a skeleton").to_string();
        for needle in [
            "pub async fn hello",
            "pub async fn user_message",
            "pub async fn create_session",
            "pub async fn inject_message",
            "fn forward_input",
        ] {
            assert!(s.contains(needle), "missing {needle}");
        }
    }
}
