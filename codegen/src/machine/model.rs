//! The message model machines are compiled against: every `role.kind` of a protocol, the Rust
//! pattern that recognises it, and how a field path of it becomes a typed field read.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::emit::http::path_params;
use crate::emit::proto::{prost_field, prost_path, prost_variant};
use crate::emit::types::{field_ident, type_ident};
use crate::ir::{Body, Call, KindRef, Protocol, Scalar, Ty, TypeKind};
use crate::naming::pascal_case;

/// Where a kind's field paths start.
#[derive(Debug, Clone)]
enum Root {
    /// A member struct of a TypeScript channel union; its discriminator is `tag`.
    Ts {
        ty: String,
        tag: String,
    },
    /// A JSON-RPC request (`m_id` bound) or notification, with its params type.
    RpcCall {
        params: Option<String>,
        request: bool,
    },
    RpcResponse,
    Http {
        route: usize,
    },
    /// A protobuf oneof case holding the message type `message`.
    Proto {
        case: String,
        message: String,
    },
}

/// How the protocol's messages are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    Json,
    JsonRpc,
    Proto,
}

/// One `role.kind`.
#[derive(Debug, Clone)]
pub struct KindInfo {
    pub role: String,
    pub name: String,
    /// The variant of the generated `Kind` enum.
    pub variant: Ident,
    /// A pattern over `&Message<'_>` that binds the payload as `m`.
    pub pattern: TokenStream,
    root: Root,
}

impl KindInfo {
    pub fn label(&self) -> String {
        format!("{}.{}", self.role, self.name)
    }

    pub fn matches(&self, r: &KindRef) -> bool {
        self.role == r.role && r.kind.as_ref().is_none_or(|k| *k == self.name)
    }
}

/// Every kind of one protocol and the `Message` enum the checker observes.
pub struct Model<'p> {
    p: &'p Protocol,
    pub kinds: Vec<KindInfo>,
    /// `(variant, type)` of the `Message<'a>` enum.
    pub sources: Vec<(Ident, TokenStream)>,
    /// `(variant, role)`: which role sends each source (`None` for HTTP, whose sender is in
    /// the exchange).
    pub source_roles: Vec<(Ident, Option<String>)>,
    /// How each source is decoded from a trace line.
    pub source_kind: SourceKind,
}

