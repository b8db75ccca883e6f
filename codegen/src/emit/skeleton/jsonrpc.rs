//! Skeleton emitter for JSON-RPC 2.0 protocols with two roles, over the framing the spec
//! declares (`Content-Length` or newline-delimited).
//!
//! Thin binding over `agentwire_transport::jsonrpc`, where the behaviour lives. From the
//! spec's `methods` it emits, for a calling role (the one that sends requests first, eca's
//! `client`) and an answering role (`server`):
//! - a `Side` per role, binding the method sets, framing, conventions and sequence checker;
//! - per role, a handler trait with one async method per request it answers (the server's is
//!   required; the client's, emitted when the server sends requests, defaults to "method not
//!   found") and, on the server, per notification it receives;
//! - the server's typed sender and the typed client: one method per request (awaiting the
//!   typed result) and per notification that role sends; both carry the inbound request
//!   they were handed for (its id, progress token and cancellation);
//! - `serve`, `serve_stdio`, `serve_tcp`, `serve_messages`, and the client's `connect*`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Call, DefaultAnswer, Method, Protocol};
use crate::naming::pascal_case;
use crate::naming::{field_ident, type_ident};

/// The skeleton module of a JSON-RPC protocol with two roles; `None` otherwise.
pub fn emit(p: &Protocol) -> Option<TokenStream> {
    let [first, second] = p.roles.as_slice() else {
        return None;
    };
    let sends_requests = |role: &str| {
        p.methods.iter().any(|m| {
            m.call == Call::Request && m.sent_by(role) && !p.roles.iter().all(|x| m.sent_by(x))
        })
    };
    // The calling role is the one that sends requests the other does not (the first role
    // when both or neither do).
    let (client, server) = if sends_requests(first) || !sends_requests(second) {
        (first.as_str(), second.as_str())
    } else {
        (second.as_str(), first.as_str())
    };
    let roles = Roles::new(p, client, server);
    let framing = match p.transport.framing.as_str() {
        "newline" => "newline-delimited",
        _ => "`Content-Length`",
    };
    let module_doc = format!(
        " Client and server skeletons of {}: JSON-RPC 2.0 over {framing} framing on \
         stdio, TCP, any byte stream or a message transport, with validation and sequence \
         checking on both directions. Generated from `spec/{}`; see `docs/skeletons/{}.md`.",
        p.title, p.module, p.module
    );
    let sides = emit_sides(&roles);
    let server_items = emit_server(&roles);
    let client_items = emit_client(&roles);
    Some(quote! {
        #![doc = #module_doc]

        #sides
        #server_items
        #client_items
    })
}

/// Names shared by the emitted items.
struct Roles<'a> {
    p: &'a Protocol,
    module: Ident,
    client: &'a str,
    server: &'a str,
}

impl<'a> Roles<'a> {
    fn new(p: &'a Protocol, client: &'a str, server: &'a str) -> Self {
        Self {
            p,
            module: format_ident!("{}", p.module),
            client,
            server,
        }
    }

