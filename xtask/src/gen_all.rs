//! Regenerates every protocol under `spec/` into `generated/`, writing only files whose
//! contents changed, or (check mode) reporting each stale file.

use std::fmt;
use std::path::{Path, PathBuf};

use agentwire_codegen::{
    OutputFile, SpecErrors, docs, generate,
    generate::{ModuleEntry, lib_rs, skeleton_path},
    output,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Write,
    Check,
}

#[derive(Debug, Default)]
pub struct Report {
    pub summaries: Vec<String>,
    pub changed: Vec<PathBuf>,
}

#[derive(Debug)]
pub enum Error {
    Spec(Vec<(PathBuf, SpecErrors)>),
    Stale(Vec<PathBuf>),
    /// Document findings, each already rendered as `doc:line: ...`.
    Docs(Vec<String>),
    Io(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Spec(all) => {
                for (dir, errors) in all {
                    writeln!(f, "spec errors in {}:", dir.display())?;
                    for e in &errors.errors {
                        for line in e.render().lines() {
                            writeln!(f, "  {line}")?;
                        }
                    }
                }
                Ok(())
            }
            Error::Stale(paths) => {
                for p in paths {
                    writeln!(f, "stale: {}", p.display())?;
                }
                write!(
                    f,
                    "generated/ is out of date with spec/: run `cargo xtask gen`"
                )
            }
            Error::Docs(findings) => {
                for line in findings {
                    writeln!(f, "{line}")?;
                }
                write!(f, "{} finding(s) in the docs", findings.len())
            }
            Error::Io(e) => f.write_str(e),
        }
    }
}

/// The workspace root (the parent of the xtask crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

/// One generated crate: the spec folders it is built from and where its files go.
#[derive(Debug, Clone)]
pub struct Target {
    /// The folder holding one spec folder per protocol.
    pub specs: PathBuf,
    /// The generated crate's root (`src/`, `schemas/` and `diagrams/` are written there).
    pub out: PathBuf,
    /// The crate's one-line doc.
    pub doc: &'static str,
    /// Whether `docs/protocols/<module>.md` is checked and its diagrams kept fresh.
    pub docs: bool,
}

/// The crates `cargo xtask gen` writes: the built-ins from `spec/`, and the test protocols,
/// whose spec folders sit inside their own crate at `tests/protocols/`.
pub fn targets(root: &Path) -> Vec<Target> {
    vec![
        Target {
            specs: root.join("spec"),
            out: root.join("generated"),
            doc: "The built-in agent protocols, generated from `spec/` by `cargo xtask gen`.",
            docs: true,
        },
        Target {
            specs: root.join("tests/protocols"),
            out: root.join("tests/protocols"),
            doc: "Protocols that exist only for tests, generated from the spec folders beside this crate's `src/` by `cargo xtask gen`.",
            docs: false,
        },
    ]
}

