//! The connecting role (the gRPC client): its config and handler trait, the typed reply
//! writer with one helper per event, the session's typed senders, and `connect` over
//! `grpc::connect`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::proto_view::CaseArg;
use super::{Ctx, dispatch_arms, handler_methods, senders, snake, snake_name, variant};

pub fn emit(cx: &Ctx<'_>) -> TokenStream {
    let config = config(cx);
    let handler = handler_trait(cx);
    let side = side(cx);
    let reply = reply(cx);
    let session = session(cx);
    let connect = connect(cx);
    quote! {
        #config
        #handler
        #side
        #reply
        #session
        #connect
    }
}

fn config(cx: &Ctx<'_>) -> TokenStream {
    let config = cx.role_ty(true, "Config");
    let hello_field = snake(&cx.s.handshake.hello);
    let hello = cx.ty(&cx.s.handshake.hello);
    quote! {
        /// How [`connect`] runs the connecting side.
        #[derive(Debug, Clone)]
        pub struct #config {
            /// The first message sent; it declares the features the handler implements.
            pub #hello_field: #hello,
            /// What the sequence checker does with a violation, in both directions.
            pub mode: CheckMode,
            /// Message size, heartbeat interval; `idle_timeout` bounds the wait for the
            /// answer to the first message.
            pub limits: GrpcLimits,
        }

        impl #config {
            pub fn new(#hello_field: #hello) -> Self {
                Self { #hello_field, mode: CheckMode::default(), limits: GrpcLimits::default() }
            }
        }
    }
}

/// Server kinds that reach the plain handler methods (not the engine's own).
fn plain_inbound<'a>(cx: &Ctx<'a>) -> Vec<&'a crate::ir::MessageKind> {
    let (h, x) = (&cx.s.handshake, &cx.s.exchange);
    let mut skip = vec![h.accept.as_str(), h.refuse.as_str(), x.request.as_str()];
    skip.extend(x.cancel.as_ref().map(|c| c.kind.as_str()));
    skip.extend(cx.s.shutdown.as_ref().map(|s| s.kind.as_str()));
    skip.extend(cx.s.acknowledged.iter().map(|a| a.kind.as_str()));
    cx.kinds_of(&cx.s.server, &skip)
}

fn handler_trait(cx: &Ctx<'_>) -> TokenStream {
    let x = &cx.s.exchange;
    let handler = cx.role_ty(true, "Handler");
    let on_request = format_ident!("on_{}", snake_name(&x.request));
    let request = cx.ty(&x.request);
    let request_doc = format!(
        " Answer one `{}` through `reply`, ending with one of its terminal methods. Returning without one ends the request with the `{}` event (or the cancel event, after a cancel).",
        x.request, x.failure
    );
    let acks = cx.s.acknowledged.iter().map(|a| {
        let method = format_ident!("on_{}", snake_name(&a.kind));
        let t = cx.ty(&a.kind);
        let doc = format!(
            " `{}`: `Ok(())` accepts it, `Err(reason)` declines it; the skeleton sends the `{}`. The default declines.",
            a.kind, a.answer
        );
        let refusal = format!("this peer does not take `{}`", a.kind);
        quote! {
            #[doc = #doc]
            fn #method(&self, _msg: #t) -> impl Future<Output = Result<(), String>> + Send {
                async { Err(#refusal.to_owned()) }
            }
        }
    });
    let shutdown = cx.s.shutdown.as_ref().map(|s| {
        let method = format_ident!("on_{}", snake_name(&s.kind));
        let t = cx.ty(&s.kind);
        quote! {
            /// The other side asked to wind down; the skeleton lets the request in flight
            /// finish, then closes the stream.
            fn #method(&self, _msg: &#t) -> impl Future<Output = ()> + Send {
                async {}
            }
        }
    });
    let methods = handler_methods(cx, &plain_inbound(cx), &quote!(_session: &Session));
    quote! {
        /// The behaviour of the connecting side. The request method runs on its own task,
        /// one request at a time; the other methods run on the stream's reader task.
        pub trait #handler: Send + Sync + 'static {
            #[doc = #request_doc]
            fn #on_request(&self, msg: #request, reply: Reply) -> impl Future<Output = ()> + Send;

            #(#acks)*
            #shutdown
            #methods
        }
    }
}

