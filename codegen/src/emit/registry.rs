//! The generated crate's registry: one `agentwire_runtime::registry::Protocol` implementation
//! per module, built from the IR, and `protocols()` listing them all in module order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::Protocol;
use crate::naming::pascal_case;

/// One protocol as the registry lists it: its IR and, for a folder with `versions:`, each
/// version's IR (newest first; empty otherwise).
pub struct Entry<'a> {
    pub protocol: &'a Protocol,
    pub versions: Vec<&'a Protocol>,
}

/// `src/registry.rs` of a generated crate holding `protocols` (sorted by module name).
/// `transport_kind` names the `TransportKind` variant of a protocol (its transport plug-in's
/// registry fact); a protocol without one (types only: no roles, transport or messages to
/// register) is left out.
pub fn emit_registry(
    protocols: &[Entry<'_>],
    transport_kind: impl Fn(&Protocol) -> Option<agentwire_runtime::registry::TransportKind>,
) -> TokenStream {
    let kinds: Vec<(&Entry<'_>, agentwire_runtime::registry::TransportKind)> = protocols
        .iter()
        .filter_map(|e| Some((e, transport_kind(e.protocol)?)))
        .collect();
    let protocols: Vec<&Protocol> = kinds.iter().map(|(e, _)| e.protocol).collect();
    let entries = kinds.iter().map(|(e, kind)| {
        if e.versions.is_empty() {
            let m = format_ident!("{}", e.protocol.module);
            let name = format_ident!("{}", pascal_case(&e.protocol.module));
            emit_entry(e.protocol, *kind, &quote!(crate::#m), &name)
        } else {
            emit_versioned(e, *kind)
        }
    });
    let names = protocols
        .iter()
        .map(|p| format_ident!("{}", pascal_case(&p.module)));
    let modules = protocols.iter().map(|p| &p.module);
    quote! {
        //! Every protocol of this crate behind one trait object, for tools that must not name them.
        //! Each entry exists when its protocol's feature is on.
        #![allow(unused_imports)]
        use agentwire_runtime::registry::{Checker, Decoded, Framing, Protocol, TransportKind};
        use agentwire_runtime::machine::Violation;
        use agentwire_runtime::serde_json::Value;
        use agentwire_runtime::Invalid;

        /// Every protocol of this crate, sorted by module name.
        pub fn protocols() -> &'static [&'static dyn Protocol] {
            &[#(#[cfg(feature = #modules)] &#names),*]
        }

        #(#entries)*
    }
}

/// The registry entry of one protocol: a unit struct implementing `Protocol`, plus a checker
/// wrapper when the spec has a `machine.yaml`.
fn emit_entry(
    p: &Protocol,
    registry_kind: agentwire_runtime::registry::TransportKind,
    path: &TokenStream,
    name: &proc_macro2::Ident,
) -> TokenStream {
    let module = &p.module;
    let title = &p.title;
    let roles = &p.roles;
    let transport = format_ident!("{registry_kind:?}");
    let framing = format_ident!(
        "{}",
        match p.transport.framing.as_str() {
            "content-length" => "ContentLength",
            "grpc" => "Grpc",
            "newline" => "Newline",
            _ => "JsonText",
        }
    );
    let doc = match &p.version {
        None => format!(" `{module}` ({title}) in the registry."),
        Some(v) => format!(
            " `{module}` ({title}) version `{}` in the registry.",
            v.name
        ),
    };
    let (decode, checker, wrapper) = if p.machines.is_empty() {
        (quote!(None), quote!(None), TokenStream::new())
    } else {
        let wrapper = format_ident!("{name}Checker");
        let wrapper_doc = format!(" The `{module}` sequence checker behind `registry::Checker`.");
        (
            quote! {
                #path::machine::Recorded::decode(from, entry)
                    .map(|r| r.map(|m| Decoded::new(#module, m)))
            },
            quote!(Some(Box::new(#wrapper(#path::machine::Checker::new())))),
            quote! {
                #[doc = #wrapper_doc]
                #[cfg(feature = #module)]
                struct #wrapper(#path::machine::Checker);

                #[cfg(feature = #module)]
                impl Checker for #wrapper {
                    fn observe(&mut self, msg: &Decoded) -> Result<(), Violation> {
                        match msg.get::<#path::machine::Recorded>() {
                            Some(m) => self.0.observe(m.as_message()),
                            None => Err(agentwire_runtime::registry::foreign(#module, msg)),
                        }
                    }
                    fn finish(self: Box<Self>) -> Result<(), Vec<Violation>> {
                        self.0.finish()
                    }
                    fn live_instances(&self) -> usize {
                        self.0.live_instances()
                    }
                }
            },
        )
    };
    let surface = emit_surface(p, path);
    let cfg = quote!(#[cfg(feature = #module)]);
    quote! {
        #[doc = #doc]
        #cfg
        #[derive(Debug, Clone, Copy)]
        pub struct #name;

        #cfg
        impl Protocol for #name {
            fn name(&self) -> &'static str {
                #module
            }
            fn title(&self) -> &'static str {
                #title
            }
            fn roles(&self) -> &'static [&'static str] {
                &[#(#roles),*]
            }
            fn transport(&self) -> TransportKind {
                TransportKind::#transport
            }
            fn framing(&self) -> Framing {
                Framing::#framing
            }
            #[allow(unused_variables)]
            fn decode(&self, from: &str, entry: &Value) -> Option<Result<Decoded, Invalid>> {
                #decode
            }
            fn checker(&self) -> Option<Box<dyn Checker>> {
                #checker
            }
            #surface
        }

        #wrapper
    }
}

/// The module's decoding surface behind the trait: `schema`, `decode_message`, `decode_type`,
/// and `decode_response` and `schemars_schema` where the module offers them.
fn emit_surface(p: &Protocol, m: &TokenStream) -> TokenStream {
    let offers = crate::emit::module::offers(p);
    let response = offers.responses.then(|| {
        quote! {
            fn decode_response(&self, method: &str, json: &str) -> Option<Result<Value, Invalid>> {
                #m::decode_response(method, json)
            }
        }
    });
    let schemars = offers.schemars.then(|| {
        quote! {
            #[cfg(feature = "schemars")]
            fn schemars_schema(&self, type_name: &str) -> Option<::schemars::Schema> {
                #m::schemars_schema(type_name)
            }
        }
    });
    quote! {
        fn schema(&self) -> Option<&'static str> {
            Some(#m::SCHEMA)
        }
        fn decode_message(&self, from: &str, json: &str) -> Option<Result<Value, Invalid>> {
            #m::decode_message(from, json)
        }
        fn decode_type(&self, type_name: &str, json: &str) -> Option<Result<Value, Invalid>> {
            #m::decode_type(type_name, json)
        }
        #response
        #schemars
    }
}

/// A folder with `versions:`: an entry per version (`TickV2` for version `2` of `tick`), and
/// the protocol's own entry, which lists them, says where a stream names its version, hands
/// out each version's entry and otherwise answers as the newest version.
fn emit_versioned(e: &Entry<'_>, kind: agentwire_runtime::registry::TransportKind) -> TokenStream {
    let p = e.protocol;
    let module = &p.module;
    let m = format_ident!("{module}");
    let name = format_ident!("{}", pascal_case(module));
    let cfg = quote!(#[cfg(feature = #module)]);
    let mut entries = Vec::new();
    let mut arms = Vec::new();
    let mut names = Vec::new();
    for v in &e.versions {
        let Some(info) = &v.version else { continue };
        let vm = format_ident!("{}", info.module);
        let vname = format_ident!("{}", pascal_case(&format!("{module}_{}", info.module)));
        entries.push(emit_entry(v, kind, &quote!(crate::#m::#vm), &vname));
        let version = &info.name;
        arms.push(quote!(#version => Some(&#vname),));
        names.push(version);
    }
    let newest = pascal_case(&format!(
        "{module}_{}",
        e.versions
            .first()
            .and_then(|v| v.version.as_ref())
            .map_or("", |v| v.module.as_str())
    ));
    let newest = format_ident!("{newest}");
    let title = &p.title;
    let doc =
        format!(" `{module}` ({title}) in the registry: every declared version, newest first.");
    quote! {
        #(#entries)*

        #[doc = #doc]
        #cfg
        #[derive(Debug, Clone, Copy)]
        pub struct #name;

        #cfg
        impl Protocol for #name {
            fn name(&self) -> &'static str { #module }
            fn title(&self) -> &'static str { #title }
            fn roles(&self) -> &'static [&'static str] { #newest.roles() }
            fn transport(&self) -> TransportKind { #newest.transport() }
            fn framing(&self) -> Framing { #newest.framing() }
            fn decode(&self, from: &str, entry: &Value) -> Option<Result<Decoded, Invalid>> {
                #newest.decode(from, entry)
            }
            fn checker(&self) -> Option<Box<dyn Checker>> { #newest.checker() }
            fn schema(&self) -> Option<&'static str> { #newest.schema() }
            fn decode_message(&self, from: &str, json: &str) -> Option<Result<Value, Invalid>> {
                #newest.decode_message(from, json)
            }
            fn decode_type(&self, type_name: &str, json: &str) -> Option<Result<Value, Invalid>> {
                #newest.decode_type(type_name, json)
            }
            fn decode_response(&self, method: &str, json: &str) -> Option<Result<Value, Invalid>> {
                #newest.decode_response(method, json)
            }
            #[cfg(feature = "schemars")]
            fn schemars_schema(&self, type_name: &str) -> Option<::schemars::Schema> {
                #newest.schemars_schema(type_name)
            }
            fn versions(&self) -> &'static [&'static str] {
                crate::#m::VERSIONS
            }
            fn version_source(&self) -> Option<agentwire_runtime::version::Source> {
                Some(crate::#m::VERSION_SOURCE)
            }
            fn version(&self, version: &str) -> Option<&'static dyn Protocol> {
                match version {
                    #(#arms)*
                    _ => None,
                }
            }
        }
    }
}