/// Every spec folder, sorted by name so output order is stable.
fn spec_dirs(specs: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(specs)
        .map_err(|e| Error::Io(format!("cannot list {}: {e}", specs.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("protocol.yaml").is_file())
        .collect();
    dirs.sort();
    Ok(dirs)
}

/// A spec folder's `talk.rs` as `src/`-relative path, when the folder sits inside the
/// generated crate (as the test protocols do) and has one.
fn talk_path(spec_dir: &Path, out: &Path) -> Option<String> {
    let rel = spec_dir.strip_prefix(out).ok()?;
    spec_dir
        .join("talk.rs")
        .is_file()
        .then(|| format!("../{}/talk.rs", rel.to_string_lossy().replace('\\', "/")))
}

/// Fetches the pinned registry files every spec folder names (`types: {npm: ...}`) that the
/// local cache lacks; returns the `<package>@<version>` of each one fetched.
pub fn fetch(root: &Path) -> Result<Vec<String>, Error> {
    let mut dirs = Vec::new();
    for target in targets(root) {
        dirs.extend(spec_dirs(&target.specs)?);
    }
    agentwire_codegen::front::sources::fetch_all(&dirs).map_err(Error::Io)
}

/// Regenerates (or checks) every target, fetching missing pinned sources first.
pub fn run(root: &Path, mode: Mode) -> Result<Report, Error> {
    let mut report = Report::default();
    for fetched in fetch(root)? {
        report.summaries.push(format!("fetched {fetched}"));
    }
    for target in targets(root) {
        run_target(root, &target, mode, &mut report)?;
    }
    Ok(report)
}

/// The doc of `module`, refreshed (its diagrams) and checked; findings go to `findings`.
fn check_protocol_doc(
    root: &Path,
    g: &agentwire_codegen::Generated,
    report: &mut Report,
    findings: &mut Vec<String>,
) -> Option<(PathBuf, String)> {
    let doc_path = root.join("docs/protocols").join(format!("{}.md", g.module));
    let doc = std::fs::read_to_string(&doc_path).ok()?;
    // The state diagrams between the doc's markers are generated output too.
    let update = match docs::with_diagram(&g.spec, &doc) {
        Some(fresh) if fresh != doc => Some((doc_path.clone(), fresh)),
        _ => None,
    };
    let fresh = docs::with_diagram(&g.spec, &doc).unwrap_or(doc);
    let checked = docs::check_doc(&g.spec, &doc_path, &fresh);
    report.summaries.push(format!(
        "  docs/protocols/{}.md: {} declarations, {} JSON examples, {} sequences checked",
        g.module, checked.declarations, checked.json_examples, checked.sequences
    ));
    findings.extend(render(&doc_path, root, &checked.findings));
    update
}

fn run_target(root: &Path, target: &Target, mode: Mode, report: &mut Report) -> Result<(), Error> {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut modules = Vec::new();
    let mut protocols = Vec::new();
    let mut spec_errors = Vec::new();
    let mut doc_findings = Vec::new();
    let mut doc_updates: Vec<(PathBuf, String)> = Vec::new();
    for dir in spec_dirs(&target.specs)? {
        match generate(&dir) {
            Ok(g) => {
                report.summaries.push(g.summary.clone());
                let skeleton = g.files.iter().any(|f| f.path == skeleton_path(&g.module));
                modules.push(ModuleEntry {
                    module: g.module.clone(),
                    title: g.spec.protocol.title.clone(),
                    skeleton,
                    talk: talk_path(&dir, &target.out),
                });
                if target.docs {
                    doc_updates.extend(check_protocol_doc(root, &g, report, &mut doc_findings));
                }
                let source = dir.strip_prefix(root).unwrap_or(&dir);
                let source = source.to_string_lossy().replace('\\', "/");
                files.extend(g.files.iter().map(|f| (f.path.clone(), f.render(&source))));
                protocols.push(g.spec.protocol);
            }
            Err(e) => spec_errors.push((dir, e)),
        }
    }
    if !spec_errors.is_empty() {
        return Err(Error::Spec(spec_errors));
    }
    let crate_files = crate_files(target.doc, &modules, &protocols).map_err(Error::Io)?;
    let shown = target.specs.strip_prefix(root).unwrap_or(&target.specs);
    let shown = format!("{}/", shown.to_string_lossy().replace('\\', "/"));
    files.extend(
        crate_files
            .iter()
            .map(|f| (f.path.clone(), f.render(&shown))),
    );
    let out_mode = match mode {
        Mode::Write => output::Mode::Write,
        Mode::Check => output::Mode::Check,
    };
    let differ = output::sync(&target.out, &files, out_mode).map_err(Error::Io)?;
    let mut stale = Vec::new();
    match mode {
        Mode::Write => report.changed.extend(differ),
        Mode::Check => stale.extend(differ),
    }
    for (path, fresh) in doc_updates {
        match mode {
            Mode::Check => stale.push(path),
            Mode::Write => {
                std::fs::write(&path, fresh)
                    .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))?;
                report.changed.push(path);
            }
        }
    }
    if !stale.is_empty() {
        return Err(Error::Stale(stale));
    }
    if mode == Mode::Check && !doc_findings.is_empty() {
        return Err(Error::Docs(doc_findings));
    }
    Ok(())
}

/// The crate-level files: `src/lib.rs` and `src/registry.rs`.
fn crate_files(
    doc: &str,
    modules: &[ModuleEntry],
    protocols: &[agentwire_codegen::ir::Protocol],
) -> Result<Vec<OutputFile>, String> {
    let refs: Vec<&agentwire_codegen::ir::Protocol> = protocols.iter().collect();
    let registry = output::parse_tokens(
        "registry",
        agentwire_codegen::emit::registry::emit_registry(&refs),
    )?;
    Ok(vec![
        OutputFile {
            path: "src/lib.rs".to_owned(),
            contents: output::Contents::Source(lib_rs(doc, modules)),
        },
        OutputFile::rust("src/registry.rs", registry),
    ])
}

/// Findings as `doc:line: message`, with the document path relative to the workspace.
pub fn render(doc: &Path, root: &Path, findings: &[docs::Finding]) -> Vec<String> {
    let shown = doc.strip_prefix(root).unwrap_or(doc);
    findings
        .iter()
        .map(|f| format!("{}:{}: {}", shown.display(), f.line, f.message))
        .collect()
}

/// `cargo xtask check-docs --spec <dir> <doc.md>...`: checks any Markdown file against a spec.
pub fn check_docs(
    root: &Path,
    spec_dir: &Path,
    docs_paths: &[PathBuf],
) -> Result<Vec<String>, Error> {
    agentwire_codegen::front::sources::fetch_all(&[spec_dir.to_path_buf()]).map_err(Error::Io)?;
    let spec = agentwire_codegen::front::load::load_spec(spec_dir)
        .map_err(|e| Error::Spec(vec![(spec_dir.to_path_buf(), e)]))?;
    let mut out = Vec::new();
    for path in docs_paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Io(format!("cannot read {}: {e}", path.display())))?;
        let report = docs::check_doc(&spec, path, &text);
        for note in render(path, root, &report.notes) {
            eprintln!("note: {note}");
        }
        out.extend(render(path, root, &report.findings));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo test` fails when someone edits spec/ without regenerating.
    #[test]
    fn generated_code_is_fresh() {
        if let Err(e) = run(&workspace_root(), Mode::Check) {
            panic!("{e}");
        }
    }
}
