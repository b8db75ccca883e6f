//! Skeleton emitter for gRPC bidi streams through tonic (coven).
//!
//! The emitted module binds the protocol's prost types, tonic service and sequence checker to
//! `agentwire_transport::grpc`. It needs a register/welcome handshake and a request/response
//! exchange, found in the message catalogue by kind; a protocol without them gets no skeleton.
//! Handler methods and typed senders for every other kind come from the catalogue.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{MessageKind, Protocol};
use crate::naming::{pascal_case, snake_case};

/// The kinds the handshake and request engine are built around; every other kind of the
/// catalogue becomes a plain handler method or sender.
const REGISTER: &str = "register";
const RESPONSE: &str = "response";
const HEARTBEAT: &str = "heartbeat";
const INJECTION_ACK: &str = "injection_ack";
const WELCOME: &str = "welcome";
const REGISTRATION_ERROR: &str = "registration_error";
const SEND_MESSAGE: &str = "send_message";
const SHUTDOWN: &str = "shutdown";
const INJECT_CONTEXT: &str = "inject_context";
const CANCEL_REQUEST: &str = "cancel_request";
const ENGINE_KINDS: &[&str] = &[
    REGISTER,
    RESPONSE,
    HEARTBEAT,
    INJECTION_ACK,
    WELCOME,
    REGISTRATION_ERROR,
    SEND_MESSAGE,
    SHUTDOWN,
    INJECT_CONTEXT,
    CANCEL_REQUEST,
];

/// Gateway messages that only go to agents that declared a feature (`features:` of the
/// protocol file; the IR does not carry that section, so the pairs are named here).
const FEATURE_GATED: &[(&str, &str)] = &[
    (INJECT_CONTEXT, "injection"),
    (CANCEL_REQUEST, "cancellation"),
];

/// The tonic items generated for the protocol's rpc (`grpc:` of the protocol file): the
/// server module, trait and service type, the client, the rpc method and its stream type.
struct Service {
    server_mod: Ident,
    server_ty: Ident,
    trait_name: Ident,
    client_mod: Ident,
    client_ty: Ident,
    rpc: Ident,
    stream_ty: Ident,
}

fn service(p: &Protocol) -> Option<Service> {
    let grpc = p.transport.grpc.as_ref()?;
    // `coven.CovenControl` -> `CovenControl`: tonic names items after the unqualified name.
    let svc = grpc.service.rsplit('.').next()?;
    let rpc = &grpc.rpc;
    Some(Service {
        server_mod: format_ident!("{}_server", snake_case(svc)),
        server_ty: format_ident!("{svc}Server"),
        trait_name: format_ident!("{svc}"),
        client_mod: format_ident!("{}_client", snake_case(svc)),
        client_ty: format_ident!("{svc}Client"),
        rpc: format_ident!("{}", snake_case(rpc)),
        stream_ty: format_ident!("{rpc}Stream"),
    })
}

/// Names shared by every part of the module.
struct Names {
    module: Ident,
    /// The client role (sends `register`) and the server role.
    client_union: Ident,
    server_union: Ident,
    client_payload: TokenStream,
    server_payload: TokenStream,
    client_variant: Ident,
    server_variant: Ident,
}

fn variant(kind: &str) -> Ident {
    format_ident!("{}", pascal_case(kind))
}

fn type_of<'a>(p: &'a Protocol, kind: &str) -> Option<&'a MessageKind> {
    p.messages.iter().find(|m| m.kind == kind)
}

