//! Skeleton emitter for JSON-RPC 2.0 protocols with two roles, over the framing the spec
//! declares (`Content-Length` or newline-delimited).
//!
//! Thin binding over `agentwire_transport::jsonrpc`, where the behaviour lives. From the
//! spec's `methods` it emits, for a calling role (the one that sends requests first, usually
//! `client`) and an answering role (`server`):
//! - a `Side` and `Bound` per role, binding the method sets, framing, conventions, typed
//!   sends and sequence checker;
//! - per role, a handler trait with one async method per request it answers (the server's is
//!   required; the client's, emitted when the server sends requests, defaults to "method not
//!   found") and, on the server, per notification it receives, bound by `Answers`/`Hears`;
//! - per role, its typed sends (one method per request, awaiting the typed result, and per
//!   notification), reached through the library's `Handle`: the server's sender and the
//!   client are aliases of it, as `Server` (the `serve*` entry points) and the notification
//!   stream are of the library's generic types. The handle, the entry points, `connect*`,
//!   `spawn*` and the dispatchers are written once, in `agentwire_transport::jsonrpc`.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Call, DefaultAnswer, Method, Protocol};
use crate::naming::pascal_case;
use crate::naming::{field_ident, type_ident};

/// The skeleton module of a JSON-RPC protocol with two roles; `None` otherwise.
pub fn emit(p: &Protocol) -> Option<TokenStream> {
    let (client, server) = calling_and_answering(p)?;
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

/// The calling role (the one that sends requests the other does not; the first role when
/// both or neither do) and the answering role of a protocol with two roles.
pub(super) fn calling_and_answering(p: &Protocol) -> Option<(&str, &str)> {
    let [first, second] = p.roles.as_slice() else {
        return None;
    };
    let sends_requests = |role: &str| {
        p.methods.iter().any(|m| {
            m.call == Call::Request && m.sent_by(role) && !p.roles.iter().all(|x| m.sent_by(x))
        })
    };
    Some(if sends_requests(first) || !sends_requests(second) {
        (first.as_str(), second.as_str())
    } else {
        (second.as_str(), first.as_str())
    })
}

/// Names shared by the emitted items.
struct Roles<'a> {
    p: &'a Protocol,
    /// The protocol module's path after `crate::` (`chat`, or a version's `chat::v1`).
    module: TokenStream,
    client: &'a str,
    server: &'a str,
}

impl<'a> Roles<'a> {
    fn new(p: &'a Protocol, client: &'a str, server: &'a str) -> Self {
        Self {
            p,
            module: crate::naming::module_path(p),
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

    /// The struct of `role`'s typed sends, which its handle dereferences to.
    fn sends(&self, role: &str) -> Ident {
        format_ident!("{}Sends", pascal_case(role))
    }

    fn other(&self, role: &str) -> &'a str {
        if role == self.client {
            self.server
        } else {
            self.client
        }
    }
}

/// The Rust method of `m` on handlers and handles (`store_touch`); a notification whose
/// method is also a request gets `_notification` after it, so the two stay apart.
fn fn_ident(p: &Protocol, m: &Method) -> Ident {
    let both = m.call == Call::Notification
        && (p.methods.iter()).any(|r| r.name == m.name && r.call == Call::Request);
    if both {
        field_ident(&pascal_case(&format!("{} notification", m.name)))
    } else {
        field_ident(&pascal_case(&m.name))
    }
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
        let sends = r.sends(me);
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

            impl agentwire_transport::jsonrpc::Bound for #side {
                type Sends = #sends;

                fn checker(limits: agentwire_runtime::machine::Limits) -> Self::Checker {
                    crate::#module::machine::Checker::with_limits(limits)
                }
            }
        });
    }
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
        let f = fn_ident(r.p, m);
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
        let f = fn_ident(r.p, m);
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

