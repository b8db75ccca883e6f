//! The protobuf emitter: prost message types (a gRPC protocol's services are its skeleton's), proto3 JSON via
//! pbjson (proto field names kept, as the protocol documents write them), and
//! `agentwire_runtime::Validate` impls built from the spec's constraint tags.
//!
//! Output is one module folder:
//!
//! | file | contents |
//! |---|---|
//! | `mod.rs` | module doc, the parts, `pub use types::*` |
//! | `types.rs` | prost messages and enums |
//! | `json.rs` | pbjson `Serialize`/`Deserialize` impls |
//! | `validate.rs` | `Validate` impls, and `KINDS`/`kind`/`from_json`/`to_json` on the stream wrappers |
//!
//! `mod.rs` also carries the surface every module has (`MODULE`, `ROLES`, `SCHEMA`,
//! `decode_type`, `decode_message`), and `pub mod machine;` (the checker).
//!
//! Everything runs in memory; nothing is written to disk.

#[cfg(feature = "proto")]
use std::collections::BTreeMap;

use proc_macro2::TokenStream;
#[cfg(feature = "proto")]
use prost::Message as _;
use quote::quote;

use crate::diag::{SpecError, SpecErrors};
use crate::emit::validate::Validators;
use crate::front::proto::ProtoSpec;
use crate::ir::{Protocol, TypeKind};
use crate::naming::{prost_field, prost_path, prost_variant};

/// Generates the module of `p`, a protocol whose types come from `spec`. Returns `(path
/// relative to the module folder, source)` pairs in a fixed order, each formatted and without
/// the `@generated` header line. Only the prost/tonic/pbjson pass reads the descriptors;
/// validators, the stream wrappers' API and the module surface come from the IR.
pub fn emit_proto(p: &Protocol, spec: &ProtoSpec) -> Result<Vec<(String, String)>, SpecErrors> {
    let package = p
        .proto_package
        .clone()
        .ok_or_else(|| SpecError::new("a protobuf module needs its package (a generator bug)"))?;
    let types = prost_types_source(spec, &package)?;
    let json = pbjson_source(spec)?;
    let validate = format_tokens(validate_tokens(p))?;
    let doc = format!(
        " The `{}` protocol, generated from `spec/{}/{}`: message types with a gRPC \
         client and server (`types.rs`), proto3 JSON with the proto field names (`json.rs`) and \
         the spec's constraints (`validate.rs`).",
        p.module, p.module, spec.file
    );
    let (consts, dynamic) = crate::emit::module::emit_surface(p);
    // Every module with a transport has a checker; without machines it accepts every message.
    let machine = crate::emit::module::machine_mod(p);
    let mod_rs = quote! {
        #![doc = #doc]
        mod json;
        mod types;
        mod validate;
        pub use types::*;
        #consts
        #dynamic
        #machine
    };
    Ok(vec![
        ("mod.rs".to_owned(), format_tokens(mod_rs)?),
        ("types.rs".to_owned(), types),
        ("json.rs".to_owned(), json),
        ("validate.rs".to_owned(), validate),
    ])
}

#[cfg(feature = "proto")]
fn format_source(what: &str, source: &str) -> Result<String, SpecErrors> {
    let file = syn::parse_file(source).map_err(|e| {
        SpecError::new(format!(
            "generated {what} does not parse as Rust: {e} (a generator bug)"
        ))
    })?;
    Ok(prettyplease::unparse(&file))
}

fn format_tokens(tokens: TokenStream) -> Result<String, SpecErrors> {
    let file: syn::File = syn::parse2(tokens).map_err(|e| {
        SpecError::new(format!(
            "generated code does not parse as Rust: {e} (a generator bug)"
        ))
    })?;
    Ok(prettyplease::unparse(&file))
}

// ---------------------------------------------------------------------------------------------
// prost + tonic
// ---------------------------------------------------------------------------------------------

/// Places each package's code: with one package, at the top of the file as it is; with
/// several, in nested modules named after the package's parts (`google.rpc` is
/// `google::rpc`), so the relative paths prost and pbjson write between packages resolve,
/// and the main package re-exported at the top (its types keep their short paths).
/// `prelude(depth)` is put at the top of each package module `depth` levels down.
#[cfg(feature = "proto")]
fn nest_packages(
    code: BTreeMap<Vec<String>, String>,
    main: &[String],
    prelude: impl Fn(&[String]) -> String,
    top_reexport: bool,
) -> String {
    if code.len() == 1 {
        return code.into_values().collect();
    }
    #[derive(Default)]
    struct Node {
        code: String,
        children: BTreeMap<String, Node>,
    }
    let mut root = Node::default();
    for (path, text) in code {
        let mut node = &mut root;
        for part in &path {
            node = node.children.entry(part.clone()).or_default();
        }
        node.code.push_str(&prelude(&path));
        node.code.push_str(&text);
    }
    fn write(node: &Node, out: &mut String) {
        out.push_str(&node.code);
        for (name, child) in &node.children {
            out.push_str(&format!("pub mod {name} {{\n"));
            write(child, out);
            out.push_str("}\n");
        }
    }
    let mut out = String::new();
    if top_reexport && !main.is_empty() {
        out.push_str(&format!("pub use self::{}::*;\n", main.join("::")));
    }
    write(&root, &mut out);
    out
}

