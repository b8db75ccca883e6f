//! Loads one spec folder: `protocol.yaml` plus its types file, then checks that they agree
//! (every channel union matches the catalogue, every referenced type exists).

use std::path::{Path, PathBuf};

use serde_saphyr::Location;

use crate::diag::span_of;
use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::front::protocol::{self, ProtocolFile};
use crate::front::{proto, proto_lower, ts};
use crate::ir::{Body, Protocol};

/// A loaded spec: the IR, the files it was read from (so the derive can make the crate
/// rebuild when they change), and the compiled protobuf schema for gRPC protocols.
#[derive(Debug)]
pub struct LoadedSpec {
    pub protocol: Protocol,
    pub files: Vec<PathBuf>,
    pub proto: Option<proto::ProtoSpec>,
    /// The machine analysis, built once here (the lint reads it, the checker emitter turns it
    /// into code); `None` when the spec has no machines.
    pub analysis: Option<crate::machine::model::Model>,
    /// Notes for the `cargo xtask gen` summary (types renamed for Rust).
    pub notes: Vec<String>,
    /// A folder with `versions:`: each version loaded on its own, newest first (the folder's
    /// `protocol` is then the newest one's, with `versioning` set). Empty otherwise.
    pub versions: Vec<LoadedSpec>,
    /// One version of a folder whose `versions:` entry has `unstable:`: that form, loaded on
    /// its own (its `protocol.version` names the unstable module). `None` otherwise.
    pub unstable: Option<Box<LoadedSpec>>,
}

/// Loads `dir` (a `spec/<module>/` folder).
pub fn load_spec(dir: &Path) -> Result<LoadedSpec, SpecErrors> {
    if !dir.is_dir() {
        return Err(
            SpecError::new(format!("spec folder {} does not exist", dir.display()))
                .with_help("a spec folder holds protocol.yaml and messages.ts or a .proto file")
                .into(),
        );
    }
    let yaml_path = dir.join("protocol.yaml");
    let yaml = SourceFile::read(&yaml_path)?;
    let pf = protocol::load(&yaml)?;
    if pf.versions.is_empty() {
        load_parsed(dir, &yaml, pf)
    } else {
        crate::front::versions::load_versions(dir, &yaml, pf)
    }
}

/// Loads the folder whose `protocol.yaml` was read as `pf` (one version of it, or the only).
pub(crate) fn load_parsed(
    dir: &Path,
    yaml: &SourceFile,
    pf: ProtocolFile,
) -> Result<LoadedSpec, SpecErrors> {
    let yaml_path = yaml.path.clone();
    let mut errors = SpecErrors::default();
    check_folder_name(dir, yaml, &pf, &mut errors);
    let types_rel = pf.types_file.value.clone();
    let Some(types_dir) = types_dir(dir, yaml, &pf, &mut errors) else {
        return Err(errors);
    };
    let mut files = vec![yaml_path, types_dir.join(&types_rel)];
    files.dedup();
    let Some(loaded) = load_types(&types_dir, yaml, &pf, &mut errors) else {
        return Err(errors);
    };
    let loaded_notes = loaded.notes;
    // Every imported TypeScript file rebuilds a deriving crate when it changes.
    files.extend(loaded.read);
    files.sort();
    files.dedup();
    let mut protocol = protocol_of(&pf, loaded.types, types_rel, loaded.package);
    if let (Some(p), Some(package)) = (&loaded.proto, &protocol.proto_package) {
        protocol.options = proto_lower::options(p, package);
    }
    let proto_spec = loaded.proto;
    // Every imported `.proto` read from disk rebuilds a deriving crate when it changes.
    if let Some(p) = &proto_spec {
        files.extend(p.source_paths());
        files.sort();
        files.dedup();
    }
    cross_check(yaml, &pf, &protocol, &mut errors);
    if proto_spec.is_none() && errors.is_empty() {
        crate::front::skeleton::lower(yaml, &pf, &mut protocol, &mut errors);
    }
    if let Some(proto) = &proto_spec {
        crate::front::grpc::check_proto(yaml, &protocol, proto, &mut errors);
        crate::transport::check_proto(yaml, &protocol, proto, &mut errors);
    } else if crate::transport::plugin(protocol.transport.kind).is_some_and(|k| k.protobuf()) {
        errors.push(SpecError::at(
            yaml,
            span_of(yaml, &pf.types_file.referenced),
            "a grpc protocol takes its types from a `.proto` file",
        ));
    }
    let mut notes = loaded_notes;
    notes.extend(crate::front::rename::rust_type_names(&mut protocol));
    notes.extend(crate::front::notes::unchecked_formats(&protocol));
    let analysis = if errors.is_empty() {
        load_machines(
            dir,
            &pf.machine_file,
            &mut protocol,
            &mut files,
            &mut errors,
        )?
    } else {
        None
    };
    errors.finish(LoadedSpec {
        protocol,
        files,
        proto: proto_spec,
        analysis,
        notes,
        versions: Vec::new(),
        unstable: None,
    })
}

