//! The generated crate's registry: one `agentwire_runtime::registry::Protocol` implementation
//! per module, built from the IR, and `protocols()` listing them all in module order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::Protocol;
use crate::naming::pascal_case;

/// `src/registry.rs` of a generated crate holding `protocols` (sorted by module name).
/// `transport_kind` names the `TransportKind` variant of a protocol (its transport plug-in's
/// registry fact); a protocol without one (types only: no roles, transport or messages to
/// register) is left out.
pub fn emit_registry(
    protocols: &[&Protocol],
    transport_kind: impl Fn(&Protocol) -> Option<agentwire_runtime::registry::TransportKind>,
) -> TokenStream {
    let kinds: Vec<(&Protocol, agentwire_runtime::registry::TransportKind)> = protocols
        .iter()
        .filter_map(|p| Some((*p, transport_kind(p)?)))
        .collect();
    let protocols: Vec<&Protocol> = kinds.iter().map(|(p, _)| *p).collect();
    let entries = kinds.iter().map(|(p, kind)| emit_entry(p, *kind));
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
) -> TokenStream {
    let module = &p.module;
    let module_ident = format_ident!("{module}");
    let name = format_ident!("{}", pascal_case(module));
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
    let doc = format!(" `{module}` ({title}) in the registry.");
    let (decode, checker, wrapper) = if p.machines.is_empty() {
        (quote!(None), quote!(None), TokenStream::new())
    } else {
        let wrapper = format_ident!("{name}Checker");
        let wrapper_doc = format!(" The `{module}` sequence checker behind `registry::Checker`.");
        (
            quote! {
                crate::#module_ident::machine::Recorded::decode(from, entry)
                    .map(|r| r.map(|m| Decoded::new(#module, m)))
            },
            quote!(Some(Box::new(#wrapper(crate::#module_ident::machine::Checker::new())))),
            quote! {
                #[doc = #wrapper_doc]
                #[cfg(feature = #module)]
                struct #wrapper(crate::#module_ident::machine::Checker);

                #[cfg(feature = #module)]
                impl Checker for #wrapper {
                    fn observe(&mut self, msg: &Decoded) -> Result<(), Violation> {
                        match msg.get::<crate::#module_ident::machine::Recorded>() {
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
    let surface = emit_surface(p);
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
fn emit_surface(p: &Protocol) -> TokenStream {
    let m = format_ident!("{}", p.module);
    let offers = crate::emit::module::offers(p);
    let response = offers.responses.then(|| {
        quote! {
            fn decode_response(&self, method: &str, json: &str) -> Option<Result<Value, Invalid>> {
                crate::#m::decode_response(method, json)
            }
        }
    });
    let schemars = offers.schemars.then(|| {
        quote! {
            #[cfg(feature = "schemars")]
            fn schemars_schema(&self, type_name: &str) -> Option<::schemars::Schema> {
                crate::#m::schemars_schema(type_name)
            }
        }
    });
    quote! {
        fn schema(&self) -> Option<&'static str> {
            Some(crate::#m::SCHEMA)
        }
        fn decode_message(&self, from: &str, json: &str) -> Option<Result<Value, Invalid>> {
            crate::#m::decode_message(from, json)
        }
        fn decode_type(&self, type_name: &str, json: &str) -> Option<Result<Value, Invalid>> {
            crate::#m::decode_type(type_name, json)
        }
        #response
        #schemars
    }
}