/// A package's module path, as prost names it.
#[cfg(feature = "proto")]
fn module_path(package: &str) -> Vec<String> {
    prost_build::Module::from_protobuf_package_name(package)
        .parts()
        .map(str::to_owned)
        .collect()
}

#[cfg(feature = "proto")]
fn prost_types_source(spec: &ProtoSpec, package: &str) -> Result<String, SpecErrors> {
    let mut config = prost_build::Config::new();
    // Ordered maps keep JSON output and validation error order stable.
    config.btree_map(["."]);
    // The well-known types are `pbjson_types`' (prost's own have no proto3 JSON form).
    config
        .compile_well_known_types()
        .extern_path(".google.protobuf", "::pbjson_types");
    // No service generator: a gRPC protocol's servers and clients are its skeleton's, on
    // codecs that check every message (`emit/skeleton/grpc_service.rs`); a protobuf spec on
    // another transport has no use for them.
    // prost resolves every field's type among the files it is given, so the imports go in
    // too; only the packages that get Rust types are kept.
    let own: std::collections::BTreeSet<_> = spec
        .packages()
        .iter()
        .map(|p| prost_build::Module::from_protobuf_package_name(p))
        .collect();
    let requests = spec
        .fds
        .file
        .iter()
        .map(|f| {
            (
                prost_build::Module::from_protobuf_package_name(f.package()),
                f.clone(),
            )
        })
        .collect();
    let modules = config
        .generate(requests)
        .map_err(|e| SpecError::new(format!("prost could not generate the message types: {e}")))?;
    let code: BTreeMap<Vec<String>, String> = modules
        .into_iter()
        .filter(|(module, _)| own.contains(module))
        .map(|(module, code)| (module.parts().map(str::to_owned).collect(), code))
        .collect();
    let source = nest_packages(code, &module_path(package), |_| String::new(), true);
    // Doc comments come verbatim from proto comments, which are not written as Markdown; and
    // prost keeps oneof cases inline, so a oneof holding a large message trips the variant
    // size lint (boxing it would change the types users match on).
    let attrs = "#![allow(clippy::doc_lazy_continuation, clippy::large_enum_variant)]\n";
    format_source("message types", &format!("{attrs}{source}"))
}

// ---------------------------------------------------------------------------------------------
// pbjson
// ---------------------------------------------------------------------------------------------

#[cfg(feature = "proto")]
fn pbjson_source(spec: &ProtoSpec) -> Result<String, SpecErrors> {
    let failed = |e: std::io::Error| {
        SpecErrors::from(SpecError::new(format!(
            "pbjson could not generate the JSON impls: {e}"
        )))
    };
    let mut builder = pbjson_build::Builder::new();
    builder
        .register_descriptors(&spec.fds.encode_to_vec())
        .map_err(failed)?
        .preserve_proto_field_names()
        .extern_path(".google.protobuf", "::pbjson_types")
        .btree_map(["."]);
    let prefixes: Vec<String> = spec.packages().iter().map(|p| format!(".{p}")).collect();
    let outputs = builder
        .generate(&prefixes, |_| Ok(Vec::<u8>::new()))
        .map_err(failed)?;
    let code: BTreeMap<Vec<String>, String> = outputs
        .into_iter()
        .map(|(p, bytes)| {
            let path = module_path(&p.to_string());
            (path, String::from_utf8_lossy(&bytes).into_owned())
        })
        .collect();
    let several = code.len() > 1;
    let enum_out = code.values().any(|c| c.contains("Invalid variant"));
    // Each package module sees its own types, every other package's (pbjson names them by
    // relative paths) and `EnumOut`.
    let prelude = |path: &[String]| {
        let up = "super::".repeat(path.len() + 1);
        let types = path.join("::");
        let mut s = format!("#[allow(unused_imports)]\npub use {up}types::{types}::*;\n");
        if enum_out {
            s.push_str(&format!(
                "#[allow(unused_imports)]\nuse {up}json::EnumOut;\n"
            ));
        }
        s
    };
    let code = nest_packages(code, &[], prelude, false);
    let (code, patched) = enums_unknown_as_numbers(&code);
    if code.contains("Invalid variant") {
        // A pbjson release that words its enum serialization differently; without the rewrite
        // `to_json` could not promise to succeed.
        return Err(SpecError::new(
            "pbjson's enum serialization did not have the expected shape (a generator bug)",
        )
        .into());
    }
    let mut source = String::from(if several {
        ""
    } else {
        "use super::types::*;\n"
    });
    source.push_str(&code);
    if patched {
        source.push_str(ENUM_OUT);
    }
    format_source("JSON impls", &source)
}

