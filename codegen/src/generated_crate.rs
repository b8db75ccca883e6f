//! A whole generated crate from a list of spec folders: every module's files, `src/lib.rs`,
//! `src/registry.rs` and `Cargo.toml`, rendered as text. `cargo xtask gen` and
//! `agentwire gen` both call this and then `output::sync`, so the two cannot disagree.

use std::path::{Path, PathBuf};

use crate::diag::SpecErrors;
use crate::emit::crate_lib::{ModuleEntry, lib_rs};
use crate::emit::manifest::{Manifest, cargo_toml};
use crate::generate::{Generated, generate, skeleton_path};
use crate::output::{self, Contents, OutputFile};

/// Told of a spec folder (its index and path) as it is reached.
pub type OnSpec<'a> = dyn Fn(usize, &Path) + 'a;

/// What to generate.
#[derive(Clone)]
pub struct CrateSpec<'a> {
    /// The spec folders, one protocol each, in the order their modules are listed.
    pub spec_dirs: &'a [PathBuf],
    /// The generated crate's root (`talk.rs` files of spec folders inside it are compiled in).
    pub out: &'a Path,
    /// The crate's one-line doc.
    pub doc: &'a str,
    /// The crate's `Cargo.toml`.
    pub manifest: Manifest<'a>,
    /// Paths in `@generated` headers are shown relative to this folder (with `..` steps
    /// when both are absolute and the path lies outside it).
    pub shown_from: &'a Path,
    /// The command named in `@generated` headers, e.g. "`cargo xtask gen`".
    pub tool: &'a str,
    /// Told of each spec folder (its index in `spec_dirs`) before it is generated, for a
    /// command's progress report.
    pub progress: Option<&'a OnSpec<'a>>,
}

/// Everything generated, ready for `output::sync`.
#[derive(Debug)]
pub struct CrateOutput {
    /// Every file, path relative to the crate root, rendered.
    pub files: Vec<(String, String)>,
    /// Each protocol as generated (its loaded spec included, for the docs check).
    pub protocols: Vec<Generated>,
}

/// Every spec folder (a folder holding `protocol.yaml`) directly under `dir`, sorted by name
/// so output order is stable.
pub fn spec_dirs_under(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("protocol.yaml").is_file())
        .collect();
    dirs.sort();
    Ok(dirs)
}

/// A spec folder's `talk.rs` as a `src/`-relative path, when the folder sits inside the
/// generated crate (as the test protocols do) and has one.
fn talk_path(spec_dir: &Path, out: &Path) -> Option<String> {
    let rel = spec_dir.strip_prefix(out).ok()?;
    spec_dir
        .join("talk.rs")
        .is_file()
        .then(|| format!("../{}/talk.rs", rel.to_string_lossy().replace('\\', "/")))
}

/// `path` as seen from `from`, `/`-separated: the same text wherever the command runs.
pub fn shown(path: &Path, from: &Path) -> String {
    let rel = match path.strip_prefix(from) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) => relative(path, from).unwrap_or_else(|| path.to_path_buf()),
    };
    rel.to_string_lossy().replace('\\', "/")
}

/// `path` relative to `from` with `..` steps, when both are absolute.
fn relative(path: &Path, from: &Path) -> Option<PathBuf> {
    if !path.is_absolute() || !from.is_absolute() {
        return None;
    }
    let p: Vec<_> = path.components().collect();
    let f: Vec<_> = from.components().collect();
    let common = p.iter().zip(&f).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..f.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    Some(out)
}

/// Generates the crate; every spec folder's errors are collected before failing.
pub fn generate_crate(spec: &CrateSpec<'_>) -> Result<CrateOutput, Vec<(PathBuf, SpecErrors)>> {
    let mut files = Vec::new();
    let mut modules = Vec::new();
    let mut protocols = Vec::new();
    let mut errors = Vec::new();
    for (i, dir) in spec.spec_dirs.iter().enumerate() {
        if let Some(progress) = spec.progress {
            progress(i, dir);
        }
        match generate(dir) {
            Ok(g) => {
                modules.push(ModuleEntry {
                    module: g.module.clone(),
                    title: g.spec.protocol.title.clone(),
                    skeleton: g.files.iter().any(|f| f.path == skeleton_path(&g.module)),
                    proto: g.spec.proto.is_some(),
                    unstable: g.spec.versions.iter().any(|v| v.unstable.is_some()),
                    // pbjson-build names the well-known types' crate in what it writes.
                    well_known_types: g.files.iter().any(|f| match &f.contents {
                        Contents::Rust(file) => quote::ToTokens::to_token_stream(file)
                            .to_string()
                            .contains("pbjson_types"),
                        Contents::Source(t) | Contents::Text(t) => t.contains("pbjson_types"),
                    }),
                    talk: talk_path(dir, spec.out),
                });
                let source = shown(dir, spec.shown_from);
                files.extend(
                    g.files
                        .iter()
                        .map(|f| (f.path.clone(), f.render_by(&source, spec.tool))),
                );
                protocols.push(g);
            }
            Err(e) => errors.push((dir.clone(), e)),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let duplicate = modules
        .iter()
        .enumerate()
        .find(|(i, m)| modules[..*i].iter().any(|o| o.module == m.module));
    if let Some((i, m)) = duplicate {
        let e = crate::diag::SpecError::new(format!(
            "module `{}` is generated from two spec folders; give one of them another `module:` in protocol.yaml",
            m.module
        ));
        return Err(vec![(spec.spec_dirs[i].clone(), e.into())]);
    }
    let refs: Vec<crate::emit::registry::Entry<'_>> = protocols
        .iter()
        .map(|g| crate::emit::registry::Entry {
            protocol: &g.spec.protocol,
            versions: g.spec.versions.iter().map(|v| &v.protocol).collect(),
        })
        .collect();
    let registry = output::parse_tokens(
        "registry",
        crate::emit::registry::emit_registry(&refs, crate::transport::registry_kind),
    )
    .map_err(|e| {
        vec![(
            spec.out.to_path_buf(),
            crate::diag::SpecError::new(e).into(),
        )]
    })?;
    let dirs: Vec<String> = spec
        .spec_dirs
        .iter()
        .map(|d| shown(d.parent().unwrap_or(d), spec.shown_from))
        .collect();
    let mut from = dirs.first().cloned().unwrap_or_default();
    if dirs.iter().any(|d| *d != from) {
        from = dirs.join(", ");
    }
    let from = format!("{from}/");
    let crate_files = [
        OutputFile {
            path: "src/lib.rs".to_owned(),
            contents: Contents::Source(lib_rs(spec.doc, &modules)),
        },
        OutputFile::rust("src/registry.rs", registry),
        OutputFile::text("Cargo.toml", cargo_toml(&spec.manifest, &modules)),
    ];
    files.extend(
        crate_files
            .iter()
            .map(|f| (f.path.clone(), f.render_by(&from, spec.tool))),
    );
    Ok(CrateOutput { files, protocols })
}
