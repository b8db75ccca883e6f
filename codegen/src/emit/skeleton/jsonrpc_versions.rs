//! Skeleton emitter for a JSON-RPC folder of several versions: each version's own skeleton
//! in a module of its own (`skeletons::<module>::<version>`), and above them the binding
//! that serves every version on one endpoint and connects in the version a handshake agrees
//! on.
//!
//! Thin binding over `agentwire_transport::jsonrpc::{ServeVersions, ConnectVersions}`, where
//! the choosing, the negotiation and the replay live: per role it emits a struct holding one
//! handler per version, the match from a chosen version to that version's generated entry
//! point, and an enum of the version handles a stream ends up with.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Call, Protocol};
use crate::naming::{pascal_case, type_ident, version_variant};

/// One version as the binding names it.
struct Each<'a> {
    p: &'a Protocol,
    /// Its module (`v2`), in the skeleton and in the protocol module.
    module: Ident,
    /// Its `Version` variant and handler type parameter (`V2`).
    variant: Ident,
    name: &'a str,
}

/// The skeleton module of `folder`, whose versions (newest first) each bring their own
/// skeleton; `None` unless every version has one and the roles are the same in each.
pub fn emit(folder: &Protocol, versions: &[(&Protocol, TokenStream)]) -> Option<TokenStream> {
    let (client, server) = super::jsonrpc::calling_and_answering(versions.first()?.0)?;
    let mut each = Vec::with_capacity(versions.len());
    let mut modules = TokenStream::new();
    let mut glob = TokenStream::new();
    for (p, tokens) in versions {
        if super::jsonrpc::calling_and_answering(p)? != (client, server) {
            return None;
        }
        let info = p.version.as_ref()?;
        let module = format_ident!("{}", info.module);
        // Its tokens open with the version's own module doc.
        modules.extend(quote!(pub mod #module { #tokens }));
        // `skeleton: true`: this version's items are also the folder's own, as before the
        // folder served several versions.
        if info.skeleton {
            glob.extend(quote!(pub use self::#module::*;));
        }
        each.push(Each {
            p,
            module,
            variant: format_ident!("{}", version_variant(&info.module)),
            name: &info.name,
        });
    }
    let protocol = format_ident!("{}", folder.module);
    let names: Vec<String> = each.iter().map(|e| format!("`{}`", e.name)).collect();
    let module_doc = format!(
        " Client and server skeletons of {}, every version: versions {} (newest first), each \
         in a module of its own, and [`{}Handlers`] serving them all on one endpoint{}. \
         Generated from `spec/{}`.",
        folder.title,
        names.join(", "),
        pascal_case(server),
        if folder.versioning.as_ref()?.source.handshake().is_some() {
            format!(
                ", [`{}Handlers`] connecting in the version the handshake agrees on",
                pascal_case(client)
            )
        } else {
            String::new()
        },
        folder.module
    );
    let handshake = folder.versioning.as_ref()?.source.handshake();
    let serving = emit_server(&protocol, server, &each, handshake.map(|(m, _)| m));
    let connecting = emit_client(folder, &protocol, client, &each).unwrap_or_default();
    Some(quote! {
        #![doc = #module_doc]
        #modules
        #glob
        #serving
        #connecting
    })
}

/// `pub struct <Role>Handlers<V..> { pub v..: Arc<V..> }`, `Clone`.
fn handlers_struct(role: &str, name: &Ident, each: &[Each<'_>], doc: &str) -> TokenStream {
    let params: Vec<&Ident> = each.iter().map(|e| &e.variant).collect();
    let fields = each.iter().map(|e| {
        let (m, v) = (&e.module, &e.variant);
        let doc = format!(" The `{role}` of version `{}` streams.", e.name);
        quote!(#[doc = #doc] pub #m: ::std::sync::Arc<#v>,)
    });
    let clones = each.iter().map(|e| {
        let m = &e.module;
        quote!(#m: ::std::sync::Arc::clone(&self.#m),)
    });
    quote! {
        #[doc = #doc]
        pub struct #name<#(#params),*> {
            #(#fields)*
        }

        impl<#(#params),*> Clone for #name<#(#params),*> {
            fn clone(&self) -> Self {
                Self { #(#clones)* }
            }
        }
    }
}

/// `Negotiated<Role>`: one variant per version, holding what `hold` says.
fn negotiated_enum(
    protocol: &Ident,
    name: &Ident,
    each: &[Each<'_>],
    doc: &str,
    hold: impl Fn(&Each<'_>) -> TokenStream,
) -> TokenStream {
    let variants = each.iter().map(|e| {
        let (v, held) = (&e.variant, hold(e));
        let doc = format!(" Version `{}`.", e.name);
        quote!(#[doc = #doc] #v(#held),)
    });
    let arms = each.iter().map(|e| {
        let v = &e.variant;
        quote!(Self::#v(_) => crate::#protocol::Version::#v,)
    });
    quote! {
        #[doc = #doc]
        #[derive(Debug)]
        pub enum #name {
            #(#variants)*
        }

        impl #name {
            /// The version the stream speaks.
            pub fn version(&self) -> crate::#protocol::Version {
                match self {
                    #(#arms)*
                }
            }
        }
    }
}

/// The match from a chosen version's index to `arm` for it (the oldest takes the rest).
fn by_index(each: &[Each<'_>], arm: impl Fn(&Each<'_>) -> TokenStream) -> TokenStream {
    let last = each.len() - 1;
    let arms = each.iter().enumerate().map(|(i, e)| {
        let body = arm(e);
        if i == last {
            quote!(_ => #body,)
        } else {
            quote!(#i => #body,)
        }
    });
    quote!(#(#arms)*)
}

/// Names the answering role's items.
fn emit_server(
    protocol: &Ident,
    server: &str,
    each: &[Each<'_>],
    handshake: Option<&str>,
) -> TokenStream {
    let role = pascal_case(server);
    let handlers = format_ident!("{role}Handlers");
    let negotiated = format_ident!("Negotiated{role}");
    let side = format_ident!("{role}Side");
    let handler = format_ident!("{role}Handler");
    let sender = format_ident!("{role}Sender");
    let params: Vec<&Ident> = each.iter().map(|e| &e.variant).collect();
    let bounds = each.iter().map(|e| {
        let (m, v) = (&e.module, &e.variant);
        quote!(#v: #m::#handler)
    });
    let bounds = quote!(#(#bounds),*);
    let newest = &each[0].module;
    let doc = format!(
        " The `{server}` of every version on one endpoint: one handler per version. A stream \
         is served as the version its first message offers or names (one offering a version \
         not declared, as the newest, whose answer names its own version; a request naming \
         one is answered with the supported versions), with that version's handler, types \
         and sequence checker. Over Streamable HTTP, \
         `agentwire_transport::jsonrpc::serve_versions_http(Arc::new(handlers), listener, \
         ServerConfig::new(STREAMABLE_HTTP), config)` serves every version on one endpoint."
    );
    let strukt = handlers_struct(server, &handlers, each, &doc);
    let enum_doc = format!(" The `{server}`'s handle on a stream, in the version it speaks.");
    let negotiated_items = negotiated_enum(protocol, &negotiated, each, &enum_doc, |e| {
        let m = &e.module;
        quote!(#m::#sender)
    });
    let arms = by_index(each, |e| {
        let (m, v) = (&e.module, &e.variant);
        quote! {{
            let (handle, connection) = agentwire_transport::jsonrpc::Server::<#m::#side>::serve_opened(
                ::std::sync::Arc::clone(&self.#m), opening, writer, config);
            (#negotiated::#v(handle), connection)
        }}
    });
    let message_arms = by_index(each, |e| {
        let (m, v) = (&e.module, &e.variant);
        quote! {{
            let (handle, link, connection) = agentwire_transport::jsonrpc::Server::<#m::#side>::serve_messages(
                ::std::sync::Arc::clone(&self.#m),
                agentwire_transport::jsonrpc::CancellationToken::new(),
                config,
            );
            (#negotiated::#v(handle), link, connection)
        }}
    });
    // Versions without the handshake request (an era naming its version on every message)
    // cannot answer an offer: the transport serves one as the newest version that can.
    let without: Vec<&str> = handshake
        .map(|method| {
            each.iter()
                .filter(|e| !e.p.methods.iter().any(|m| m.name == method))
                .map(|e| e.name)
                .collect()
        })
        .unwrap_or_default();
    let without = (!without.is_empty())
        .then(|| quote!(const WITHOUT_HANDSHAKE: &'static [&'static str] = &[#(#without),*];));
    quote! {
        #strukt
        #negotiated_items

        impl<#bounds> agentwire_transport::jsonrpc::ServeVersions for #handlers<#(#params),*> {
            const VERSIONS: &'static [&'static str] = crate::#protocol::VERSIONS;
            const SOURCE: agentwire_runtime::version::Source = crate::#protocol::VERSION_SOURCE;
            const FRAMING: agentwire_transport::jsonrpc::Framing =
                <#newest::#side as agentwire_transport::jsonrpc::Side>::FRAMING;
            const UNSUPPORTED_CODE: i64 = crate::#protocol::VERSION_UNSUPPORTED_CODE;
            #without
            type Served = #negotiated;

            fn serve_opened<R, W>(
                &self,
                opening: agentwire_transport::jsonrpc::Opening<R>,
                writer: W,
                config: agentwire_transport::jsonrpc::Config,
            ) -> (#negotiated, agentwire_transport::jsonrpc::Connection)
            where
                R: agentwire_transport::tokio::io::AsyncRead + Send + Unpin + 'static,
                W: agentwire_transport::tokio::io::AsyncWrite + Send + Unpin + 'static,
            {
                match opening.index() {
                    #arms
                }
            }

            fn serve_messages_as(
                &self,
                index: usize,
                config: agentwire_transport::jsonrpc::Config,
            ) -> (#negotiated, agentwire_transport::jsonrpc::MessageLink, agentwire_transport::jsonrpc::Connection) {
                match index {
                    #message_arms
                }
            }
        }

        impl<#bounds> #handlers<#(#params),*> {
            /// Serves one stream over `reader`/`writer` in the version its first message
            /// chooses; waits for that message.
            pub async fn serve<R, W>(
                &self,
                reader: R,
                writer: W,
                config: agentwire_transport::jsonrpc::Config,
            ) -> ::std::io::Result<(#negotiated, agentwire_transport::jsonrpc::Connection)>
            where
                R: agentwire_transport::tokio::io::AsyncRead + Send + Unpin + 'static,
                W: agentwire_transport::tokio::io::AsyncWrite + Send + Unpin + 'static,
            {
                agentwire_transport::jsonrpc::serve_versions(self, reader, writer, config).await
            }

            /// Serves one stream on this process's stdin and stdout, until it ends.
            pub async fn serve_stdio(
                &self,
                config: agentwire_transport::jsonrpc::Config,
            ) -> ::std::io::Result<()> {
                agentwire_transport::jsonrpc::serve_versions_stdio(self, config).await
            }
        }
    }
}

/// The handshake's params type in the newest version and its result type in each, when
/// every version opens with the same handshake, sent by `client`.
fn handshake_types(
    folder: &Protocol,
    client: &str,
    each: &[Each<'_>],
) -> Option<(TokenStream, Vec<TokenStream>)> {
    let (method, _) = folder.versioning.as_ref()?.source.handshake()?;
    let protocol = format_ident!("{}", folder.module);
    let mut offer = None;
    let mut results = Vec::new();
    for e in each {
        let m =
            e.p.methods
                .iter()
                .find(|m| m.name == method && m.call == Call::Request && m.sent_by(client))?;
        let module = &e.module;
        let result = type_ident(m.result.as_ref()?);
        results.push(quote!(crate::#protocol::#module::#result));
        if offer.is_none() {
            let params = type_ident(m.params.as_ref()?);
            let params = quote!(crate::#protocol::#module::#params);
            offer = Some(if m.params_optional {
                quote!(Option<#params>)
            } else {
                params
            });
        }
    }
    Some((offer?, results))
}

/// The calling role's items, when the versions open with a handshake it sends.
fn emit_client(
    folder: &Protocol,
    protocol: &Ident,
    client: &str,
    each: &[Each<'_>],
) -> Option<TokenStream> {
    let (offer, results) = handshake_types(folder, client, each)?;
    let role = pascal_case(client);
    let handlers = format_ident!("{role}Handlers");
    let negotiated = format_ident!("Negotiated{role}");
    let side = format_ident!("{role}Side");
    let handler = format_ident!("{role}Handler");
    let params: Vec<&Ident> = each.iter().map(|e| &e.variant).collect();
    let bounds = each.iter().map(|e| {
        let (m, v) = (&e.module, &e.variant);
        quote!(#v: #m::#handler)
    });
    let bounds = quote!(#(#bounds),*);
    let newest = &each[0].module;
    let doc = format!(
        " The `{client}` of every version: one handler per version for the requests the \
         other side sends. It offers the newest version in the handshake and runs as the \
         version the answer agrees on; an answer agreeing on none it speaks closes the \
         stream with `VersionError::Unsupported`."
    );
    let strukt = handlers_struct(client, &handlers, each, &doc);
    let enum_doc = format!(
        " The `{client}`'s connection in the version its handshake agreed on: the handle, \
         the other side's notifications and the handshake's typed result."
    );
    let result_of = |e: &Each<'_>| {
        let i = each.iter().position(|x| x.name == e.name).unwrap_or(0);
        results[i].clone()
    };
    let negotiated_items = negotiated_enum(protocol, &negotiated, each, &enum_doc, |e| {
        let (m, result) = (&e.module, result_of(e));
        quote!(agentwire_transport::jsonrpc::Opened<#m::#side, #result>)
    });
    let arms = by_index(each, |e| {
        let (m, v, result) = (&e.module, &e.variant, result_of(e));
        quote! {{
            let (opened, connection) = agentwire_transport::jsonrpc::Handle::<#m::#side>::connect_agreed::<_, #result, _, _>(
                ::std::sync::Arc::clone(&self.#m), agreed, writer, config)?;
            Ok((#negotiated::#v(opened), connection))
        }}
    });
    let none = each.iter().map(|e| {
        let m = &e.module;
        quote!(#m: ::std::sync::Arc::new(agentwire_transport::jsonrpc::NoRequests),)
    });
    let no_requests = each
        .iter()
        .map(|_| quote!(agentwire_transport::jsonrpc::NoRequests));
    Some(quote! {
        #strukt
        #negotiated_items

        impl #handlers<#(#no_requests),*> {
            /// Handlers answering every request of the other side "method not found".
            pub fn none() -> Self {
                Self { #(#none)* }
            }
        }

        impl<#bounds> agentwire_transport::jsonrpc::ConnectVersions for #handlers<#(#params),*> {
            const VERSIONS: &'static [&'static str] = crate::#protocol::VERSIONS;
            const SOURCE: agentwire_runtime::version::Source = crate::#protocol::VERSION_SOURCE;
            const FRAMING: agentwire_transport::jsonrpc::Framing =
                <#newest::#side as agentwire_transport::jsonrpc::Side>::FRAMING;
            type Offer = #offer;
            type Connected = #negotiated;

            fn connect_agreed<R, W>(
                &self,
                agreed: agentwire_transport::jsonrpc::Agreed<R>,
                writer: W,
                config: agentwire_transport::jsonrpc::Config,
            ) -> Result<(#negotiated, agentwire_transport::jsonrpc::Connection), agentwire_transport::jsonrpc::VersionError>
            where
                R: agentwire_transport::tokio::io::AsyncRead + Send + Unpin + 'static,
                W: agentwire_transport::tokio::io::AsyncWrite + Send + Unpin + 'static,
            {
                match agreed.index() {
                    #arms
                }
            }
        }

        impl<#bounds> #handlers<#(#params),*> {
            /// Opens a connection over `reader`/`writer`: the handshake offers `offer` (the
            /// newest version's params), and the connection runs as the version its answer
            /// agrees on.
            pub async fn connect<R, W>(
                &self,
                reader: R,
                writer: W,
                offer: #offer,
                config: agentwire_transport::jsonrpc::Config,
            ) -> Result<(#negotiated, agentwire_transport::jsonrpc::Connection), agentwire_transport::jsonrpc::VersionError>
            where
                R: agentwire_transport::tokio::io::AsyncRead + Send + Unpin + 'static,
                W: agentwire_transport::tokio::io::AsyncWrite + Send + Unpin + 'static,
            {
                agentwire_transport::jsonrpc::connect_versions(self, reader, writer, offer, config).await
            }

            /// Starts `command` as the other side on its stdin and stdout and connects to it
            /// as [`Self::connect`] does; the child is killed when dropped.
            pub async fn spawn(
                &self,
                command: agentwire_transport::tokio::process::Command,
                offer: #offer,
                config: agentwire_transport::jsonrpc::Config,
            ) -> Result<
                (#negotiated, agentwire_transport::jsonrpc::Connection, agentwire_transport::tokio::process::Child),
                agentwire_transport::jsonrpc::VersionError,
            > {
                agentwire_transport::jsonrpc::spawn_versions(self, command, offer, config).await
            }
        }
    })
}
