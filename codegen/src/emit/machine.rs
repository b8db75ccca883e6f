//! Checker emitter: compiles a protocol's machines into a `Checker` with one `match` per
//! machine over its states and the message kinds, reading fields through the typed messages.

use std::collections::BTreeMap;

use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Action, Condition, Literal, Machine, MemoryKind, Operator, Protocol, Subject};
use crate::machine::model::{KindInfo, Model, SourceKind};
use crate::naming::pascal_case;

/// Field reads shared by all machines: one function per (kind, path).
struct Reads<'m> {
    model: &'m Model<'m>,
    fns: BTreeMap<(String, String), (Ident, TokenStream)>,
}

impl Reads<'_> {
    /// A call `read_N(msg)` returning the field; `Err` if the kind has no such path.
    fn call(&mut self, kind: &KindInfo, path: &str) -> Result<TokenStream, String> {
        let key = (kind.label(), path.to_owned());
        let n = self.fns.len();
        if !self.fns.contains_key(&key) {
            let body = self.model.field(kind, path)?;
            let name = format_ident!("read_{n}");
            let pattern = &kind.pattern;
            let doc = format!(" `{path}` of `{}`.", kind.label());
            self.fns.insert(
                key.clone(),
                (
                    name.clone(),
                    quote! {
                        #[doc = #doc]
                        #[allow(unused_variables, clippy::match_single_binding)]
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
pub fn emit_checker(p: &Protocol, model: &Model<'_>) -> Result<TokenStream, String> {
    let mut reads = Reads {
        model,
        fns: BTreeMap::new(),
    };
    let kind_variants: Vec<&Ident> = model.kinds.iter().map(|k| &k.variant).collect();
    let kind_labels: Vec<String> = model.kinds.iter().map(KindInfo::label).collect();
    let kind_arms = model.kinds.iter().map(|k| {
        let pattern = &k.pattern;
        let v = &k.variant;
        quote!(#pattern => Some(Kind::#v),)
    });
    // JSON-RPC and protobuf types can hold messages no kind names (an unset oneof, a response
    // from a side that never receives requests); decoding rejects them, the checker skips them.
    let kind_fallback = match model.source_kind {
        SourceKind::Json => TokenStream::new(),
        SourceKind::JsonRpc | SourceKind::Proto => quote!(_ => None,),
    };
    let sources = model.sources.iter().map(|(v, ty)| quote!(#v(&'a #ty),));
    let recorded = emit_recorded(model);
    let mut machine_items = Vec::new();
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut steps = Vec::new();
    let mut finishes = Vec::new();
    for m in &p.machines {
        let items = emit_machine(m, model, &mut reads)?;
        machine_items.push(items);
        let field = format_ident!("{}", m.name);
        let inst = format_ident!("{}MachineInstance", pascal_case(&m.name));
        let step = format_ident!("step_{}", m.name);
        fields.push(quote!(#field: agentwire_runtime::machine::Instances<#inst>,));
        inits.push(match m.key {
            None => quote!(#field: agentwire_runtime::machine::Instances::per_stream(),),
            Some(_) => quote!(#field: agentwire_runtime::machine::Instances::keyed(),),
        });
        steps.push(quote!(self.#step(index, kind, msg)?;));
        let name = &m.name;
        let state_ty = format_ident!("{}MachineState", pascal_case(&m.name));
        finishes.push(quote! {
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
    let read_fns = reads.fns.values().map(|(_, body)| body);
    let field_names: Vec<Ident> = p
        .machines
        .iter()
        .map(|m| format_ident!("{}", m.name))
        .collect();
    Ok(quote! {
        //! The sequence checker of this protocol, compiled from its `machine.yaml`.

        #[allow(unused_imports)]
        use super::*;

        /// A message as the checker sees it: who sent it, and the typed message.
        #[derive(Debug, Clone, Copy)]
        pub enum Message<'a> { #(#sources)* }

        /// Every `role.kind` of the protocol.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Kind { #(#kind_variants,)* }

        impl Kind {
            /// `role.kind`, as violations and traces name it.
            pub fn label(self) -> &'static str {
                match self { #(Kind::#kind_variants => #kind_labels,)* }
            }
        }

        /// The kind of a message (`None` for a message no kind describes).
        #[allow(unused_variables)]
        pub fn kind_of(msg: &Message<'_>) -> Option<Kind> {
            match *msg { #(#kind_arms)* #kind_fallback }
        }

        #recorded

        #(#read_fns)*

        #(#machine_items)*

        /// Checks a stream of messages against every machine of the protocol. Instances that
        /// reach a final state are dropped; each machine holds at most `limits.max_instances`.
        #[derive(Debug)]
        pub struct Checker {
            index: usize,
            limits: agentwire_runtime::machine::Limits,
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
                Self { index: 0, limits, #(#inits)* }
            }

            /// Feeds the next message of the stream; a violation leaves the state unchanged.
            pub fn observe(&mut self, msg: Message<'_>) -> Result<(), agentwire_runtime::machine::Violation> {
                let index = self.index;
                self.index += 1;
                let Some(kind) = kind_of(&msg) else { return Ok(()) };
                let msg = &msg;
                #(#steps)*
                Ok(())
            }

            /// Ends the stream: every instance not in an accepting state is a violation.
            pub fn finish(self) -> Result<(), Vec<agentwire_runtime::machine::Violation>> {
                let mut violations = Vec::new();
                #(#finishes)*
                if violations.is_empty() { Ok(()) } else { Err(violations) }
            }

            /// Live instances across all machines (for memory accounting).
            pub fn live_instances(&self) -> usize {
                #(self.#field_names.len())+*
            }
        }
    })
}

/// `Recorded`: an owned, decoded message of any sender, as a trace line holds it.
fn emit_recorded(model: &Model<'_>) -> TokenStream {
    let variants = model.sources.iter().map(|(v, ty)| quote!(#v(#ty),));
    let as_message = model
        .sources
        .iter()
        .map(|(v, _)| quote!(Recorded::#v(m) => Message::#v(m),));
    // HTTP lines are recognised by their `http` member before any sender's messages.
    let mut ordered: Vec<_> = model.source_roles.iter().zip(&model.sources).collect();
    ordered.sort_by_key(|((_, role), _)| role.is_some());
    let decoders = ordered.into_iter().map(|((v, role), (_, ty))| {
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
    quote! {
        /// One decoded message of the stream, owned; what a trace line holds.
        #[derive(Debug, Clone)]
        pub enum Recorded { #(#variants)* }

        impl Recorded {
            /// The checker's view of the message.
            pub fn as_message(&self) -> Message<'_> {
                match self { #(#as_message)* }
            }

            /// Decodes and validates one trace entry (`{"from": role, "message": ...}`, or
            /// `{"from": role, "http": {...}}`); `None` when `from` is not a sender here.
            pub fn decode(
                from: &str,
                entry: &agentwire_runtime::serde_json::Value,
            ) -> Option<Result<Self, agentwire_runtime::Invalid>> {
                #(#decoders)*
                None
            }
        }
    }
}

fn emit_machine(
    m: &Machine,
    model: &Model<'_>,
    reads: &mut Reads<'_>,
) -> Result<TokenStream, String> {
    let pascal = pascal_case(&m.name);
    let state_ty = format_ident!("{pascal}MachineState");
    let inst_ty = format_ident!("{pascal}MachineInstance");
    let step = format_ident!("step_{}", m.name);
    let field = format_ident!("{}", m.name);
    let name = &m.name;
    let state_idents: Vec<Ident> = m
        .states
        .iter()
        .map(|s| format_ident!("{}", pascal_case(s)))
        .collect();
    let state_names = &m.states;
    let initial = format_ident!("{}", pascal_case(&m.initial));
    let accepting: Vec<Ident> = m
        .accepting
        .iter()
        .map(|s| format_ident!("{}", pascal_case(s)))
        .collect();
    let finals: Vec<Ident> = m
        .finals
        .iter()
        .map(|s| format_ident!("{}", pascal_case(s)))
        .collect();
    // What each state allows, for violation messages.
    let expected_arms = m.states.iter().zip(&state_idents).map(|(s, ident)| {
        let mut labels: Vec<String> = Vec::new();
        for t in &m.transitions {
            if t.from.as_ref().is_none_or(|f| f.contains(s)) {
                for k in model.kinds_of(&t.on) {
                    let l = k.label();
                    if !labels.contains(&l) {
                        labels.push(l);
                    }
                }
            }
        }
        quote!(#state_ty::#ident => &[#(#labels),*],)
    });
    let memory_fields = m.memory.iter().map(|(n, k)| {
        let ident = format_ident!("{n}");
        match k {
            MemoryKind::Value => quote!(#ident: Option<agentwire_runtime::machine::Stored>,),
            MemoryKind::Set => quote!(#ident: ::std::collections::BTreeSet<String>,),
        }
    });
    // Key extraction.
    let key_expr = match &m.key {
        None => quote!(let key = ::std::borrow::Cow::Borrowed("connection");),
        Some(rules) => {
            let mut arms = Vec::new();
            for r in rules {
                for k in model.kinds_of(&r.on) {
                    let read = reads.call(k, &r.field)?;
                    let v = &k.variant;
                    if r.guard.is_empty() {
                        arms.push(quote!(Kind::#v => #read.key(),));
                    } else {
                        let guard = conditions(&r.guard, k, reads, m)?;
                        arms.push(quote!(Kind::#v if #guard => #read.key(),));
                    }
                }
            }
            let covered: std::collections::BTreeSet<String> = rules
                .iter()
                .filter(|r| r.guard.is_empty())
                .flat_map(|r| model.kinds_of(&r.on))
                .map(KindInfo::label)
                .collect();
            let fallback = if covered.len() == model.kinds.len() {
                TokenStream::new()
            } else {
                quote!(_ => None,)
            };
            quote! {
                let Some(key) = (match kind { #(#arms)* #fallback }) else { return Ok(()) };
            }
        }
    };
    // Transitions, in order.
    let mut branches = Vec::new();
    for t in &m.transitions {
        let from = match &t.from {
            None => TokenStream::new(),
            Some(states) => {
                let ids = states.iter().map(|s| format_ident!("{}", pascal_case(s)));
                quote!(matches!(state, #(#state_ty::#ids)|*) &&)
            }
        };
        for k in model.kinds_of(&t.on) {
            let v = &k.variant;
            let guard = if t.guard.is_empty() {
                TokenStream::new()
            } else {
                let g = conditions(&t.guard, k, reads, m)?;
                quote!(&& #g)
            };
            // A check that a field extends a memory, with an action storing that same field
            // into it (streamed text), compiles to one pass: compare the remembered prefix and
            // append only the new tail. It runs after the other checks, so a failing message
            // never changes the memory.
            let fused: Vec<(usize, usize)> = t
                .check
                .iter()
                .enumerate()
                .filter_map(|(ci, c)| match (&c.subject, &c.op) {
                    (Subject::Field(f), Operator::Extends(mem)) => t
                        .actions
                        .iter()
                        .position(|a| matches!(a, Action::Set { memory, field } if memory == mem && field == f))
                        .map(|ai| (ci, ai)),
                    _ => None,
                })
                .collect();
            let mut checks = Vec::new();
            for (ci, c) in t.check.iter().enumerate() {
                if fused.iter().any(|(x, _)| *x == ci) {
                    continue;
                }
                let failed = negated(c, k, reads, m)?;
                let text = &c.text;
                checks.push(quote! {
                    if #failed {
                        break 'pick Err(agentwire_runtime::machine::Problem::Check(#text));
                    }
                });
            }
            for (ci, ai) in &fused {
                let c = &t.check[*ci];
                let Action::Set { memory, field } = &t.actions[*ai] else {
                    unreachable!("paired with a set action above")
                };
                let read = reads.call(k, field)?;
                let ident = format_ident!("{memory}");
                let text = &c.text;
                checks.push(quote! {
                    if !#read.extend_into(&mut inst.#ident) {
                        break 'pick Err(agentwire_runtime::machine::Problem::Check(#text));
                    }
                });
            }
            let mut actions = Vec::new();
            for (ai, a) in t.actions.iter().enumerate() {
                if fused.iter().any(|(_, x)| *x == ai) {
                    continue;
                }
                actions.push(action(a, k, reads)?);
            }
            let to = match &t.to {
                Some(s) => {
                    let s = format_ident!("{}", pascal_case(s));
                    quote!(#state_ty::#s)
                }
                None => quote!(state),
            };
            branches.push(quote! {
                if #from kind == Kind::#v #guard {
                    #(#checks)*
                    #(#actions)*
                    break 'pick Ok(#to);
                }
            });
        }
    }
    let accepting_pat = if accepting.is_empty() {
        quote!(false)
    } else {
        quote!(matches!(self, #(#state_ty::#accepting)|*))
    };
    let final_pat = if finals.is_empty() {
        quote!(false)
    } else {
        quote!(matches!(self, #(#state_ty::#finals)|*))
    };
    let memory_inits = m.memory.iter().map(|(n, k)| {
        let ident = format_ident!("{n}");
        match k {
            MemoryKind::Value => quote!(#ident: None,),
            MemoryKind::Set => quote!(#ident: ::std::collections::BTreeSet::new(),),
        }
    });
    let doc = format!(" States of the `{name}` machine.");
    let inst_doc = format!(" One live instance of the `{name}` machine.");
    Ok(quote! {
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

        #[doc = #inst_doc]
        #[derive(Debug, Clone)]
        pub struct #inst_ty {
            state: #state_ty,
            #(#memory_fields)*
        }

        impl Checker {
            #[allow(unused_variables, unused_mut, clippy::needless_late_init)]
            fn #step(&mut self, index: usize, kind: Kind, msg: &Message<'_>) -> Result<(), agentwire_runtime::machine::Violation> {
                #key_expr
                let existed = self.#field.contains(key.as_ref());
                if !existed {
                    if self.#field.len() >= self.limits.max_instances {
                        return Err(agentwire_runtime::machine::Violation {
                            index: Some(index),
                            machine: #name,
                            key: key.into_owned(),
                            state: #state_ty::#initial.name(),
                            got: Some(kind.label()),
                            expected: #state_ty::#initial.expected(),
                            problem: agentwire_runtime::machine::Problem::TooManyInstances(self.limits.max_instances),
                        });
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
                        self.#field.remove(key.as_ref());
                        Ok(())
                    }
                    Ok(next) => {
                        inst.state = next;
                        Ok(())
                    }
                    Err(problem) => {
                        // A message that could not start an instance leaves none behind.
                        if !existed {
                            self.#field.remove(key.as_ref());
                        }
                        Err(agentwire_runtime::machine::Violation {
                            index: Some(index),
                            machine: #name,
                            key: key.into_owned(),
                            state: state.name(),
                            got: Some(kind.label()),
                            expected: state.expected(),
                            problem,
                        })
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

fn action(a: &Action, k: &KindInfo, reads: &mut Reads<'_>) -> Result<TokenStream, String> {
    Ok(match a {
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