impl<'p> Model<'p> {
    pub fn new(p: &'p Protocol) -> Result<Self, String> {
        let mut kinds = Vec::new();
        let mut sources = Vec::new();
        let mut source_roles = Vec::new();
        let source_kind = if p.is_proto() {
            SourceKind::Proto
        } else if !p.methods.is_empty() {
            SourceKind::JsonRpc
        } else {
            SourceKind::Json
        };
        let kind_variant =
            |role: &str, name: &str| format_ident!("{}{}", pascal_case(role), pascal_case(name));
        if p.is_proto() {
            for c in &p.channels {
                let source = format_ident!("{}", pascal_case(&c.from));
                let union = prost_path(&c.union);
                sources.push((source.clone(), union.clone()));
                source_roles.push((source.clone(), Some(c.from.clone())));
                let (field, cases) = p.wrapper_oneof(&c.union).ok_or_else(|| {
                    format!("`{}` is not a message holding only a oneof", c.union)
                })?;
                let oneof_ty = prost_path(field.ty.named().unwrap_or_default());
                let oneof_field = prost_field(&field.name);
                for f in cases {
                    let message = match f.ty.named().and_then(|n| p.types.get(n)) {
                        Some(d) if matches!(d.kind, TypeKind::Struct(_)) => d.name.clone(),
                        _ => return Err(format!("oneof case `{}` is not a message", f.name)),
                    };
                    let case = prost_variant(&f.name);
                    kinds.push(KindInfo {
                        role: c.from.clone(),
                        name: f.name.clone(),
                        variant: kind_variant(&c.from, &f.name),
                        pattern: quote!(Message::#source(#union { #oneof_field: Some(#oneof_ty::#case(m)) })),
                        root: Root::Proto {
                            case: f.name.clone(),
                            message,
                        },
                    });
                }
            }
        } else if !p.methods.is_empty() {
            for role in &p.roles {
                let sends = p.methods.iter().any(|m| &m.from == role);
                let answers = p
                    .methods
                    .iter()
                    .any(|m| m.call == Call::Request && &m.from != role);
                if !sends && !answers {
                    continue;
                }
                let source = format_ident!("{}", pascal_case(role));
                let ty = format_ident!("{}Message", pascal_case(role));
                sources.push((source.clone(), quote!(#ty)));
                source_roles.push((source.clone(), Some(role.clone())));
                let rpc = quote!(agentwire_runtime::jsonrpc::Message);
                for m in p.methods.iter().filter(|m| &m.from == role) {
                    let v = format_ident!("{}", pascal_case(&m.name));
                    let set = match m.call {
                        Call::Request => format_ident!("{}Request", pascal_case(role)),
                        Call::Notification => format_ident!("{}Notification", pascal_case(role)),
                    };
                    let inner = if m.params.is_some() {
                        quote!(#set::#v(m))
                    } else {
                        quote!(#set::#v)
                    };
                    let pattern = match m.call {
                        Call::Request => {
                            quote!(Message::#source(#rpc::Request { id: m_id, request: #inner }))
                        }
                        Call::Notification => quote!(Message::#source(#rpc::Notification(#inner))),
                    };
                    kinds.push(KindInfo {
                        role: role.clone(),
                        name: m.name.clone(),
                        variant: kind_variant(role, &m.name),
                        pattern,
                        root: Root::RpcCall {
                            params: m.params.clone(),
                            request: m.call == Call::Request,
                        },
                    });
                }
                if answers {
                    kinds.push(KindInfo {
                        role: role.clone(),
                        name: "response".to_owned(),
                        variant: kind_variant(role, "response"),
                        pattern: quote!(Message::#source(#rpc::Response(m))),
                        root: Root::RpcResponse,
                    });
                }
            }
        } else {
            for c in &p.channels {
                let source = format_ident!("{}", pascal_case(&c.from));
                let union = type_ident(&c.union);
                sources.push((source.clone(), quote!(#union)));
                source_roles.push((source.clone(), Some(c.from.clone())));
                let (tag, variants) = p
                    .union_variants(&c.union)
                    .ok_or_else(|| format!("`{}` is not a union", c.union))?;
                for v in variants {
                    let case = format_ident!("{}", pascal_case(&v.value));
                    kinds.push(KindInfo {
                        role: c.from.clone(),
                        name: v.value.clone(),
                        variant: kind_variant(&c.from, &v.value),
                        pattern: quote!(Message::#source(#union::#case(m))),
                        root: Root::Ts {
                            ty: v.type_name.clone(),
                            tag: tag.to_owned(),
                        },
                    });
                }
            }
        }
        if !p.routes.is_empty() {
            sources.push((format_ident!("Http"), quote!(HttpExchange)));
            source_roles.push((format_ident!("Http"), None));
            for (i, r) in p.routes.iter().enumerate() {
                let v = format_ident!("{}", pascal_case(&r.name));
                kinds.push(KindInfo {
                    role: r.from.clone(),
                    name: r.name.clone(),
                    variant: kind_variant(&r.from, &r.name),
                    pattern: quote!(Message::Http(HttpExchange::#v(m))),
                    root: Root::Http { route: i },
                });
            }
        }
        Ok(Self {
            p,
            kinds,
            sources,
            source_roles,
            source_kind,
        })
    }

    /// The kinds a `role.kind` / `role.*` reference names.
    pub fn kinds_of(&self, r: &KindRef) -> Vec<&KindInfo> {
        self.kinds.iter().filter(|k| k.matches(r)).collect()
    }

    /// An expression of type `Field<'_>` reading `path` from a message of `kind` bound as
    /// `m` (and `m_id` for JSON-RPC requests).
    pub fn field(&self, kind: &KindInfo, path: &str) -> Result<TokenStream, String> {
        let segments: Vec<&str> = path.split('.').collect();
        let f = quote!(agentwire_runtime::machine::Field);
        match &kind.root {
            Root::Ts { ty, tag } => {
                if segments == [tag.as_str()] {
                    let v = &kind.name;
                    return Ok(quote!(#f::Str(#v)));
                }
                self.ts(&Ty::Named(ty.clone()), Val::r(quote!(m)), &segments, 0)
            }
            Root::RpcCall { params, request } => match segments.as_slice() {
                ["id"] if *request => Ok(quote!(agentwire_runtime::machine::rpc_id(m_id))),
                ["method"] => {
                    let v = &kind.name;
                    Ok(quote!(#f::Str(#v)))
                }
                ["params", rest @ ..] if !rest.is_empty() => match params {
                    Some(t) => self.ts(&Ty::Named(t.clone()), Val::r(quote!(m)), rest, 0),
                    None => Err(format!("`{}` has no params", kind.name)),
                },
                _ => Err(format!(
                    "`{path}` is not a field of a JSON-RPC call (id, method, params.*)"
                )),
            },
            Root::RpcResponse => match segments.as_slice() {
                ["id"] => Ok(quote!(match &m.id {
                    Some(id) => agentwire_runtime::machine::rpc_id(id),
                    None => #f::Null,
                })),
                _ => Err(format!(
                    "`{path}` is not a field of a JSON-RPC response (id)"
                )),
            },
            Root::Http { route } => {
                let r = &self.p.routes[*route];
                match segments.as_slice() {
                    ["status"] => Ok(quote!(match m.status {
                        Some(s) => #f::Int(i64::from(s)),
                        None => #f::Absent,
                    })),
                    ["path", name] if path_params(r).iter().any(|p| p == name) => {
                        let ident = field_ident(name);
                        let ty = match r.path_params.get(*name).map(String::as_str) {
                            None | Some("string") => Ty::String,
                            Some(t) => Ty::Named(t.to_owned()),
                        };
                        self.ts(&ty, Val::p(quote!(m.#ident)), &[], 0)
                    }
                    ["body"] if matches!(r.body, Body::Text(_)) => {
                        Ok(quote!(#f::Str(m.body.as_str())))
                    }
                    ["body", rest @ ..] => match &r.body {
                        Body::Json(t) => {
                            self.ts(&Ty::Named(t.clone()), Val::p(quote!(m.body)), rest, 0)
                        }
                        _ => Err(format!("route `{}` has no JSON body", r.name)),
                    },
                    _ => Err(format!(
                        "`{path}` is not a field of an HTTP exchange (status, path.*, body.*)"
                    )),
                }
            }
            Root::Proto { case, message } => match segments.as_slice() {
                [first, rest @ ..] if first == case => {
                    self.proto(message, Val::r(quote!(m)), rest, 0)
                }
                _ => Err(format!("paths of `{case}` start with `{case}.`")),
            },
        }
    }

    /// Reads `rest` from `val`, a value of type `ty`.
    fn ts(&self, ty: &Ty, val: Val, rest: &[&str], depth: usize) -> Result<TokenStream, String> {
        let f = quote!(agentwire_runtime::machine::Field);
        let v = format_ident!("v{depth}");
        let bound = Val::r(quote!(#v));
        let (e, copy, borrow) = (&val.expr, val.copied(), val.borrowed());
        let Some((seg, tail)) = rest.split_first() else {
            return Ok(match ty {
                Ty::String => quote!(#f::Str(#e.as_str())),
                Ty::Bool => quote!(#f::Bool(#copy)),
                Ty::Integer => quote!(#f::Int(#copy)),
                Ty::Number => quote!(#f::Num(#copy)),
                Ty::BoolLiteral(b) => quote!(#f::Bool(#b)),
                Ty::Nullable(inner) => {
                    let inner = self.ts(inner, bound, &[], depth + 1)?;
                    quote!(match #borrow { Some(#v) => #inner, None => #f::Null })
                }
                Ty::Array(inner) if **inner == Ty::String => quote!(#f::Strs(#e.as_slice())),
                Ty::Any => quote!(if #e.is_null() { #f::Null } else { #f::Present }),
                Ty::Named(n) => match &self.p.types.get(n).map(|t| &t.kind) {
                    Some(TypeKind::Enum(_)) => quote!(#f::Str(#e.as_str())),
                    Some(TypeKind::Union { .. }) => quote!(#f::Str(#e.kind())),
                    Some(TypeKind::Alias {
                        target,
                        constraints,
                    }) if !constraints.is_empty() => {
                        self.ts(target, Val::p(quote!(#e.0)), &[], depth + 1)?
                    }
                    Some(TypeKind::Alias { target, .. }) => self.ts(target, val, &[], depth + 1)?,
                    _ => quote!(#f::Present),
                },
                _ => quote!(#f::Present),
            });
        };
        match ty {
            Ty::Nullable(inner) => {
                let inner = self.ts(inner, bound, rest, depth + 1)?;
                Ok(quote!(match #borrow { Some(#v) => #inner, None => #f::Absent }))
            }
            Ty::Named(n) => match self.p.types.get(n).map(|t| &t.kind) {
                Some(TypeKind::Struct(fields)) => {
                    let field = fields
                        .iter()
                        .find(|x| x.name == *seg)
                        .ok_or_else(|| format!("`{n}` has no field `{seg}`"))?;
                    let ident = field_ident(&field.name);
                    if field.optional {
                        let inner = self.ts(&field.ty, bound, tail, depth + 1)?;
                        Ok(quote!(match &#e.#ident { Some(#v) => #inner, None => #f::Absent }))
                    } else {
                        self.ts(&field.ty, Val::p(quote!(#e.#ident)), tail, depth + 1)
                    }
                }
                Some(TypeKind::Union { tag, variants }) => {
                    if seg == tag && tail.is_empty() {
                        return Ok(quote!(#f::Str(#e.kind())));
                    }
                    let union = type_ident(n);
                    let mut arms = Vec::new();
                    for var in variants {
                        let has = matches!(
                            self.p.types.get(&var.type_name).map(|t| &t.kind),
                            Some(TypeKind::Struct(fs)) if fs.iter().any(|x| x.name == *seg)
                        );
                        if has {
                            let case = format_ident!("{}", pascal_case(&var.value));
                            let inner = self.ts(
                                &Ty::Named(var.type_name.clone()),
                                Val::r(quote!(#v)),
                                rest,
                                depth + 1,
                            )?;
                            arms.push(quote!(#union::#case(#v) => #inner,));
                        }
                    }
                    if arms.is_empty() {
                        return Err(format!("no variant of `{n}` has a field `{seg}`"));
                    }
                    if arms.len() < variants.len() {
                        arms.push(quote!(_ => #f::Absent,));
                    }
                    Ok(quote!(match #borrow { #(#arms)* }))
                }
                Some(TypeKind::Alias {
                    target,
                    constraints,
                }) if !constraints.is_empty() => {
                    self.ts(target, Val::p(quote!(#e.0)), rest, depth + 1)
                }
                Some(TypeKind::Alias { target, .. }) => self.ts(target, val, rest, depth + 1),
                _ => Err(format!("`{n}` has no field `{seg}`")),
            },
            _ => Err(format!("cannot read `{seg}` from a non-object value")),
        }
    }

    /// Reads `rest` from `val`, the prost struct of the message type `message`.
    fn proto(
        &self,
        message: &str,
        val: Val,
        rest: &[&str],
        depth: usize,
    ) -> Result<TokenStream, String> {
        let f = quote!(agentwire_runtime::machine::Field);
        let v = format_ident!("v{depth}");
        let e = &val.expr;
        let Some((seg, tail)) = rest.split_first() else {
            return Ok(quote!(#f::Present));
        };
        let Some(TypeKind::Struct(fields)) = self.p.types.get(message).map(|d| &d.kind) else {
            return Err(format!("`{message}` is not a message"));
        };
        for field in fields {
            let Some(cases) = self.oneof_cases(&field.ty) else {
                continue;
            };
            let member = prost_field(&field.name);
            let ty = prost_path(field.ty.named().unwrap_or_default());
            // A oneof by its own name yields the case that is set.
            if field.name == *seg {
                if !tail.is_empty() {
                    return Err(format!("`{seg}` is a oneof: read one of its cases instead"));
                }
                let arms = cases.iter().map(|c| {
                    let case = prost_variant(&c.name);
                    let name = &c.name;
                    quote!(Some(#ty::#case(_)) => #f::Str(#name),)
                });
                return Ok(quote!(match &#e.#member { #(#arms)* None => #f::Absent }));
            }
            if let Some(c) = cases.iter().find(|c| c.name == *seg) {
                let case = prost_variant(&c.name);
                let inner = self.proto_leaf(seg, &c.ty, Val::r(quote!(#v)), tail, depth)?;
                return Ok(
                    quote!(match &#e.#member { Some(#ty::#case(#v)) => #inner, _ => #f::Absent }),
                );
            }
        }
        let field = fields
            .iter()
            .find(|x| x.name == *seg)
            .ok_or_else(|| format!("`{message}` has no field `{seg}`"))?;
        let ident = prost_field(&field.name);
        if field.optional && !field.defaulted {
            let inner = self.proto_leaf(seg, &field.ty, Val::r(quote!(#v)), tail, depth)?;
            return Ok(quote!(match &#e.#ident { Some(#v) => #inner, None => #f::Absent }));
        }
        self.proto_leaf(seg, &field.ty, Val::p(quote!(#e.#ident)), tail, depth)
    }

    fn oneof_cases(&self, ty: &Ty) -> Option<&'p [crate::ir::Field]> {
        match &self.p.types.get(ty.named()?)?.kind {
            TypeKind::Oneof { cases, .. } => Some(cases),
            _ => None,
        }
    }

    /// Reads `tail` from the value of field `seg`, of type `ty`.
    fn proto_leaf(
        &self,
        seg: &str,
        ty: &Ty,
        value: Val,
        tail: &[&str],
        depth: usize,
    ) -> Result<TokenStream, String> {
        let f = quote!(agentwire_runtime::machine::Field);
        let x = &value.expr;
        let copy = value.copied();
        if let Ty::Array(inner) = ty {
            return match (&**inner, tail.is_empty()) {
                (Ty::String, true) => Ok(quote!(#f::Strs(#x.as_slice()))),
                _ => Err(format!(
                    "`{seg}` is a repeated field; only lists of strings can be read"
                )),
            };
        }
        let kind = ty
            .named()
            .and_then(|n| self.p.types.get(n))
            .map(|d| &d.kind);
        match (ty, kind) {
            (Ty::Named(n), Some(TypeKind::Struct(_))) => self.proto(n, value, tail, depth + 1),
            _ if !tail.is_empty() => Err(format!("`{seg}` is not a message")),
            (Ty::String, _) => Ok(quote!(#f::Str(#x.as_str()))),
            (Ty::Bool, _) => Ok(quote!(#f::Bool(#copy))),
            (Ty::Scalar(Scalar::Int32 | Scalar::Uint32), _) => {
                Ok(quote!(#f::Int(i64::from(#copy))))
            }
            (Ty::Scalar(Scalar::Int64), _) => Ok(quote!(#f::Int(#copy))),
            (Ty::Named(n), Some(TypeKind::Enum(_))) => {
                let path = prost_path(n);
                Ok(quote!(match #path::try_from(#copy) {
                    Ok(e) => #f::Str(e.as_str_name()),
                    Err(_) => #f::Int(i64::from(#copy)),
                }))
            }
            _ => Ok(quote!(#f::Present)),
        }
    }
}

/// An expression in generated field-read code: a reference binding (`m`, `v3`) or a place
/// reached through one (`m.data.content`).
#[derive(Debug, Clone)]
struct Val {
    expr: TokenStream,
    is_ref: bool,
}

impl Val {
    fn r(expr: TokenStream) -> Self {
        Self { expr, is_ref: true }
    }

    fn p(expr: TokenStream) -> Self {
        Self {
            expr,
            is_ref: false,
        }
    }

    /// The value of a `Copy` scalar.
    fn copied(&self) -> TokenStream {
        let e = &self.expr;
        if self.is_ref { quote!(*#e) } else { quote!(#e) }
    }

    /// A reference to the value, for `match`.
    fn borrowed(&self) -> TokenStream {
        let e = &self.expr;
        if self.is_ref { quote!(#e) } else { quote!(&#e) }
    }
}
