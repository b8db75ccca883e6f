//! `version:` and `versions:` in `protocol.yaml`: several versions of one protocol in one
//! folder. The folder's sections are what every version shares; each `versions:` entry names
//! its version string and what differs (its types file, its machine file, methods it adds or
//! replaces, methods it drops). Here they are read and checked; `protocol::load_as` applies
//! one entry to the shared sections to get that version's protocol.

use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

use crate::ir::{VersionInfo, VersionSource};

/// `version:`: where a stream names its version; exactly one of `handshake` (with
/// `member`), `meta`, `header` or `any` (a list of the others, for versions that name
/// themselves in different places).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSource {
    /// The request method that opens a stream.
    #[serde(default)]
    handshake: Option<Spanned<String>>,
    /// The member of that request's params (the offer) and of its result (the agreement).
    #[serde(default)]
    member: Option<Spanned<String>>,
    /// The path under `params` every request and notification carries: dotted, or a list of
    /// member names when a name has a dot of its own (`[_meta, io.example/version]`).
    #[serde(default)]
    meta: Option<Spanned<MetaPath>>,
    /// An HTTP header every exchange carries.
    #[serde(default)]
    header: Option<Spanned<String>>,
    /// Several sources read in turn (at most one handshake, none itself an `any`).
    #[serde(default)]
    any: Option<Spanned<Vec<RawSource>>>,
    /// The JSON-RPC error code answering a request in a version this side does not speak
    /// (top level only; JSON-RPC's -32602 "Invalid params" when left out).
    #[serde(default)]
    unsupported_code: Option<Spanned<i64>>,
}

/// `version.meta`: a dotted path (`_meta.version`), or the member names as a list, which is
/// how a member whose name holds a dot (`io.example/version`, as reverse-DNS keys are) is
/// written.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum MetaPath {
    Dotted(String),
    Members(Vec<String>),
}

impl MetaPath {
    /// The member names from `params` down, and how the path was written (for diagnostics).
    fn members(&self) -> (Vec<String>, String) {
        match self {
            MetaPath::Dotted(d) => (d.split('.').map(str::to_owned).collect(), d.clone()),
            MetaPath::Members(m) => (m.clone(), format!("[{}]", m.join(", "))),
        }
    }
}

/// One `versions:` entry, `M` being the method entry of `jsonrpc.methods` and `T` the
/// `types:` entry (a file of the folder, or a pinned registry file).
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "M: Deserialize<'de>, T: Deserialize<'de>")
)]
pub struct RawVersion<M, T> {
    pub version: Spanned<String>,
    /// The version's types, instead of the folder's `types:`.
    #[serde(default)]
    pub types: Option<Spanned<T>>,
    /// The version's machine file, instead of `machine.yaml`.
    #[serde(default)]
    pub machine: Option<Spanned<String>>,
    /// Methods the version adds, or replaces when one of `jsonrpc.methods` has the name.
    #[serde(default)]
    pub methods: Vec<M>,
    /// Methods of `jsonrpc.methods` the version does not have.
    #[serde(default)]
    pub drop_methods: Vec<Spanned<String>>,
    /// This version's skeleton is the folder's (`skeletons::<module>`); at most one entry.
    #[serde(default)]
    pub skeleton: Option<Spanned<bool>>,
    /// The version's unstable form: an opt-in module of its own (`<version>_unstable`), built
    /// only with the generated crate's `<module>-unstable` feature.
    #[serde(default)]
    pub unstable: Option<Spanned<RawUnstable<M, T>>>,
}

/// `versions[].unstable`: what the version's unstable form changes on top of the version:
/// its types (required: the schema with the unstable methods), its machine file, the methods
/// it adds (or replaces: the same method and call).
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "M: Deserialize<'de>, T: Deserialize<'de>")
)]
pub struct RawUnstable<M, T> {
    pub types: Spanned<T>,
    /// The unstable form's machine file, instead of the version's.
    #[serde(default)]
    pub machine: Option<Spanned<String>>,
    #[serde(default)]
    pub methods: Vec<M>,
}