/// `protocol:` must name the folder, which is the module name.
fn check_folder_name(dir: &Path, yaml: &SourceFile, pf: &ProtocolFile, errors: &mut SpecErrors) {
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if pf.module.value != folder {
        errors.push(SpecError::at(
            yaml,
            span_of(yaml, &pf.module.referenced),
            format!(
                "`protocol: {}` must equal the folder name `{folder}`",
                pf.module.value
            ),
        ));
    }
}

/// The folder `types:` is relative to: the spec folder, or for a pinned registry file the
/// unpacked package in the local cache (checked against its hash; never fetched here).
fn types_dir(
    dir: &Path,
    yaml: &SourceFile,
    pf: &ProtocolFile,
    errors: &mut SpecErrors,
) -> Option<PathBuf> {
    use crate::front::sources::{CacheError, cache_root, cached};
    let Some(pin) = &pf.types_pin else {
        return Some(dir.to_path_buf());
    };
    let root = cache_root(dir);
    let at = span_of(yaml, &pf.types_file.referenced);
    match cached(pin, &root) {
        Ok(_) => Some(pin.root_dir(&root)),
        Err(CacheError::Missing(path)) => {
            errors.push(
                SpecError::at(
                    yaml,
                    at,
                    format!(
                        "{} `{}` is not fetched yet (looked for {})",
                        pin.spec(),
                        pin.file,
                        path.display()
                    ),
                )
                .with_help(pin.fetch_help(&root)),
            );
            None
        }
        Err(CacheError::Mismatch { path, actual }) => {
            errors.push(
                SpecError::at(
                    yaml,
                    at,
                    format!(
                        "{} has SHA-256 {actual}, but `types:` pins {}",
                        path.display(),
                        pin.sha256
                    ),
                )
                .with_help(format!(
                    "delete {} and fetch again; if the package really changed, check it and update the pin",
                    pin.package_dir(&root).display()
                )),
            );
            None
        }
    }
}

/// The types file, lowered into IR types; for a `.proto`, also its compiled schema.
struct LoadedTypes {
    types: std::collections::BTreeMap<String, crate::ir::TypeDef>,
    proto: Option<proto::ProtoSpec>,
    package: Option<String>,
    /// Notes the front end made while reading (a JSON Schema's unchecked keywords).
    notes: Vec<String>,
    /// The files read beside the types file (a TypeScript file's imports).
    read: Vec<PathBuf>,
}

