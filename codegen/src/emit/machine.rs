//! Checker emitter: compiles a protocol's machines into a `Checker` with one `match` per
//! machine over its states and the message kinds, reading fields through the typed messages.

use std::collections::BTreeMap;

use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Action, Condition, Literal, Machine, MemoryKind, Operator, Protocol, Subject};
use crate::machine::model::{KindInfo, Leaf, Missing, Model, Pattern, Read, SourceKind};
use crate::naming::{Name, pascal_case};

/// The pattern over `&Message<'_>` that recognises a kind, binding its payload as `m`.
fn pattern(p: &Pattern) -> Result<TokenStream, String> {
    let rpc = quote!(agentwire_runtime::jsonrpc::Message);
    Ok(match p {
        Pattern::Union {
            source,
            union,
            case,
        } => {
            quote!(Message::#source(#union::#case(m)))
        }
        Pattern::Call {
            source,
            request,
            set,
            method,
            params,
        } => {
            let inner = if *params {
                quote!(#set::#method(m))
            } else {
                quote!(#set::#method)
            };
            if *request {
                quote!(Message::#source(#rpc::Request { id: m_id, request: #inner }))
            } else {
                quote!(Message::#source(#rpc::Notification(#inner)))
            }
        }
        Pattern::Response { source } => {
            quote!(Message::#source(#rpc::Response(m)))
        }
        Pattern::Oneof {
            source,
            union,
            member,
            oneof,
            case,
        } => {
            quote!(Message::#source(#union { #member: Some(#oneof::#case(m)) }))
        }
        Pattern::Http { route } => {
            quote!(Message::Http(HttpExchange::#route(m)))
        }
    })
}

/// An expression in generated field-read code: a reference binding (`m`, `v3`) or a place
/// reached through one (`m.data.content`).
#[derive(Debug, Clone)]
struct Val {
    expr: TokenStream,
    is_ref: bool,
}

impl Val {
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

/// The expression of type `Field<'_>` a read makes of `val`; `depth` names bindings apart.
fn read_expr(read: &Read, val: Val, depth: usize) -> Result<TokenStream, String> {
    let f = quote!(agentwire_runtime::machine::Field);
    let v = format_ident!("v{depth}");
    let bound = Val {
        expr: quote!(#v),
        is_ref: true,
    };
    let e = &val.expr;
    let missing = |m: &Missing| match m {
        Missing::Null => quote!(#f::Null),
        Missing::Absent => quote!(#f::Absent),
    };
    Ok(match read {
        Read::Member(name, then) => {
            let place = Val {
                expr: quote!(#e.#name),
                is_ref: false,
            };
            read_expr(then, place, depth)?
        }
        Read::Inner(then) => {
            let place = Val {
                expr: quote!(#e.0),
                is_ref: false,
            };
            read_expr(then, place, depth)?
        }
        Read::Option { then, missing: m } => {
            let inner = read_expr(then, bound, depth + 1)?;
            let (borrow, none) = (val.borrowed(), missing(m));
            quote!(match #borrow { Some(#v) => #inner, None => #none })
        }
        Read::Cases {
            arms,
            in_some,
            exhaustive,
        } => {
            let mut out = Vec::new();
            for (path, arm) in arms {
                // A constant arm needs no binding.
                let binding = if matches!(arm, Read::Leaf(Leaf::ConstStr(_))) {
                    quote!(_)
                } else {
                    quote!(#v)
                };
                let pat = if *in_some {
                    quote!(Some(#path(#binding)))
                } else {
                    quote!(#path(#binding))
                };
                let inner = read_expr(arm, bound.clone(), depth + 1)?;
                out.push(quote!(#pat => #inner,));
            }
            match (exhaustive, in_some) {
                (true, true) => out.push(quote!(None => #f::Absent,)),
                (true, false) => {}
                (false, _) => out.push(quote!(_ => #f::Absent,)),
            }
            let borrow = val.borrowed();
            quote!(match #borrow { #(#out)* })
        }
        Read::RequestId => quote!(agentwire_runtime::machine::rpc_id(m_id)),
        Read::Answer(_) => {
            return Err("a result read outside its answer; a generator bug".to_owned());
        }
        Read::Leaf(l) => leaf_expr(l, &val)?,
    })
}

fn leaf_expr(l: &Leaf, val: &Val) -> Result<TokenStream, String> {
    let f = quote!(agentwire_runtime::machine::Field);
    let (e, copy) = (&val.expr, val.copied());
    Ok(match l {
        Leaf::Str => quote!(#f::Str(#e.as_str())),
        Leaf::Bool => quote!(#f::Bool(#copy)),
        Leaf::Int => quote!(#f::Int(#copy)),
        Leaf::IntFrom => quote!(#f::Int(i64::from(#copy))),
        Leaf::Num => quote!(#f::Num(#copy)),
        Leaf::Strs => quote!(#f::Strs(#e.as_slice())),
        Leaf::AnyValue => quote!(if #e.is_null() { #f::Null } else { #f::Present }),
        Leaf::UnionKind => quote!(#f::Str(#e.kind())),
        Leaf::Present => quote!(#f::Present),
        Leaf::Scalars { ty, members } => {
            let t = ty;
            let arms = members.iter().map(|m| match m.as_str() {
                "String" => quote!(#t::String(v) => #f::Str(v.as_str()),),
                "Integer" => quote!(#t::Integer(v) => #f::Int(*v),),
                "Number" => quote!(#t::Number(v) => #f::Num(*v),),
                _ => quote!(#t::Bool(v) => #f::Bool(*v),),
            });
            let borrowed = val.borrowed();
            quote!(match #borrowed { #(#arms)* })
        }
        Leaf::ConstStr(s) => quote!(#f::Str(#s)),
        Leaf::ConstBool(b) => quote!(#f::Bool(#b)),
        Leaf::ProtoEnum(path) => {
            quote!(match #path::try_from(#copy) {
                Ok(e) => #f::Str(e.as_str_name()),
                Err(_) => #f::Int(i64::from(#copy)),
            })
        }
        Leaf::RpcId => {
            let r = val.borrowed();
            quote!(agentwire_runtime::machine::rpc_id(#r))
        }
        Leaf::Absent => quote!(#f::Absent),
    })
}

/// Field reads shared by all machines: one function per (kind, path).
struct Reads<'m> {
    model: &'m Model,
    fns: BTreeMap<(String, String), (Ident, TokenStream)>,
}

/// `read_N(answer)`: a `result.*` read of a response narrowed to its request, from the
/// result the checker decoded as that request's result type (`Absent` for an error or a
/// result that does not decode).
fn answer_read_fn(
    name: &Ident,
    doc: &str,
    variant: &Name,
    read: &Read,
) -> Result<TokenStream, String> {
    let m = Val {
        expr: quote!(m),
        is_ref: true,
    };
    let body = read_expr(read, m, 0)?;
    // A path through an optional member that may also be null (`Option<Option<T>>`) reads as
    // one `match` per level, which clippy would fold into patterns.
    Ok(quote! {
        #[doc = #doc]
        #[allow(unused_variables, clippy::match_single_binding, clippy::collapsible_match)]
        fn #name(answer: &Answer) -> agentwire_runtime::machine::Field<'_> {
            match answer {
                Answer::#variant(Some(m)) => #body,
                _ => agentwire_runtime::machine::Field::Absent,
            }
        }
    })
}

impl Reads<'_> {
    /// A call `read_N(msg)` (or `read_N(answer)` for a result) returning the field; `Err` if
    /// the kind has no such path.
    fn call(&mut self, kind: &KindInfo, path: &str) -> Result<TokenStream, String> {
        let key = (kind.read_key(), path.to_owned());
        let n = self.fns.len();
        if let (Read::Answer(read), Some(asked)) = (self.model.field(kind, path)?, &kind.answers) {
            if !self.fns.contains_key(&key) {
                let name = format_ident!("read_{n}");
                let doc = format!(" `{path}` of `{}`.", kind.full_label());
                let f = answer_read_fn(&name, &doc, &asked.variant, read)?;
                self.fns.insert(key.clone(), (name, f));
            }
            let name = &self.fns[&key].0;
            return Ok(quote!(#name(answer)));
        }
        if !self.fns.contains_key(&key) {
            let m = Val {
                expr: quote!(m),
                is_ref: true,
            };
            let body = read_expr(self.model.field(kind, path)?, m, 0)?;
            let name = format_ident!("read_{n}");
            let pattern = pattern(&kind.pattern)?;
            let doc = format!(" `{path}` of `{}`.", kind.full_label());
            self.fns.insert(
                key.clone(),
                (
                    name.clone(),
                    quote! {
                        #[doc = #doc]
                        #[allow(unused_variables, clippy::match_single_binding, clippy::collapsible_match)]
                        fn #name<'a>(msg: &Message<'a>) -> agentwire_runtime::machine::Field<'a> {
                            match *msg {
                                #pattern => #body,
                                _ => agentwire_runtime::machine::Field::Absent,
                            }
                        }
                    },
                ),
            );
        }
        let name = &self.fns[&key].0;
        Ok(quote!(#name(msg)))
    }
}

/// The generated `machine.rs` of a protocol (no header), or the errors of paths that do not
/// resolve (the lint reports them with locations first, so these are rare).
pub fn emit_checker(p: &Protocol, model: &Model) -> Result<TokenStream, String> {
    let mut reads = Reads {
        model,
        fns: BTreeMap::new(),
    };
    let (kinds, sources) = emit_kinds(model)?;
    let recorded = emit_recorded(model)?;
    let mut machine_items = Vec::new();
    let answers = !model.answered.is_empty();
    let mut parts = CheckerParts {
        answers,
        ..CheckerParts::default()
    };
    for m in &p.machines {
        machine_items.push(emit_machine(m, model, &mut reads, answers)?);
        parts.add(m);
    }
    let read_fns = reads.fns.values().map(|(_, body)| body);
    let answer = emit_answer(model)?;
    let checker = checker_type(p, parts);
    // A protocol whose catalogue is empty (a gRPC spec of plain services) still has the
    // checker's surface; its message type is uninhabited.
    let never = sources.is_empty().then(|| {
        quote! {
            #[doc(hidden)]
            Never(std::convert::Infallible, std::marker::PhantomData<&'a ()>),
        }
    });
    Ok(quote! {
        //! The sequence checker of this protocol, compiled from its `machine.yaml`.

        #[allow(unused_imports)]
        use super::*;

        /// A message as the checker sees it: who sent it, and the typed message.
        #[derive(Debug, Clone, Copy)]
        pub enum Message<'a> { #(#sources)* #never }

        #kinds

        #recorded

        #(#read_fns)*

        #answer

        #(#machine_items)*

        #checker
    })
}

/// The `Checker` type over every machine of `p`, from their `parts`.
fn checker_type(p: &Protocol, parts: CheckerParts) -> TokenStream {
    let CheckerParts {
        answers,
        fields,
        inits,
        steps,
        finishes,
    } = parts;
    let field_names = p.machines.iter().map(|m| format_ident!("{}", m.name));
    // Without machines nothing reads the message, the limits or a violation list.
    let idle = p
        .machines
        .is_empty()
        .then(|| quote!(let _ = (index, kind, msg, &self.limits);));
    let violations = if p.machines.is_empty() {
        quote!(let violations = Vec::new();)
    } else {
        quote!(let mut violations = Vec::new();)
    };
    let live = if p.machines.is_empty() {
        quote!(0)
    } else {
        quote!(#(self.#field_names.len())+*)
    };
    let (answers_field, answers_init, answer_let) = if answers {
        (
            quote!(answers: agentwire_runtime::answers::Answers<Kind>,),
            quote!(answers: agentwire_runtime::answers::Answers::new(limits.max_instances),),
            quote!(let answer = &self.answer(kind, msg);),
        )
    } else {
        Default::default()
    };
    quote! {
        /// Checks a stream of messages against every machine of the protocol. Instances that
        /// reach a final state are dropped; each machine holds at most `limits.max_instances`.
        #[derive(Debug)]
        pub struct Checker {
            index: usize,
            limits: agentwire_runtime::machine::Limits,
            #answers_field
            #(#fields)*
        }

        impl Default for Checker {
            fn default() -> Self {
                Self::new()
            }
        }

        impl Checker {
            pub fn new() -> Self {
                Self::with_limits(agentwire_runtime::machine::Limits::default())
            }

            pub fn with_limits(limits: agentwire_runtime::machine::Limits) -> Self {
                Self { index: 0, limits, #answers_init #(#inits)* }
            }

            /// Feeds the next message of the stream; a violation leaves the state unchanged.
            pub fn observe(&mut self, msg: Message<'_>) -> Result<(), agentwire_runtime::machine::Violation> {
                let index = self.index;
                self.index += 1;
                let Some(kind) = kind_of(&msg) else { return Ok(()) };
                let msg = &msg;
                #answer_let
                #(#steps)*
                #idle
                Ok(())
            }

            /// Ends the stream: every instance not in an accepting state is a violation.
            pub fn finish(self) -> Result<(), Vec<agentwire_runtime::machine::Violation>> {
                #violations
                #(#finishes)*
                if violations.is_empty() { Ok(()) } else { Err(violations) }
            }

            /// Live instances across all machines (for memory accounting).
            pub fn live_instances(&self) -> usize {
                #live
            }
        }
    }
}

/// The `Kind` enum, `kind_of`, and the variants of `Message`.
fn emit_kinds(model: &Model) -> Result<(TokenStream, Vec<TokenStream>), String> {
    let kind_variants: Vec<Ident> = model.kinds.iter().map(|k| k.variant.ident()).collect();
    let kind_labels: Vec<String> = model.kinds.iter().map(KindInfo::label).collect();
    let mut kind_arms = Vec::new();
    for (k, v) in model.kinds.iter().zip(&kind_variants) {
        let pattern = pattern(&k.pattern)?;
        kind_arms.push(quote!(#pattern => Some(Kind::#v),));
    }
    // JSON-RPC and protobuf types can hold messages no kind names (an unset oneof, a response
    // from a side that never receives requests); decoding rejects them, the checker skips them.
    let kind_fallback = match model.source_kind {
        SourceKind::Json => TokenStream::new(),
        SourceKind::JsonRpc | SourceKind::Proto => quote!(_ => None,),
    };
    let mut sources = Vec::new();
    for s in &model.sources {
        let (v, ty) = (&s.variant, &s.ty);
        sources.push(quote!(#v(&'a #ty),));
    }
    let kinds = quote! {
        /// Every `role.kind` of the protocol.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Kind { #(#kind_variants,)* }

        impl Kind {
            /// `role.kind`, as violations and traces name it.
            pub fn label(self) -> &'static str {
                match self { #(Kind::#kind_variants => #kind_labels,)* }
            }
        }

        /// The kind of a message (`None` for a message no kind describes; when both sides
        /// send requests, every message has a kind and the fallback arm is never reached).
        #[allow(unused_variables, unreachable_patterns, clippy::match_single_binding)]
        pub fn kind_of(msg: &Message<'_>) -> Option<Kind> {
            match *msg { #(#kind_arms)* #kind_fallback }
        }
    };
    Ok((kinds, sources))
}

/// What each machine adds to `Checker`: its instances field, their initial value, its step
/// call in `observe`, and its end-of-stream check in `finish`.
#[derive(Default)]
struct CheckerParts {
    /// Whether machines narrow responses to requests (steps then take the `answer`).
    answers: bool,
    fields: Vec<TokenStream>,
    inits: Vec<TokenStream>,
    steps: Vec<TokenStream>,
    finishes: Vec<TokenStream>,
}

impl CheckerParts {
    fn add(&mut self, m: &Machine) {
        let names = Names::of(m);
        let (state_ty, inst) = (&names.state_ty, &names.inst_ty);
        let field = format_ident!("{}", m.name);
        let step = format_ident!("step_{}", m.name);
        self.fields
            .push(quote!(#field: agentwire_runtime::machine::Instances<#inst>,));
        self.inits.push(match m.key {
            None => quote!(#field: agentwire_runtime::machine::Instances::per_stream(),),
            Some(_) => quote!(#field: agentwire_runtime::machine::Instances::keyed(),),
        });
        if has_links(m) {
            let links = format_ident!("{}_links", m.name);
            self.fields
                .push(quote!(#links: agentwire_runtime::kept::Links,));
            self.inits
                .push(quote!(#links: agentwire_runtime::kept::Links::new(limits.max_instances),));
        }
        if let Some(n) = m.retain {
            let retained = format_ident!("{}_retained", m.name);
            self.fields
                .push(quote!(#retained: agentwire_runtime::kept::Retained,));
            self.inits
                .push(quote!(#retained: agentwire_runtime::kept::Retained::new(#n),));
        }
        self.steps.push(if self.answers {
            quote!(self.#step(index, kind, msg, answer)?;)
        } else {
            quote!(self.#step(index, kind, msg)?;)
        });
        let name = &m.name;
        self.finishes.push(quote! {
            for (key, inst) in self.#field.sorted() {
                let state = inst.state;
                if !state.accepting() {
                    violations.push(agentwire_runtime::machine::Violation {
                        index: None,
                        machine: #name,
                        key: key.to_owned(),
                        state: state.name(),
                        got: None,
                        expected: #state_ty::expected(state),
                        problem: agentwire_runtime::machine::Problem::Unfinished,
                    });
                }
            }
        });
    }
}

/// `Recorded`: an owned, decoded message of any sender, as a trace line holds it.
fn emit_recorded(model: &Model) -> Result<TokenStream, String> {
    let mut sources = Vec::new();
    for s in &model.sources {
        sources.push((&s.variant, &s.ty, s.role.clone()));
    }
    let variants: Vec<TokenStream> = sources.iter().map(|(v, ty, _)| quote!(#v(#ty),)).collect();
    let as_message = sources
        .iter()
        .map(|(v, _, _)| quote!(Recorded::#v(m) => Message::#v(m),));
    // HTTP lines are recognised by their `http` member before any sender's messages.
    let mut ordered: Vec<_> = sources.iter().collect();
    ordered.sort_by_key(|(_, _, role)| role.is_some());
    let decoders = ordered.into_iter().map(|(v, ty, role)| {
        match role {
            Some(role) => {
                let decode = match model.source_kind {
                    SourceKind::JsonRpc => quote! {
                        #ty::from_json(&json).and_then(|m| { m.validate()?; Ok(m) })
                    },
                    SourceKind::Json | SourceKind::Proto => quote!(#ty::from_json(&json)),
                };
                quote! {
                    if from == #role {
                        let Some(message) = entry.get("message") else {
                            return Some(Err(agentwire_runtime::Invalid::one(agentwire_runtime::FieldError::new(
                                "/message", agentwire_runtime::Rule::Required, "missing field `message`",
                            ))));
                        };
                        let json = message.to_string();
                        return Some(#decode.map(Recorded::#v).map_err(|e| e.under("/message")));
                    }
                }
            }
            None => quote! {
                if let Some(http) = entry.get("http") {
                    let text = |k: &str| http.get(k).and_then(|v| v.as_str()).unwrap_or_default();
                    let status = http.get("status").and_then(|v| v.as_u64()).and_then(|s| u16::try_from(s).ok());
                    let body = http.get("body").cloned().unwrap_or_default();
                    return Some(
                        HttpExchange::decode(from, text("method"), text("path"), status, &body)
                            .map(Recorded::#v)
                            .map_err(|e| e.under("/http")),
                    );
                }
            },
        }
    });
    // With no message at all the match is on the uninhabited value, and nothing decodes.
    let (as_message, unused) = if variants.is_empty() {
        (quote!(match *self {}), quote!(let _ = (from, entry);))
    } else {
        (quote!(match self { #(#as_message)* }), TokenStream::new())
    };
    Ok(quote! {
        /// One decoded message of the stream, owned; what a trace line holds.
        #[derive(Debug, Clone)]
        pub enum Recorded { #(#variants)* }

        impl Recorded {
            /// The checker's view of the message.
            pub fn as_message(&self) -> Message<'_> {
                #as_message
            }

            /// Decodes and validates one trace entry (`{"from": role, "message": ...}`, or
            /// `{"from": role, "http": {...}}`); `None` when `from` is not a sender here.
            pub fn decode(
                from: &str,
                entry: &agentwire_runtime::serde_json::Value,
            ) -> Option<Result<Self, agentwire_runtime::Invalid>> {
                #(#decoders)*
                #unused
                None
            }
        }
    })
}

/// The names one machine's items share.
struct Names {
    state_ty: Ident,
    inst_ty: Ident,
}

impl Names {
    fn of(m: &Machine) -> Self {
        let pascal = pascal_case(&m.name);
        Self {
            state_ty: format_ident!("{pascal}MachineState"),
            inst_ty: format_ident!("{pascal}MachineInstance"),
        }
    }

    /// `State::A | State::B` as a `matches!` test of `self`, or `false` for none.
    fn any_of(&self, states: &[String]) -> TokenStream {
        if states.is_empty() {
            return quote!(false);
        }
        let state_ty = &self.state_ty;
        let ids = states.iter().map(|s| state_ident(s));
        quote!(matches!(self, #(#state_ty::#ids)|*))
    }
}

fn state_ident(state: &str) -> Ident {
    format_ident!("{}", pascal_case(state))
}

/// One machine's state enum, instance struct and `step_<name>` method.
fn emit_machine(
    m: &Machine,
    model: &Model,
    reads: &mut Reads<'_>,
    answers: bool,
) -> Result<TokenStream, String> {
    let names = Names::of(m);
    let states = emit_states(m, model, &names);
    let instance = emit_instance(m, &names);
    let step = emit_step(m, model, reads, &names, answers)?;
    Ok(quote! {
        #states
        #instance
        #step
    })
}

/// The state enum: names, accepting and final states, and what each state allows.
fn emit_states(m: &Machine, model: &Model, names: &Names) -> TokenStream {
    let state_ty = &names.state_ty;
    let state_idents: Vec<Ident> = m.states.iter().map(|s| state_ident(s)).collect();
    let state_names = &m.states;
    // What each state allows, for violation messages.
    let expected_arms = m.states.iter().zip(&state_idents).map(|(s, ident)| {
        let mut labels: Vec<String> = Vec::new();
        for t in &m.transitions {
            if t.from.as_ref().is_none_or(|f| f.contains(s)) {
                for k in model.kinds_of(&t.on) {
                    let l = k.full_label();
                    if !labels.contains(&l) {
                        labels.push(l);
                    }
                }
            }
        }
        quote!(#state_ty::#ident => &[#(#labels),*],)
    });
    let accepting_pat = names.any_of(&m.accepting);
    let final_pat = names.any_of(&m.finals);
    let doc = format!(" States of the `{}` machine.", m.name);
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum #state_ty { #(#state_idents,)* }

        impl #state_ty {
            pub fn name(self) -> &'static str {
                match self { #(Self::#state_idents => #state_names,)* }
            }

            /// The stream may end with an instance in this state.
            pub fn accepting(self) -> bool {
                #accepting_pat
            }

            /// Reaching this state ends (and drops) the instance.
            pub fn is_final(self) -> bool {
                #final_pat
            }

            /// The kinds this state allows.
            pub fn expected(self) -> &'static [&'static str] {
                match self { #(#expected_arms)* }
            }
        }
    }
}

/// The instance struct: the state and the machine's memory.
fn emit_instance(m: &Machine, names: &Names) -> TokenStream {
    let (state_ty, inst_ty) = (&names.state_ty, &names.inst_ty);
    let memory_fields = m.memory.iter().map(|(n, k)| {
        let ident = format_ident!("{n}");
        match k {
            MemoryKind::Value => quote!(#ident: Option<agentwire_runtime::machine::Stored>,),
            MemoryKind::Set => quote!(#ident: ::std::collections::BTreeSet<String>,),
        }
    });
    let doc = format!(" One live instance of the `{}` machine.", m.name);
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone)]
        pub struct #inst_ty {
            state: #state_ty,
            #(#memory_fields)*
        }
    }
}

/// The statement binding `key`, the instance key of the message (returning early when no key
/// rule matches it).
fn key_binding(m: &Machine, model: &Model, reads: &mut Reads<'_>) -> Result<TokenStream, String> {
    let Some(rules) = &m.key else {
        return Ok(quote!(let key = ::std::borrow::Cow::Borrowed("connection");));
    };
    let links = format_ident!("{}_links", m.name);
    let mut arms = Vec::new();
    for r in rules {
        for k in model.kinds_of(&r.on) {
            let read = match r.fields.as_slice() {
                [one] if r.linked => {
                    let read = reads.call(k, one)?;
                    quote!(self.#links.follow(#read))
                }
                [one] => {
                    let read = reads.call(k, one)?;
                    quote!(#read.key())
                }
                several => {
                    let parts = several
                        .iter()
                        .map(|f| reads.call(k, f))
                        .collect::<Result<Vec<_>, _>>()?;
                    quote!(agentwire_runtime::machine::composite_key(&[#(#parts),*]))
                }
            };
            let v = k.variant.ident();
            if r.guard.is_empty() {
                arms.push(quote!(Kind::#v => #read,));
            } else {
                let guard = conditions(&r.guard, k, reads, m)?;
                arms.push(quote!(Kind::#v if #guard => #read,));
            }
        }
    }
    let covered: std::collections::BTreeSet<String> = rules
        .iter()
        .filter(|r| r.guard.is_empty())
        .flat_map(|r| model.kinds_of(&r.on))
        .map(KindInfo::read_key)
        .collect();
    let fallback = if covered.len() == model.kinds.len() {
        TokenStream::new()
    } else {
        quote!(_ => None,)
    };
    Ok(quote! {
        let Some(key) = (match kind { #(#arms)* #fallback }) else { return Ok(()) };
    })
}

/// The statement binding `link`, the value a `link:` rule records for the message's instance
/// (`None` for messages of other rules); nothing when the machine records no links.
fn link_binding(m: &Machine, model: &Model, reads: &mut Reads<'_>) -> Result<TokenStream, String> {
    let rules = m.key.iter().flatten().filter(|r| r.link.is_some());
    let mut arms = Vec::new();
    for r in rules {
        let Some(path) = &r.link else { continue };
        for k in model.kinds_of(&r.on) {
            let read = reads.call(k, path)?;
            let v = k.variant.ident();
            let guard = if r.guard.is_empty() {
                TokenStream::new()
            } else {
                let g = conditions(&r.guard, k, reads, m)?;
                quote!(if #g)
            };
            arms.push(quote!(Kind::#v #guard => Some(#read),));
        }
    }
    if arms.is_empty() {
        return Ok(TokenStream::new());
    }
    Ok(quote! {
        let link: Option<agentwire_runtime::machine::Field<'_>> = match kind { #(#arms)* _ => None };
    })
}

/// Whether a machine records or follows links (and so has a `<name>_links` table).
fn has_links(m: &Machine) -> bool {
    m.key.iter().flatten().any(|r| r.link.is_some() || r.linked)
}

/// One `if` per (transition, kind), in order: the first that matches picks the next state.
fn emit_branches(
    m: &Machine,
    model: &Model,
    reads: &mut Reads<'_>,
    names: &Names,
) -> Result<Vec<TokenStream>, String> {
    let state_ty = &names.state_ty;
    let mut branches = Vec::new();
    for t in &m.transitions {
        let from = match &t.from {
            None => TokenStream::new(),
            Some(states) => {
                let ids = states.iter().map(|s| state_ident(s));
                quote!(matches!(state, #(#state_ty::#ids)|*) &&)
            }
        };
        let to = match &t.to {
            Some(s) => {
                let s = state_ident(s);
                quote!(#state_ty::#s)
            }
            None => quote!(state),
        };
        for k in model.kinds_of(&t.on) {
            let v = k.variant.ident();
            let guard = if t.guard.is_empty() {
                TokenStream::new()
            } else {
                let g = conditions(&t.guard, k, reads, m)?;
                quote!(&& #g)
            };
            // A response narrowed to a request: only the answer to a request of that kind.
            let guard = match &k.answers {
                Some(a) => {
                    let asked = a.variant.ident();
                    quote!(&& matches!(answer, Answer::#asked { .. }) #guard)
                }
                None => guard,
            };
            let body = transition_body(t, k, reads, m)?;
            branches.push(quote! {
                if #from kind == Kind::#v #guard {
                    #body
                    break 'pick Ok(#to);
                }
            });
        }
    }
    Ok(branches)
}

/// A transition's checks, then its actions, for messages of kind `k`.
fn transition_body(
    t: &crate::ir::Transition,
    k: &KindInfo,
    reads: &mut Reads<'_>,
    m: &Machine,
) -> Result<TokenStream, String> {
    // A check that a field extends a memory, with an action storing that same field into it
    // (streamed text), compiles to one pass: compare the remembered prefix and append only the
    // new tail. It runs after the other checks, so a failing message never changes the memory.
    let fused: Vec<(usize, usize)> = t
        .check
        .iter()
        .enumerate()
        .filter_map(|(ci, c)| match (&c.subject, &c.op) {
            (Subject::Field(f), Operator::Extends(mem)) => t
                .actions
                .iter()
                .position(
                    |a| matches!(a, Action::Set { memory, field } if memory == mem && field == f),
                )
                .map(|ai| (ci, ai)),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for (ci, c) in t.check.iter().enumerate() {
        if fused.iter().any(|(x, _)| *x == ci) {
            continue;
        }
        let failed = negated(c, k, reads, m)?;
        let problem = check_problem(c);
        out.push(quote! {
            if #failed {
                break 'pick Err(#problem);
            }
        });
    }
    for (ci, ai) in &fused {
        let Action::Set { memory, field } = &t.actions[*ai] else {
            continue;
        };
        let read = reads.call(k, field)?;
        let ident = format_ident!("{memory}");
        let problem = check_problem(&t.check[*ci]);
        out.push(quote! {
            if !#read.extend_into(&mut inst.#ident) {
                break 'pick Err(#problem);
            }
        });
    }
    for (ai, a) in t.actions.iter().enumerate() {
        if !fused.iter().any(|(_, x)| *x == ai) {
            out.push(action(a, k, reads, m)?);
        }
    }
    Ok(quote!(#(#out)*))
}

/// The `Problem` a failed check reports: its text, and the error code it declares.
fn check_problem(c: &Condition) -> TokenStream {
    let text = &c.text;
    let code = match c.code {
        Some(code) => quote!(Some(#code)),
        None => quote!(None),
    };
    quote!(agentwire_runtime::machine::Problem::Check { check: #text, code: #code })
}

/// `Checker::step_<name>`: finds or starts the message's instance and moves it.
fn emit_step(
    m: &Machine,
    model: &Model,
    reads: &mut Reads<'_>,
    names: &Names,
    answers: bool,
) -> Result<TokenStream, String> {
    let (state_ty, inst_ty) = (&names.state_ty, &names.inst_ty);
    let step = format_ident!("step_{}", m.name);
    let field = format_ident!("{}", m.name);
    let name = &m.name;
    let initial = state_ident(&m.initial);
    let key_expr = key_binding(m, model, reads)?;
    let link_expr = link_binding(m, model, reads)?;
    let branches = emit_branches(m, model, reads, names)?;
    let links = format_ident!("{}_links", m.name);
    let record_link = (!link_expr.is_empty()).then(|| {
        quote! {
            if let Some(by) = link {
                self.#links.link(by, key.as_ref());
            }
        }
    });
    let retained = format_ident!("{}_retained", m.name);
    let on_final = if m.retain.is_some() {
        // Kept once, when it first finishes: a retained instance a later message leaves in
        // its final state is not queued again.
        quote! {
            inst.state = next;
            if !state.is_final()
                && let Some(old) = self.#retained.keep(key.as_ref())
            {
                self.#field.remove_if(&old, |i| i.state.is_final());
            }
        }
    } else {
        quote!(self.#field.remove(key.as_ref());)
    };
    let answer_param = answers.then(|| quote!(answer: &Answer));
    let memory_inits = m.memory.iter().map(|(n, k)| {
        let ident = format_ident!("{n}");
        match k {
            MemoryKind::Value => quote!(#ident: None,),
            MemoryKind::Set => quote!(#ident: ::std::collections::BTreeSet::new(),),
        }
    });
    // `problem` is the field as written (`problem` alone when a binding has its name).
    let violation =
        |index: TokenStream, state: TokenStream, expected: TokenStream, problem: TokenStream| {
            quote! {
                agentwire_runtime::machine::Violation {
                    index: #index,
                    machine: #name,
                    key: key.into_owned(),
                    state: #state,
                    got: Some(kind.label()),
                    expected: #expected,
                    #problem,
                }
            }
        };
    let too_many = violation(
        quote!(Some(index)),
        quote!(#state_ty::#initial.name()),
        quote!(#state_ty::#initial.expected()),
        quote!(problem: agentwire_runtime::machine::Problem::TooManyInstances(self.limits.max_instances)),
    );
    let refused = violation(
        quote!(Some(index)),
        quote!(state.name()),
        quote!(state.expected()),
        quote!(problem),
    );
    Ok(quote! {
        impl Checker {
            #[allow(unused_variables, unused_mut, clippy::needless_late_init)]
            fn #step(&mut self, index: usize, kind: Kind, msg: &Message<'_>, #answer_param) -> Result<(), agentwire_runtime::machine::Violation> {
                #key_expr
                #link_expr
                let existed = self.#field.contains(key.as_ref());
                if !existed {
                    if self.#field.len() >= self.limits.max_instances {
                        return Err(#too_many);
                    }
                    self.#field.insert(key.as_ref(), #inst_ty { state: #state_ty::#initial, #(#memory_inits)* });
                }
                let inst = self.#field.get_mut(key.as_ref()).expect("instance present");
                let state = inst.state;
                let next: Result<#state_ty, agentwire_runtime::machine::Problem> = 'pick: {
                    #(#branches)*
                    Err(agentwire_runtime::machine::Problem::Unexpected)
                };
                match next {
                    Ok(next) if next.is_final() => {
                        #on_final
                        Ok(())
                    }
                    Ok(next) => {
                        inst.state = next;
                        #record_link
                        Ok(())
                    }
                    Err(problem) => {
                        // A message that could not start an instance leaves none behind.
                        if !existed {
                            self.#field.remove(key.as_ref());
                        }
                        Err(#refused)
                    }
                }
            }
        }
    })
}

/// All `conds` joined with `&&` (`true` when empty).
fn conditions(
    conds: &[Condition],
    k: &KindInfo,
    reads: &mut Reads<'_>,
    m: &Machine,
) -> Result<TokenStream, String> {
    let mut parts = Vec::new();
    for c in conds {
        parts.push(condition(c, k, reads, m)?);
    }
    Ok(if parts.is_empty() {
        quote!(true)
    } else {
        quote!(#((#parts))&&*)
    })
}

/// The condition's negation, written without a double `!` where the operator has an opposite.
fn negated(
    c: &Condition,
    k: &KindInfo,
    reads: &mut Reads<'_>,
    m: &Machine,
) -> Result<TokenStream, String> {
    let opposite = match &c.op {
        Operator::Is(l) => Some(Operator::IsNot(l.clone())),
        Operator::IsNot(l) => Some(Operator::Is(l.clone())),
        Operator::In(s) => Some(Operator::NotIn(s.clone())),
        Operator::NotIn(s) => Some(Operator::In(s.clone())),
        Operator::Present(b) => Some(Operator::Present(!b)),
        _ => None,
    };
    match opposite {
        Some(op) => condition(&Condition { op, ..c.clone() }, k, reads, m),
        None => {
            let cond = condition(c, k, reads, m)?;
            Ok(quote!(!(#cond)))
        }
    }
}

fn literal_test(field: &TokenStream, l: &Literal) -> TokenStream {
    match l {
        Literal::Str(s) => quote!(#field.is_str(#s)),
        Literal::Bool(b) => quote!(#field.is_bool(#b)),
        Literal::Num(n) => {
            let n = Lit::f64_unsuffixed(*n);
            quote!(#field.is_num(#n))
        }
        Literal::Null => quote!(#field.is_null()),
    }
}

fn condition(
    c: &Condition,
    k: &KindInfo,
    reads: &mut Reads<'_>,
    m: &Machine,
) -> Result<TokenStream, String> {
    let subject = match &c.subject {
        Subject::Field(path) => reads.call(k, path)?,
        Subject::Value(Literal::Str(s)) => quote!(agentwire_runtime::machine::Field::Str(#s)),
        Subject::Value(_) => {
            return Err("only string constants can be tested for membership".to_owned());
        }
    };
    let mem = |name: &str| -> Result<TokenStream, String> {
        if m.memory.iter().any(|(n, _)| n == name) {
            let ident = format_ident!("{name}");
            Ok(quote!(inst.#ident))
        } else {
            Err(format!("machine `{}` has no memory `{name}`", m.name))
        }
    };
    Ok(match &c.op {
        Operator::Is(l) => literal_test(&subject, l),
        Operator::IsNot(l) => {
            let t = literal_test(&subject, l);
            quote!(!#t)
        }
        Operator::OneOf(ls) => {
            let tests = ls.iter().map(|l| literal_test(&subject, l));
            quote!(#(#tests)||*)
        }
        Operator::Present(true) => quote!(#subject.is_present()),
        Operator::Present(false) => quote!(!#subject.is_present()),
        Operator::Equals(name) if name == "$key" => {
            quote!(#subject.is_key(&key))
        }
        Operator::Equals(name) => {
            let mem = mem(name)?;
            quote!(#subject.equals(#mem.as_ref()))
        }
        Operator::Extends(name) => {
            let mem = mem(name)?;
            quote!(#subject.extends(#mem.as_ref()))
        }
        Operator::In(name) => {
            let mem = mem(name)?;
            quote!(#subject.as_str().is_some_and(|s| #mem.contains(s)))
        }
        Operator::NotIn(name) => {
            let mem = mem(name)?;
            quote!(!#subject.as_str().is_some_and(|s| #mem.contains(s)))
        }
    })
}

fn action(
    a: &Action,
    k: &KindInfo,
    reads: &mut Reads<'_>,
    m: &Machine,
) -> Result<TokenStream, String> {
    Ok(match a {
        Action::AddValue {
            memory,
            value,
            when,
        } => {
            let ident = format_ident!("{memory}");
            let conds = when
                .iter()
                .map(|c| condition(c, k, reads, m))
                .collect::<Result<Vec<_>, _>>()?;
            let insert = quote!(inst.#ident.insert(#value.to_owned()););
            match conds.as_slice() {
                [] => insert,
                [one] => quote!(if #one { #insert }),
                many => quote!(if #((#many))&&* { #insert }),
            }
        }
        Action::Set { memory, field } => {
            let read = reads.call(k, field)?;
            let ident = format_ident!("{memory}");
            quote!(#read.store_into(&mut inst.#ident);)
        }
        Action::Add { memory, field } => {
            let read = reads.call(k, field)?;
            let ident = format_ident!("{memory}");
            quote!(#read.for_each_str(|s| { inst.#ident.insert(s.to_owned()); });)
        }
        Action::Remove { memory, field } => {
            let read = reads.call(k, field)?;
            let ident = format_ident!("{memory}");
            quote!(#read.for_each_str(|s| { inst.#ident.remove(s); });)
        }
        Action::Clear { memory } => {
            let ident = format_ident!("{memory}");
            quote!(inst.#ident = Default::default();)
        }
    })
}

/// `Answer` (a response's result decoded as the result of the request it answers) and
/// `Checker::answer`, which remembers the requests machines narrow responses to and types
/// each response by its request; nothing when no machine narrows a response.
/// The result type a response to request kind `k` is narrowed to, if it has one.
fn result_of(model: &Model, k: &KindInfo) -> Option<crate::naming::RustPath> {
    model
        .answered
        .iter()
        .filter_map(|a| a.answers.as_ref())
        .find(|a| a.label == k.label() && a.variant == k.variant)
        .and_then(|a| a.result.clone())
}

/// The arm of `Checker::answer` that types a response `source` sends by the remembered
/// request of another role (`theirs`) it answers.
fn response_arm(model: &Model, source: &Name, theirs: &[&&KindInfo]) -> TokenStream {
    let rpc = quote!(agentwire_runtime::jsonrpc);
    let mut askers: Vec<&str> = theirs.iter().map(|k| k.role.as_str()).collect();
    askers.dedup();
    let typed = theirs.iter().map(|k| {
        let v = k.variant.ident();
        match result_of(model, k) {
            Some(ty) => quote! {
                Some(Kind::#v) => Answer::#v(match &r.outcome {
                    #rpc::Outcome::Result(raw) => agentwire_runtime::decode_json::<#ty>(raw.get()).ok().map(Box::new),
                    #rpc::Outcome::Error(_) => None,
                }),
            },
            None => quote!(Some(Kind::#v) => Answer::#v,),
        }
    });
    quote! {
        Message::#source(#rpc::Message::Response(r)) => {
            let Some(id) = &r.id else { return Answer::None };
            match self.answers.take(&[#(#askers),*], agentwire_runtime::machine::rpc_id(id)) {
                #(#typed)*
                _ => Answer::None,
            }
        }
    }
}

fn emit_answer(model: &Model) -> Result<TokenStream, String> {
    let asked = model.asked();
    if asked.is_empty() {
        return Ok(TokenStream::new());
    }
    let rpc = quote!(agentwire_runtime::jsonrpc);
    let mut variants = Vec::new();
    for k in &asked {
        let v = k.variant.ident();
        variants.push(match result_of(model, k) {
            Some(ty) => {
                let ty = &ty;
                quote!(#v(Option<Box<#ty>>),)
            }
            None => quote!(#v,),
        });
    }
    let mut arms = Vec::new();
    for s in &model.sources {
        let Some(role) = &s.role else { continue };
        let source = &s.variant;
        // Requests this role sends that a response is narrowed to: remembered.
        let mine: Vec<Ident> = asked
            .iter()
            .filter(|k| k.role == *role)
            .map(|k| k.variant.ident())
            .collect();
        if !mine.is_empty() {
            arms.push(quote! {
                Message::#source(#rpc::Message::Request { id, .. }) => {
                    if matches!(kind, #(Kind::#mine)|*) {
                        self.answers.ask(#role, agentwire_runtime::machine::rpc_id(id), kind);
                    }
                    Answer::None
                }
            });
        }
        // Responses of this role to the other roles' remembered requests.
        let theirs: Vec<&&KindInfo> = asked.iter().filter(|k| k.role != *role).collect();
        if theirs.is_empty() {
            continue;
        }
        arms.push(response_arm(model, source, &theirs));
    }
    Ok(quote! {
        /// What a response answers, when some machine narrows responses to that request:
        /// the request's kind, with the result decoded as its result type (`None` for an
        /// error, or a result that does not decode).
        #[allow(dead_code)]
        enum Answer {
            None,
            #(#variants)*
        }

        impl Checker {
            /// Remembers a request some machine narrows responses to, and types a response
            /// by the remembered request it answers.
            #[allow(unused_variables)]
            fn answer(&mut self, kind: Kind, msg: &Message<'_>) -> Answer {
                match *msg {
                    #(#arms)*
                    _ => Answer::None,
                }
            }
        }
    })
}
