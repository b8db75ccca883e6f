//! The `Binding` of an `http+websocket` skeleton: the spec's `sessions:` section written
//! out as a `static hw::Layout`, and the three calls into the generated code.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Body, Protocol, Route, Sessions, TypeKind};

fn json_type(b: &Body) -> String {
    match b {
        Body::Json(t) => t.clone(),
        _ => String::new(),
    }
}

/// The JSON type a route answers `status` with ("" when none).
fn reply_type(r: &Route, status: u16) -> String {
    r.responses
        .iter()
        .find(|x| x.status == status)
        .map_or_else(String::new, |x| json_type(&x.body))
}

fn route_layout(r: &Route, reply: &str) -> TokenStream {
    let (name, method, path, from) = (&r.name, &r.method, &r.path, &r.from);
    let body = json_type(&r.body);
    quote! {
        hw::RouteLayout {
            name: #name,
            method: #method,
            path: #path,
            from: #from,
            body: #body,
            reply: #reply,
        }
    }
}

fn trims(p: &Protocol, ty: &str) -> bool {
    matches!(p.types.get(ty).map(|t| &t.kind), Some(TypeKind::Alias { constraints, .. }) if constraints.has(&crate::rules::TRIM))
}

/// The `sessions:` section as a `static hw::Layout`.
fn emit_layout(p: &Protocol, s: &Sessions) -> Option<TokenStream> {
    let find = |n: &str| p.routes.iter().find(|r| r.name == n);
    let (create, forward, callback) = (
        find(&s.create.route)?,
        find(&s.input.forward)?,
        find(&s.callback.route)?,
    );
    let inbound = &p.channel_from(&s.client)?.union;
    let (inbound_tag, _) = p.union_variants(inbound)?;
    let outbound = &p.channel_from(&s.server)?.union;
    let create_l = route_layout(create, &reply_type(create, 201));
    let forward_l = route_layout(forward, "");
    let callback_l = route_layout(callback, &reply_type(callback, 200));
    let error_type = reply_type(create, 400);
    let trim = trims(p, &s.id_type);
    let (server, client, websocket, id_type) = (&s.server, &s.client, &s.websocket, &s.id_type);
    let (c_owner, c_session, c_reply) = (
        &s.create.owner,
        &s.create.session,
        s.create.reply.to_string(),
    );
    let (h_kind, h_session, h_answer) =
        (&s.hello.kind, &s.hello.session, s.hello.answer.to_string());
    let (i_kind, i_text, payload) = (&s.input.kind, &s.input.text, s.input.payload.to_string());
    let (cb_session, cb_reply) = (&s.callback.session, s.callback.reply.to_string());
    let (broadcast, refusal, error_body) = (
        s.broadcast.to_string(),
        s.refusal.to_string(),
        s.error_body.to_string(),
    );
    let (o_id, o_url, o_base) = (&s.owners.id, &s.owners.forward_url, &s.owners.callback_base);
    let words = s.words.iter().map(|(k, v)| quote!((#k, #v),));
    let layout = quote! {
        static LAYOUT: hw::Layout = hw::Layout {
            server: #server,
            client: #client,
            websocket: #websocket,
            inbound: #inbound,
            inbound_tag: #inbound_tag,
            outbound: #outbound,
            session_type: #id_type,
            trim_session: #trim,
            create: #create_l,
            create_owner: #c_owner,
            create_session: #c_session,
            create_reply: #c_reply,
            hello_kind: #h_kind,
            hello_session: #h_session,
            hello_answer: #h_answer,
            input_kind: #i_kind,
            input_text: #i_text,
            forward: #forward_l,
            payload: #payload,
            callback: #callback_l,
            callback_session: #cb_session,
            callback_reply: #cb_reply,
            broadcast: #broadcast,
            refusal: #refusal,
            error_type: #error_type,
            error_body: #error_body,
            owner_id: #o_id,
            owner_forward_url: #o_url,
            owner_callback_base: #o_base,
            words: &[#(#words)*],
        };
    };
    Some(layout)
}

/// `Binding`, its `static` layout and the trait impl; `None` if a name the loader checked
/// is missing (an IR edited by hand).
pub(super) fn emit_binding(p: &Protocol, s: &Sessions) -> Option<TokenStream> {
    let layout = emit_layout(p, s)?;
    let module = quote::format_ident!("{}", p.module);
    let socket_client = &s.client;
    Some(quote! {
        /// Binds `agentwire_transport::http_ws` to this protocol: its `sessions:` section,
        /// generated decoders and sequence checker.
        #[derive(Debug, Clone, Copy, Default)]
        pub struct Binding;

        #layout

        impl hw::Binding for Binding {
            type Checker = Checker;

            const LAYOUT: &'static hw::Layout = &LAYOUT;

            fn new_checker(max_instances: usize) -> Checker {
                Checker::with_limits(agentwire_runtime::machine::Limits { max_instances })
            }

            fn decode(
                type_name: &str,
                json: &str,
            ) -> Result<agentwire_runtime::serde_json::Value, agentwire_runtime::Invalid> {
                let decoded = proto::decode_type(type_name, json).unwrap_or_else(|| {
                    Err(agentwire_runtime::Invalid::one(agentwire_runtime::FieldError::new(
                        "",
                        agentwire_runtime::Rule::UnknownKind,
                        format!("the protocol has no type `{type_name}`"),
                    )))
                });
                // A WebSocket frame only the server sends is named as such (rule
                // `wrong_side`); the second decode runs on refused frames only.
                decoded.map_err(|refused| {
                    if type_name != LAYOUT.inbound {
                        return refused;
                    }
                    let by_role = proto::decode_message(#socket_client, json);
                    agentwire_runtime::side::prefer_wrong_side(refused, by_role)
                })
            }

            fn observe(
                c: &mut Checker,
                from: &str,
                entry: &agentwire_runtime::serde_json::Value,
            ) -> Result<(), agentwire_runtime::machine::Violation> {
                match crate::#module::machine::Recorded::decode(from, entry) {
                    Some(Ok(msg)) => c.observe(msg.as_message()),
                    Some(Err(e)) => {
                        agentwire_transport::tracing::error!(error = %e, from, "the skeleton built an entry its protocol cannot decode");
                        Ok(())
                    }
                    None => {
                        agentwire_transport::tracing::error!(from, "the skeleton named a role that sends nothing");
                        Ok(())
                    }
                }
            }
        }
    })
}