#[cfg(feature = "proto")]
/// pbjson refuses to serialize an enum field whose number the enum does not define (possible
/// after a binary decode, where proto3 keeps unknown values). The proto3 JSON mapping writes
/// such a value as its number, so the generated calls are rerouted through `EnumOut`, which does
/// that; serializing then never fails.
fn enums_unknown_as_numbers(code: &str) -> (String, bool) {
    let re = regex::Regex::new(
        r#"((?:::)?[A-Za-z_][A-Za-z0-9_:]*)::try_from\(([^()]*)\)\s*\.map_err\(\|_\| serde::ser::Error::custom\(format!\("Invalid variant \{\}", [^()]*\)\)\)"#,
    )
    .expect("the pattern is a valid regex");
    let mut patched = false;
    let out = re.replace_all(code, |c: &regex::Captures<'_>| {
        patched = true;
        format!("Ok::<_, S::Error>(EnumOut::<{}>::new({}))", &c[1], &c[2])
    });
    (out.into_owned(), patched)
}

#[cfg(feature = "proto")]
const ENUM_OUT: &str = r#"
/// An enum field as proto3 JSON writes it: the value's name, or its number when the enum
/// defines no value with that number.
enum EnumOut<T> {
    Known(T),
    Unknown(i32),
}

impl<T: TryFrom<i32>> EnumOut<T> {
    fn new(number: i32) -> Self {
        match T::try_from(number) {
            Ok(v) => Self::Known(v),
            Err(_) => Self::Unknown(number),
        }
    }
}

impl<T: serde::Serialize> serde::Serialize for EnumOut<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Known(v) => v.serialize(serializer),
            Self::Unknown(n) => serializer.serialize_i32(*n),
        }
    }
}
"#;

/// Without the `proto` feature no `ProtoSpec` exists: neither pass can be reached.
#[cfg(not(feature = "proto"))]
fn prost_types_source(spec: &ProtoSpec, _package: &str) -> Result<String, SpecErrors> {
    spec.unreachable()
}

#[cfg(not(feature = "proto"))]
fn pbjson_source(spec: &ProtoSpec) -> Result<String, SpecErrors> {
    spec.unreachable()
}

// ---------------------------------------------------------------------------------------------
// Validate
// ---------------------------------------------------------------------------------------------

/// `validate.rs`: one `Validate` impl per message (from the shared validator emitter), and
/// `KINDS`/`kind`/`from_json`/`to_json` on the stream wrappers.
fn validate_tokens(p: &Protocol) -> TokenStream {
    let validators = Validators::new(&p.types, p.proto_package.as_deref());
    let impls = p
        .types
        .values()
        .filter(|d| matches!(d.kind, TypeKind::Struct(_)))
        .map(|d| validators.emit(d));
    let wrappers = p.channels.iter().map(|c| wrapper_api(p, &c.union));
    quote! {
        use super::types::*;
        #(#impls)*
        #(#wrappers)*
    }
}

fn wrapper_api(p: &Protocol, name: &str) -> TokenStream {
    let Some((field, cases)) = p.wrapper_oneof(name) else {
        return TokenStream::new();
    };
    let path = prost_path(name);
    let enum_path = prost_path(field.ty.named().unwrap_or_default());
    let member = prost_field(&field.name);
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    let variants = cases.iter().map(|c| prost_variant(&c.name));
    let kinds_doc = format!(
        " The `{}` case names, as they appear as the JSON key of a `{name}`.",
        field.name
    );
    let kind_doc = format!(
        " The name of the `{}` case that is set, `None` when none is.",
        field.name
    );
    quote! {
        impl #path {
            #[doc = #kinds_doc]
            pub const KINDS: &'static [&'static str] = &[#(#names),*];

            #[doc = #kind_doc]
            pub fn kind(&self) -> Option<&'static str> {
                match &self.#member {
                    #(Some(#enum_path::#variants(_)) => Some(#names),)*
                    None => None,
                }
            }

            /// Parses the proto3 JSON form and checks the spec's constraints; errors carry a
            /// JSON pointer and the rule that failed, every error found.
            pub fn from_json(json: &str) -> Result<Self, agentwire_runtime::Invalid> {
                agentwire_runtime::decode_checked(json)
            }

            /// The proto3 JSON form, with the proto field names. Never fails: an enum
            /// number the enum does not define (which `validate` reports) is written as
            /// that number, as proto3 JSON prescribes.
            pub fn to_json(&self) -> String {
                serde_json::to_string(self).unwrap_or_default()
            }
        }
    }
}
