//! The receiving side of the routes the session server calls (its forwards): a handler
//! trait with one method per route and an axum server that validates each body first.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Body, Protocol, Route};
use crate::naming::type_ident;
use crate::naming::{pascal_case, snake_case};

/// Names of the receiving role's generated items.
struct Names {
    handler: Ident,
    server: Ident,
}

/// The receiver of the role that `forward` goes to; empty when no route to it has a JSON
/// body and a JSON success answer.
pub(super) fn emit_receiver(p: &Protocol, forward: &Route, receipt: &str) -> TokenStream {
    let role = &forward.to;
    let n = Names {
        handler: format_ident!("{}Handler", pascal_case(role)),
        server: format_ident!("{}Server", pascal_case(role)),
    };
    let routes: Vec<(&Route, Ident, Ident)> = p
        .routes
        .iter()
        .filter(|r| &r.to == role)
        .filter_map(|r| {
            let Body::Json(body) = &r.body else {
                return None;
            };
            let ok = r
                .responses
                .iter()
                .find(|x| (200..300).contains(&x.status))?;
            let Body::Json(ok) = &ok.body else {
                return None;
            };
            Some((r, type_ident(body), type_ident(ok)))
        })
        .collect();
    if routes.is_empty() {
        return TokenStream::new();
    }
    let methods = routes.iter().map(|(r, body, _)| {
        let m = format_ident!("{}", snake_case(&r.name));
        let doc = format!(" `{} {}`: {}", r.method, r.path, r.summary);
        quote! {
            #[doc = #doc]
            fn #m(&self, body: proto::#body) -> impl Future<Output = Result<(), HandlerError>> + Send;
        }
    });
    let handlers = routes.iter().map(|(r, body, _)| emit_handler(&n, r, body));
    let server = emit_server(&n, &routes.iter().map(|(r, _, _)| *r).collect::<Vec<_>>());
    let (handler, doc) = (
        &n.handler,
        format!(
            " The `{role}` side's behaviour: one method per request the server sends it. The \
             server waits at most its forward timeout (5 s by default) for the answer, so long \
             work belongs in a spawned task."
        ),
    );
    quote! {
        /// Why a handler refused a request: the status and text it answers with.
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

        #[doc = #doc]
        pub trait #handler: Send + Sync + 'static {
            #(#methods)*
        }

        /// What the receiver answers a request it took (the spec's `input.receipt`).
        const RECEIPT: &str = #receipt;

        struct Receiver<H> {
            handler: H,
            max_body_bytes: usize,
        }

        #(#handlers)*
        #server
    }
}

fn emit_handler(n: &Names, r: &Route, body_t: &Ident) -> TokenStream {
    let handler = &n.handler;
    let m = format_ident!("{}", snake_case(&r.name));
    let h = format_ident!("route_{}", snake_case(&r.name));
    quote! {
        async fn #h<H: #handler>(
            axum::extract::State(s): axum::extract::State<Arc<Receiver<H>>>,
            body: axum::body::Body,
        ) -> axum::response::Response {
            use axum::response::IntoResponse as _;
            let Ok(bytes) = axum::body::to_bytes(body, s.max_body_bytes).await else {
                return (axum::http::StatusCode::PAYLOAD_TOO_LARGE, "body too large").into_response();
            };
            let text = String::from_utf8_lossy(&bytes);
            let value: proto::#body_t = match agentwire_runtime::decode_json(&text)
                .and_then(|v: proto::#body_t| v.validate().map(|()| v))
            {
                Ok(v) => v,
                Err(e) => {
                    agentwire_transport::warn_throttled!(error = %e, "invalid forwarded input");
                    return (axum::http::StatusCode::BAD_REQUEST, e.to_string()).into_response();
                }
            };
            match s.handler.#m(value).await {
                Ok(()) => (
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    RECEIPT,
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
    }
}

fn emit_server(n: &Names, routes: &[&Route]) -> TokenStream {
    let (handler, server) = (&n.handler, &n.server);
    let mut path_args = Vec::new();
    let mut call_args = Vec::new();
    let mounts = routes
        .iter()
        .map(|r| {
            let h = format_ident!("route_{}", snake_case(&r.name));
            let m = &r.method;
            if r.path.starts_with('{') {
                let arg = format_ident!("{}_path", snake_case(&r.name));
                path_args.push(quote!(#arg: &str,));
                call_args.push(arg.clone());
                quote!(.route(#arg, hw::method_router(#m, #h::<H>)))
            } else {
                let path = agentwire_path(&r.path);
                quote!(.route(#path, hw::method_router(#m, #h::<H>)))
            }
        })
        .collect::<Vec<_>>();
    quote! {
        /// The receiving side's HTTP server: validates each body, then hands it to the
        /// handler; 2xx tells the server the input was taken.
        pub struct #server<H> {
            receiver: Arc<Receiver<H>>,
        }

        impl<H: #handler> #server<H> {
            /// Bodies up to 1 MiB are read; larger ones get 413.
            pub fn new(handler: H) -> Self {
                Self::with_max_body_bytes(handler, 1024 * 1024)
            }

            pub fn with_max_body_bytes(handler: H, max_body_bytes: usize) -> Self {
                Self {
                    receiver: Arc::new(Receiver { handler, max_body_bytes }),
                }
            }

            /// The routes, at the paths the receiving side chose for its URLs.
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
fn agentwire_path(path: &str) -> String {
    path.split('/')
        .map(|s| match s.strip_prefix(':') {
            Some(n) => format!("{{{n}}}"),
            None => s.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}