/// The skeleton module, or `None` when the protocol lacks the handshake this emitter needs.
pub fn emit(p: &Protocol) -> Option<TokenStream> {
    if ENGINE_KINDS.iter().any(|k| type_of(p, k).is_none()) {
        return None;
    }
    let svc = service(p)?;
    let client_role = type_of(p, REGISTER)?.from.clone();
    let server_role = type_of(p, WELCOME)?.from.clone();
    let client_union = &p.channels.iter().find(|c| c.from == client_role)?.union;
    let server_union = &p.channels.iter().find(|c| c.from == server_role)?.union;
    let n = Names {
        module: format_ident!("{}", p.module),
        client_union: format_ident!("{client_union}"),
        server_union: format_ident!("{server_union}"),
        client_payload: {
            let m = format_ident!("{}", snake_case(client_union));
            quote!(proto::#m::Payload)
        },
        server_payload: {
            let m = format_ident!("{}", snake_case(server_union));
            quote!(proto::#m::Payload)
        },
        client_variant: format_ident!("{}", pascal_case(&client_role)),
        server_variant: format_ident!("{}", pascal_case(&server_role)),
    };
    let ty = |kind: &str| -> TokenStream {
        let t = format_ident!("{}", type_of(p, kind).map_or("", |m| m.type_name.as_str()));
        quote!(proto::#t)
    };
    let others = |role: &str| -> Vec<&MessageKind> {
        p.messages
            .iter()
            .filter(|m| m.from == role && !ENGINE_KINDS.contains(&m.kind.as_str()))
            .collect()
    };
    let common = emit_common(&n, &svc);
    let gateway = emit_gateway(&n, &svc, &ty, &others(&client_role), &others(&server_role));
    let agent = emit_agent(&n, &svc, &ty, &others(&server_role), &others(&client_role));
    let module = &n.module;
    let doc = format!(
        " Both roles of `{}` over tonic: the `{}` side (server) as [`Gateway`] with a [`GatewayHandler`], the `{}` side (client) as [`connect`] with an [`AgentHandler`].",
        p.module, server_role, client_role
    );
    Some(quote! {
        #![doc = #doc]
        use std::future::Future;
        use std::sync::Arc;

        use agentwire_transport::grpc::{self, CancellationToken, GrpcLimits, Link, SendError};
        use agentwire_transport::tokio::sync::{mpsc, Mutex};
        use agentwire_transport::tonic::{Request, Response, Status, Streaming};
        use agentwire_transport::{tokio, tonic, tracing, CheckMode, Gate};
        use crate::#module as proto;
        use crate::#module::machine::{Checker, Message};

        #common
        #gateway
        #agent
    })
}

fn emit_common(n: &Names, _svc: &Service) -> TokenStream {
    let client_union = &n.client_union;
    let server_union = &n.server_union;
    let cv = &n.client_variant;
    let sv = &n.server_variant;
    quote! {
        /// The checker of one stream, shared by its inbound and outbound halves.
        type SharedGate = Arc<Mutex<Gate<Checker>>>;

        fn new_gate(mode: CheckMode) -> SharedGate {
            Arc::new(Mutex::new(Gate::new(mode, Checker::new())))
        }

        fn observe_client(c: &mut Checker, m: &proto::#client_union) -> Result<(), agentwire_runtime::machine::Violation> {
            c.observe(Message::#cv(m))
        }

        fn observe_server(c: &mut Checker, m: &proto::#server_union) -> Result<(), agentwire_runtime::machine::Violation> {
            c.observe(Message::#sv(m))
        }

        /// Whether a response event ends its request.
        fn is_terminal(r: &proto::MessageResponse) -> bool {
            matches!(
                r.event,
                Some(proto::message_response::Event::Done(_)
                    | proto::message_response::Event::Error(_)
                    | proto::message_response::Event::Cancelled(_))
            )
        }
    }
}

/// The handler trait's methods: one per inbound kind, empty by default, each taking the
/// role's context (`context`, a parameter declaration) before the message.
fn handler_methods(
    inbound: &[&MessageKind],
    ty: &dyn Fn(&str) -> TokenStream,
    context: TokenStream,
) -> Vec<TokenStream> {
    inbound
        .iter()
        .map(|m| {
            let method = format_ident!("on_{}", snake_case(&m.kind));
            let t = ty(&m.kind);
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

fn emit_gateway(
    n: &Names,
    svc: &Service,
    ty: &dyn Fn(&str) -> TokenStream,
    inbound: &[&MessageKind],
    outbound: &[&MessageKind],
) -> TokenStream {
    let Service {
        server_mod,
        server_ty,
        trait_name,
        rpc,
        stream_ty,
        ..
    } = svc;
    let client_union = &n.client_union;
    let server_union = &n.server_union;
    let cp = &n.client_payload;
    let sp = &n.server_payload;
    let register = ty(REGISTER);
    let welcome = ty(WELCOME);
    let registration_error = ty(REGISTRATION_ERROR);
    let send_message = ty(SEND_MESSAGE);
    let shutdown = ty(SHUTDOWN);
    let heartbeat = ty(HEARTBEAT);
    let injection_ack = ty(INJECTION_ACK);
    let inject_context = ty(INJECT_CONTEXT);
    let cancel_request = ty(CANCEL_REQUEST);
    let v_register = variant(REGISTER);
    let v_response = variant(RESPONSE);
    let v_heartbeat = variant(HEARTBEAT);
    let v_injection_ack = variant(INJECTION_ACK);
    let v_welcome = variant(WELCOME);
    let v_registration_error = variant(REGISTRATION_ERROR);
    let v_send_message = variant(SEND_MESSAGE);
    let v_shutdown = variant(SHUTDOWN);
    let v_inject_context = variant(INJECT_CONTEXT);
    let v_cancel_request = variant(CANCEL_REQUEST);
    let feature_of = |kind: &str| {
        FEATURE_GATED
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, f)| *f)
    };
    let injection = feature_of(INJECT_CONTEXT).unwrap_or_default();
    let cancellation = feature_of(CANCEL_REQUEST).unwrap_or_default();

    let handler_methods = handler_methods(inbound, ty, quote!(_agent: &AgentHandle));
    let dispatch = inbound.iter().map(|m| {
        let method = format_ident!("on_{}", snake_case(&m.kind));
        let v = variant(&m.kind);
        quote! { Some(#cp::#v(m)) => gw.handler.#method(handle, m).await, }
    });
    let senders = outbound.iter().map(|m| {
        let method = format_ident!("{}", snake_case(&m.kind));
        let t = ty(&m.kind);
        let v = variant(&m.kind);
        let doc = format!(" Sends `{}`: {}", m.kind, m.summary);
        quote! {
            #[doc = #doc]
            pub async fn #method(&self, msg: #t) -> Result<(), SendError> {
                self.send(#server_union { payload: Some(#sp::#v(msg)) }).await
            }
        }
    });

    quote! {
        use proto::#server_mod::{#server_ty, #trait_name};
        use proto::#server_union;

        /// How a [`Gateway`] runs.
        #[derive(Debug, Clone)]
        pub struct GatewayConfig {
            /// What the sequence checker does with a violation, in both directions.
            pub mode: CheckMode,
            /// Message size, connected agents, idle timeout.
            pub limits: GrpcLimits,
            /// After [`Gateway::shutdown`], how long each agent may stay quiet while it
            /// finishes its request and closes its half of the stream.
            pub shutdown_grace: std::time::Duration,
        }

        impl Default for GatewayConfig {
            fn default() -> Self {
                Self { mode: CheckMode::default(), limits: GrpcLimits::default(), shutdown_grace: std::time::Duration::from_secs(10) }
            }
        }

        /// The behaviour of a gateway: decide registrations and react to what agents send.
        /// Methods run on the stream's own task, one message at a time, so a slow handler
        /// delays that agent only; spawn long work.
        pub trait GatewayHandler: Send + Sync + 'static {
            /// Accept the registration with a `Welcome` (an empty `agent_id` in it is filled in
            /// with the registered one) or refuse it with a `RegistrationError`. Runs after the
            /// skeleton checked that the id is present and not connected already.
            fn on_register(&self, register: &#register) -> impl Future<Output = Result<#welcome, #registration_error>> + Send;

            /// An agent was welcomed; `agent` stays usable until it disconnects.
            fn on_connected(&self, _agent: AgentHandle) -> impl Future<Output = ()> + Send {
                async {}
            }

            /// A welcomed agent's stream ended.
            fn on_disconnected(&self, _agent_id: &str) -> impl Future<Output = ()> + Send {
                async {}
            }

            /// `heartbeat`: the skeleton already counted it as a sign of life.
            fn on_heartbeat(&self, _agent: &AgentHandle, _msg: #heartbeat) -> impl Future<Output = ()> + Send {
                async {}
            }

            /// `injection_ack`: the agent's answer to an `inject_context`.
            fn on_injection_ack(&self, _agent: &AgentHandle, _msg: #injection_ack) -> impl Future<Output = ()> + Send {
                async {}
            }

            #(#handler_methods)*
        }

        /// One request's response events, in order, ending after its terminal event (or
        /// early, without one, when the stream broke).
        #[derive(Debug)]
        pub struct ResponseStream {
            request_id: String,
            rx: mpsc::Receiver<proto::MessageResponse>,
        }

        impl ResponseStream {
            pub fn request_id(&self) -> &str {
                &self.request_id
            }

            /// The next event; `None` after the terminal one or when the stream ended.
            pub async fn next(&mut self) -> Option<proto::MessageResponse> {
                self.rx.recv().await
            }

            /// Every remaining event.
            pub async fn collect(mut self) -> Vec<proto::MessageResponse> {
                let mut out = Vec::new();
                while let Some(e) = self.rx.recv().await {
                    out.push(e);
                }
                out
            }
        }

        /// The request in flight on a stream and where its events go.
        type Pending = std::sync::Mutex<Option<(String, mpsc::Sender<proto::MessageResponse>)>>;

        struct AgentShared {
            register: #register,
            link: Link<#server_union, Checker>,
            pending: Pending,
            close: CancellationToken,
        }

        /// A typed handle on one connected agent: what the gateway may send it. Clones share
        /// the stream; every send is validated and checked (per the mode) before it leaves.
        #[derive(Clone)]
        pub struct AgentHandle {
            shared: Arc<AgentShared>,
        }

        impl std::fmt::Debug for AgentHandle {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct("AgentHandle").field("agent_id", &self.agent_id()).finish()
            }
        }

        impl AgentHandle {
            pub fn agent_id(&self) -> &str {
                &self.shared.register.agent_id
            }

            /// The registration the agent sent.
            pub fn registration(&self) -> &#register {
                &self.shared.register
            }

            /// Whether the agent declared `feature` in its `protocol_features`.
            pub fn has_feature(&self, feature: &str) -> bool {
                self.shared.register.protocol_features.iter().any(|f| f == feature)
            }

            fn pending(&self) -> std::sync::MutexGuard<'_, Option<(String, mpsc::Sender<proto::MessageResponse>)>> {
                self.shared.pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
            }

            /// The request in flight, if any.
            pub fn busy_with(&self) -> Option<String> {
                self.pending().as_ref().map(|(id, _)| id.clone())
            }

            async fn send(&self, msg: #server_union) -> Result<(), SendError> {
                self.shared.link.send(msg, observe_server).await
            }

            /// Sends a user message and returns its response events. Agents take one request
            /// at a time: while one is in flight this is refused with [`SendError::Busy`].
            pub async fn send_message(&self, msg: #send_message) -> Result<ResponseStream, SendError> {
                let request_id = msg.request_id.clone();
                let (tx, rx) = mpsc::channel(RESPONSE_BUFFER);
                {
                    let mut pending = self.pending();
                    if let Some((busy, _)) = pending.as_ref() {
                        return Err(SendError::Busy(busy.clone()));
                    }
                    // Registered before the send, so the first event cannot arrive unrouted.
                    *pending = Some((request_id.clone(), tx));
                }
                let sent = self.send(#server_union { payload: Some(#sp::#v_send_message(msg)) }).await;
                if let Err(e) = sent {
                    *self.pending() = None;
                    return Err(e);
                }
                Ok(ResponseStream { request_id, rx })
            }

            /// Pushes context to the agent; refused unless it declared the injection feature.
            pub async fn inject_context(&self, msg: #inject_context) -> Result<(), SendError> {
                if !self.has_feature(#injection) {
                    return Err(SendError::FeatureNotDeclared(#injection));
                }
                self.send(#server_union { payload: Some(#sp::#v_inject_context(msg)) }).await
            }

            /// Stops the request in flight; refused unless the agent declared cancellation.
            pub async fn cancel_request(&self, msg: #cancel_request) -> Result<(), SendError> {
                if !self.has_feature(#cancellation) {
                    return Err(SendError::FeatureNotDeclared(#cancellation));
                }
                self.send(#server_union { payload: Some(#sp::#v_cancel_request(msg)) }).await
            }

            /// Asks the agent to finish its work and disconnect; no request is sent after it.
            pub async fn shutdown(&self, msg: #shutdown) -> Result<(), SendError> {
                self.send(#server_union { payload: Some(#sp::#v_shutdown(msg)) }).await
            }

            #(#senders)*

            /// Ends the agent's stream now (status OK), after what is already queued.
            pub fn close(&self) {
                self.shared.close.cancel();
            }
        }

        /// Events of one request queued for its reader; a full queue pauses reading of that
        /// agent's stream only.
        const RESPONSE_BUFFER: usize = 64;

        struct GatewayInner<H> {
            handler: H,
            config: GatewayConfig,
            agents: grpc::Registry<AgentHandle>,
            /// One permit per open stream, registered or not, so streams that never register
            /// cannot pile up past the limit.
            streams: Arc<tokio::sync::Semaphore>,
            shutdown: CancellationToken,
        }

        /// The server side: a tonic service that accepts agent streams. Clones share state.
        pub struct Gateway<H> {
            inner: Arc<GatewayInner<H>>,
        }

        impl<H> Clone for Gateway<H> {
            fn clone(&self) -> Self {
                Self { inner: Arc::clone(&self.inner) }
            }
        }

        impl<H: GatewayHandler> Gateway<H> {
            pub fn new(handler: H, config: GatewayConfig) -> Self {
                let agents = grpc::Registry::new(config.limits.max_streams);
                let streams = Arc::new(tokio::sync::Semaphore::new(config.limits.max_streams.min(tokio::sync::Semaphore::MAX_PERMITS)));
                Self {
                    inner: Arc::new(GatewayInner { handler, config, agents, streams, shutdown: CancellationToken::new() }),
                }
            }

            pub fn handler(&self) -> &H {
                &self.inner.handler
            }

            /// The connected agent registered as `agent_id`.
            pub fn agent(&self, agent_id: &str) -> Option<AgentHandle> {
                self.inner.agents.get(agent_id)
            }

            /// Every connected agent, by id.
            pub fn agents(&self) -> Vec<AgentHandle> {
                self.inner.agents.all()
            }

            /// Stops the gateway: every agent gets a shutdown message, its stream ends, and
            /// [`Gateway::serve`] returns once they are gone.
            pub fn shutdown(&self) {
                self.inner.shutdown.cancel();
            }

            /// The tonic service, with the configured message size limit, for a caller that
            /// builds its own server.
            pub fn service(&self) -> #server_ty<Self> {
                let max = self.inner.config.limits.max_message_size;
                #server_ty::new(self.clone())
                    .max_decoding_message_size(max)
                    .max_encoding_message_size(max)
            }

            /// Serves on `listener` until [`Gateway::shutdown`].
            pub async fn serve(self, listener: tokio::net::TcpListener) -> Result<(), tonic::transport::Error> {
                let incoming = tonic::codegen::tokio_stream::wrappers::TcpListenerStream::new(listener);
                let inner = Arc::clone(&self.inner);
                // tonic's own graceful shutdown starts only once every stream has ended (each
                // gets a Shutdown and its grace period first), so no stream is cut mid-request.
                let drained = async move {
                    inner.shutdown.cancelled().await;
                    let all = u32::try_from(inner.config.limits.max_streams.min(tokio::sync::Semaphore::MAX_PERMITS)).unwrap_or(u32::MAX);
                    let bound = inner.config.shutdown_grace + std::time::Duration::from_secs(1);
                    if tokio::time::timeout(bound, inner.streams.acquire_many(all)).await.is_err() {
                        tracing::warn!("streams still open after the shutdown grace period; closing them");
                    }
                };
                tonic::transport::Server::builder()
                    .serve_with_incoming_shutdown(self.service(), incoming, drained)
                    .await
            }
        }

        #[tonic::codegen::async_trait]
        impl<H: GatewayHandler> #trait_name for Gateway<H> {
            type #stream_ty = grpc::BoxStream<#server_union>;

            async fn #rpc(&self, request: Request<Streaming<proto::#client_union>>) -> Result<Response<Self::#stream_ty>, Status> {
                if self.inner.shutdown.is_cancelled() {
                    return Err(Status::unavailable("the gateway is shutting down"));
                }
                let Ok(permit) = Arc::clone(&self.inner.streams).try_acquire_owned() else {
                    return Err(Status::resource_exhausted(format!(
                        "the limit of {} open streams is reached",
                        self.inner.config.limits.max_streams
                    )));
                };
                let inbound = request.into_inner();
                let (tx, rx) = mpsc::channel(self.inner.config.limits.outbound_buffer.max(1));
                let close = CancellationToken::new();
                let link = Link::new(tx, new_gate(self.inner.config.mode));
                tokio::spawn(run_gateway_stream(Arc::clone(&self.inner), inbound, link, close.clone(), permit));
                Ok(Response::new(grpc::outbound_stream(rx, close)))
            }
        }

        /// What reading the next inbound message gave.
        enum Next<M> {
            Message(M),
            /// The agent closed its half of the stream.
            End,
            /// The stream has to end with this status.
            Fail(Status),
            /// Nothing arrived within the time limit.
            Idle(std::time::Duration),
            /// The gateway is shutting down.
            Stopping,
            /// This stream was closed from the gateway side.
            Closed,
        }

        /// The next inbound message, waiting at most `limit`, unless the stream is closed
        /// or (while `stop` is given) the gateway stops.
        async fn next_inbound<M>(
            inbound: &mut Streaming<M>,
            close: &CancellationToken,
            stop: Option<&CancellationToken>,
            limit: Option<std::time::Duration>,
        ) -> Next<M> {
            let stopping = async {
                match stop {
                    Some(t) => t.cancelled().await,
                    None => std::future::pending().await,
                }
            };
            let read = async {
                match limit {
                    Some(limit) => tokio::time::timeout(limit, inbound.message()).await.ok(),
                    None => Some(inbound.message().await),
                }
            };
            tokio::select! {
                biased;
                () = close.cancelled() => Next::Closed,
                () = stopping => Next::Stopping,
                r = read => match r {
                    Some(Ok(Some(m))) => Next::Message(m),
                    Some(Ok(None)) => Next::End,
                    Some(Err(status)) => Next::Fail(status),
                    None => Next::Idle(limit.unwrap_or_default()),
                },
            }
        }

        fn idle_status(limit: std::time::Duration) -> Status {
            Status::unavailable(format!("no message for {} ms", limit.as_millis()))
        }

        /// One agent stream from its first message to its end. The stream's slot and its
        /// agent id are free again before the final status leaves, so a peer that saw the
        /// status can reconnect at once.
        async fn run_gateway_stream<H: GatewayHandler>(
            gw: Arc<GatewayInner<H>>,
            mut inbound: Streaming<proto::#client_union>,
            link: Link<#server_union, Checker>,
            close: CancellationToken,
            permit: tokio::sync::OwnedSemaphorePermit,
        ) {
            let outcome = registered_stream(&gw, &mut inbound, &link, &close, permit).await;
            if let Some(status) = outcome {
                tracing::info!(code = ?status.code(), status = %status.message(), "agent stream ended with an error status");
                link.fail(status).await;
            }
            close.cancel();
            // The request half is dropped last, after the final message or status is queued.
            drop(inbound);
        }

        /// Registration, then the registered agent's messages; `Some(status)` when the stream
        /// has to end with an error status.
        async fn registered_stream<H: GatewayHandler>(
            gw: &GatewayInner<H>,
            inbound: &mut Streaming<proto::#client_union>,
            link: &Link<#server_union, Checker>,
            close: &CancellationToken,
            _permit: tokio::sync::OwnedSemaphorePermit,
        ) -> Option<Status> {
            let idle = gw.config.limits.idle_timeout;
            let first = match next_inbound(inbound, close, Some(&gw.shutdown), idle).await {
                Next::Message(m) => m,
                Next::Fail(status) => return Some(status),
                Next::Idle(limit) => return Some(idle_status(limit)),
                Next::End | Next::Closed | Next::Stopping => return None,
            };
            let Some(#cp::#v_register(register)) = first.payload.clone() else {
                // The skeleton needs the agent's identity before anything else, whatever the
                // check mode.
                return Some(Status::failed_precondition("the first message of the stream must be register"));
            };
            if let Err(status) = grpc::admit_inbound(link.gate(), &first, observe_client).await {
                return Some(status);
            }
            let agent_id = register.agent_id.clone();
            let handle = AgentHandle {
                shared: Arc::new(AgentShared { register, link: link.clone(), pending: Pending::default(), close: close.clone() }),
            };
            let claim = match gw.agents.claim(&agent_id, handle.clone()) {
                Ok(claim) => claim,
                Err(e) => return Some(e.into()),
            };
            // A handler that never decides must not hold the stream's slot forever: it gets
            // the idle limit, and gives way to a shutdown.
            let deciding = async {
                match idle {
                    Some(limit) => tokio::time::timeout(limit, gw.handler.on_register(handle.registration())).await.ok(),
                    None => Some(gw.handler.on_register(handle.registration()).await),
                }
            };
            let decision = tokio::select! {
                biased;
                () = gw.shutdown.cancelled() => return Some(Status::unavailable("the gateway is shutting down")),
                d = deciding => match d {
                    Some(d) => d,
                    None => return Some(Status::deadline_exceeded("the registration was not decided in time")),
                },
            };
            match decision {
                Ok(mut welcome) => {
                    if welcome.agent_id.is_empty() {
                        welcome.agent_id.clone_from(&agent_id);
                    }
                    let msg = #server_union { payload: Some(#sp::#v_welcome(welcome)) };
                    if let Err(e) = link.send(msg, observe_server).await {
                        return Some(Status::internal(format!("welcome not sent: {e}")));
                    }
                }
                Err(refusal) => {
                    drop(claim);
                    let msg = #server_union { payload: Some(#sp::#v_registration_error(refusal)) };
                    if let Err(e) = link.send(msg, observe_server).await {
                        tracing::warn!(agent_id = %agent_id, error = %e, "registration error not sent");
                    }
                    // The refusal is the stream's last message; it then ends with status OK.
                    return None;
                }
            }
            tracing::info!(agent_id = %agent_id, "agent registered");
            gw.handler.on_connected(handle.clone()).await;
            let outcome = serve_agent(gw, inbound, &handle, close, idle).await;
            if let Some((request_id, _)) = handle.pending().take() {
                tracing::warn!(agent_id = %agent_id, request_id = %request_id, "stream ended with a request in flight");
            }
            drop(claim);
            gw.handler.on_disconnected(&agent_id).await;
            tracing::info!(agent_id = %agent_id, "agent disconnected");
            outcome
        }

        /// Reads a registered agent's messages until the stream ends; `Some(status)` when it
        /// has to end with an error status.
        async fn serve_agent<H: GatewayHandler>(
            gw: &GatewayInner<H>,
            inbound: &mut Streaming<proto::#client_union>,
            handle: &AgentHandle,
            close: &CancellationToken,
            idle: Option<std::time::Duration>,
        ) -> Option<Status> {
            // Until the gateway stops: its shutdown token and the idle limit. Then: no token,
            // and the grace period as the limit, so the agent can finish its request.
            let mut stop = Some(&gw.shutdown);
            let mut limit = idle;
            loop {
                let msg = match next_inbound(inbound, close, stop, limit).await {
                    Next::Message(m) => m,
                    Next::End | Next::Closed => return None,
                    Next::Fail(status) => return Some(status),
                    Next::Idle(_) if stop.is_none() => return None,
                    Next::Idle(limit) => return Some(idle_status(limit)),
                    Next::Stopping => {
                        let bye = #shutdown { reason: "the gateway is shutting down".to_owned() };
                        if let Err(e) = handle.shutdown(bye).await {
                            tracing::debug!(error = %e, "no shutdown message on a closing stream");
                        }
                        stop = None;
                        limit = Some(gw.config.shutdown_grace);
                        continue;
                    }
                };
                if let Err(status) = grpc::admit_inbound(handle.shared.link.gate(), &msg, observe_client).await {
                    return Some(status);
                }
                match msg.payload {
                    Some(#cp::#v_response(r)) => route_response(handle, r).await,
                    Some(#cp::#v_heartbeat(m)) => gw.handler.on_heartbeat(handle, m).await,
                    Some(#cp::#v_injection_ack(m)) => gw.handler.on_injection_ack(handle, m).await,
                    Some(#cp::#v_register(_)) => {
                        return Some(Status::failed_precondition("the agent is registered already"));
                    }
                    #(#dispatch)*
                    None => return Some(Status::invalid_argument("a message without payload")),
                }
            }
        }

        /// Hands a response event to the caller of `send_message` that waits for it.
        async fn route_response(handle: &AgentHandle, r: proto::MessageResponse) {
            let terminal = is_terminal(&r);
            let target = {
                let mut pending = handle.pending();
                match pending.as_ref() {
                    Some((id, tx)) if *id == r.request_id => {
                        let tx = tx.clone();
                        if terminal {
                            *pending = None;
                        }
                        Some(tx)
                    }
                    // Only reachable when the checker is off or warns: an event for no request
                    // in flight has no reader.
                    _ => None,
                }
            };
            match target {
                Some(tx) => {
                    if tx.send(r).await.is_err() {
                        tracing::debug!("response event dropped: its reader is gone");
                    }
                }
                None => tracing::warn!(request_id = %r.request_id, "response event for no request in flight dropped"),
            }
        }
    }
}

fn emit_agent(
    n: &Names,
    svc: &Service,
    ty: &dyn Fn(&str) -> TokenStream,
    inbound: &[&MessageKind],
    outbound: &[&MessageKind],
) -> TokenStream {
    let Service {
        client_mod,
        client_ty,
        rpc,
        ..
    } = svc;
    let client_union = &n.client_union;
    let server_union = &n.server_union;
    let cp = &n.client_payload;
    let sp = &n.server_payload;
    let register = ty(REGISTER);
    let welcome = ty(WELCOME);
    let registration_error = ty(REGISTRATION_ERROR);
    let send_message = ty(SEND_MESSAGE);
    let shutdown = ty(SHUTDOWN);
    let inject_context = ty(INJECT_CONTEXT);
    let v_register = variant(REGISTER);
    let v_response = variant(RESPONSE);
    let v_heartbeat = variant(HEARTBEAT);
    let v_injection_ack = variant(INJECTION_ACK);
    let v_welcome = variant(WELCOME);
    let v_registration_error = variant(REGISTRATION_ERROR);
    let v_send_message = variant(SEND_MESSAGE);
    let v_shutdown = variant(SHUTDOWN);
    let v_inject_context = variant(INJECT_CONTEXT);
    let v_cancel_request = variant(CANCEL_REQUEST);

    let handler_methods = handler_methods(inbound, ty, quote!(_session: &Session));
    let dispatch = inbound.iter().map(|m| {
        let method = format_ident!("on_{}", snake_case(&m.kind));
        let v = variant(&m.kind);
        quote! { Some(#sp::#v(m)) => handler.#method(&session, m).await, }
    });
    let senders = outbound.iter().map(|m| {
        let method = format_ident!("{}", snake_case(&m.kind));
        let t = ty(&m.kind);
        let v = variant(&m.kind);
        let doc = format!(" Sends `{}`: {}", m.kind, m.summary);
        quote! {
            #[doc = #doc]
            pub async fn #method(&self, msg: #t) -> Result<(), SendError> {
                self.link.send(proto::#client_union { payload: Some(#cp::#v(msg)) }, observe_client).await
            }
        }
    });

    quote! {
        use proto::#client_mod::#client_ty;

        /// How [`connect`] runs the agent side.
        #[derive(Debug, Clone)]
        pub struct AgentConfig {
            /// The registration sent first; its `protocol_features` are the features the
            /// handler implements.
            pub register: #register,
            /// What the sequence checker does with a violation, in both directions.
            pub mode: CheckMode,
            /// Message size, heartbeat interval; `idle_timeout` bounds the wait for the
            /// registration answer.
            pub limits: GrpcLimits,
        }

        impl AgentConfig {
            pub fn new(register: #register) -> Self {
                Self { register, mode: CheckMode::default(), limits: GrpcLimits::default() }
            }
        }

        /// The behaviour of an agent. `on_send_message` runs on its own task, one request at a
        /// time; the other methods run on the stream's reader task.
        pub trait AgentHandler: Send + Sync + 'static {
            /// Answer one user message through `reply`, ending with one of its terminal
            /// methods. Returning without one ends the request with `cancelled` (after a
            /// cancel request) or with an `error` event.
            fn on_send_message(&self, msg: #send_message, reply: Reply) -> impl Future<Output = ()> + Send;

            /// Take injected context (only sent to agents that declared injection): `Ok(())`
            /// accepts it, `Err(reason)` declines it. The skeleton sends the acknowledgement.
            fn on_inject_context(&self, _msg: #inject_context) -> impl Future<Output = Result<(), String>> + Send {
                async { Err("this agent does not take injected context".to_owned()) }
            }

            /// The gateway asked the agent to wind down; the skeleton lets the request in
            /// flight finish, then closes the stream.
            fn on_shutdown(&self, _msg: &#shutdown) -> impl Future<Output = ()> + Send {
                async {}
            }

            #(#handler_methods)*
        }

        /// Why the request in flight has to stop, once a cancel request arrived.
        type CancelReason = Arc<std::sync::Mutex<Option<String>>>;

        /// The typed writer of one request's response events. The terminal methods take
        /// `self`, so a request ends exactly once.
        pub struct Reply {
            request_id: String,
            link: Link<proto::#client_union, Checker>,
            cancel: CancellationToken,
            reason: CancelReason,
            /// Shared with the skeleton, which ends a request the handler left open.
            finished: Arc<std::sync::atomic::AtomicBool>,
        }

        impl Reply {
            pub fn request_id(&self) -> &str {
                &self.request_id
            }

            /// Fires when the gateway cancels this request.
            pub fn cancelled(&self) -> impl Future<Output = ()> + Send + 'static {
                self.cancel.clone().cancelled_owned()
            }

            pub fn is_cancelled(&self) -> bool {
                self.cancel.is_cancelled()
            }

            /// The cancel request's reason, once cancelled.
            pub fn cancel_reason(&self) -> Option<String> {
                self.reason.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
            }

            /// Sends one event of the answer (a terminal one ends the request).
            pub async fn event(&mut self, event: proto::message_response::Event) -> Result<(), SendError> {
                if self.finished.load(std::sync::atomic::Ordering::SeqCst) {
                    return Err(SendError::Closed);
                }
                let r = proto::MessageResponse { request_id: self.request_id.clone(), event: Some(event) };
                let terminal = is_terminal(&r);
                self.link.send(proto::#client_union { payload: Some(#cp::#v_response(r)) }, observe_client).await?;
                if terminal {
                    self.finished.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                Ok(())
            }

            /// A status line while working.
            pub async fn thinking(&mut self, text: impl Into<String>) -> Result<(), SendError> {
                self.event(proto::message_response::Event::Thinking(text.into())).await
            }

            /// A chunk of the answer text.
            pub async fn text(&mut self, chunk: impl Into<String>) -> Result<(), SendError> {
                self.event(proto::message_response::Event::Text(chunk.into())).await
            }

            /// Ends the request successfully.
            pub async fn done(mut self, full_response: impl Into<String>) -> Result<(), SendError> {
                self.event(proto::message_response::Event::Done(proto::Done { full_response: full_response.into() })).await
            }

            /// Ends the request with an error.
            pub async fn error(mut self, text: impl Into<String>) -> Result<(), SendError> {
                self.event(proto::message_response::Event::Error(text.into())).await
            }

            /// Ends the request as cancelled, repeating the cancel request's reason.
            pub async fn cancel_done(mut self) -> Result<(), SendError> {
                let reason = self.cancel_reason().unwrap_or_default();
                self.event(proto::message_response::Event::Cancelled(proto::Cancelled { reason })).await
            }
        }

        /// The connected, registered agent side; clones share the stream.
        #[derive(Clone)]
        pub struct Session {
            link: Link<proto::#client_union, Checker>,
            welcome: Arc<#welcome>,
            close: CancellationToken,
        }

        impl Session {
            /// The gateway's welcome.
            pub fn welcome(&self) -> &#welcome {
                &self.welcome
            }

            /// Closes the stream (the agent's half first; the gateway then ends its own).
            pub fn close(&self) {
                self.close.cancel();
            }

            #(#senders)*
        }

        /// A running agent: its session and the task that reads the stream.
        pub struct RunningAgent {
            session: Session,
            task: tokio::task::JoinHandle<Result<(), Status>>,
        }

        impl RunningAgent {
            pub fn session(&self) -> &Session {
                &self.session
            }

            /// Waits until the stream is over: `Ok` when it ended cleanly (after a shutdown or
            /// [`Session::close`]), the gateway's status otherwise.
            pub async fn wait(self) -> Result<(), Status> {
                match self.task.await {
                    Ok(r) => r,
                    Err(e) => Err(Status::internal(format!("agent task failed: {e}"))),
                }
            }
        }

        /// Connects to `endpoint` (`http://host:port`), registers, and on a welcome starts
        /// serving requests with `handler` and sending heartbeats.
        pub async fn connect<H: AgentHandler>(
            endpoint: String,
            config: AgentConfig,
            handler: H,
        ) -> Result<RunningAgent, grpc::ConnectError<#registration_error>> {
            let max = config.limits.max_message_size;
            let mut client = #client_ty::connect(endpoint)
                .await?
                .max_decoding_message_size(max)
                .max_encoding_message_size(max);
            let (tx, rx) = mpsc::channel(config.limits.outbound_buffer.max(1));
            let close = CancellationToken::new();
            let link = Link::new(tx, new_gate(config.mode));
            let register = proto::#client_union { payload: Some(#cp::#v_register(config.register.clone())) };
            link.send(register, observe_client).await?;
            let outbound = futures_util_ok(grpc::outbound_stream(rx, close.clone()));
            let mut inbound = match client.#rpc(outbound).await {
                Ok(r) => r.into_inner(),
                Err(status) => return Err(grpc::ConnectError::Status(status)),
            };
            // A gateway that never answers the registration must not hang the caller.
            let wait = config.limits.idle_timeout.unwrap_or(std::time::Duration::from_secs(90));
            let first = match tokio::time::timeout(wait, inbound.message()).await {
                Ok(Ok(Some(m))) => m,
                Ok(Ok(None)) => return Err(grpc::ConnectError::Unexpected("the stream ended".to_owned())),
                Ok(Err(status)) => return Err(grpc::ConnectError::Status(status)),
                Err(_) => {
                    close.cancel();
                    return Err(grpc::ConnectError::Status(Status::deadline_exceeded(format!(
                        "no answer to the registration within {} ms",
                        wait.as_millis()
                    ))));
                }
            };
            if let Err(status) = grpc::admit_inbound(link.gate(), &first, observe_server).await {
                close.cancel();
                return Err(grpc::ConnectError::Unexpected(status.message().to_owned()));
            }
            let welcome = match first.payload {
                Some(#sp::#v_welcome(w)) => w,
                Some(#sp::#v_registration_error(e)) => {
                    close.cancel();
                    return Err(grpc::ConnectError::Rejected(e));
                }
                other => {
                    close.cancel();
                    return Err(grpc::ConnectError::Unexpected(format!("{other:?}")));
                }
            };
            let session = Session { link, welcome: Arc::new(welcome), close };
            let task = tokio::spawn(run_agent(session.clone(), inbound, Arc::new(handler), config.limits.heartbeat_interval));
            Ok(RunningAgent { session, task })
        }

        /// The client's outbound messages: the queued ones, without the status items only a
        /// server half carries.
        fn futures_util_ok(
            s: grpc::BoxStream<proto::#client_union>,
        ) -> impl agentwire_transport::futures_util::Stream<Item = proto::#client_union> + Send + 'static {
            use agentwire_transport::futures_util::StreamExt;
            s.take_while(|r| std::future::ready(r.is_ok())).filter_map(|r| std::future::ready(r.ok()))
        }

        /// The request in flight on the agent side.
        struct InFlight {
            request_id: String,
            cancel: CancellationToken,
            reason: CancelReason,
            task: tokio::task::JoinHandle<()>,
        }

        /// Reads the gateway's messages and sends heartbeats until the stream ends.
        async fn run_agent<H: AgentHandler>(
            session: Session,
            mut inbound: Streaming<#server_union>,
            handler: Arc<H>,
            heartbeat_every: std::time::Duration,
        ) -> Result<(), Status> {
            let mut beat = tokio::time::interval(heartbeat_every.max(std::time::Duration::from_millis(10)));
            beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // The first tick is immediate; the welcome just proved the stream alive.
            beat.tick().await;
            let mut in_flight: Option<InFlight> = None;
            let mut draining = false;
            let result = loop {
                if in_flight.as_ref().is_some_and(|f| f.task.is_finished()) {
                    in_flight = None;
                }
                if draining && in_flight.is_none() {
                    tracing::debug!("shut down with no request in flight: closing");
                    break Ok(());
                }
                let msg = tokio::select! {
                    biased;
                    () = session.close.cancelled() => break Ok(()),
                    _ = beat.tick() => {
                        let hb = proto::#client_union { payload: Some(#cp::#v_heartbeat(proto::Heartbeat { timestamp_ms: grpc::now_ms() })) };
                        if let Err(e) = session.link.send(hb, observe_client).await {
                            tracing::warn!(error = %e, "heartbeat not sent");
                        }
                        continue;
                    }
                    () = wait_finished(&mut in_flight) => continue,
                    r = inbound.message() => match r {
                        Ok(Some(m)) => m,
                        Ok(None) => {
                            tracing::debug!("the gateway ended the stream");
                            break Ok(());
                        }
                        Err(status) => break Err(status),
                    },
                };
                let busy = in_flight.as_ref().map(|f| f.request_id.clone());
                if let (Some(busy), Some(#sp::#v_send_message(m))) = (&busy, &msg.payload) {
                    // One request at a time, whatever the check mode: the second one gets the
                    // protocol's own answer, an error event, and the first one carries on.
                    tracing::warn!(request_id = %m.request_id, busy = %busy, "request refused: another one is in flight");
                    let refusal = proto::MessageResponse {
                        request_id: m.request_id.clone(),
                        event: Some(proto::message_response::Event::Error(format!("busy with request {busy}"))),
                    };
                    let _ = session.link.send_unchecked(proto::#client_union { payload: Some(#cp::#v_response(refusal)) }).await;
                    continue;
                }
                if let Err(status) = grpc::admit_inbound(session.link.gate(), &msg, observe_server).await {
                    // The agent has no status to answer a gateway with: the message is dropped
                    // and logged, and the stream carries on.
                    tracing::warn!(error = %status.message(), "gateway message refused");
                    continue;
                }
                match msg.payload {
                    Some(#sp::#v_send_message(m)) => {
                        let cancel = CancellationToken::new();
                        let reason = CancelReason::default();
                        let reply = Reply {
                            request_id: m.request_id.clone(),
                            link: session.link.clone(),
                            cancel: cancel.clone(),
                            reason: Arc::clone(&reason),
                            finished: Arc::default(),
                        };
                        let request_id = m.request_id.clone();
                        let h = Arc::clone(&handler);
                        let link = session.link.clone();
                        let task = tokio::spawn(async move {
                            let guard = ReplyGuard {
                                request_id: m.request_id.clone(),
                                link,
                                cancel: reply.cancel.clone(),
                                reason: Arc::clone(&reply.reason),
                                finished: Arc::clone(&reply.finished),
                            };
                            // The handler runs as its own task so that a panic in it still
                            // ends the request with an error event.
                            let ran = tokio::spawn(async move { h.on_send_message(m, reply).await }).await;
                            guard.finish(ran.is_err()).await;
                        });
                        in_flight = Some(InFlight { request_id, cancel, reason, task });
                    }
                    Some(#sp::#v_cancel_request(m)) => {
                        if let Some(f) = in_flight.as_ref().filter(|f| f.request_id == m.request_id) {
                            *f.reason.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
                                Some(m.reason.clone().unwrap_or_else(|| "cancelled".to_owned()));
                            f.cancel.cancel();
                        }
                    }
                    Some(#sp::#v_inject_context(m)) => {
                        let injection_id = m.injection_id.clone();
                        let ack = match handler.on_inject_context(m).await {
                            Ok(()) => proto::InjectionAck { injection_id, accepted: true, reason: None },
                            Err(reason) => proto::InjectionAck { injection_id, accepted: false, reason: Some(reason) },
                        };
                        let ack = proto::#client_union { payload: Some(#cp::#v_injection_ack(ack)) };
                        if let Err(e) = session.link.send(ack, observe_client).await {
                            tracing::warn!(error = %e, "injection ack not sent");
                        }
                    }
                    Some(#sp::#v_shutdown(m)) => {
                        handler.on_shutdown(&m).await;
                        draining = true;
                    }
                    Some(#sp::#v_welcome(_) | #sp::#v_registration_error(_)) => {
                        tracing::warn!("registration answer on a registered stream dropped");
                    }
                    #(#dispatch)*
                    None => tracing::warn!("gateway message without payload dropped"),
                }
            };
            if let Some(f) = in_flight.take() {
                // Releases a handler that waits for cancellation; its sends fail from now on.
                f.cancel.cancel();
                f.task.abort();
            }
            session.close.cancel();
            // Dropping the response half would reset the whole stream and could discard what
            // the agent queued last (its final event); wait, bounded, for the gateway to end
            // the stream after reading our end.
            let flushed = async { while let Ok(Some(_)) = inbound.message().await {} };
            if tokio::time::timeout(std::time::Duration::from_secs(5), flushed).await.is_err() {
                tracing::debug!("the gateway did not end the stream after ours; dropping it");
            }
            result
        }

        /// Resolves when the request in flight finished (never when there is none).
        async fn wait_finished(in_flight: &mut Option<InFlight>) {
            match in_flight.as_mut() {
                Some(f) => {
                    let _ = (&mut f.task).await;
                }
                None => std::future::pending().await,
            }
        }

        /// Ends a request the handler left open, so every request still gets exactly one
        /// terminal event.
        struct ReplyGuard {
            request_id: String,
            link: Link<proto::#client_union, Checker>,
            cancel: CancellationToken,
            reason: CancelReason,
            finished: Arc<std::sync::atomic::AtomicBool>,
        }

        impl ReplyGuard {
            async fn finish(self, handler_failed: bool) {
                if self.finished.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                let event = if self.cancel.is_cancelled() {
                    let reason = self.reason.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone().unwrap_or_default();
                    proto::message_response::Event::Cancelled(proto::Cancelled { reason })
                } else if handler_failed {
                    proto::message_response::Event::Error("the agent failed while answering".to_owned())
                } else {
                    proto::message_response::Event::Error("the agent ended the request without an answer".to_owned())
                };
                let r = proto::MessageResponse { request_id: self.request_id, event: Some(event) };
                let _ = self.link.send(proto::#client_union { payload: Some(#cp::#v_response(r)) }, observe_client).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn coven() -> Protocol {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/coven");
        crate::front::load::load_spec(&dir).unwrap().protocol
    }

    #[test]
    fn every_other_kind_of_the_catalogue_gets_a_handler_method_or_a_sender() {
        let code = emit(&coven()).unwrap().to_string();
        // Agent kinds beyond the handshake become gateway handler methods, gateway kinds
        // typed senders on the agent handle; and the other way round for the agent side.
        for needle in [
            "fn on_execute_pack_tool",
            "pub async fn tool_approval",
            "pub async fn pack_tool_result",
            "fn on_tool_approval",
            "fn on_pack_tool_result",
            "pub async fn execute_pack_tool",
        ] {
            assert!(code.contains(needle), "missing `{needle}`");
        }
        assert!(code.contains("CovenControlServer"));
        assert!(code.contains("agent_stream"));
    }

    #[test]
    fn no_skeleton_without_the_rpc_or_the_handshake() {
        let mut p = coven();
        p.transport.grpc = None;
        assert!(emit(&p).is_none());
        let mut p = coven();
        p.messages.retain(|m| m.kind != WELCOME);
        assert!(emit(&p).is_none());
    }
}