/// One declared version as the loader keeps it.
#[derive(Debug, Clone)]
pub struct VersionDecl {
    pub info: VersionInfo,
    /// The machine file of the version, relative to the spec folder.
    pub machine: String,
    /// The version has an unstable form (`unstable:`), whose module is this.
    pub unstable: Option<String>,
}

/// The machine file of a protocol without versions, and of a version naming none.
pub const MACHINE_FILE: &str = "machine.yaml";

/// `version:` lowered: where a stream names its version, and the error code answering a
/// request in an undeclared one (`None`: the default).
pub type Lowered = (Option<VersionSource>, Option<i64>);

/// Checks `version:` against `versions:` and lowers both; errors go to `err`.
pub fn lower<M, T>(
    raw: Option<&RawSource>,
    versions: &[RawVersion<M, T>],
    at: &Location,
    err: &mut dyn FnMut(&Location, String),
) -> (Lowered, Vec<VersionDecl>) {
    let code = raw.and_then(|r| r.unsupported_code.as_ref());
    if let Some(code) = code
        && i32::try_from(code.value).is_err()
    {
        let msg = format!(
            "`unsupported_code: {}` is no JSON-RPC error code (a 32-bit integer)",
            code.value
        );
        err(&code.referenced, msg);
    }
    let code = code.map(|c| c.value);
    let (source, decls) = lower_source(raw, versions, at, err);
    ((source, code), decls)
}

fn lower_source<M, T>(
    source: Option<&RawSource>,
    versions: &[RawVersion<M, T>],
    at: &Location,
    err: &mut dyn FnMut(&Location, String),
) -> (Option<VersionSource>, Vec<VersionDecl>) {
    let source = match (source, versions.is_empty()) {
        (None, true) => return (None, Vec::new()),
        (Some(s), false) => source_of(s, at, err),
        (Some(_), true) => {
            err(
                at,
                "`version:` says where a stream names its version, but no `versions:` are declared"
                    .to_owned(),
            );
            None
        }
        (None, false) => {
            err(
                &versions[0].version.referenced,
                "`versions:` needs `version:`, where a stream names its version (`handshake` and `member`, `meta` or `header`)".to_owned(),
            );
            None
        }
    };
    let mut decls: Vec<VersionDecl> = Vec::new();
    for v in versions {
        let name = &v.version.value;
        let module = crate::naming::version_module(name);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_graphic()) {
            err(
                &v.version.referenced,
                format!("version `{name}` must be printable ASCII without spaces"),
            );
        } else if let Some(other) = decls.iter().find(|d| d.info.module == module) {
            let what = if other.info.name == *name {
                "is declared twice".to_owned()
            } else {
                format!(
                    "and `{}` have the same module name `{module}`",
                    other.info.name
                )
            };
            err(&v.version.referenced, format!("version `{name}` {what}"));
        }
        let skeleton = v.skeleton.as_ref().is_some_and(|s| s.value);
        if skeleton && let Some(other) = decls.iter().find(|d| d.info.skeleton) {
            let msg = format!(
                "version `{name}` and `{}` both say `skeleton: true`; one version's skeleton is the folder's",
                other.info.name
            );
            err(&v.version.referenced, msg);
        }
        let unstable = v
            .unstable
            .as_ref()
            .map(|_| crate::naming::unstable_module(&module));
        decls.push(VersionDecl {
            unstable,
            info: VersionInfo {
                name: name.clone(),
                module,
                skeleton,
            },
            machine: v
                .machine
                .as_ref()
                .map_or(MACHINE_FILE.to_owned(), |m| m.value.clone()),
        });
    }
    for (d, v) in decls.iter().zip(versions) {
        let clash = (d.unstable.as_ref()).filter(|u| decls.iter().any(|o| o.info.module == **u));
        if let (Some(u), Some(at)) = (clash, &v.unstable) {
            let msg = format!(
                "the unstable form of version `{}` is module `{u}`, which a declared version already is",
                d.info.name
            );
            err(&at.referenced, msg);
        }
    }
    (source, decls)
}

