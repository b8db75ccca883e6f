//! The protobuf emitter: prost message types with a tonic client and server, proto3 JSON via
//! pbjson (proto field names kept, as the protocol documents write them), and
//! `agentwire_runtime::Validate` impls built from the spec's constraint tags.
//!
//! Output is one module folder:
//!
//! | file | contents |
//! |---|---|
//! | `mod.rs` | module doc, the parts, `pub use types::*` |
//! | `types.rs` | prost messages and enums, `<service>_client` and `<service>_server` modules |
//! | `json.rs` | pbjson `Serialize`/`Deserialize` impls |
//! | `validate.rs` | `Validate` impls, and `KINDS`/`kind`/`from_json`/`to_json` on the stream wrappers |
//!
//! Everything runs in memory; nothing is written to disk.

use std::collections::{BTreeMap, BTreeSet};

use heck::{ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use prost::Message as _;
use protox::prost_reflect::{
    Cardinality, FieldDescriptor, Kind, MessageDescriptor, OneofDescriptor,
};
use quote::quote;

use crate::diag::{SpecError, SpecErrors};
use crate::front::proto::{ProtoSpec, Tag};

/// Generates the module for `spec`. Returns `(path relative to the module folder, source)`
/// pairs in a fixed order, each formatted and without the `@generated` header line.
pub fn emit_proto(spec: &ProtoSpec, module: &str) -> Result<Vec<(String, String)>, SpecErrors> {
    let package = single_package(spec)?;
    let types = prost_types_source(spec)?;
    let json = pbjson_source(spec, &package)?;
    let validate = validate_source(spec, &package)?;

    let doc = format!(
        " The `{module}` protocol, generated from `spec/{module}/{}`: message types with a gRPC \
         client and server (`types.rs`), proto3 JSON with the proto field names (`json.rs`) and \
         the spec's constraints (`validate.rs`).",
        spec.file
    );
    let mod_rs = quote! {
        #![doc = #doc]
        mod json;
        mod types;
        mod validate;
        pub use types::*;
    };
    Ok(vec![
        ("mod.rs".to_owned(), format_tokens(mod_rs)?),
        ("types.rs".to_owned(), types),
        ("json.rs".to_owned(), json),
        ("validate.rs".to_owned(), validate),
    ])
}

/// The one proto package every file of the spec folder declares.
fn single_package(spec: &ProtoSpec) -> Result<String, SpecErrors> {
    let packages: BTreeSet<&str> = spec.own_files().map(|f| f.package()).collect();
    match packages.len() {
        1 => Ok(packages.into_iter().next().unwrap_or_default().to_owned()),
        0 => Err(SpecError::new(format!(
            "{} declares no proto file of its own",
            spec.spec_dir.display()
        ))
        .into()),
        _ => Err(SpecError::new(format!(
            "the .proto files of {} declare several packages ({}); a protocol folder holds one",
            spec.spec_dir.display(),
            packages.into_iter().collect::<Vec<_>>().join(", ")
        ))
        .with_help("give every file of the folder the same `package`")
        .into()),
    }
}

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

fn prost_types_source(spec: &ProtoSpec) -> Result<String, SpecErrors> {
    let mut config = prost_build::Config::new();
    // Ordered maps keep JSON output and validation error order stable.
    config.btree_map(["."]);
    // tonic's `connect(endpoint)` constructor would clash with the method of an rpc named
    // `Connect`; such a client is built with `new(channel)` instead.
    let rpc_named_connect = spec
        .pool
        .services()
        .flat_map(|s| s.methods().collect::<Vec<_>>())
        .any(|m| m.name().to_snake_case() == "connect");
    config.service_generator(
        tonic_prost_build::configure()
            .build_client(true)
            .build_server(true)
            .build_transport(!rpc_named_connect)
            .service_generator(),
    );
    let requests = spec
        .own_files()
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
    let mut source = String::new();
    for (_, code) in modules.into_iter().collect::<BTreeMap<_, _>>() {
        source.push_str(&code);
    }
    // Doc comments come verbatim from proto comments, which are not written as Markdown; and
    // prost keeps oneof cases inline, so a oneof holding a large message trips the variant
    // size lint (boxing it would change the types users match on).
    let attrs = "#![allow(clippy::doc_lazy_continuation, clippy::large_enum_variant)]\n";
    format_source("message types", &format!("{attrs}{source}"))
}

// ---------------------------------------------------------------------------------------------
// pbjson
// ---------------------------------------------------------------------------------------------

fn pbjson_source(spec: &ProtoSpec, package: &str) -> Result<String, SpecErrors> {
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
        .btree_map(["."]);
    let outputs = builder
        .generate(&[format!(".{package}")], |_| Ok(Vec::<u8>::new()))
        .map_err(failed)?;
    let mut code = String::new();
    for (_, bytes) in outputs {
        code.push_str(&String::from_utf8_lossy(&bytes));
    }
    let (code, patched) = enums_unknown_as_numbers(&code);
    if code.contains("Invalid variant") {
        // A pbjson release that words its enum serialization differently; without the rewrite
        // `to_json` could not promise to succeed.
        return Err(SpecError::new(
            "pbjson's enum serialization did not have the expected shape (a generator bug)",
        )
        .into());
    }
    let mut source = String::from("use super::types::*;\n");
    source.push_str(&code);
    if patched {
        source.push_str(ENUM_OUT);
    }
    format_source("JSON impls", &source)
}

/// pbjson refuses to serialize an enum field whose number the enum does not define (possible
/// after a binary decode, where proto3 keeps unknown values). The proto3 JSON mapping writes
/// such a value as its number, so the generated calls are rerouted through `EnumOut`, which does
/// that; serializing then never fails.
fn enums_unknown_as_numbers(code: &str) -> (String, bool) {
    let re = regex::Regex::new(
        r#"([A-Za-z_][A-Za-z0-9_:]*)::try_from\(([^()]*)\)\s*\.map_err\(\|_\| serde::ser::Error::custom\(format!\("Invalid variant \{\}", [^()]*\)\)\)"#,
    )
    .expect("the pattern is a valid regex");
    let mut patched = false;
    let out = re.replace_all(code, |c: &regex::Captures<'_>| {
        patched = true;
        format!("Ok::<_, S::Error>(EnumOut::<{}>::new({}))", &c[1], &c[2])
    });
    (out.into_owned(), patched)
}

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

