//! Regenerates every protocol under `spec/` into `generated/`, writing only files whose
//! contents changed, or (check mode) reporting each stale file.

use std::fmt;
use std::path::{Path, PathBuf};

use agentwire_codegen::{
    OutputFile, SpecErrors, docs, generate,
    generate::{ModuleEntry, lib_rs, skeleton_path},
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
                        writeln!(f, "  {}", e.one_line())?;
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

/// Every spec folder, sorted by name so output order is stable.
fn spec_dirs(root: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("spec"))
        .map_err(|e| Error::Io(format!("cannot list spec/: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("protocol.yaml").is_file())
        .collect();
    dirs.sort();
    Ok(dirs)
}

pub fn run(root: &Path, mode: Mode) -> Result<Report, Error> {
    let mut report = Report::default();
    let mut files: Vec<OutputFile> = Vec::new();
    let mut modules = Vec::new();
    let mut spec_errors = Vec::new();
    let mut doc_findings = Vec::new();
    let mut doc_updates: Vec<(PathBuf, String)> = Vec::new();
    for dir in spec_dirs(root)? {
        match generate(&dir) {
            Ok(g) => {
                report.summaries.push(g.summary.clone());
                let skeleton = g.files.iter().any(|f| f.path == skeleton_path(&g.module));
                modules.push(ModuleEntry {
                    module: g.module.clone(),
                    title: g.spec.protocol.title.clone(),
                    skeleton,
                });
                let doc_path = root.join("docs/protocols").join(format!("{}.md", g.module));
                if let Ok(doc) = std::fs::read_to_string(&doc_path) {
                    // The state diagrams between the doc's markers are generated output too.
                    match docs::with_diagram(&g.spec, &doc) {
                        Some(fresh) if fresh != doc => {
                            doc_updates.push((doc_path.clone(), fresh.clone()))
                        }
                        _ => {}
                    }
                    let fresh = docs::with_diagram(&g.spec, &doc).unwrap_or(doc);
                    let checked = docs::check_doc(&g.spec, &doc_path, &fresh);
                    report.summaries.push(format!(
                        "  docs/protocols/{}.md: {} declarations, {} JSON examples, {} sequences checked",
                        g.module, checked.declarations, checked.json_examples, checked.sequences
                    ));
                    doc_findings.extend(render(&doc_path, root, &checked.findings));
                }
                files.extend(g.files);
            }
            Err(e) => spec_errors.push((dir, e)),
        }
    }
    if !spec_errors.is_empty() {
        return Err(Error::Spec(spec_errors));
    }
    files.push(OutputFile {
        path: "src/lib.rs".to_owned(),
        contents: lib_rs(&modules),
    });
    let generated = root.join("generated");
    let mut stale = Vec::new();
    for file in &files {
        let path = generated.join(&file.path);
        let current = std::fs::read_to_string(&path).ok();
        if current.as_deref() == Some(file.contents.as_str()) {
            continue;
        }
        match mode {
            Mode::Check => stale.push(path),
            Mode::Write => {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| {
                        Error::Io(format!("cannot create {}: {e}", parent.display()))
                    })?;
                }
                std::fs::write(&path, &file.contents)
                    .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))?;
                report.changed.push(path);
            }
        }
    }
    // Files no generator produces any more are stale too (a removed protocol).
    for path in existing_generated(&generated) {
        let rel = path
            .strip_prefix(&generated)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if !files.iter().any(|f| f.path == rel) {
            match mode {
                Mode::Check => stale.push(path),
                Mode::Write => {
                    std::fs::remove_file(&path)
                        .map_err(|e| Error::Io(format!("cannot remove {}: {e}", path.display())))?;
                    report.changed.push(path);
                }
            }
        }
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
    Ok(report)
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

/// Generated files on disk: everything under `generated/src` and `generated/schemas`.
fn existing_generated(generated: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![generated.join("src"), generated.join("schemas")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
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
