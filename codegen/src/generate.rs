//! The whole generator behind one call: a spec folder in, the files of its generated module
//! out (paths relative to the generated crate, Rust as syntax trees), plus the one-line
//! summary `cargo xtask gen` prints. `output` turns them into text.

use std::collections::BTreeSet;
use std::path::Path;

use quote::quote;

use crate::diag::{SpecError, SpecErrors};
use crate::emit::{module, proto, schema};
use crate::front::load::{LoadedSpec, load_spec};
use crate::ir::{Call, Protocol, TypeKind};
use crate::options::Options;
pub use crate::output::{Contents, OutputFile};

/// Everything generated for one protocol.
#[derive(Debug)]
pub struct Generated {
    pub module: String,
    pub files: Vec<OutputFile>,
    pub summary: String,
    pub spec: LoadedSpec,
}

fn internal(e: String) -> SpecErrors {
    SpecError::new(e).into()
}

/// Loads `spec_dir` and emits its module, as `cargo xtask gen` writes it.
pub fn generate(spec_dir: &Path) -> Result<Generated, SpecErrors> {
    generate_with(spec_dir, &Options::default())
}

/// Loads `spec_dir` and emits its module, shaped by `options` (the derive's settings).
pub fn generate_with(spec_dir: &Path, options: &Options) -> Result<Generated, SpecErrors> {
    let spec = load_spec(spec_dir)?;
    let p = &spec.protocol;
    let module = p.module.clone();
    let mut files = if spec.versions.is_empty() {
        module_files(&spec, &BTreeSet::new())?
    } else {
        versioned_files(&spec)?
    };
    if let Some(tokens) = skeleton(&spec) {
        let skeleton = crate::output::parse_tokens(&format!("skeleton of {module}"), tokens)
            .map_err(internal)?;
        files.push(OutputFile::rust(skeleton_path(&module), skeleton));
    }
    crate::options::apply(&mut files, options).map_err(internal)?;
    let mut summary = summary(&spec);
    for note in &spec.notes {
        summary.push_str(&format!("\n  {note}"));
    }
    Ok(Generated {
        module,
        files,
        summary,
        spec,
    })
}

/// The skeleton module of `spec`: a versioned folder's serves and connects every version
/// when its transport kind can choose a version per stream, else it is the one of the
/// version saying `skeleton: true` (or none).
fn skeleton(spec: &LoadedSpec) -> Option<proc_macro2::TokenStream> {
    if spec.versions.is_empty() {
        return crate::transport::skeleton(&spec.protocol, spec.proto.as_ref());
    }
    let versions: Vec<_> = spec
        .versions
        .iter()
        .map(|v| (&v.protocol, v.proto.as_ref()))
        .collect();
    if let Some(tokens) = crate::transport::versioned_skeleton(&spec.protocol, &versions) {
        return Some(tokens);
    }
    let speaks = spec
        .versions
        .iter()
        .find(|v| v.protocol.version.as_ref().is_some_and(|i| i.skeleton))?;
    crate::transport::skeleton(&speaks.protocol, speaks.proto.as_ref())
}