// ---------------------------------------------------------------------------------------------
// Validate
// ---------------------------------------------------------------------------------------------

/// prost's escaping of identifiers that are Rust keywords.
fn sanitize(ident: String) -> String {
    match ident.as_str() {
        "as" | "break" | "const" | "continue" | "else" | "enum" | "false" | "fn" | "for" | "if"
        | "impl" | "in" | "let" | "loop" | "match" | "mod" | "move" | "mut" | "pub" | "ref"
        | "return" | "static" | "struct" | "trait" | "true" | "type" | "unsafe" | "use"
        | "where" | "while" | "dyn" | "abstract" | "become" | "box" | "do" | "final" | "macro"
        | "override" | "priv" | "typeof" | "unsized" | "virtual" | "yield" | "async" | "await"
        | "try" | "gen" => format!("r#{ident}"),
        "_" | "super" | "self" | "Self" | "extern" | "crate" => format!("{ident}_"),
        s if s.starts_with(|c: char| c.is_ascii_digit()) => format!("_{ident}"),
        _ => ident,
    }
}

/// prost's field and module names.
fn snake(name: &str) -> String {
    sanitize(name.to_snake_case())
}

/// prost's type and variant names.
fn camel(name: &str) -> String {
    sanitize(name.to_upper_camel_case())
}

fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// The segments of a message or enum name below the package, e.g. `["Outer", "Inner"]`.
fn local_parts<'a>(full_name: &'a str, package: &str) -> Vec<&'a str> {
    let local = full_name
        .strip_prefix(package)
        .and_then(|s| s.strip_prefix('.'))
        .unwrap_or(full_name);
    local.split('.').collect()
}