/// `role`'s typed sends: the struct its handle (`agentwire_transport::jsonrpc::Handle`)
/// dereferences to, with one method per request and notification `role` sends.
fn sends_struct(r: &Roles<'_>, role: &str) -> TokenStream {
    let side = r.side(role);
    let sends = r.sends(role);
    let fns = send_fns(r, role);
    let doc = format!(
        " What a `{role}` sends, typed: one method per request (awaiting its typed result) \
         and per notification. Reached through the `{role}`'s handle."
    );
    // A role that sends nothing (a server that only answers) still holds its connection.
    let unread = if r.p.methods.iter().any(|m| m.sent_by(role)) {
        quote!()
    } else {
        quote!(#[allow(dead_code)])
    };
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone)]
        pub struct #sends {
            #unread
            peer: agentwire_transport::jsonrpc::Peer<#side>,
        }

        impl From<agentwire_transport::jsonrpc::Peer<#side>> for #sends {
            fn from(peer: agentwire_transport::jsonrpc::Peer<#side>) -> Self {
                Self { peer }
            }
        }

        impl #sends {
            #fns
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
            let f = fn_ident(r.p, m);
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
        let f = fn_ident(r.p, m);
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
    side: Ident,
    handler: Ident,
    sender: Ident,
}

impl ServerNames {
    fn new(r: &Roles<'_>) -> Self {
        ServerNames {
            side: r.side(r.server),
            handler: format_ident!("{}Handler", pascal_case(r.server)),
            sender: format_ident!("{}Sender", pascal_case(r.server)),
        }
    }
}

fn emit_server(r: &Roles<'_>) -> TokenStream {
    let names = ServerNames::new(r);
    let mut out = server_handler(r, &names);
    out.extend(server_sender(r, &names));
    out.extend(server_dispatch(r, &names));
    out
}

