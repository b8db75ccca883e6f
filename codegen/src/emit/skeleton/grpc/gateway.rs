//! The accepting role (the gRPC server): its handler trait, the typed handle on a connected
//! peer, and the tonic service over `grpc::Gateway`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{Ctx, dispatch_arms, handler_methods, senders, snake, snake_name};

pub fn emit(cx: &Ctx<'_>) -> TokenStream {
    let handler = handler_trait(cx);
    let handle = handle(cx);
    let server = server(cx);
    quote! {
        pub use agentwire_transport::grpc::GatewayConfig;

        /// One request's responses, in order, ending after its terminal one.
        pub type ResponseStream = grpc::ResponseStream<Binding>;

        #handler
        #handle
        #server
    }
}

fn handler_trait(cx: &Ctx<'_>) -> TokenStream {
    let (h, x) = (&cx.s.handshake, &cx.s.exchange);
    let handler = cx.role_ty(false, "Handler");
    let handle = cx.role_ty(true, "Handle");
    let on_hello = format_ident!("on_{}", snake_name(&h.hello));
    let hello_arg = snake(&h.hello);
    let [hello, accept, refuse] = [&h.hello, &h.accept, &h.refuse].map(|k| cx.ty(k));
    let peer_id = format_ident!("_{}", snake_name(&h.peer_id));
    let inbound = cx.kinds_of(&cx.s.client, &[&h.hello, &x.response]);
    let methods = handler_methods(cx, &inbound, &quote!(_peer: &#handle));
    let doc = format!(
        " Accept the `{}` with a `{}` or refuse it with a `{}`. Runs after the skeleton checked that its `{}` is present and not connected already.",
        h.hello, h.accept, h.refuse, h.peer_id
    );
    let arms = dispatch_arms(cx, &inbound, |m| quote!(self.0.#m(&peer, m).await));
    let up_oneof = &cx.up_oneof;
    let dispatch = if inbound.is_empty() {
        quote!(let _ = (peer, msg);)
    } else {
        quote! {
            let peer = #handle(peer.clone());
            match msg.#up_oneof {
                #arms
                _ => {}
            }
        }
    };
    quote! {
        /// The behaviour of the accepting side: decide registrations and react to what peers
        /// send. Methods run on the stream's own task, one message at a time, so a slow
        /// handler delays that peer only; spawn long work.
        pub trait #handler: Send + Sync + 'static {
            #[doc = #doc]
            fn #on_hello(&self, #hello_arg: &#hello) -> impl Future<Output = Result<#accept, #refuse>> + Send;

            /// A peer was accepted; the handle stays usable until it disconnects.
            fn on_connected(&self, _peer: #handle) -> impl Future<Output = ()> + Send {
                async {}
            }

            /// An accepted peer's stream ended.
            fn on_disconnected(&self, #peer_id: &str) -> impl Future<Output = ()> + Send {
                async {}
            }

            #methods
        }

        /// Binds a handler to the engine.
        struct ServeGateway<H>(H);

        impl<H: #handler> grpc::GatewaySide for ServeGateway<H> {
            type B = Binding;

            fn decide(&self, hello: &#hello) -> impl Future<Output = Result<#accept, #refuse>> + Send {
                self.0.#on_hello(hello)
            }

            fn connected(&self, peer: grpc::Peer<Binding>) -> impl Future<Output = ()> + Send {
                self.0.on_connected(#handle(peer))
            }

            fn disconnected(&self, peer_id: &str) -> impl Future<Output = ()> + Send {
                self.0.on_disconnected(peer_id)
            }

            // One arm per kind; a protocol with a single one gets a one-arm match.
            #[allow(clippy::single_match)]
            async fn dispatch(&self, peer: &grpc::Peer<Binding>, msg: <Binding as grpc::Binding>::Up) {
                #dispatch
            }
        }
    }
}

fn handle(cx: &Ctx<'_>) -> TokenStream {
    let (h, x) = (&cx.s.handshake, &cx.s.exchange);
    let handle = cx.role_ty(true, "Handle");
    let peer_id = snake(&h.peer_id);
    let hello_fn = snake(&h.hello);
    let hello = cx.ty(&h.hello);
    let request_fn = snake(&x.request);
    let request = cx.ty(&x.request);
    let outbound = cx.kinds_of(&cx.s.server, &[&h.accept, &h.refuse, &x.request]);
    let senders = senders(cx, &outbound, |msg| quote!(self.0.send(#msg).await));
    let request_doc = format!(
        " Sends `{}` and returns its responses. A peer takes one request at a time: while one is in flight this is refused with [`SendError::Busy`].",
        x.request
    );
    quote! {
        /// A typed handle on one connected peer: what the accepting side may send it. Clones
        /// share the stream; every send is feature-gated, validated and checked (per the
        /// mode) before it leaves. Derefs to [`grpc::Peer`] (`has_feature`, `busy_with`,
        /// `close`, ...).
        #[derive(Clone, Debug)]
        pub struct #handle(grpc::Peer<Binding>);

        impl std::ops::Deref for #handle {
            type Target = grpc::Peer<Binding>;

            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl #handle {
            /// The id the peer registered with.
            pub fn #peer_id(&self) -> &str {
                self.0.peer_id()
            }

            /// The registration the peer sent.
            pub fn #hello_fn(&self) -> &#hello {
                self.0.hello()
            }

            #[doc = #request_doc]
            pub async fn #request_fn(&self, msg: #request) -> Result<ResponseStream, SendError> {
                self.0.request(msg).await
            }

            #senders
        }
    }
}

fn server(cx: &Ctx<'_>) -> TokenStream {
    let super::Service {
        server_mod,
        server_ty,
        trait_name,
        rpc,
        stream_ty,
        ..
    } = &cx.svc;
    let gateway = cx.role_ty(false, "");
    let handler = cx.role_ty(false, "Handler");
    let handle = cx.role_ty(true, "Handle");
    let one = snake(&cx.s.client);
    let all = format_ident!("{}s", snake_name(&cx.s.client));
    let (up, down) = (&cx.up, &cx.down);
    // The spec's `transport.port`: where the accepting side listens unless told otherwise.
    let listen_default = cx.p.transport.port.map(|_| {
        quote! {
            /// Binds every interface on the protocol's default port
            /// ([`proto::DEFAULT_PORT`], the spec's `transport.port`), for [`Self::serve`].
            pub async fn listen_default() -> std::io::Result<tokio::net::TcpListener> {
                tokio::net::TcpListener::bind(("0.0.0.0", proto::DEFAULT_PORT)).await
            }
        }
    });
    quote! {
        use self::#server_mod::{#server_ty, #trait_name};

        /// The accepting side: a tonic service that takes peer streams. Clones share state.
        pub struct #gateway<H: #handler> {
            engine: grpc::Gateway<ServeGateway<H>>,
        }

        impl<H: #handler> Clone for #gateway<H> {
            fn clone(&self) -> Self {
                Self { engine: self.engine.clone() }
            }
        }

        impl<H: #handler> #gateway<H> {
            pub fn new(handler: H, config: GatewayConfig) -> Self {
                Self { engine: grpc::Gateway::new(ServeGateway(handler), config) }
            }

            pub fn handler(&self) -> &H {
                &self.engine.side().0
            }

            /// The connected peer registered as `id`.
            pub fn #one(&self, id: &str) -> Option<#handle> {
                self.engine.peer(id).map(#handle)
            }

            /// Every connected peer, by id.
            pub fn #all(&self) -> Vec<#handle> {
                self.engine.peers().into_iter().map(#handle).collect()
            }

            /// Stops: every peer gets the shutdown message, its stream ends, and
            /// `serve` returns once they are gone.
            pub fn shutdown(&self) {
                self.engine.shutdown();
            }

            /// The tonic service, with the configured message size limit, for a caller that
            /// builds its own server.
            pub fn service(&self) -> #server_ty<Self> {
                let max = self.engine.config().limits.max_message_size;
                #server_ty::new(self.clone())
                    .max_decoding_message_size(max)
                    .max_encoding_message_size(max)
            }

            #listen_default

            /// Serves on `listener` until `shutdown`; tonic's own graceful stop starts once
            /// every stream has ended, so no stream is cut off mid-request.
            pub async fn serve(self, listener: tokio::net::TcpListener) -> Result<(), tonic::transport::Error> {
                let incoming = tonic::codegen::tokio_stream::wrappers::TcpListenerStream::new(listener);
                let drained = self.engine.drained();
                tonic::transport::Server::builder()
                    .serve_with_incoming_shutdown(self.service(), incoming, drained)
                    .await
            }
        }

        #[tonic::codegen::async_trait]
        impl<H: #handler> #trait_name for #gateway<H> {
            type #stream_ty = grpc::BoxStream<#down>;

            async fn #rpc(&self, request: Request<Streaming<#up>>) -> Result<Response<Self::#stream_ty>, Status> {
                self.engine.open(request.remote_addr(), request.into_inner()).map(Response::new)
            }
        }
    }
}