/// Reads `types:` (TypeScript or protobuf); `None` when it cannot be read (the errors say why).
fn load_types(
    dir: &Path,
    yaml: &SourceFile,
    pf: &ProtocolFile,
    errors: &mut SpecErrors,
) -> Option<LoadedTypes> {
    let types_rel = pf.types_file.value.as_str();
    let at_types = |msg: String| SpecError::at(yaml, span_of(yaml, &pf.types_file.referenced), msg);
    // Said here, at `types:`, for every front end (protox would say only that the file is on
    // no include path, pointing nowhere).
    if !dir.join(types_rel).is_file() {
        errors.push(at_types(format!(
            "cannot read {types_rel}: no such file in the spec folder"
        )));
        return None;
    }
    let descriptor_set = crate::front::proto_include::is_descriptor_set(types_rel);
    if types_rel.ends_with(".proto") || descriptor_set {
        let roots = import_roots(dir, yaml, pf, errors)?;
        let loaded = if descriptor_set {
            proto::load_descriptor_set_in(&roots, types_rel)
        } else {
            proto::load_proto_in(&roots, types_rel)
        };
        match loaded.and_then(|p| Ok((p.package()?, p))) {
            Ok((package, p)) => Some(LoadedTypes {
                types: proto_lower::lower(&p, &package),
                proto: Some(p),
                package: Some(package),
                notes: Vec::new(),
                read: Vec::new(),
            }),
            Err(e) => {
                errors.errors.extend(e.errors);
                None
            }
        }
    } else if types_rel.ends_with(".ts") {
        let ts_file = match SourceFile::read(&dir.join(types_rel)) {
            Ok(f) => f,
            Err(e) => {
                errors.push(at_types(e.message));
                return None;
            }
        };
        match ts::load_files(&ts_file, types_rel) {
            Ok((types, read, notes)) => Some(LoadedTypes {
                types,
                proto: None,
                package: None,
                notes,
                read,
            }),
            Err(e) => {
                errors.errors.extend(e.errors);
                None
            }
        }
    } else if types_rel.ends_with(".json") {
        load_json_schema(dir, types_rel, errors).map(|(types, notes)| LoadedTypes {
            types,
            proto: None,
            package: None,
            notes,
            read: Vec::new(),
        })
    } else {
        errors.push(at_types(
            "`types` must name a `.ts`, `.proto`, `.json` (JSON Schema) or a protobuf descriptor \
             set (`.binpb`, `.pb`, `.desc`, `.protoset`) file"
                .to_owned(),
        ));
        None
    }
}

/// The folders a `.proto` types file's imports resolve in: `dir`, then `proto.include` (each
/// folder must exist, each pinned package be in the cache), then the common Google protos.
/// `None` when an entry cannot be used (the errors say why).
fn import_roots(
    dir: &Path,
    yaml: &SourceFile,
    pf: &ProtocolFile,
    errors: &mut SpecErrors,
) -> Option<crate::front::proto_include::ImportRoots> {
    use crate::front::proto_include::{ImportRoots, Include};
    use crate::front::sources::{cache_root, cached};
    let spec_dir = yaml.path.parent().unwrap_or(dir);
    let mut roots = ImportRoots::folder(dir);
    let before = errors.errors.len();
    for (include, at) in &pf.proto_includes {
        let at = span_of(yaml, at);
        match include {
            Include::Folder(folder) => {
                let path = spec_dir.join(folder);
                if path.is_dir() {
                    roots.extra.push(path);
                } else {
                    errors.push(SpecError::at(
                        yaml,
                        at,
                        format!("`proto.include` folder {} does not exist", path.display()),
                    ));
                }
            }
            Include::Pinned(pin) => {
                let root = cache_root(spec_dir);
                match cached(pin, &root) {
                    Ok(_) => roots.extra.push(pin.root_dir(&root)),
                    Err(_) => errors.push(
                        SpecError::at(
                            yaml,
                            at,
                            format!("{} is not fetched yet, or differs from its pin", pin.spec()),
                        )
                        .with_help(pin.fetch_help(&root)),
                    ),
                }
            }
        }
    }
    (errors.errors.len() == before).then_some(roots)
}