/// The `grpc::AgentSide` impl: the engine's calls into the handler.
fn side(cx: &Ctx<'_>) -> TokenStream {
    let x = &cx.s.exchange;
    let handler = cx.role_ty(true, "Handler");
    let on_request = format_ident!("on_{}", snake_name(&x.request));
    let down_oneof = &cx.down_oneof;
    let shutdown = match &cx.s.shutdown {
        Some(s) => {
            let pat = cx.case(&s.kind, quote!(m));
            let method = format_ident!("on_{}", snake_name(&s.kind));
            quote! {
                if let #pat = &msg.#down_oneof {
                    self.0.#method(m).await;
                }
            }
        }
        None => quote!(let _ = msg;),
    };
    let acks: Vec<TokenStream> = cx
        .s
        .acknowledged
        .iter()
        .map(|a| {
            let pat = cx.case(&a.kind, quote!(m));
            let method = format_ident!("on_{}", snake_name(&a.kind));
            let answer = cx.ty(&a.answer);
            let (id, accepted) = (snake(&a.id), snake(&a.accepted));
            let reason = a.reason.as_ref().map(|r| {
                let r = snake(r);
                quote!(if let Err(reason) = taken { grpc::TextField::put(&mut ack.#r, reason); })
            });
            let wrap = cx.wrap(&a.answer, quote!(ack));
            quote! {
                #pat => {
                    let id = m.#id.clone();
                    let taken = self.0.#method(m).await;
                    let ack = grpc::build(|ack: &mut #answer| {
                        ack.#id = id;
                        ack.#accepted = taken.is_ok();
                        #reason
                    });
                    if let Err(e) = session.0.send(#wrap).await {
                        agentwire_transport::warn_throttled!(error = %e, "acknowledgement not sent");
                    }
                }
            }
        })
        .collect();
    let inbound = plain_inbound(cx);
    let plain = dispatch_arms(cx, &inbound, |m| quote!(self.0.#m(&session, m).await));
    let dispatch = if acks.is_empty() && inbound.is_empty() {
        quote!(let _ = (session, msg);)
    } else {
        quote! {
            let session = Session(session.clone());
            match msg.#down_oneof {
                #(#acks)*
                #plain
                _ => {}
            }
        }
    };
    quote! {
        /// Binds a handler to the engine.
        struct ServeAgent<H>(H);

        impl<H: #handler> grpc::AgentSide for ServeAgent<H> {
            type B = Binding;

            fn request(&self, request: <Binding as grpc::Binding>::Request, reply: grpc::Reply<Binding>) -> impl Future<Output = ()> + Send {
                self.0.#on_request(request, Reply(reply))
            }

            async fn shutdown(&self, msg: &<Binding as grpc::Binding>::Down) {
                #shutdown
            }

            // One arm per kind; a protocol with a single one gets a one-arm match.
            #[allow(clippy::single_match)]
            async fn dispatch(&self, session: &grpc::Session<Binding>, msg: <Binding as grpc::Binding>::Down) {
                #dispatch
            }
        }
    }
}

/// Names a reply helper must not take: the engine's own methods.
const RESERVED: &[&str] = &[
    "event",
    "finish",
    "request_id",
    "cancelled",
    "is_cancelled",
    "cancel_reason",
    "cancel_done",
];

fn reply(cx: &Ctx<'_>) -> TokenStream {
    let x = &cx.s.exchange;
    let event = &cx.event;
    let response = cx.kind(&x.response).map_or("", |m| m.type_name.as_str());
    let cancel_event = x.cancel.as_ref().map(|c| c.event.as_str());
    let helpers = cx
        .view
        .cases(response, &x.event)
        .into_iter()
        .filter(|(name, _)| {
            !RESERVED.contains(&name.as_str()) && Some(name.as_str()) != cancel_event
        })
        .filter_map(|(name, arg)| {
            let terminal = cx.p.events.iter().any(|e| e.name == name && e.terminal);
            Some(helper(event, &name, &arg?, terminal))
        });
    let cancel_done = x.cancel.as_ref().map(|c| {
        let doc = format!(
            " Ends the request with `{}`, echoing the cancel's reason.",
            c.event
        );
        quote! {
            #[doc = #doc]
            pub async fn cancel_done(self) -> Result<(), SendError> {
                self.0.cancel_done().await
            }
        }
    });
    quote! {
        /// The typed writer of one request's responses; derefs to [`grpc::Reply`]
        /// (`event`, `cancelled`, `is_cancelled`, `cancel_reason`). Terminal helpers take
        /// `self`, so a request ends exactly once.
        pub struct Reply(grpc::Reply<Binding>);

        impl std::ops::Deref for Reply {
            type Target = grpc::Reply<Binding>;

            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl std::ops::DerefMut for Reply {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.0
            }
        }

        impl Reply {
            #cancel_done
            #(#helpers)*
        }
    }
}

