//! The `grpc::Binding` impl: the protocol's prost types, kinds and fields as the engines in
//! `agentwire_transport::grpc` need them.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Ctx, snake, variant};

pub fn emit(cx: &Ctx<'_>) -> TokenStream {
    let types = assoc_types(cx);
    let observe = observe(cx);
    let handshake = handshake(cx);
    let exchange = exchange(cx);
    let classify = classify(cx);
    let features = features(cx);
    let extras = extras(cx);
    quote! {
        /// The protocol as the engines in `agentwire_transport::grpc` see it.
        #[derive(Debug, Clone, Copy)]
        pub struct Binding;

        impl grpc::Binding for Binding {
            #types
            #observe
            #handshake
            #exchange
            #classify
            #features
            #extras
        }
    }
}

/// `INVALID_ARGUMENT` as tonic names it: `tonic::Code::InvalidArgument`.
fn status_code(name: &str) -> TokenStream {
    let variant = quote::format_ident!("{}", crate::naming::pascal_case(&name.to_lowercase()));
    quote!(tonic::Code::#variant)
}

fn assoc_types(cx: &Ctx<'_>) -> TokenStream {
    let (up, down, event) = (&cx.up, &cx.down, &cx.event);
    let h = &cx.s.handshake;
    let invalid = status_code(&h.invalid_status);
    let taken = status_code(&h.taken_status);
    let x = &cx.s.exchange;
    let [hello, accept, refuse, request, response] =
        [&h.hello, &h.accept, &h.refuse, &x.request, &x.response].map(|k| cx.ty(k));
    quote! {
        type Up = #up;
        type Down = #down;
        type Checker = Checker;
        type Hello = #hello;
        type Accept = #accept;
        type Refuse = #refuse;
        type Request = #request;
        type Response = #response;
        type Event = #event;

        const INVALID_STATUS: tonic::Code = #invalid;
        const TAKEN_STATUS: tonic::Code = #taken;
    }
}

fn observe(cx: &Ctx<'_>) -> TokenStream {
    let cv = variant(&cx.s.client);
    let sv = variant(&cx.s.server);
    quote! {
        fn checker() -> Checker {
            Checker::new()
        }

        fn observe_up(c: &mut Checker, m: &Self::Up) -> Result<(), agentwire_runtime::machine::Violation> {
            c.observe(Message::#cv(m))
        }

        fn observe_down(c: &mut Checker, m: &Self::Down) -> Result<(), agentwire_runtime::machine::Violation> {
            c.observe(Message::#sv(m))
        }
    }
}

fn handshake(cx: &Ctx<'_>) -> TokenStream {
    let h = &cx.s.handshake;
    let (up_oneof, down_oneof) = (&cx.up_oneof, &cx.down_oneof);
    let hello_case = cx.case(&h.hello, quote!(h));
    let wrap_hello = cx.wrap(&h.hello, quote!(hello));
    let peer_id = snake(&h.peer_id);
    let features = match &h.features {
        Some(f) => {
            let f = snake(f);
            quote!(&hello.#f)
        }
        None => quote!(&[]),
    };
    let fill = h.accept_id.as_ref().map(|f| {
        let f = snake(f);
        quote! {
            if accept.#f.is_empty() {
                accept.#f = peer_id.to_owned();
            }
        }
    });
    let (accept_arg, peer_arg) = match fill {
        Some(_) => (quote!(mut accept), quote!(peer_id)),
        None => (quote!(accept), quote!(_peer_id)),
    };
    let wrap_accept = cx.wrap(&h.accept, quote!(accept));
    let wrap_refuse = cx.wrap(&h.refuse, quote!(refuse));
    let accepted = cx.case(&h.accept, quote!(a));
    let refused = cx.case(&h.refuse, quote!(r));
    let down = &cx.down;
    quote! {
        fn as_hello(msg: &Self::Up) -> Option<&Self::Hello> {
            match &msg.#up_oneof {
                #hello_case => Some(h),
                _ => None,
            }
        }

        fn wrap_hello(hello: Self::Hello) -> Self::Up {
            #wrap_hello
        }

        fn peer_id(hello: &Self::Hello) -> &str {
            &hello.#peer_id
        }

        fn features(hello: &Self::Hello) -> &[String] {
            #features
        }

        fn wrap_accept(#accept_arg: Self::Accept, #peer_arg: &str) -> Self::Down {
            #fill
            #wrap_accept
        }

        fn wrap_refuse(refuse: Self::Refuse) -> Self::Down {
            #wrap_refuse
        }

        fn classify_answer(msg: Self::Down) -> grpc::Answer<Self> {
            match msg.#down_oneof {
                #accepted => grpc::Answer::Accepted(a),
                #refused => grpc::Answer::Refused(r),
                other => grpc::Answer::Other(grpc::build(|m: &mut #down| m.#down_oneof = other)),
            }
        }
    }
}

fn exchange(cx: &Ctx<'_>) -> TokenStream {
    let x = &cx.s.exchange;
    let down_oneof = &cx.down_oneof;
    let id = snake(&x.correlation);
    let ev = snake(&x.event);
    let event = &cx.event;
    let request_case = cx.case(&x.request, quote!(r));
    let wrap_request = cx.wrap(&x.request, quote!(request));
    let wrap_response = cx.wrap(&x.response, quote!(response));
    let response = cx.ty(&x.response);
    let terminal =
        cx.p.events
            .iter()
            .filter(|e| e.terminal)
            .map(|e| variant(&e.name));
    let failure = variant(&x.failure);
    let cancelled = match &x.cancel {
        Some(c) => {
            let v = variant(&c.event);
            let value = match &c.event_reason {
                Some(f) => {
                    let f = snake(f);
                    let t = cx.event_type(&c.event);
                    quote!(grpc::build(|e: &mut #t| grpc::TextField::put(&mut e.#f, reason)))
                }
                None => quote!(reason),
            };
            quote!(Some(#event::#v(#value)))
        }
        None => quote!({
            let _ = reason;
            None
        }),
    };
    quote! {
        fn as_request(msg: &Self::Down) -> Option<&Self::Request> {
            match &msg.#down_oneof {
                #request_case => Some(r),
                _ => None,
            }
        }

        fn request_id(request: &Self::Request) -> &str {
            &request.#id
        }

        fn wrap_request(request: Self::Request) -> Self::Down {
            #wrap_request
        }

        fn response_id(response: &Self::Response) -> &str {
            &response.#id
        }

        fn is_terminal(response: &Self::Response) -> bool {
            matches!(response.#ev, Some(#(#event::#terminal(_))|*))
        }

        fn response(request_id: String, event: Self::Event) -> Self::Response {
            grpc::build(|r: &mut #response| {
                r.#id = request_id;
                r.#ev = Some(event);
            })
        }

        fn wrap_response(response: Self::Response) -> Self::Up {
            #wrap_response
        }

        fn failure(text: String) -> Self::Event {
            #event::#failure(text)
        }

        fn cancelled(reason: String) -> Option<Self::Event> {
            #cancelled
        }
    }
}

fn classify(cx: &Ctx<'_>) -> TokenStream {
    let (h, x) = (&cx.s.handshake, &cx.s.exchange);
    let (up, down) = (&cx.up, &cx.down);
    let (up_oneof, down_oneof) = (&cx.up_oneof, &cx.down_oneof);
    let hello = cx.case(&h.hello, quote!(_));
    let response = cx.case(&x.response, quote!(r));
    let answers = [&h.accept, &h.refuse].map(|k| cx.case(k, quote!(_)));
    let request = cx.case(&x.request, quote!(r));
    let cancel = x.cancel.as_ref().map(|c| {
        let pat = cx.case(&c.kind, quote!(c));
        let id = snake(&x.correlation);
        let reason = match &c.reason {
            Some(f) => {
                let f = snake(f);
                quote!(grpc::TextField::text(&c.#f).map(str::to_owned))
            }
            None => quote!(None),
        };
        quote!(#pat => grpc::Down::Cancel { request_id: c.#id, reason: #reason },)
    });
    let shutdown = cx.s.shutdown.as_ref().map(|s| {
        let pat = cx.case(&s.kind, quote!(s));
        let whole = cx.wrap(&s.kind, quote!(s));
        quote!(#pat => grpc::Down::Shutdown(#whole),)
    });
    quote! {
        fn classify_up(msg: Self::Up) -> grpc::Up<Self> {
            match msg.#up_oneof {
                #hello => grpc::Up::Hello,
                #response => grpc::Up::Response(r),
                None => grpc::Up::Empty,
                other => grpc::Up::Other(grpc::build(|m: &mut #up| m.#up_oneof = other)),
            }
        }

        fn classify_down(msg: Self::Down) -> grpc::Down<Self> {
            match msg.#down_oneof {
                #(#answers)|* => grpc::Down::Answer,
                #request => grpc::Down::Request(r),
                #cancel
                #shutdown
                None => grpc::Down::Empty,
                other => grpc::Down::Other(grpc::build(|m: &mut #down| m.#down_oneof = other)),
            }
        }
    }
}

/// The feature each gated kind or event needs, from `features:`.
fn features(cx: &Ctx<'_>) -> TokenStream {
    let gated = |client: bool| -> Vec<TokenStream> {
        let mut arms = Vec::new();
        for f in &cx.p.features {
            let name = &f.name;
            for k in &f.kinds {
                let from_client = cx.kind(k).is_some_and(|m| m.from == cx.s.client);
                if from_client == client {
                    let pat = cx.case(k, quote!(_));
                    arms.push(quote!(#pat => Some(#name),));
                }
            }
        }
        arms
    };
    let mut out = TokenStream::new();
    for (client, method, oneof, ty) in [
        (
            false,
            quote!(down_feature),
            &cx.down_oneof,
            quote!(Self::Down),
        ),
        (true, quote!(up_feature), &cx.up_oneof, quote!(Self::Up)),
    ] {
        let arms = gated(client);
        if !arms.is_empty() {
            out.extend(quote! {
                fn #method(msg: &#ty) -> Option<&'static str> {
                    match &msg.#oneof {
                        #(#arms)*
                        _ => None,
                    }
                }
            });
        }
    }
    let event = &cx.event;
    let arms: Vec<TokenStream> =
        cx.p.features
            .iter()
            .flat_map(|f| {
                let name = &f.name;
                f.events.iter().map(move |e| {
                    let v = variant(e);
                    quote!(#event::#v(_) => Some(#name),)
                })
            })
            .collect();
    if !arms.is_empty() {
        out.extend(quote! {
            fn event_feature(event: &Self::Event) -> Option<&'static str> {
                match event {
                    #(#arms)*
                    _ => None,
                }
            }
        });
    }
    out
}

/// Heartbeat and shutdown, where the spec has them.
fn extras(cx: &Ctx<'_>) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some(b) = &cx.s.heartbeat {
        let t = cx.ty(&b.kind);
        let (arg, set) = match &b.clock_ms {
            Some(f) => {
                let f = snake(f);
                (quote!(now_ms), quote!(|h: &mut #t| h.#f = now_ms))
            }
            None => (quote!(_now_ms), quote!(|_: &mut #t| {})),
        };
        let wrap = cx.wrap(&b.kind, quote!(grpc::build(#set)));
        out.extend(quote! {
            fn heartbeat(#arg: i64) -> Option<Self::Up> {
                Some(#wrap)
            }
        });
    }
    if let Some(s) = &cx.s.shutdown {
        let t = cx.ty(&s.kind);
        let (arg, set) = match &s.reason {
            Some(f) => {
                let f = snake(f);
                (
                    quote!(reason),
                    quote!(|s: &mut #t| grpc::TextField::put(&mut s.#f, reason.to_owned())),
                )
            }
            None => (quote!(_reason), quote!(|_: &mut #t| {})),
        };
        let wrap = cx.wrap(&s.kind, quote!(grpc::build(#set)));
        out.extend(quote! {
            fn shutdown(#arg: &str) -> Option<Self::Down> {
                Some(#wrap)
            }
        });
    }
    out
}