/// The handler trait: one method per request the server answers and per notification.
fn server_handler(r: &Roles<'_>, names: &ServerNames) -> TokenStream {
    let ServerNames {
        handler, sender, ..
    } = names;
    let request_fns = handler_request_fns(r, r.server, sender, false);
    let notification_fns = r.methods(r.client, Call::Notification).into_iter().map(|m| {
        let f = fn_ident(r.p, m);
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

/// The server's handle on one connection (the library's handle over the server's typed
/// sends) and its entry points (`Server::serve*`).
fn server_sender(r: &Roles<'_>, names: &ServerNames) -> TokenStream {
    let ServerNames {
        side: server_side,
        sender,
        ..
    } = names;
    let server = format_ident!("{}", pascal_case(r.server));
    let sends = sends_struct(r, r.server);
    let sender_doc = format!(
        " The `{}`'s handle on one connection: typed requests and notifications to the `{}`. \
         Handed to a request handler, it also carries that request (`request_id`, \
         `progress_token`, `incoming`), and what it sends is tagged as related to it.",
        r.server, r.client
    );
    let server_doc = format!(
        " The `{}`'s entry points: `serve` (one connection over a byte stream), `serve_stdio`, \
         `serve_tcp` and `serve_messages` (a message transport such as HTTP).",
        r.server
    );
    quote! {
        #[doc = #sender_doc]
        pub type #sender = agentwire_transport::jsonrpc::Handle<#server_side>;

        #[doc = #server_doc]
        pub type #server = agentwire_transport::jsonrpc::Server<#server_side>;

        #sends
    }
}

/// The routing of decoded requests and notifications to the server's handler.
fn server_dispatch(r: &Roles<'_>, names: &ServerNames) -> TokenStream {
    let ServerNames {
        side: server_side,
        handler,
        ..
    } = names;
    let notifications = r.methods(r.client, Call::Notification);
    let in_notif = r.set(r.client, Call::Notification);
    let answer = answers_impl(r, r.server, handler);
    let notification_arms = notifications.iter().map(|m| {
        let f = fn_ident(r.p, m);
        let v = variant(m);
        match m.params {
            Some(_) => quote!(#in_notif::#v(params) => handler.#f(handle, params).await,),
            None => quote!(#in_notif::#v => handler.#f(handle).await,),
        }
    });
    let notification_body = if notifications.is_empty() {
        quote!(match notification {})
    } else {
        quote!(match notification { #(#notification_arms)* })
    };
    quote! {
        #answer

        impl<H: #handler> agentwire_transport::jsonrpc::Hears<H> for #server_side {
            // A side that receives no notifications has an empty match.
            #[allow(unused_variables)]
            async fn hear(
                handler: ::std::sync::Arc<H>,
                handle: agentwire_transport::jsonrpc::Handle<Self>,
                notification: #in_notif,
            ) {
                #notification_body
            }
        }
    }
}

/// `Answers<H>` for `role`'s side: each request it receives to `handler`'s method for it.
fn answers_impl(r: &Roles<'_>, role: &str, handler: &Ident) -> TokenStream {
    let side = r.side(role);
    let in_req = r.set(r.other(role), Call::Request);
    let body = request_arms(r, role, &quote!(handle));
    quote! {
        impl<H: #handler> agentwire_transport::jsonrpc::Answers<H> for #side {
            // A side that receives no requests has an empty match.
            #[allow(unused_variables)]
            async fn answer(
                handler: ::std::sync::Arc<H>,
                handle: agentwire_transport::jsonrpc::Handle<Self>,
                request: #in_req,
            ) -> agentwire_transport::jsonrpc::Answer {
                #body
            }
        }
    }
}

/// The client role's typed handle, the stream of the server's notifications, its handler
/// trait and its routing.
fn emit_client(r: &Roles<'_>) -> TokenStream {
    let side = r.side(r.client);
    let client = format_ident!("{}", pascal_case(r.client));
    let handler = format_ident!("{}Handler", pascal_case(r.client));
    let stream = format_ident!("{}Notifications", pascal_case(r.server));
    let in_notif = r.set(r.server, Call::Notification);
    let sends = sends_struct(r, r.client);
    let client_doc = format!(
        " A typed `{}`: one method per request (awaiting its typed result) and per \
         notification it sends; what the `{}` sends comes out of [`{stream}`], and its \
         requests go to a [`{handler}`]. Made by `connect*` and `spawn*`; handed to a \
         handler, it also carries the request it was given for.",
        r.client, r.server
    );
    let stream_doc = format!(
        " The notifications the `{}` sends, validated and sequence-checked, in arrival order.",
        r.server
    );
    let request_fns = handler_request_fns(r, r.client, &client, true);
    let handler_doc = format!(
        " How a `{}` answers the requests the `{}` sends: one method per request, each \
         answering \"method not found\" unless overridden. Each runs in its own task, \
         aborted when the `{}` cancels it.",
        r.client, r.server, r.server
    );
    let answer = answers_impl(r, r.client, &handler);
    quote! {
        #[doc = #client_doc]
        pub type #client = agentwire_transport::jsonrpc::Handle<#side>;

        #[doc = #stream_doc]
        pub type #stream = agentwire_transport::jsonrpc::Notifications<#in_notif>;

        #sends

        #[doc = #handler_doc]
        pub trait #handler: Send + Sync + 'static {
            #(#request_fns)*
        }

        pub use agentwire_transport::jsonrpc::NoRequests;

        impl #handler for NoRequests {}

        #answer
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
            let f = fn_ident(p, m).to_string();
            for role in &m.from {
                let expected = match (role.as_str(), m.call) {
                    ("client", Call::Request) => {
                        vec![format!("ServerHandler::{f}"), format!("ClientSends::{f}")]
                    }
                    ("client", Call::Notification) => {
                        vec![format!("ServerHandler::{f}"), format!("ClientSends::{f}")]
                    }
                    (_, Call::Notification) => vec![format!("ServerSends::{f}")],
                    (_, Call::Request) => {
                        vec![format!("ClientHandler::{f}"), format!("ServerSends::{f}")]
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
