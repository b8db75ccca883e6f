//! Loads one spec folder: `protocol.yaml` plus its types file, then checks that they agree
//! (every channel union matches the catalogue, every referenced type exists).

use std::path::{Path, PathBuf};

use serde_saphyr::Location;

use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::front::protocol::{self, ProtocolFile, span_of};
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
    let mut errors = SpecErrors::default();
    let folder = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if pf.module.value != folder {
        errors.push(SpecError::at(
            &yaml,
            span_of(&yaml, &pf.module.referenced),
            format!(
                "`protocol: {}` must equal the folder name `{folder}`",
                pf.module.value
            ),
        ));
    }
    let types_rel = pf.types_file.value.clone();
    let types_path = dir.join(&types_rel);
    let mut files = vec![yaml_path, types_path.clone()];
    let mut proto_spec = None;
    let mut proto_package = None;
    let types = if types_rel.ends_with(".proto") {
        match proto::load_proto(dir, &types_rel).and_then(|p| Ok((p.package()?, p))) {
            Ok((package, p)) => {
                let types = proto_lower::lower(&p, &package);
                proto_spec = Some(p);
                proto_package = Some(package);
                types
            }
            Err(e) => {
                errors.errors.extend(e.errors);
                return Err(errors);
            }
        }
    } else if types_rel.ends_with(".ts") {
        let ts_file = match SourceFile::read(&types_path) {
            Ok(f) => f,
            Err(e) => {
                errors.push(SpecError::at(
                    &yaml,
                    span_of(&yaml, &pf.types_file.referenced),
                    e.message,
                ));
                return Err(errors);
            }
        };
        match ts::load_types(&ts_file, &types_rel) {
            Ok(t) => t,
            Err(e) => {
                errors.errors.extend(e.errors);
                return Err(errors);
            }
        }
    } else {
        errors.push(SpecError::at(
            &yaml,
            span_of(&yaml, &pf.types_file.referenced),
            "`types` must name a `.ts` or `.proto` file",
        ));
        return Err(errors);
    };
    files.dedup();
    let ProtocolFile {
        module,
        title,
        summary,
        transport,
        roles,
        role_aliases,
        channels,
        messages,
        methods,
        routes,
        features,
        events,
        ..
    } = pf.clone();
    let protocol = Protocol {
        module: module.value,
        title,
        summary,
        transport,
        roles,
        role_aliases,
        types,
        channels: channels.iter().map(|(c, _)| c.clone()).collect(),
        messages: messages.iter().map(|(m, _, _)| m.clone()).collect(),
        methods: methods.iter().map(|(m, _)| m.clone()).collect(),
        routes,
        types_file: types_rel,
        machines: Vec::new(),
        proto_package,
        sessions: None,
        tracking: None,
        features,
        events,
    };
    let mut protocol = protocol;
    cross_check(&yaml, &pf, &protocol, &mut errors);
    if proto_spec.is_none() && errors.is_empty() {
        crate::front::skeleton::lower(&yaml, &pf, &mut protocol, &mut errors);
    }
    if let Some(proto) = &proto_spec {
        crate::front::grpc::check_proto(&yaml, &protocol, proto, &mut errors);
    } else if protocol.transport.kind == "grpc" {
        errors.push(SpecError::at(
            &yaml,
            span_of(&yaml, &pf.types_file.referenced),
            "a grpc protocol takes its types from a `.proto` file",
        ));
    }
    let mut notes = crate::front::rename::rust_type_names(&mut protocol);
    notes.extend(crate::front::notes::unchecked_formats(&protocol));
    let mut analysis = None;
    let machine_path = dir.join("machine.yaml");
    if machine_path.is_file() && errors.is_empty() {
        files.push(machine_path.clone());
        let machine_file = SourceFile::read(&machine_path)?;
        match crate::front::machine::load(&machine_file) {
            Ok(machines) => {
                protocol.machines = machines;
                match crate::machine::model::Model::new(&protocol) {
                    Ok(model) => {
                        let lint =
                            crate::machine::lint::lint(&protocol.machines, &model, &machine_file);
                        errors.errors.extend(lint.errors);
                        analysis = Some(model);
                    }
                    Err(e) => {
                        errors.push(SpecError::new(format!("{}: {e}", machine_path.display())))
                    }
                }
            }
            Err(e) => errors.errors.extend(e.errors),
        }
    } else if errors.is_empty() {
        // No `machine.yaml`: a checker with no machines (it accepts every message), so the
        // module's `machine` path and the skeletons that observe through it stay the same.
        match crate::machine::model::Model::new(&protocol) {
            Ok(model) => analysis = Some(model),
            Err(e) => errors.push(SpecError::new(format!("{}: {e}", dir.display()))),
        }
    }
    errors.finish(LoadedSpec {
        protocol,
        files,
        proto: proto_spec,
        analysis,
        notes,
    })
}

/// Checks `protocol.yaml` against the TypeScript types.
fn cross_check(yaml: &SourceFile, pf: &ProtocolFile, p: &Protocol, errors: &mut SpecErrors) {
    let mut at = |loc: &Location, msg: String| {
        errors.push(SpecError::at(yaml, span_of(yaml, loc), msg));
    };
    for (channel, loc) in &pf.channels {
        let Some(members) = p.channel_members(&channel.union) else {
            let what = if p.is_proto() {
                "a message holding only a oneof"
            } else {
                "a union of interfaces"
            };
            at(
                loc,
                format!("`{}` is not {what} in {}", channel.union, p.types_file),
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
            at(type_loc, format!("unknown type `{}`", m.type_name));
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
                at(loc, format!("unknown type `{name}`"));
            }
        }
    }
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
