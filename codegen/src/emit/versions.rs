//! The dispatching module of a folder with `versions:`: it declares one module per version
//! and offers the module surface with a `Version` first (`decode_message(version, ..)`), a
//! `machine` whose checker is the chosen version's, and the spec's `VERSION_SOURCE`, which
//! says where a stream names its version.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{Protocol, VersionInfo, VersionSource};
use crate::naming::version_variant;

/// `src/<module>.rs` of a versioned folder: `p` is the folder's IR, `versions` each version's
/// (newest first); `unstable`: the versions' unstable forms, each a module behind the
/// protocol's unstable feature; `shared`: the versions share types (`emit::shared`), so the
/// module declares the module holding them.
pub fn emit_dispatch(
    p: &Protocol,
    versions: &[&Protocol],
    unstable: &[&Protocol],
    shared: bool,
) -> TokenStream {
    let infos: Vec<&VersionInfo> = versions.iter().filter_map(|v| v.version.as_ref()).collect();
    let module = &p.module;
    let roles = &p.roles;
    let mods = infos.iter().map(|v| {
        let m = format_ident!("{}", v.module);
        let doc = format!(" Version `{}`.", v.name);
        quote!(#[doc = #doc] pub mod #m;)
    });
    let feature = crate::naming::unstable_feature(module);
    let unstable = unstable.iter().filter_map(|u| u.version.as_ref()).map(|v| {
        let m = format_ident!("{}", v.module);
        let doc = format!(
            " Version `{}` with its unstable methods and types (feature `{feature}`): a complete module of its own, which the dispatch below does not use.",
            v.name
        );
        quote!(#[doc = #doc] #[cfg(feature = #feature)] pub mod #m;)
    });
    let shared = shared.then(|| {
        let m = format_ident!("{}", crate::emit::shared::MODULE);
        quote! {
            /// The types every version defines alike, written once and re-exported by each.
            mod #m;
        }
    });
    let names = infos.iter().map(|v| &v.name);
    let source = source_tokens(p);
    let unsupported = p
        .versioning
        .as_ref()
        .and_then(|v| v.unsupported_code)
        .unwrap_or(DEFAULT_UNSUPPORTED_CODE);
    let version = emit_version_enum(&infos);
    let decode = emit_decoders(versions);
    let machine = emit_machine(&infos);
    quote! {
        #(#mods)*
        #(#unstable)*
        #shared

        use agentwire_runtime::serde_json::Value;
        use agentwire_runtime::Invalid;

        /// The protocol's module name.
        pub const MODULE: &str = #module;
        /// The roles that exchange messages.
        pub const ROLES: &[&str] = &[#(#roles),*];
        /// The declared versions as peers name them, newest first.
        pub const VERSIONS: &[&str] = &[#(#names),*];
        /// Where a stream names the version it speaks.
        pub const VERSION_SOURCE: agentwire_runtime::version::Source = #source;
        /// The JSON-RPC error code answering a request in a version this side does not
        /// speak (`version.unsupported_code`; JSON-RPC's "Invalid params" when the spec
        /// names none), its `data` being `{"supported": VERSIONS, "requested": ...}`.
        pub const VERSION_UNSUPPORTED_CODE: i64 = #unsupported;

        #version
        #decode
        #machine
    }
}

/// JSON-RPC's "Invalid params": the unsupported-version code of a spec that names none.
const DEFAULT_UNSUPPORTED_CODE: i64 = -32602;

/// `VERSION_SOURCE`'s value.
fn source_tokens(p: &Protocol) -> TokenStream {
    match p.versioning.as_ref().map(|v| &v.source) {
        Some(source) => one_source(source),
        None => quote!(compile_error!("a versioned module without `version:`")),
    }
}

/// The `agentwire_runtime::version::Source` value of `source`.
pub(crate) fn one_source(source: &VersionSource) -> TokenStream {
    match source {
        VersionSource::Handshake { method, member } => quote! {
            agentwire_runtime::version::Source::Handshake { method: #method, member: #member }
        },
        VersionSource::Meta { path } => quote! {
            agentwire_runtime::version::Source::Meta { path: &[#(#path),*] }
        },
        VersionSource::Header { name } => quote! {
            agentwire_runtime::version::Source::Header { name: #name }
        },
        VersionSource::Any(sources) => {
            let each = sources.iter().map(one_source);
            quote! { agentwire_runtime::version::Source::Any(&[#(#each),*]) }
        }
    }
}

/// The `Version` enum: one variant per declared version, newest first.
fn emit_version_enum(infos: &[&VersionInfo]) -> TokenStream {
    let variants: Vec<_> = infos
        .iter()
        .map(|v| format_ident!("{}", version_variant(&v.module)))
        .collect();
    let names: Vec<&String> = infos.iter().map(|v| &v.name).collect();
    let docs = names.iter().map(|n| format!(" `{n}`."));
    let newest = &variants[..1];
    quote! {
        /// A declared version.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Version {
            #(#[doc = #docs] #variants,)*
        }

        impl Version {
            /// Every declared version, newest first.
            pub const ALL: &[Version] = &[#(Version::#variants),*];
            /// The newest declared version.
            pub const NEWEST: Version = #(Version::#newest)*;

            /// The version peers name `version`; `None` for one the spec does not declare.
            pub fn parse(version: &str) -> Option<Version> {
                match version {
                    #(#names => Some(Version::#variants),)*
                    _ => None,
                }
            }

            /// The version as peers name it.
            pub fn as_str(self) -> &'static str {
                match self {
                    #(Version::#variants => #names,)*
                }
            }
        }

        impl std::fmt::Display for Version {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

/// `decode_message`, `decode_type` and `decode_response`, each taking the version first.
fn emit_decoders(versions: &[&Protocol]) -> TokenStream {
    let arms = |call: TokenStream, needs_methods: bool| {
        let arms = versions.iter().filter_map(|v| {
            let info = v.version.as_ref()?;
            let m = format_ident!("{}", info.module);
            let variant = format_ident!("{}", version_variant(&info.module));
            let body = if needs_methods && !crate::emit::module::offers(v).responses {
                quote!(None)
            } else {
                quote!(#m::#call)
            };
            Some(quote!(Version::#variant => #body,))
        });
        quote!(#(#arms)*)
    };
    let message = arms(quote!(decode_message(from, json)), false);
    let ty = arms(quote!(decode_type(type_name, json)), false);
    let response = arms(quote!(decode_response(method, json)), true);
    quote! {
        /// Decodes and validates one message `from` sends in `version`, returning it
        /// re-encoded; `None` when `from` sends nothing in that version.
        pub fn decode_message(version: Version, from: &str, json: &str) -> Option<Result<Value, Invalid>> {
            match version { #message }
        }

        /// Decodes and validates a value of the named type as `version` defines it; `None`
        /// for a name that version does not define.
        pub fn decode_type(version: Version, type_name: &str, json: &str) -> Option<Result<Value, Invalid>> {
            match version { #ty }
        }

        /// Decodes the result of a `method` request as `version` types it; `None` for a
        /// method that version does not have.
        #[allow(unused_variables)]
        pub fn decode_response(version: Version, method: &str, json: &str) -> Option<Result<Value, Invalid>> {
            match version { #response }
        }
    }
}

/// `machine`: a decoded trace entry and a checker, each of one version; a checker handed a
/// message of another version reports it rather than reading it.
fn emit_machine(infos: &[&VersionInfo]) -> TokenStream {
    let variants: Vec<_> = infos
        .iter()
        .map(|v| format_ident!("{}", version_variant(&v.module)))
        .collect();
    let mods: Vec<_> = infos
        .iter()
        .map(|v| format_ident!("{}", v.module))
        .collect();
    quote! {
        /// The sequence checkers of every version behind one type.
        pub mod machine {
            use super::Version;
            use agentwire_runtime::machine::{Problem, Violation};

            /// One decoded trace entry, of one version.
            #[derive(Debug, Clone)]
            pub enum Recorded {
                #(#variants(super::#mods::machine::Recorded),)*
            }

            impl Recorded {
                /// Decodes and validates one trace entry as `version` has it; `None` when
                /// `from` is not a sender there.
                pub fn decode(
                    version: Version,
                    from: &str,
                    entry: &agentwire_runtime::serde_json::Value,
                ) -> Option<Result<Self, agentwire_runtime::Invalid>> {
                    match version {
                        #(Version::#variants => super::#mods::machine::Recorded::decode(from, entry)
                            .map(|r| r.map(Recorded::#variants)),)*
                    }
                }

                /// The version the entry was decoded as.
                pub fn version(&self) -> Version {
                    match self {
                        #(Recorded::#variants(_) => Version::#variants,)*
                    }
                }
            }

            /// The checker of one version.
            #[derive(Debug)]
            pub enum Checker {
                #(#variants(super::#mods::machine::Checker),)*
            }

            impl Checker {
                /// A fresh checker of `version`.
                pub fn new(version: Version) -> Self {
                    match version {
                        #(Version::#variants => Checker::#variants(super::#mods::machine::Checker::new()),)*
                    }
                }

                /// The version this checker follows.
                pub fn version(&self) -> Version {
                    match self {
                        #(Checker::#variants(_) => Version::#variants,)*
                    }
                }

                /// Feeds the next message; one decoded as another version is a violation.
                pub fn observe(&mut self, msg: &Recorded) -> Result<(), Violation> {
                    match (self, msg) {
                        #((Checker::#variants(c), Recorded::#variants(m)) => c.observe(m.as_message()),)*
                        #[allow(unreachable_patterns)]
                        (c, m) => Err(Violation {
                            index: None,
                            machine: "version",
                            key: m.version().as_str().to_owned(),
                            state: c.version().as_str(),
                            got: None,
                            expected: &[],
                            problem: Problem::Check {
                                check: "the message was decoded as another version than the checker follows",
                                code: None,
                            },
                        }),
                    }
                }

                /// Ends the stream: every instance not in an accepting state is a violation.
                pub fn finish(self) -> Result<(), Vec<Violation>> {
                    match self {
                        #(Checker::#variants(c) => c.finish(),)*
                    }
                }

                /// Live instances across all machines.
                pub fn live_instances(&self) -> usize {
                    match self {
                        #(Checker::#variants(c) => c.live_instances(),)*
                    }
                }
            }
        }
    }
}