/// `version:` as one `VersionSource`.
fn source_of(
    s: &RawSource,
    at: &Location,
    err: &mut dyn FnMut(&Location, String),
) -> Option<VersionSource> {
    if let Some(any) = &s.any {
        return any_of(s, any, at, err);
    }
    match (&s.handshake, &s.member, &s.meta, &s.header) {
        (Some(method), Some(member), None, None) => Some(VersionSource::Handshake {
            method: method.value.clone(),
            member: member.value.clone(),
        }),
        (Some(method), None, None, None) => {
            err(
                &method.referenced,
                "`handshake:` needs `member:`, the params and result member naming the version"
                    .to_owned(),
            );
            None
        }
        (None, None, Some(meta), None) => {
            let (path, written) = meta.value.members();
            if path.is_empty() || path.iter().any(String::is_empty) {
                err(
                    &meta.referenced,
                    format!(
                        "`meta: {written}` must be a dotted path of member names under params, \
                         or a list of them"
                    ),
                );
                return None;
            }
            Some(VersionSource::Meta { path })
        }
        (None, None, None, Some(header)) => Some(VersionSource::Header {
            name: header.value.clone(),
        }),
        _ => {
            err(
                at,
                "`version:` takes exactly one of `handshake` (with `member`), `meta`, `header` or `any`"
                    .to_owned(),
            );
            None
        }
    }
}

/// `version: {any: [...]}`: each entry a source of its own; none is an `any`, at most one
/// is a handshake, and nothing stands beside `any`.
fn any_of(
    s: &RawSource,
    any: &Spanned<Vec<RawSource>>,
    at: &Location,
    err: &mut dyn FnMut(&Location, String),
) -> Option<VersionSource> {
    let beside = s.handshake.is_some() || s.member.is_some() || s.meta.is_some();
    if beside || s.header.is_some() || any.value.len() < 2 {
        err(
            &any.referenced,
            "`any:` lists two or more sources (`handshake` with `member`, `meta`, `header`) and stands alone in `version:`"
                .to_owned(),
        );
        return None;
    }
    let mut each = Vec::new();
    for one in &any.value {
        if one.any.is_some() {
            err(
                &any.referenced,
                "an `any:` entry cannot be an `any:` itself".to_owned(),
            );
            return None;
        }
        if let Some(code) = &one.unsupported_code {
            err(
                &code.referenced,
                "`unsupported_code` belongs to `version:` itself, not to an `any:` entry"
                    .to_owned(),
            );
            return None;
        }
        each.push(source_of(one, at, err)?);
    }
    let handshakes = each
        .iter()
        .filter(|s| matches!(s, VersionSource::Handshake { .. }))
        .count();
    if handshakes > 1 {
        err(
            &any.referenced,
            "`any:` lists at most one handshake: a stream opens once".to_owned(),
        );
        return None;
    }
    Some(VersionSource::Any(each))
}

/// `spec`, one version of the folder, with its unstable form loaded beside it when the
/// version declares one: the folder read as the version has it with `unstable:` applied,
/// checked in full on its own (its errors name it).
fn with_unstable(
    dir: &std::path::Path,
    yaml: &crate::diag::SourceFile,
    decl: &VersionDecl,
    mut spec: crate::front::load::LoadedSpec,
) -> Result<crate::front::load::LoadedSpec, crate::diag::SpecErrors> {
    if decl.unstable.is_none() {
        return Ok(spec);
    }
    let unstable = crate::front::protocol::load_as(yaml, Some(&decl.info.name), true)
        .and_then(|upf| crate::front::load::load_parsed(dir, yaml, upf))
        .map_err(|mut e| {
            for err in &mut e.errors {
                err.message = format!("unstable form: {}", err.message);
            }
            e
        })?;
    spec.unstable = Some(Box::new(unstable));
    Ok(spec)
}