/// One event helper: `text(chunk)`, `done(full_response)`, `tool_use(ToolUse)`, ...
fn helper(event: &TokenStream, name: &str, arg: &CaseArg, terminal: bool) -> TokenStream {
    let method = snake(name);
    let v = variant(name);
    let (param, value) = match arg {
        CaseArg::Value(t) if t.to_string() == "String" => {
            (quote!(impl Into<String>), quote!(value.into()))
        }
        CaseArg::Value(t) => (t.clone(), quote!(value)),
        CaseArg::Text { message, field } => {
            let f = format_ident!("{}", snake_name(field));
            (
                quote!(impl Into<String>),
                quote!(#message { #f: value.into() }),
            )
        }
    };
    let (receiver, call, doc) = if terminal {
        (
            quote!(self),
            quote!(finish),
            format!(" Ends the request with a `{name}` event."),
        )
    } else {
        (
            quote!(&mut self),
            quote!(event),
            format!(" Sends a `{name}` event."),
        )
    };
    quote! {
        #[doc = #doc]
        pub async fn #method(#receiver, value: #param) -> Result<(), SendError> {
            self.0.#call(#event::#v(#value)).await
        }
    }
}

fn session(cx: &Ctx<'_>) -> TokenStream {
    let (h, x) = (&cx.s.handshake, &cx.s.exchange);
    let accept_fn = snake(&h.accept);
    let accept = cx.ty(&h.accept);
    let mut skip = vec![h.hello.as_str(), x.response.as_str()];
    skip.extend(cx.s.heartbeat.as_ref().map(|b| b.kind.as_str()));
    skip.extend(cx.s.acknowledged.iter().map(|a| a.answer.as_str()));
    let outbound = cx.kinds_of(&cx.s.client, &skip);
    let senders = senders(cx, &outbound, |msg| quote!(self.0.send(#msg).await));
    let accept_doc = format!(" The other side's `{}`.", h.accept);
    quote! {
        /// The connected, accepted side; clones share the stream. Derefs to
        /// [`grpc::Session`] (`close`, `has_feature`, ...).
        #[derive(Clone)]
        pub struct Session(grpc::Session<Binding>);

        impl std::ops::Deref for Session {
            type Target = grpc::Session<Binding>;

            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl Session {
            #[doc = #accept_doc]
            pub fn #accept_fn(&self) -> &#accept {
                self.0.accept()
            }

            #senders
        }
    }
}

fn connect(cx: &Ctx<'_>) -> TokenStream {
    let super::Service {
        client_mod,
        client_ty,
        rpc,
        ..
    } = &cx.svc;
    let running = format_ident!("Running{}", cx.role_ty(true, ""));
    let config = cx.role_ty(true, "Config");
    let handler = cx.role_ty(true, "Handler");
    let hello_field = snake(&cx.s.handshake.hello);
    let refuse = cx.ty(&cx.s.handshake.refuse);
    // The spec's `transport.port`: the endpoint of a host on the default port.
    let default_endpoint = cx.p.transport.port.map(|_| {
        quote! {
            /// `http://<host>:<DEFAULT_PORT>`: the endpoint of `host` on the protocol's default
            /// port ([`proto::DEFAULT_PORT`], the spec's `transport.port`), for [`connect`].
            pub fn default_endpoint(host: &str) -> String {
                format!("http://{host}:{}", proto::DEFAULT_PORT)
            }
        }
    });
    quote! {
        use self::#client_mod::#client_ty;

        /// A running connecting side: its session and the task that reads the stream.
        pub struct #running {
            session: Session,
            task: grpc::AgentTask,
        }

        impl #running {
            pub fn session(&self) -> &Session {
                &self.session
            }

            /// Waits until the stream is over: `Ok` when it ended cleanly (after a shutdown
            /// or [`grpc::Session::close`]), the other side's status otherwise.
            pub async fn wait(self) -> Result<(), Status> {
                self.task.wait().await
            }
        }

        #default_endpoint

        /// Connects to `endpoint` (`http://host:port`), sends the first message, and once
        /// accepted serves requests with `handler` and sends heartbeats.
        pub async fn connect<H: #handler>(
            endpoint: String,
            config: #config,
            handler: H,
        ) -> Result<#running, grpc::ConnectError<#refuse>> {
            let max = config.limits.max_message_size;
            let mut client = #client_ty::connect(endpoint)
                .await?
                .max_decoding_message_size(max)
                .max_encoding_message_size(max);
            let options = grpc::AgentOptions { mode: config.mode, limits: config.limits };
            let open = |out| async move { client.#rpc(out).await.map(Response::into_inner) };
            let (session, task) = grpc::connect(config.#hello_field, options, ServeAgent(handler), open).await?;
            Ok(#running { session: Session(session), task })
        }
    }
}
