//! Regenerates every protocol under `spec/` into `generated/`, writing only files whose
//! contents changed, or (check mode) reporting each stale file.

use std::fmt;
use std::path::{Path, PathBuf};

use agentwire_codegen::emit::manifest::{Defaults, DepStyle, Manifest};
use agentwire_codegen::generated_crate::{CrateSpec, generate_crate, spec_dirs_under};
use agentwire_codegen::{SpecErrors, docs, output};

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
    /// The crate's package name.
    pub name: &'static str,
    /// The crate's one-line doc (also its package description).
    pub doc: &'static str,
    /// What the crate builds with default features.
    pub defaults: Defaults,
    /// Appended to its `Cargo.toml` as written (its dev-dependencies).
    pub extra: &'static str,
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
            name: "agentwire-protocols",
            doc: "The built-in agent protocols, generated from `spec/` by `cargo xtask gen`.",
            // A crate using one protocol's types builds that and nothing else.
            defaults: Defaults::Nothing,
            extra: "",
            docs: true,
        },
        Target {
            specs: root.join("tests/protocols"),
            out: root.join("tests/protocols"),
            name: "agentwire-test-protocols",
            doc: "Protocols that exist only for tests, generated from the spec folders beside this crate's `src/` by `cargo xtask gen`.",
            // Its own unit tests (the spec folders' `talk.rs`) drive the skeletons.
            defaults: Defaults::Full,
            extra: TEST_PROTOCOLS_DEV_DEPS,
            docs: false,
        },
    ]
}

/// The test protocols crate's dev-dependencies (its integration tests'), kept in its manifest.
const TEST_PROTOCOLS_DEV_DEPS: &str = "[dev-dependencies]
# The test build's features for every third-party package, so `cargo test -p
# agentwire-test-protocols` after `cargo test --workspace` (or the other way round) compiles
# this crate's tests alone (scripts/workspace-features).
agentwire-workspace-features.workspace = true
agentwire-cli.workspace = true
agentwire-protocols = { workspace = true, features = [\"all-protocols\"] }
tokio.workspace = true
tokio-tungstenite.workspace = true
futures-util.workspace = true
";

/// Every spec folder, sorted by name so output order is stable.
fn spec_dirs(specs: &Path) -> Result<Vec<PathBuf>, Error> {
    spec_dirs_under(specs).map_err(Error::Io)
}

/// Fetches the pinned registry files every spec folder names (`types: {npm: ...}`) that the
/// local cache lacks; returns the `<package>@<version>` of each one fetched.
pub fn fetch(root: &Path) -> Result<Vec<String>, Error> {
    let mut dirs = Vec::new();
    for target in targets(root) {
        dirs.extend(spec_dirs(&target.specs)?);
    }
    agentwire_codegen::front::fetch::fetch_all(&dirs).map_err(Error::Io)
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
    let dirs = spec_dirs(&target.specs)?;
    let spec = CrateSpec {
        spec_dirs: &dirs,
        out: &target.out,
        doc: target.doc,
        manifest: Manifest {
            name: target.name,
            description: target.doc,
            deps: DepStyle::Workspace,
            defaults: target.defaults,
            extra: target.extra,
        },
        shown_from: root,
        tool: "`cargo xtask gen`",
        progress: None,
    };
    let generated = generate_crate(&spec).map_err(Error::Spec)?;
    let mut doc_findings = Vec::new();
    let mut doc_updates: Vec<(PathBuf, String)> = Vec::new();
    for g in &generated.protocols {
        report.summaries.push(g.summary.clone());
        if target.docs {
            doc_updates.extend(check_protocol_doc(root, g, report, &mut doc_findings));
        }
    }
    let out_mode = match mode {
        Mode::Write => output::Mode::Write,
        Mode::Check => output::Mode::Check,
    };
    let differ = output::sync(&target.out, &generated.files, out_mode).map_err(Error::Io)?;
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

/// Findings as `doc:line: message`, with the document path relative to the workspace.
pub fn render(doc: &Path, root: &Path, findings: &[docs::Finding]) -> Vec<String> {
    docs::files::render(doc, root, findings)
}

/// `cargo xtask check-docs --spec <dir> <doc.md>...`: checks any Markdown file against a spec.
pub fn check_docs(
    root: &Path,
    spec_dir: &Path,
    docs_paths: &[PathBuf],
) -> Result<Vec<String>, Error> {
    let report = docs::files::check_doc_files(spec_dir, docs_paths, root).map_err(|e| match e {
        docs::files::FilesError::Spec(e) => Error::Spec(vec![(spec_dir.to_path_buf(), e)]),
        docs::files::FilesError::Io(e) => Error::Io(e),
    })?;
    for note in &report.notes {
        eprintln!("note: {note}");
    }
    Ok(report.findings)
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