/// The files of one module (a protocol of one version, or one version of a folder): its
/// Rust, its schema, its checker and its diagrams, where `FilePaths` puts them. The types in
/// `shared` are re-exported from the folder's shared module instead of written.
fn module_files(
    spec: &LoadedSpec,
    shared: &BTreeSet<String>,
) -> Result<Vec<OutputFile>, SpecErrors> {
    let p = &spec.protocol;
    let module = &p.module;
    let paths = crate::naming::FilePaths::of(p);
    let mut files = if spec.proto.is_some() {
        proto_files(spec)?
    } else {
        json_files(p, shared)?
    };
    // The analysis is built once by the loader; a proto module's `mod.rs` declares
    // `machine` itself (emit::proto), as a JSON module does.
    if let Some(model) = &spec.analysis {
        let tokens = crate::emit::machine::emit_checker(p, model)
            .map_err(|e| SpecError::new(format!("{module}: {e}")))?;
        let mut checker = crate::output::parse_tokens(&format!("checker of {module}"), tokens)
            .map_err(internal)?;
        // `Recorded` holds messages unboxed, as the module's message enums do.
        let lints: syn::File =
            syn::parse2(quote!(#![allow(clippy::large_enum_variant, clippy::result_large_err)]))
                .map_err(|e| internal(format!("internal error: the checker lints: {e}")))?;
        checker.attrs.extend(lints.attrs);
        files.push(OutputFile::rust(
            format!("{}/machine.rs", paths.dir),
            checker,
        ));
        // A spec without machines gets the accept-all checker but no diagram.
        if !p.machines.is_empty() {
            files.push(OutputFile::text(
                paths.diagrams,
                crate::emit::diagram::diagrams_md(p),
            ));
        }
    }
    Ok(files)
}

/// A folder with `versions:`: every version's module, and the dispatching module above them.
fn versioned_files(spec: &LoadedSpec) -> Result<Vec<OutputFile>, SpecErrors> {
    let mut files = Vec::new();
    let p = &spec.protocol;
    let versions: Vec<&Protocol> = spec.versions.iter().map(|v| &v.protocol).collect();
    // Protobuf folders keep one version each; JSON versions share the types they emit alike.
    let shared = if spec.proto.is_some() {
        BTreeSet::new()
    } else {
        crate::emit::shared::shared_types(&versions)
    };
    for version in &spec.versions {
        files.extend(module_files(version, &shared)?);
        // An unstable form shares nothing: it is built only behind its feature, and its
        // types differ from the version's where the versions' are alike.
        if let Some(unstable) = &version.unstable {
            files.extend(module_files(unstable, &BTreeSet::new())?);
        }
    }
    if let Some(newest) = versions.first()
        && !shared.is_empty()
    {
        files.push(shared_file(newest, &shared)?);
    }
    let unstable: Vec<&Protocol> = (spec.versions.iter())
        .filter_map(|v| v.unstable.as_ref().map(|u| &u.protocol))
        .collect();
    let tokens = crate::emit::versions::emit_dispatch(p, &versions, &unstable, !shared.is_empty());
    let mut file = crate::output::parse_tokens(&p.module, tokens).map_err(internal)?;
    let doc = [
        format!(" {}: {}", p.title, p.summary),
        String::new(),
        format!(
            " Versions, newest first: {}; each in a module of its own, and this module dispatching to them.",
            versions
                .iter()
                .filter_map(|v| v.version.as_ref())
                .map(|v| format!("`{}` (`{}`)", v.name, v.module))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ];
    let attrs: syn::File = syn::parse2(quote! {
        #(#![doc = #doc])*
        #![allow(clippy::large_enum_variant, clippy::result_large_err)]
    })
    .map_err(|e| {
        internal(format!(
            "internal error: the module doc of {}: {e}",
            p.module
        ))
    })?;
    file.attrs.splice(0..0, attrs.attrs);
    files.push(OutputFile::rust(crate::naming::FilePaths::of(p).rust, file));
    Ok(files)
}

/// `src/<module>/shared.rs`: the types every version emits alike, once.
fn shared_file(p: &Protocol, shared: &BTreeSet<String>) -> Result<OutputFile, SpecErrors> {
    let module = &p.module;
    let tokens = crate::emit::shared::emit_shared(p, shared);
    let mut file = crate::output::parse_tokens(&format!("shared types of {module}"), tokens)
        .map_err(internal)?;
    let doc = format!(
        " The {} types every version of `{module}` defines alike, written once; each version's module re-exports them.",
        shared.len()
    );
    let attrs: syn::File = syn::parse2(quote! {
        #![doc = #doc]
        #![allow(clippy::large_enum_variant, clippy::result_large_err)]
    })
    .map_err(|e| {
        internal(format!(
            "internal error: the shared module doc of {module}: {e}"
        ))
    })?;
    file.attrs.splice(0..0, attrs.attrs);
    Ok(OutputFile::rust(
        format!("src/{module}/{}.rs", crate::emit::shared::MODULE),
        file,
    ))
}

/// A protobuf module: the emitter's formatted parts, as trees.
fn proto_files(spec: &LoadedSpec) -> Result<Vec<OutputFile>, SpecErrors> {
    let module = &spec.protocol.module;
    let Some(proto_spec) = &spec.proto else {
        return Ok(Vec::new());
    };
    let mut files = Vec::new();
    for (rel, source) in proto::emit_proto(&spec.protocol, proto_spec)? {
        let file = syn::parse_file(&source).map_err(|e| {
            internal(format!(
                "internal error: generated {module}/{rel} does not parse: {e}"
            ))
        })?;
        files.push(OutputFile::rust(format!("src/{module}/{rel}"), file));
    }
    // The JSON Schema of the proto3 JSON form, from the lowered IR like a JSON module's.
    files.push(OutputFile::text(
        format!("schemas/{module}.schema.json"),
        schema::emit_schema(&spec.protocol),
    ));
    Ok(files)
}

/// A JSON module: its Rust file, with the module doc on top, and its JSON Schema.
fn json_files(p: &Protocol, shared: &BTreeSet<String>) -> Result<Vec<OutputFile>, SpecErrors> {
    let module = &p.module;
    let mut file =
        crate::output::parse_tokens(module, module::emit_module(p, shared)).map_err(internal)?;
    let doc = [
        format!(" {}: {}", p.title, p.summary),
        String::new(),
        if p.types_only() {
            " Types only: no transport, machine or skeleton.".to_owned()
        } else {
            format!(
                " Transport: {} ({} framing). Roles: {}.",
                p.transport.kind,
                p.transport.framing,
                p.roles.join(", ")
            )
        },
    ];
    // A message enum holds its messages unboxed (boxing would change the types users match
    // on), so a protocol with one large message trips the variant size lints.
    let attrs: syn::File = syn::parse2(quote! {
        #(#![doc = #doc])*
        #![allow(clippy::large_enum_variant, clippy::result_large_err)]
    })
    .map_err(|e| internal(format!("internal error: the module doc of {module}: {e}")))?;
    file.attrs.splice(0..0, attrs.attrs);
    let paths = crate::naming::FilePaths::of(p);
    Ok(vec![
        OutputFile::rust(paths.rust, file),
        OutputFile::text(paths.schema, schema::emit_schema(p)),
    ])
}

/// The line `cargo xtask gen` prints for the protocol.
fn summary(spec: &LoadedSpec) -> String {
    let p = &spec.protocol;
    let module = &p.module;
    if !spec.versions.is_empty() {
        let each: Vec<String> = spec
            .versions
            .iter()
            .map(|v| {
                let name = v.protocol.version.as_ref().map_or("", |i| i.name.as_str());
                let line = summary(v);
                let rest = line.strip_prefix(&format!("{module}: ")).unwrap_or(&line);
                let unstable = v.unstable.as_deref().map_or(String::new(), |u| {
                    let u = summary(u);
                    let u = u.strip_prefix(&format!("{module}: ")).unwrap_or(&u);
                    format!(" (unstable form: {u})")
                });
                format!("version {name}: {rest}{unstable}")
            })
            .collect();
        return format!("{module}: {} versions; {}", each.len(), each.join("; "));
    }
    if p.types_only() {
        return format!(
            "{module}: types only, {} types, {} rules",
            p.types.len(),
            p.rule_count()
        );
    }
    if spec.proto.is_some() && p.methods.is_empty() {
        return format!("{module}: {} message kinds", p.messages.len());
    }
    let unions = p
        .types
        .values()
        .filter(|t| matches!(t.kind, TypeKind::Union { .. }))
        .count();
    let kinds = if p.methods.is_empty() {
        format!("{} message kinds", p.messages.len())
    } else {
        let requests = p.methods.iter().filter(|m| m.call == Call::Request).count();
        format!(
            "{} methods ({requests} requests, {} notifications)",
            p.methods.len(),
            p.methods.len() - requests
        )
    };
    format!(
        "{module}: {kinds}, {} types ({unions} tagged unions), {} rules",
        p.types.len(),
        p.rule_count()
    )
}

/// Where the client and server skeleton of `module` is written.
pub fn skeleton_path(module: &str) -> String {
    format!("src/skeletons/{module}.rs")
}