    fn methods(&self, from: &str, call: Call) -> Vec<&'a Method> {
        self.p
            .methods
            .iter()
            .filter(|m| m.sent_by(from) && m.call == call)
            .collect()
    }

    /// The path of `<Role><what>` in the protocol module, or `NoMethods` when the role sends
    /// no such methods.
    fn set(&self, role: &str, call: Call) -> TokenStream {
        if self.methods(role, call).is_empty() {
            return quote!(agentwire_runtime::jsonrpc::NoMethods);
        }
        let what = match call {
            Call::Request => "Request",
            Call::Notification => "Notification",
        };
        let module = &self.module;
        let name = format_ident!("{}{what}", pascal_case(role));
        quote!(crate::#module::#name)
    }

    fn ty(&self, name: &str) -> TokenStream {
        let module = &self.module;
        let t = type_ident(name);
        quote!(crate::#module::#t)
    }

    /// The params type of `m` as a handler or sender takes it (`Option<T>` when omissible).
    fn params_ty(&self, m: &Method) -> Option<TokenStream> {
        let t = self.ty(m.params.as_ref()?);
        Some(if m.params_optional {
            quote!(Option<#t>)
        } else {
            t
        })
    }

    fn side(&self, role: &str) -> Ident {
        format_ident!("{}Side", pascal_case(role))
    }

    fn other(&self, role: &str) -> &'a str {
        if role == self.client {
            self.server
        } else {
            self.client
        }
    }
}

fn fn_ident(m: &Method) -> Ident {
    field_ident(&pascal_case(&m.name))
}

fn variant(m: &Method) -> Ident {
    format_ident!("{}", crate::naming::variant_name(&m.name))
}

fn method_doc(m: &Method) -> String {
    if m.summary.is_empty() {
        format!(" `{}`.", m.name)
    } else {
        format!(" `{}`: {}", m.name, m.summary)
    }
}

/// `Side::FRAMING` and `Side::CONVENTIONS` as the spec declares them.
fn framing_and_conventions(p: &Protocol) -> TokenStream {
    let framing = match p.transport.framing.as_str() {
        "newline" => quote!(Newline),
        _ => quote!(ContentLength),
    };
    let rpc = &p.transport.rpc;
    let cancel = match &rpc.cancel {
        None => quote!(None),
        Some(c) => {
            let (method, id) = (&c.method, &c.id);
            let answer = match c.answer {
                None => quote!(agentwire_transport::jsonrpc::CancelAnswer::Nothing),
                Some(code) => quote!(agentwire_transport::jsonrpc::CancelAnswer::Error(#code)),
            };
            quote!(Some(agentwire_transport::jsonrpc::CancelRule {
                method: #method,
                id: #id,
                answer: #answer,
            }))
        }
    };
    let progress = match &rpc.progress {
        None => quote!(None),
        Some(g) => {
            let (method, token, path) = (&g.method, &g.token, &g.request_token);
            quote!(Some(agentwire_transport::jsonrpc::ProgressRule {
                method: #method,
                token: #token,
                request_token: &[#(#path),*],
            }))
        }
    };
    quote! {
        const FRAMING: agentwire_transport::jsonrpc::Framing =
            agentwire_transport::jsonrpc::Framing::#framing;
        const CONVENTIONS: agentwire_transport::jsonrpc::Conventions =
            agentwire_transport::jsonrpc::Conventions {
                cancel: #cancel,
                progress: #progress,
            };
    }
}

fn emit_sides(r: &Roles<'_>) -> TokenStream {
    let module = &r.module;
    let consts = framing_and_conventions(r.p);
    let mut out = TokenStream::new();
    for (me, other) in [(r.server, r.client), (r.client, r.server)] {
        let side = r.side(me);
        let in_req = r.set(other, Call::Request);
        let in_notif = r.set(other, Call::Notification);
        let out_req = r.set(me, Call::Request);
        let out_notif = r.set(me, Call::Notification);
        let me_variant = format_ident!("{}", pascal_case(me));
        let other_variant = format_ident!("{}", pascal_case(other));
        let doc = format!(
            " The `{me}` end of a connection: what it receives and sends, its framing and \
             conventions, and how the sequence checker sees each direction."
        );
        out.extend(quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Copy)]
            pub struct #side;

            impl agentwire_transport::jsonrpc::Side for #side {
                type InRequest = #in_req;
                type InNotification = #in_notif;
                type OutRequest = #out_req;
                type OutNotification = #out_notif;
                type Checker = crate::#module::machine::Checker;
                const ROLE: &'static str = #me;
                const PEER: &'static str = #other;
                #consts

                fn observe_inbound(
                    checker: &mut Self::Checker,
                    msg: &agentwire_transport::jsonrpc::Inbound<Self>,
                ) -> Result<(), agentwire_runtime::machine::Violation> {
                    checker.observe(crate::#module::machine::Message::#other_variant(msg))
                }

                fn observe_outbound(
                    checker: &mut Self::Checker,
                    msg: &agentwire_transport::jsonrpc::Outbound<Self>,
                ) -> Result<(), agentwire_runtime::machine::Violation> {
                    checker.observe(crate::#module::machine::Message::#me_variant(msg))
                }

                fn finish(
                    checker: Self::Checker,
                ) -> Result<(), Vec<agentwire_runtime::machine::Violation>> {
                    checker.finish()
                }
            }
        });
    }
    out.extend(quote! {
        /// A fresh sequence checker with the configured limits.
        fn checker(
            config: &agentwire_transport::jsonrpc::Config,
        ) -> crate::#module::machine::Checker {
            crate::#module::machine::Checker::with_limits(config.checker_limits)
        }
    });
    out
}

/// One typed method per request (awaiting its typed result) and per notification `role`
/// sends, on a handle with a `peer` field.
fn send_fns(r: &Roles<'_>, role: &str) -> TokenStream {
    let module = &r.module;
    let out_req = r.set(role, Call::Request);
    let out_notif = r.set(role, Call::Notification);
    let result_set = format_ident!("{}Result", pascal_case(role));
    let request_fns = r.methods(role, Call::Request).into_iter().map(|m| {
        let f = fn_ident(m);
        let v = variant(m);
        let name = &m.name;
        let doc = format!(
            "{} Validated and sequence-checked before it is sent; waits for the typed result. \
             For its id, progress or cancellation, start it with `peer().start(..)`.",
            method_doc(m)
        );
        let (params, request) = match r.params_ty(m) {
            Some(t) => (quote!(params: #t), quote!(#out_req::#v(params))),
            None => (quote!(), quote!(#out_req::#v)),
        };
        let (ret, arm) = match &m.result {
            Some(t) => (r.ty(t), quote!(crate::#module::#result_set::#v(result) => Ok(result),)),
            None => (quote!(()), quote!(crate::#module::#result_set::#v => Ok(()),)),
        };
        quote! {
            #[doc = #doc]
            pub async fn #f(&self, #params) -> Result<#ret, agentwire_transport::jsonrpc::CallError> {
                #[allow(unreachable_patterns)]
                match self.peer.call(#request).await? {
                    #arm
                    _ => Err(agentwire_transport::jsonrpc::result_mismatch(#name)),
                }
            }
        }
    });
    let notification_fns = r.methods(role, Call::Notification).into_iter().map(|m| {
        let f = fn_ident(m);
        let v = variant(m);
        let doc = format!(
            "{} Validated and sequence-checked before it is sent.",
            method_doc(m)
        );
        let (params, value) = match r.params_ty(m) {
            Some(t) => (quote!(params: #t), quote!(#out_notif::#v(params))),
            None => (quote!(), quote!(#out_notif::#v)),
        };
        quote! {
            #[doc = #doc]
            pub async fn #f(&self, #params) -> Result<(), agentwire_transport::jsonrpc::SendError> {
                self.peer.notify(#value).await
            }
        }
    });
    quote! {
        #(#request_fns)*
        #(#notification_fns)*
    }
}

/// The accessors of a handle's inbound request context (`call` field).
fn context_fns(side: &Ident) -> TokenStream {
    quote! {
        /// The inbound request this handle was given for (its id, progress token and
        /// cancellation); `None` outside a request handler.
        pub fn incoming(&self) -> Option<&agentwire_transport::jsonrpc::Incoming<#side>> {
            self.call.as_ref()
        }

        /// The id of the inbound request this handle was given for.
        pub fn request_id(&self) -> Option<&agentwire_runtime::jsonrpc::RequestId> {
            self.call.as_ref().map(|c| &c.id)
        }

        /// The progress token of the inbound request this handle was given for, when its
        /// caller asked for progress.
        pub fn progress_token(&self) -> Option<&agentwire_runtime::serde_json::Value> {
            self.call.as_ref().and_then(|c| c.progress_token.as_ref())
        }

        /// Ends the connection: queued messages are flushed, then the stream is closed.
        pub fn close(&self) {
            self.peer.shutdown();
        }

        /// The underlying connection (counters, `start` for a call's id and progress, raw
        /// frames for tests).
        pub fn peer(&self) -> &agentwire_transport::jsonrpc::Peer<#side> {
            &self.peer
        }
    }
}

/// Handler trait methods for the requests `role` answers, as `fn(&self, handle, params)`.
/// With `default`, each answers "method not found" unless overridden.
fn handler_request_fns(
    r: &Roles<'_>,
    role: &str,
    handle: &Ident,
    default: bool,
) -> Vec<TokenStream> {
    r.methods(r.other(role), Call::Request)
        .into_iter()
        .map(|m| {
            let f = fn_ident(m);
            let name = &m.name;
            let doc = method_doc(m);
            let (params, unused) = match r.params_ty(m) {
                Some(t) => (quote!(, params: #t), quote!(let _ = (handle, params);)),
                None => (quote!(), quote!(let _ = handle;)),
            };
            let result = match &m.result {
                Some(t) => r.ty(t),
                None => quote!(()),
            };
            let ret = quote!(impl ::std::future::Future<Output = Result<#result, agentwire_runtime::jsonrpc::RpcError>> + Send);
            // What the spec says is answered without user code (`answer:`), else, where every
            // method has a default, "method not found".
            let answer = match m.answer {
                Some(DefaultAnswer::Empty) => Some((
                    "the empty result",
                    quote! {
                        async {
                            agentwire_runtime::decode_json::<#result>("{}").map_err(|e| {
                                agentwire_runtime::jsonrpc::RpcError {
                                    code: agentwire_runtime::jsonrpc::codes::INTERNAL_ERROR,
                                    message: e.to_string(),
                                    data: None,
                                }
                            })
                        }
                    },
                )),
                Some(DefaultAnswer::MethodNotFound) | None if default || m.answer.is_some() => Some((
                    "\"method not found\"",
                    quote!(async { Err(agentwire_transport::jsonrpc::no_handler(#name)) }),
                )),
                _ => None,
            };
            if let Some((what, body)) = answer {
                let doc = format!("{doc} Answers {what} unless overridden.");
                quote! {
                    #[doc = #doc]
                    fn #f(&self, handle: #handle #params) -> #ret {
                        #unused
                        #body
                    }
                }
            } else {
                quote! {
                    #[doc = #doc]
                    fn #f(&self, sender: #handle #params) -> #ret;
                }
            }
        })
        .collect()
}

/// The match arms routing each request `role` answers to its handler method.
fn request_arms(r: &Roles<'_>, role: &str, handle: &TokenStream) -> TokenStream {
    let requests = r.methods(r.other(role), Call::Request);
    if requests.is_empty() {
        return quote!(match request {});
    }
    let in_req = r.set(r.other(role), Call::Request);
    let arms = requests.iter().map(|m| {
        let f = fn_ident(m);
        let v = variant(m);
        let encode = match m.result {
            Some(_) => quote!(agentwire_transport::jsonrpc::encode_result),
            None => quote!(agentwire_transport::jsonrpc::null_result),
        };
        match m.params {
            Some(_) => quote!(#in_req::#v(params) => #encode(handler.#f(#handle, params).await),),
            None => quote!(#in_req::#v => #encode(handler.#f(#handle).await),),
        }
    });
    quote!(match request { #(#arms)* })
}

/// The server role's generated item names.
struct ServerNames {
    module: Ident,
    side: Ident,
    handler: Ident,
    sender: Ident,
    dispatch: Ident,
}

impl ServerNames {
    fn new(r: &Roles<'_>) -> Self {
        ServerNames {
            module: r.module.clone(),
            side: r.side(r.server),
            handler: format_ident!("{}Handler", pascal_case(r.server)),
            sender: format_ident!("{}Sender", pascal_case(r.server)),
            dispatch: format_ident!("{}Dispatch", pascal_case(r.server)),
        }
    }
}

fn emit_server(r: &Roles<'_>) -> TokenStream {
    let names = ServerNames::new(r);
    let mut out = server_handler(r, &names);
    out.extend(server_sender(r, &names));
    out.extend(server_dispatch(r, &names));
    out.extend(server_entry_points(&names));
    out
}

/// The handler trait: one method per request the server answers and per notification.
fn server_handler(r: &Roles<'_>, names: &ServerNames) -> TokenStream {
    let ServerNames {
        handler, sender, ..
    } = names;
    let request_fns = handler_request_fns(r, r.server, sender, false);
    let notification_fns = r.methods(r.client, Call::Notification).into_iter().map(|m| {
        let f = fn_ident(m);
        let doc = format!("{} Does nothing unless overridden.", method_doc(m));
        let (params, unused) = match r.params_ty(m) {
            Some(t) => (quote!(, params: #t), quote!(let _ = (sender, params);)),
            None => (quote!(), quote!(let _ = sender;)),
        };
        quote! {
            #[doc = #doc]
            fn #f(&self, sender: #sender #params) -> impl ::std::future::Future<Output = ()> + Send {
                #unused
                async {}
            }
        }
    });
    let handler_doc = format!(
        " The behaviour of a `{}`: one method per request it answers (returning the typed \
         result, or an error response) and per notification it receives. Requests run \
         concurrently, each in its own task (aborted when the caller cancels it); \
         notifications run one at a time in arrival order, so they should return promptly.",
        r.server
    );
    quote! {
        #[doc = #handler_doc]
        pub trait #handler: Send + Sync + 'static {
            #(#request_fns)*
            #(#notification_fns)*
        }
    }
}

/// The server's handle on one connection: typed requests and notifications to the client.
fn server_sender(r: &Roles<'_>, names: &ServerNames) -> TokenStream {
    let ServerNames {
        side: server_side,
        sender,
        ..
    } = names;
    let sends = send_fns(r, r.server);
    let context = context_fns(server_side);
    let sender_doc = format!(
        " The `{}`'s handle on one connection: typed requests and notifications to the `{}`. \
         Handed to a request handler, it also carries that request (`request_id`, \
         `progress_token`, `incoming`), and what it sends is tagged as related to it.",
        r.server, r.client
    );
    quote! {
        #[doc = #sender_doc]
        #[derive(Debug, Clone)]
        pub struct #sender {
            peer: agentwire_transport::jsonrpc::Peer<#server_side>,
            call: Option<agentwire_transport::jsonrpc::Incoming<#server_side>>,
        }

        impl #sender {
            #sends
            #context
        }
    }
}

/// The `Dispatch` impl that routes decoded requests and notifications to the handler.
fn server_dispatch(r: &Roles<'_>, names: &ServerNames) -> TokenStream {
    let ServerNames {
        side: server_side,
        handler,
        sender,
        dispatch,
        ..
    } = names;
    let notifications = r.methods(r.client, Call::Notification);
    let in_req = r.set(r.client, Call::Request);
    let in_notif = r.set(r.client, Call::Notification);
    let request_body = request_arms(r, r.server, &quote!(sender));
    let notification_arms = notifications.iter().map(|m| {
        let f = fn_ident(m);
        let v = variant(m);
        match m.params {
            Some(_) => quote!(#in_notif::#v(params) => handler.#f(sender, params).await,),
            None => quote!(#in_notif::#v => handler.#f(sender).await,),
        }
    });
    let notification_body = if notifications.is_empty() {
        quote!(match notification {})
    } else {
        quote!(match notification { #(#notification_arms)* })
    };
    quote! {
        struct #dispatch<H>(::std::sync::Arc<H>);

        impl<H: #handler> agentwire_transport::jsonrpc::Dispatch<#server_side> for #dispatch<H> {
            // A side that receives no requests (or no notifications) has an empty match.
            #[allow(unused_variables)]
            fn request(
                &self,
                call: agentwire_transport::jsonrpc::Incoming<#server_side>,
                request: #in_req,
            ) -> impl ::std::future::Future<Output = agentwire_transport::jsonrpc::Answer> + Send + 'static {
                let handler = ::std::sync::Arc::clone(&self.0);
                let sender = #sender { peer: call.peer.clone(), call: Some(call) };
                async move { #request_body }
            }

            #[allow(unused_variables)]
            fn notification(
                &self,
                peer: agentwire_transport::jsonrpc::Peer<#server_side>,
                notification: #in_notif,
            ) -> impl ::std::future::Future<Output = ()> + Send + 'static {
                let handler = ::std::sync::Arc::clone(&self.0);
                let sender = #sender { peer, call: None };
                async move { #notification_body }
            }
        }
    }
}

/// `serve`, `serve_stdio`, `serve_tcp` and `serve_messages`.
fn server_entry_points(names: &ServerNames) -> TokenStream {
    let ServerNames {
        module,
        side: server_side,
        handler,
        sender,
        dispatch,
    } = names;
    quote! {
        /// Serves one connection over `reader`/`writer` (pipes, a TCP stream, an in-memory
        /// duplex). The returned `Connection` ends when the peer hangs up or the sender closes.
        pub fn serve<H, R, W>(
            handler: ::std::sync::Arc<H>,
            reader: R,
            writer: W,
            config: agentwire_transport::jsonrpc::Config,
        ) -> (#sender, agentwire_transport::jsonrpc::Connection)
        where
            H: #handler,
            R: agentwire_transport::tokio::io::AsyncRead + Send + Unpin + 'static,
            W: agentwire_transport::tokio::io::AsyncWrite + Send + Unpin + 'static,
        {
            let checker = checker(&config);
            let (peer, connection) = agentwire_transport::jsonrpc::Peer::spawn(
                reader, writer, checker, config, #dispatch(handler),
            );
            (#sender { peer, call: None }, connection)
        }

        /// Serves one connection whose messages arrive and leave whole (an HTTP transport):
        /// push each inbound JSON text into the link's `incoming`, take each outbound message
        /// (tagged with the request it belongs to) from its `outgoing`.
        pub fn serve_messages<H: #handler>(
            handler: ::std::sync::Arc<H>,
            cancel: agentwire_transport::jsonrpc::CancellationToken,
            config: agentwire_transport::jsonrpc::Config,
        ) -> (
            #sender,
            agentwire_transport::jsonrpc::MessageLink,
            agentwire_transport::jsonrpc::Connection,
        ) {
            let checker = checker(&config);
            let (peer, link, connection) = agentwire_transport::jsonrpc::Peer::spawn_messages(
                cancel, checker, config, #dispatch(handler),
            );
            (#sender { peer, call: None }, link, connection)
        }

        /// Serves one connection on this process's stdin and stdout, until stdin ends, a read
        /// deadline passes or the handler closes the connection; no read or write of stdio
        /// left blocked keeps the process alive afterwards.
        pub async fn serve_stdio<H: #handler>(
            handler: H,
            config: agentwire_transport::jsonrpc::Config,
        ) -> ::std::io::Result<()> {
            let (_sender, connection) = serve(
                ::std::sync::Arc::new(handler),
                agentwire_transport::stdio::stdin(),
                agentwire_transport::stdio::stdout(),
                config,
            );
            connection.join().await
        }

        /// Serves every connection `listener` accepts, each with its own checker, sharing one
        /// handler; at most `max_connections` at once.
        pub fn serve_tcp<H: #handler>(
            handler: ::std::sync::Arc<H>,
            listener: agentwire_transport::tokio::net::TcpListener,
            config: agentwire_transport::jsonrpc::Config,
            max_connections: usize,
        ) -> ::std::io::Result<agentwire_transport::jsonrpc::TcpServer> {
            let limits = config.checker_limits;
            agentwire_transport::jsonrpc::serve_tcp::<#server_side, _, _>(
                listener,
                config,
                max_connections,
                move || {
                    (
                        crate::#module::machine::Checker::with_limits(limits),
                        #dispatch(::std::sync::Arc::clone(&handler)),
                    )
                },
            )
        }
    }
}

/// The client role's generated item names.
struct ClientNames {
    side: Ident,
    client: Ident,
    handler: Ident,
    stream: Ident,
    dispatch: Ident,
}

impl ClientNames {
    fn new(r: &Roles<'_>) -> Self {
        ClientNames {
            side: r.side(r.client),
            client: format_ident!("{}", pascal_case(r.client)),
            handler: format_ident!("{}Handler", pascal_case(r.client)),
            stream: format_ident!("{}Notifications", pascal_case(r.server)),
            dispatch: format_ident!("{}Dispatch", pascal_case(r.client)),
        }
    }
}

fn emit_client(r: &Roles<'_>) -> TokenStream {
    let names = ClientNames::new(r);
    let mut out = client_stream(r, &names);
    out.extend(client_handler(r, &names));
    out.extend(client_dispatch(r, &names));
    out.extend(client_impl(r, &names));
    out
}

/// The stream of the server's notifications.
fn client_stream(r: &Roles<'_>, names: &ClientNames) -> TokenStream {
    let ClientNames {
        side: client_side,
        client,
        stream,
        handler,
        ..
    } = names;
    let in_notif = r.set(r.server, Call::Notification);
    let client_doc = format!(
        " A typed `{}`: one method per request (awaiting its typed result) and per \
         notification it sends; what the `{}` sends comes out of [`{stream}`], and its \
         requests go to a [`{handler}`]. Handed to a handler, it also carries the request \
         it was given for.",
        r.client, r.server
    );
    let stream_doc = format!(
        " The notifications the `{}` sends, validated and sequence-checked, in arrival order. \
         Reading is backpressured: while this stream is not drained, the connection stops \
         reading once `Config::queue` notifications wait. Ends when the connection ends.",
        r.server
    );
    quote! {
        #[doc = #client_doc]
        #[derive(Debug, Clone)]
        pub struct #client {
            peer: agentwire_transport::jsonrpc::Peer<#client_side>,
            call: Option<agentwire_transport::jsonrpc::Incoming<#client_side>>,
        }

        #[doc = #stream_doc]
        #[derive(Debug)]
        pub struct #stream {
            rx: agentwire_transport::tokio::sync::mpsc::Receiver<#in_notif>,
        }

        impl #stream {
            /// The next notification; `None` once the connection has ended.
            pub async fn recv(&mut self) -> Option<#in_notif> {
                self.rx.recv().await
            }
        }

        impl agentwire_transport::futures_util::Stream for #stream {
            type Item = #in_notif;

            fn poll_next(
                mut self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<Option<Self::Item>> {
                self.rx.poll_recv(cx)
            }
        }
    }
}

/// The client's handler trait: one method per request the server sends, each answering
/// "method not found" unless overridden.
fn client_handler(r: &Roles<'_>, names: &ClientNames) -> TokenStream {
    let ClientNames {
        client, handler, ..
    } = names;
    let request_fns = handler_request_fns(r, r.client, client, true);
    let doc = format!(
        " How a `{}` answers the requests the `{}` sends: one method per request, each \
         answering \"method not found\" unless overridden. Each runs in its own task, \
         aborted when the `{}` cancels it.",
        r.client, r.server, r.server
    );
    quote! {
        #[doc = #doc]
        pub trait #handler: Send + Sync + 'static {
            #(#request_fns)*
        }

        /// The handler of a client that answers every request "method not found".
        #[derive(Debug, Clone, Copy, Default)]
        pub struct NoRequests;

        impl #handler for NoRequests {}
    }
}

/// The client's `Dispatch`: server requests to the handler, notifications into the stream.
fn client_dispatch(r: &Roles<'_>, names: &ClientNames) -> TokenStream {
    let ClientNames {
        side: client_side,
        client,
        handler,
        dispatch,
        ..
    } = names;
    let in_req = r.set(r.server, Call::Request);
    let in_notif = r.set(r.server, Call::Notification);
    let request_body = request_arms(r, r.client, &quote!(handle));
    quote! {
        struct #dispatch<H> {
            handler: ::std::sync::Arc<H>,
            tx: agentwire_transport::tokio::sync::mpsc::Sender<#in_notif>,
        }

        impl<H: #handler> agentwire_transport::jsonrpc::Dispatch<#client_side> for #dispatch<H> {
            fn request(
                &self,
                call: agentwire_transport::jsonrpc::Incoming<#client_side>,
                request: #in_req,
            ) -> impl ::std::future::Future<Output = agentwire_transport::jsonrpc::Answer> + Send + 'static {
                let handler = ::std::sync::Arc::clone(&self.handler);
                let handle = #client { peer: call.peer.clone(), call: Some(call) };
                async move {
                    let _ = (&handler, &handle);
                    #request_body
                }
            }

            fn notification(
                &self,
                _peer: agentwire_transport::jsonrpc::Peer<#client_side>,
                notification: #in_notif,
            ) -> impl ::std::future::Future<Output = ()> + Send + 'static {
                let tx = self.tx.clone();
                async move {
                    // A dropped stream means nobody listens: the notification is discarded.
                    let _ = tx.send(notification).await;
                }
            }
        }
    }
}

/// `connect*`, `spawn`, the typed calls, `close` and `peer`.
fn client_impl(r: &Roles<'_>, names: &ClientNames) -> TokenStream {
    let ClientNames {
        side: client_side,
        client,
        handler,
        stream,
        dispatch,
    } = names;
    let calls = send_fns(r, r.client);
    let context = context_fns(client_side);
    quote! {
        impl #client {
            /// Runs the client over `reader`/`writer` (a child's pipes, a TCP stream, an
            /// in-memory duplex), answering the server's requests "method not found".
            pub fn connect<R, W>(
                reader: R,
                writer: W,
                config: agentwire_transport::jsonrpc::Config,
            ) -> (#client, #stream, agentwire_transport::jsonrpc::Connection)
            where
                R: agentwire_transport::tokio::io::AsyncRead + Send + Unpin + 'static,
                W: agentwire_transport::tokio::io::AsyncWrite + Send + Unpin + 'static,
            {
                Self::connect_with(::std::sync::Arc::new(NoRequests), reader, writer, config)
            }

            /// Runs the client over `reader`/`writer`, answering the server's requests with
            /// `handler`.
            pub fn connect_with<H, R, W>(
                handler: ::std::sync::Arc<H>,
                reader: R,
                writer: W,
                config: agentwire_transport::jsonrpc::Config,
            ) -> (#client, #stream, agentwire_transport::jsonrpc::Connection)
            where
                H: #handler,
                R: agentwire_transport::tokio::io::AsyncRead + Send + Unpin + 'static,
                W: agentwire_transport::tokio::io::AsyncWrite + Send + Unpin + 'static,
            {
                let (tx, rx) = agentwire_transport::tokio::sync::mpsc::channel(config.queue.max(1));
                let checker = checker(&config);
                let (peer, connection) = agentwire_transport::jsonrpc::Peer::spawn(
                    reader, writer, checker, config, #dispatch { handler, tx },
                );
                (#client { peer, call: None }, #stream { rx }, connection)
            }

            /// Runs the client over whole messages (an HTTP transport): push each inbound
            /// JSON text into the link's `incoming`, take each outbound one from `outgoing`.
            pub fn connect_messages<H: #handler>(
                handler: ::std::sync::Arc<H>,
                cancel: agentwire_transport::jsonrpc::CancellationToken,
                config: agentwire_transport::jsonrpc::Config,
            ) -> (
                #client,
                #stream,
                agentwire_transport::jsonrpc::MessageLink,
                agentwire_transport::jsonrpc::Connection,
            ) {
                let (tx, rx) = agentwire_transport::tokio::sync::mpsc::channel(config.queue.max(1));
                let checker = checker(&config);
                let (peer, link, connection) = agentwire_transport::jsonrpc::Peer::spawn_messages(
                    cancel, checker, config, #dispatch { handler, tx },
                );
                (#client { peer, call: None }, #stream { rx }, link, connection)
            }

            /// Connects to a server listening on TCP.
            pub async fn connect_tcp(
                addr: impl agentwire_transport::tokio::net::ToSocketAddrs,
                config: agentwire_transport::jsonrpc::Config,
            ) -> ::std::io::Result<(#client, #stream, agentwire_transport::jsonrpc::Connection)> {
                let stream = agentwire_transport::tokio::net::TcpStream::connect(addr).await?;
                stream.set_nodelay(true)?;
                let (reader, writer) = stream.into_split();
                Ok(Self::connect(reader, writer, config))
            }

            /// Starts `command` as a server speaking on its stdin and stdout, and connects to it
            /// (answering its requests with `handler`). The child is killed when the returned
            /// handle is dropped.
            pub fn spawn_with<H: #handler>(
                handler: ::std::sync::Arc<H>,
                command: agentwire_transport::tokio::process::Command,
                config: agentwire_transport::jsonrpc::Config,
            ) -> ::std::io::Result<(
                #client,
                #stream,
                agentwire_transport::jsonrpc::Connection,
                agentwire_transport::tokio::process::Child,
            )> {
                let (child, stdout, stdin) = agentwire_transport::jsonrpc::spawn_child(command)?;
                let (client, stream, connection) = Self::connect_with(handler, stdout, stdin, config);
                Ok((client, stream, connection, child))
            }

            /// [`Self::spawn_with`] answering the server's requests "method not found".
            pub fn spawn(
                command: agentwire_transport::tokio::process::Command,
                config: agentwire_transport::jsonrpc::Config,
            ) -> ::std::io::Result<(
                #client,
                #stream,
                agentwire_transport::jsonrpc::Connection,
                agentwire_transport::tokio::process::Child,
            )> {
                Self::spawn_with(::std::sync::Arc::new(NoRequests), command, config)
            }

            #calls
            #context
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::front::load::load_spec;

    fn eca() -> Protocol {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/eca");
        load_spec(&dir).expect("spec/eca loads").protocol
    }

    /// The `fn` items of `tokens` (`pub` or not), in order.
    fn fns(tokens: &TokenStream) -> Vec<String> {
        let file: syn::File = syn::parse2(tokens.clone()).expect("emitted code parses");
        let mut out = Vec::new();
        for item in file.items {
            match item {
                syn::Item::Trait(t) => out.extend(t.items.iter().filter_map(|i| match i {
                    syn::TraitItem::Fn(f) => Some(format!("{}::{}", t.ident, f.sig.ident)),
                    _ => None,
                })),
                syn::Item::Impl(i) if i.trait_.is_none() => {
                    let syn::Type::Path(p) = &*i.self_ty else {
                        continue;
                    };
                    let name = p
                        .path
                        .segments
                        .last()
                        .map(|s| s.ident.to_string())
                        .unwrap_or_default();
                    out.extend(i.items.iter().filter_map(|it| match it {
                        syn::ImplItem::Fn(f) => Some(format!("{name}::{}", f.sig.ident)),
                        _ => None,
                    }));
                }
                _ => {}
            }
        }
        out
    }

    fn kv_rpc() -> Protocol {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/protocols/kv_rpc");
        load_spec(&dir).expect("kv_rpc loads").protocol
    }

    /// Every method a role sends has a typed send on that role's handle and a handler method
    /// on the other role's handler (requests) or server handler (client notifications).
    fn assert_one_method_per_spec_method(p: &Protocol) {
        let tokens = emit(p).expect("a skeleton");
        let fns = fns(&tokens);
        for m in &p.methods {
            let f = fn_ident(m).to_string();
            for role in &m.from {
                let expected = match (role.as_str(), m.call) {
                    ("client", Call::Request) => {
                        vec![format!("ServerHandler::{f}"), format!("Client::{f}")]
                    }
                    ("client", Call::Notification) => {
                        vec![format!("ServerHandler::{f}"), format!("Client::{f}")]
                    }
                    (_, Call::Notification) => vec![format!("ServerSender::{f}")],
                    (_, Call::Request) => {
                        vec![format!("ClientHandler::{f}"), format!("ServerSender::{f}")]
                    }
                };
                for e in expected {
                    assert!(fns.contains(&e), "missing {e} for `{}`", m.name);
                }
            }
        }
    }

    #[test]
    fn one_method_per_spec_method_on_each_side() {
        assert_one_method_per_spec_method(&eca());
        assert_one_method_per_spec_method(&kv_rpc());
    }

    #[test]
    fn emission_is_deterministic_and_needs_two_roles() {
        let p = eca();
        assert_eq!(
            emit(&p).map(|t| t.to_string()),
            emit(&p).map(|t| t.to_string())
        );
        let mut three = p.clone();
        three.roles.push("observer".to_owned());
        assert!(emit(&three).is_none());
    }
}