/// Reads a JSON Schema types file, with its notes; `None` when it cannot be read or lowered
/// (the errors say why).
fn load_json_schema(
    dir: &Path,
    types_rel: &str,
    errors: &mut SpecErrors,
) -> Option<(
    std::collections::BTreeMap<String, crate::ir::TypeDef>,
    Vec<String>,
)> {
    let loaded = SourceFile::read(&dir.join(types_rel))
        .map_err(SpecErrors::from)
        .and_then(|file| crate::front::jsonschema::load_types_noted(&file, types_rel));
    match loaded {
        Ok(loaded) => Some(loaded),
        Err(e) => {
            errors.errors.extend(e.errors);
            None
        }
    }
}

/// The IR of `protocol.yaml` with its types, before any cross-check.
fn protocol_of(
    pf: &ProtocolFile,
    types: std::collections::BTreeMap<String, crate::ir::TypeDef>,
    types_file: String,
    proto_package: Option<String>,
) -> Protocol {
    let pf = pf.clone();
    Protocol {
        module: pf.module.value,
        title: pf.title,
        summary: pf.summary,
        transport: pf.transport,
        roles: pf.roles,
        role_aliases: pf.role_aliases,
        types,
        channels: pf.channels.into_iter().map(|(c, _)| c).collect(),
        messages: pf.messages.into_iter().map(|(m, _, _)| m).collect(),
        methods: pf.methods.into_iter().map(|(m, _)| m).collect(),
        routes: pf.routes,
        types_file,
        machines: Vec::new(),
        proto_package,
        options: Default::default(),
        sessions: None,
        tracking: None,
        features: pf.features,
        events: pf.events,
        versioning: None,
        version: pf.version,
    }
}

/// Reads `machine.yaml` (optional), lints it and builds the machine analysis once. Without
/// the file the analysis has no machines: the checker accepts every message, so the module's
/// `machine` path and the skeletons that observe through it stay the same.
fn load_machines(
    dir: &Path,
    machine_file: &str,
    protocol: &mut Protocol,
    files: &mut Vec<PathBuf>,
    errors: &mut SpecErrors,
) -> Result<Option<crate::machine::model::Model>, SpecErrors> {
    let machine_path = dir.join(machine_file);
    if protocol.types_only() {
        // No messages travel, so nothing is sequenced.
        if machine_path.is_file() {
            errors.push(SpecError::new(format!(
                "{}: a protocol without `transport` has no messages to sequence",
                machine_path.display()
            )));
        }
        return Ok(None);
    }
    if !machine_path.is_file() {
        return Ok(match crate::machine::model::Model::new(protocol) {
            Ok(model) => Some(model),
            Err(e) => {
                errors.push(SpecError::new(format!("{}: {e}", dir.display())));
                None
            }
        });
    }
    files.push(machine_path.clone());
    let machine_file = SourceFile::read(&machine_path)?;
    let sources = match crate::front::machine::load(&machine_file) {
        Ok(loaded) => {
            protocol.machines = loaded.machines;
            // The files it extends are inputs too.
            files.extend(loaded.files.iter().skip(1).map(|f| f.path.clone()));
            loaded.files
        }
        Err(e) => {
            errors.errors.extend(e.errors);
            return Ok(None);
        }
    };
    match crate::machine::model::Model::new(protocol) {
        Ok(model) => {
            let lint = crate::machine::lint::lint(&protocol.machines, &model, &sources);
            errors.errors.extend(lint.errors);
            Ok(Some(model))
        }
        Err(e) => {
            errors.push(SpecError::new(format!("{}: {e}", machine_path.display())));
            Ok(None)
        }
    }
}