/// Loads every declared version of the folder whose shared `protocol.yaml` is `pf`: each one
/// is the folder read as that version has it, checked in full on its own; an error shared by
/// several versions is reported once. The folder's IR is the newest version's, with
/// `versioning` listing them all.
pub fn load_versions(
    dir: &std::path::Path,
    yaml: &crate::diag::SourceFile,
    pf: crate::front::protocol::ProtocolFile,
) -> Result<crate::front::load::LoadedSpec, crate::diag::SpecErrors> {
    use crate::diag::{SpecError, SpecErrors};
    let mut errors = SpecErrors::default();
    let mut loaded = Vec::new();
    for decl in &pf.versions {
        let one = crate::front::protocol::load_as(yaml, Some(&decl.info.name), false)
            .and_then(|vpf| crate::front::load::load_parsed(dir, yaml, vpf))
            .and_then(|spec| with_unstable(dir, yaml, decl, spec));
        match one {
            Ok(spec) if spec.proto.is_some() => errors.push(SpecError::new(format!(
                "{}: `versions:` are for JSON protocols; a protobuf spec keeps one version per folder",
                yaml.path.display()
            ))),
            Ok(spec) => loaded.push(spec),
            Err(e) => {
                for mut err in e.errors {
                    if !errors.errors.iter().any(|o| o.message == err.message && o.span == err.span) {
                        err.message = format!("version `{}`: {}", decl.info.name, err.message);
                        errors.push(err);
                    }
                }
            }
        }
    }
    if let Some((method, _)) = pf
        .version_source
        .as_ref()
        .and_then(VersionSource::handshake)
    {
        let opens = |spec: &crate::front::load::LoadedSpec| {
            (spec.protocol.methods.iter())
                .any(|m| m.name == *method && m.call == crate::ir::Call::Request)
        };
        // With `any:`, the handshake is how some versions open (the earlier ones, say) while
        // others name their version on every message: one version having it is enough.
        let each = !matches!(pf.version_source, Some(VersionSource::Any(_)));
        let lacking: Vec<&crate::front::load::LoadedSpec> =
            loaded.iter().filter(|s| !opens(s)).collect();
        let report = each || lacking.len() == loaded.len();
        for spec in lacking.into_iter().filter(|_| report) {
            let v = spec
                .protocol
                .version
                .as_ref()
                .map_or("", |v| v.name.as_str());
            errors.push(SpecError::new(format!(
                "{}: `version.handshake: {method}` is no request method of version `{v}`",
                yaml.path.display()
            )));
        }
    }
    let (Some(source), Some(newest)) = (pf.version_source.clone(), loaded.first()) else {
        return Err(errors);
    };
    let mut protocol = newest.protocol.clone();
    protocol.version = None;
    protocol.versioning = Some(crate::ir::Versioning {
        source,
        unsupported_code: pf.version_unsupported_code,
        versions: pf.versions.iter().map(|d| d.info.clone()).collect(),
    });
    // An unstable form's files (its schema, its machine) rebuild a deriving crate too.
    let each = loaded
        .iter()
        .flat_map(|l| std::iter::once(l).chain(l.unstable.as_deref()));
    let mut files: Vec<std::path::PathBuf> = each.flat_map(|l| l.files.clone()).collect();
    files.sort();
    files.dedup();
    let mut notes: Vec<String> = Vec::new();
    for note in loaded.iter().flat_map(|l| &l.notes) {
        if !notes.contains(note) {
            notes.push(note.clone());
        }
    }
    errors.finish(crate::front::load::LoadedSpec {
        protocol,
        files,
        proto: None,
        analysis: None,
        notes,
        versions: loaded,
        unstable: None,
    })
}