/// The Rust path of a message or enum relative to the package module, e.g. `outer::Inner`.
fn type_path(full_name: &str, package: &str) -> TokenStream {
    let parts = local_parts(full_name, package);
    let (last, parents) = parts.split_last().expect("split yields at least one part");
    let parents = parents.iter().map(|p| ident(&snake(p)));
    let last = ident(&camel(last));
    quote! { #(#parents ::)* #last }
}

/// The Rust path of a oneof's enum, e.g. `agent_message::Payload`: prost puts it in a module
/// named after the message, next to the message.
fn oneof_path(oneof: &OneofDescriptor, package: &str) -> TokenStream {
    let parts = local_parts(oneof.parent_message().full_name(), package);
    let modules = parts.iter().map(|p| ident(&snake(p)));
    let name = ident(&camel(oneof.name()));
    quote! { #(#modules ::)* #name }
}

/// Messages that carry one direction of a stream: an rpc's input or output type made of a
/// single oneof and nothing else. An unset oneof is an error for them.
fn wrappers(spec: &ProtoSpec, package: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for service in spec.pool.services() {
        if service.package_name() != package {
            continue;
        }
        for method in service.methods() {
            for message in [method.input(), method.output()] {
                let oneofs: Vec<_> = message.oneofs().filter(|o| !o.is_synthetic()).collect();
                let all_in_oneof = message.fields().all(|f| f.containing_oneof().is_some());
                if oneofs.len() == 1 && all_in_oneof {
                    out.insert(message.full_name().to_owned());
                }
            }
        }
    }
    out
}

fn own_messages(spec: &ProtoSpec, package: &str) -> Vec<MessageDescriptor> {
    spec.pool
        .all_messages()
        .filter(|m| {
            m.package_name() == package
                && !m.is_map_entry()
                && spec.sources.contains_key(m.parent_file().name())
        })
        .collect()
}

/// The kind of one element (the field itself, a list item or a map value).
fn element_kind(field: &FieldDescriptor) -> Kind {
    match field.kind() {
        Kind::Message(entry) if field.is_map() => entry.map_entry_value_field().kind(),
        kind => kind,
    }
}

/// Which messages have anything to check, directly or through what they contain.
fn needs_validation(
    spec: &ProtoSpec,
    messages: &[MessageDescriptor],
    wrappers: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut set: BTreeSet<String> = BTreeSet::new();
    for m in messages {
        let direct = wrappers.contains(m.full_name())
            || m.fields().any(|f| {
                !spec.constraints_of(&f).is_empty() || matches!(element_kind(&f), Kind::Enum(_))
            });
        if direct {
            set.insert(m.full_name().to_owned());
        }
    }
    loop {
        let before = set.len();
        for m in messages {
            if set.contains(m.full_name()) {
                continue;
            }
            let nested = m.fields().any(|f| match element_kind(&f) {
                Kind::Message(inner) => set.contains(inner.full_name()),
                _ => false,
            });
            if nested {
                set.insert(m.full_name().to_owned());
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

struct Ctx<'a> {
    spec: &'a ProtoSpec,
    package: &'a str,
    needs: BTreeSet<String>,
    /// Regex statics, by pattern source, in first-use order.
    patterns: Vec<String>,
}

impl Ctx<'_> {
    fn pattern_static(&mut self, source: &str) -> Ident {
        let index = match self.patterns.iter().position(|p| p == source) {
            Some(i) => i,
            None => {
                self.patterns.push(source.to_owned());
                self.patterns.len() - 1
            }
        };
        ident(&format!("PATTERN_{index}"))
    }

    /// Statements that check one element `v` (a reference) at the current `at`.
    fn element_checks(&mut self, field: &FieldDescriptor) -> TokenStream {
        let kind = element_kind(field);
        let mut out = TokenStream::new();
        for c in self.spec.constraints_of(field) {
            let stmt = match &c.tag {
                Tag::MinLength(n) => {
                    let n = Literal::u64_unsuffixed(*n);
                    quote! { agentwire_runtime::validate::min_length(v, #n, at, errors); }
                }
                Tag::MaxLength(n) => {
                    let n = Literal::u64_unsuffixed(*n);
                    quote! { agentwire_runtime::validate::max_length(v, #n, at, errors); }
                }
                Tag::Pattern(p) => {
                    let re = self.pattern_static(p);
                    quote! { agentwire_runtime::validate::pattern(v, &#re, #p, at, errors); }
                }
                Tag::Format(f) => {
                    quote! { agentwire_runtime::validate::format(v, #f, at, errors); }
                }
                Tag::Minimum(n) => {
                    let value = as_f64(&kind);
                    let n = Literal::f64_unsuffixed(*n);
                    quote! { agentwire_runtime::validate::minimum(#value, #n, at, errors); }
                }
                Tag::Maximum(n) => {
                    let value = as_f64(&kind);
                    let n = Literal::f64_unsuffixed(*n);
                    quote! { agentwire_runtime::validate::maximum(#value, #n, at, errors); }
                }
                // Counted on the whole list, see `field_checks`.
                Tag::MinItems(_) | Tag::MaxItems(_) => continue,
            };
            out.extend(stmt);
        }
        match &kind {
            Kind::Enum(e) => {
                let path = type_path(e.full_name(), self.package);
                let message = format!("{{}} is not a value of {}", e.full_name());
                out.extend(quote! {
                    if #path::try_from(*v).is_err() {
                        errors.push(FieldError::new(
                            at.as_str(),
                            agentwire_runtime::Rule::Enum,
                            format!(#message, v),
                        ));
                    }
                });
            }
            Kind::Message(m) if self.needs.contains(m.full_name()) => {
                out.extend(quote! { v.validate_at(at, errors); });
            }
            _ => {}
        }
        out
    }

    /// Statements that check a field outside a oneof, with its proto name as pointer segment.
    fn field_checks(&mut self, field: &FieldDescriptor) -> TokenStream {
        let each = self.element_checks(field);
        let name = field.name();
        let member = ident(&snake(name));
        if field.is_map() {
            if each.is_empty() {
                return TokenStream::new();
            }
            let key_is_string = match field.kind() {
                Kind::Message(entry) => matches!(entry.map_entry_key_field().kind(), Kind::String),
                _ => true,
            };
            let key = if key_is_string {
                quote! { k }
            } else {
                quote! { &k.to_string() }
            };
            return quote! {
                at.with(#name, |at| {
                    for (k, v) in &self.#member {
                        at.with(#key, |at| { #each });
                    }
                });
            };
        }
        if field.is_list() {
            let mut counts = TokenStream::new();
            for c in self.spec.constraints_of(field) {
                match c.tag {
                    Tag::MinItems(n) => counts.extend({
                        let n = Literal::u64_unsuffixed(n);
                        quote! {
                            agentwire_runtime::validate::min_items(&self.#member, #n, at, errors);
                        }
                    }),
                    Tag::MaxItems(n) => counts.extend({
                        let n = Literal::u64_unsuffixed(n);
                        quote! {
                            agentwire_runtime::validate::max_items(&self.#member, #n, at, errors);
                        }
                    }),
                    _ => {}
                }
            }
            if counts.is_empty() && each.is_empty() {
                return TokenStream::new();
            }
            let items = if each.is_empty() {
                TokenStream::new()
            } else {
                quote! {
                    for (i, v) in self.#member.iter().enumerate() {
                        at.with_index(i, |at| { #each });
                    }
                }
            };
            return quote! { at.with(#name, |at| { #counts #items }); };
        }
        if each.is_empty() {
            return TokenStream::new();
        }
        // Message fields and proto3 `optional` scalars are `Option`s in prost.
        let optional = matches!(field.kind(), Kind::Message(_))
            || (field.supports_presence() && field.cardinality() != Cardinality::Required);
        if optional {
            quote! {
                if let Some(v) = &self.#member {
                    at.with(#name, |at| { #each });
                }
            }
        } else {
            quote! {
                at.with(#name, |at| {
                    let v = &self.#member;
                    #each
                });
            }
        }
    }

    fn message_impl(&mut self, message: &MessageDescriptor, wrapper: bool) -> TokenStream {
        let path = type_path(message.full_name(), self.package);
        if !self.needs.contains(message.full_name()) {
            return quote! {
                impl Validate for #path {
                    fn validate_at(&self, _at: &mut JsonPointer, _errors: &mut Vec<FieldError>) {}
                }
            };
        }
        let mut body = TokenStream::new();
        for field in message.fields() {
            if field.containing_oneof().is_none_or(|o| o.is_synthetic()) {
                body.extend(self.field_checks(&field));
            }
        }
        for oneof in message.oneofs().filter(|o| !o.is_synthetic()) {
            body.extend(self.oneof_checks(&oneof, wrapper));
        }
        quote! {
            impl Validate for #path {
                fn validate_at(&self, at: &mut JsonPointer, errors: &mut Vec<FieldError>) {
                    #body
                }
            }
        }
    }

    fn oneof_checks(&mut self, oneof: &OneofDescriptor, wrapper: bool) -> TokenStream {
        let enum_path = oneof_path(oneof, self.package);
        let member = ident(&snake(oneof.name()));
        let mut arms = Vec::new();
        let mut all_checked = true;
        for field in oneof.fields() {
            let each = self.element_checks(&field);
            if each.is_empty() {
                all_checked = false;
                continue;
            }
            let variant = ident(&camel(field.name()));
            arms.push((
                quote! { Some(#enum_path::#variant(v)) },
                field.name().to_owned(),
                each,
            ));
        }
        if !wrapper {
            // A plain oneof may be unset; check whichever case is there.
            return arms
                .into_iter()
                .map(|(pat, name, each)| {
                    quote! {
                        if let #pat = &self.#member {
                            at.with(#name, |at| { #each });
                        }
                    }
                })
                .collect();
        }
        let arms = arms
            .into_iter()
            .map(|(pat, name, each)| quote! { #pat => at.with(#name, |at| { #each }), });
        let cases = oneof
            .fields()
            .map(|f| f.name().to_owned())
            .collect::<Vec<_>>();
        let missing = format!(
            "no `{}` case is set; expected one of: {}",
            oneof.name(),
            cases.join(", ")
        );
        let rest = if all_checked {
            TokenStream::new()
        } else {
            quote! { Some(_) => {} }
        };
        quote! {
            match &self.#member {
                #(#arms)*
                #rest
                None => errors.push(FieldError::new(
                    at.as_str(),
                    agentwire_runtime::Rule::MissingKind,
                    #missing,
                )),
            }
        }
    }

    fn wrapper_api(&self, message: &MessageDescriptor) -> TokenStream {
        let path = type_path(message.full_name(), self.package);
        let Some(oneof) = message.oneofs().find(|o| !o.is_synthetic()) else {
            return TokenStream::new();
        };
        let enum_path = oneof_path(&oneof, self.package);
        let member = ident(&snake(oneof.name()));
        let names: Vec<String> = oneof.fields().map(|f| f.name().to_owned()).collect();
        let variants = oneof.fields().map(|f| ident(&camel(f.name())));
        let kinds_doc = format!(
            " The `{}` case names, as they appear as the JSON key of a `{}`.",
            oneof.name(),
            message.name()
        );
        let kind_doc = format!(
            " The name of the `{}` case that is set, `None` when none is.",
            oneof.name()
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
                /// JSON pointer and the rule that failed.
                pub fn from_json(json: &str) -> Result<Self, agentwire_runtime::Invalid> {
                    let value: Self = agentwire_runtime::decode_json(json)?;
                    value.validate()?;
                    Ok(value)
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
}

fn as_f64(kind: &Kind) -> TokenStream {
    match kind {
        Kind::Double => quote! { *v },
        Kind::Float
        | Kind::Int32
        | Kind::Sint32
        | Kind::Sfixed32
        | Kind::Uint32
        | Kind::Fixed32 => {
            quote! { f64::from(*v) }
        }
        _ => quote! { *v as f64 },
    }
}

fn validate_source(spec: &ProtoSpec, package: &str) -> Result<String, SpecErrors> {
    let messages = own_messages(spec, package);
    let wrappers = wrappers(spec, package);
    let needs = needs_validation(spec, &messages, &wrappers);
    let mut ctx = Ctx {
        spec,
        package,
        needs,
        patterns: Vec::new(),
    };
    let mut impls = TokenStream::new();
    for message in &messages {
        let wrapper = wrappers.contains(message.full_name());
        impls.extend(ctx.message_impl(message, wrapper));
        if wrapper {
            impls.extend(ctx.wrapper_api(message));
        }
    }
    let statics = ctx.patterns.iter().enumerate().map(|(i, p)| {
        let name = ident(&format!("PATTERN_{i}"));
        quote! {
            static #name: std::sync::LazyLock<agentwire_runtime::regex::Regex> =
                std::sync::LazyLock::new(|| {
                    agentwire_runtime::regex::Regex::new(#p)
                        .expect("the generator compiled this pattern already")
                });
        }
    });
    let tokens = quote! {
        use super::types::*;
        use agentwire_runtime::{FieldError, JsonPointer, Validate};
        #(#statics)*
        #impls
    };
    format_tokens(tokens)
}