/// Checks `protocol.yaml` against the TypeScript types.
fn cross_check(yaml: &SourceFile, pf: &ProtocolFile, p: &Protocol, errors: &mut SpecErrors) {
    let mut at = |loc: &Location, msg: String| {
        errors.push(SpecError::at(yaml, span_of(yaml, loc), msg));
    };
    for (channel, loc) in &pf.channels {
        let Some(members) = p.channel_members(&channel.union) else {
            let what = crate::naming::Names::of(p).channel_union_form();
            let hint =
                crate::suggest::did_you_mean(&channel.union, p.types.keys().map(String::as_str));
            at(
                loc,
                format!(
                    "`{}` is not {what} in {}{hint}",
                    channel.union, p.types_file
                ),
            );
            continue;
        };
        for (value, type_name) in members {
            let listed = p
                .messages
                .iter()
                .any(|m| m.kind == value && m.from == channel.from && m.type_name == type_name);
            if !listed {
                at(
                    loc,
                    format!(
                        "`{}` carries kind `{value}` ({type_name}) but the catalogue has no such entry from `{}`",
                        channel.union, channel.from
                    ),
                );
            }
        }
    }
    for (m, kind_loc, type_loc) in &pf.messages {
        let Some(channel) = p.channel_from(&m.from) else {
            at(kind_loc, format!("no channel leaves role `{}`", m.from));
            continue;
        };
        let in_union = p
            .channel_members(&channel.union)
            .is_some_and(|vs| vs.iter().any(|(v, t)| *v == m.kind && *t == m.type_name));
        if !p.types.contains_key(&m.type_name) {
            let hint =
                crate::suggest::did_you_mean(&m.type_name, p.types.keys().map(String::as_str));
            at(type_loc, format!("unknown type `{}`{hint}", m.type_name));
        } else if !in_union {
            at(
                kind_loc,
                format!(
                    "kind `{}` ({}) is not a member of `{}` with that discriminator value",
                    m.kind, m.type_name, channel.union
                ),
            );
        }
    }
    for (m, locs) in &pf.methods {
        for (name, loc) in [(&m.params, &locs.params), (&m.result, &locs.result)] {
            if let (Some(name), Some(loc)) = (name, loc)
                && !p.types.contains_key(name)
            {
                let hint = crate::suggest::did_you_mean(name, p.types.keys().map(String::as_str));
                at(loc, format!("unknown type `{name}`{hint}"));
            }
        }
        if m.answer == Some(crate::ir::DefaultAnswer::Empty)
            && let Some(loc) = &locs.answer
            && !m.result.as_deref().is_some_and(|r| empty_decodes(p, r))
        {
            let result = m.result.as_deref().unwrap_or("null");
            at(
                loc,
                format!(
                    "`answer: empty` needs a result type whose every field is optional; `{result}` is not"
                ),
            );
        }
    }
    check_routes(yaml, p, errors);
}

/// The types each HTTP route names (bodies and path parameters) exist.
fn check_routes(yaml: &SourceFile, p: &Protocol, errors: &mut SpecErrors) {
    for r in &p.routes {
        let bodies = std::iter::once(&r.body).chain(r.responses.iter().map(|x| &x.body));
        for b in bodies {
            if let Body::Json(name) = b
                && !p.types.contains_key(name)
            {
                errors.push(SpecError::new(format!(
                    "{}:{}: route `{}` names unknown type `{name}`",
                    yaml.path.display(),
                    r.origin.line,
                    r.name
                )));
            }
        }
        for ty in r.path_params.values() {
            if ty != "string" && !p.types.contains_key(ty) {
                errors.push(SpecError::new(format!(
                    "{}:{}: route `{}` names unknown type `{ty}`",
                    yaml.path.display(),
                    r.origin.line,
                    r.name
                )));
            }
        }
    }
}

/// Whether the type `name` decodes from `{}`: a struct (through aliases) with no required
/// field, so `answer: empty` can give it.
fn empty_decodes(p: &crate::ir::Protocol, name: &str) -> bool {
    use crate::ir::{Ty, TypeKind};
    let mut name = name;
    for _ in 0..16 {
        match p.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Struct(fields)) => return fields.iter().all(|f| f.optional),
            Some(TypeKind::Alias {
                target: Ty::Named(n),
                ..
            }) => name = n,
            _ => return false,
        }
    }
    false
}
