//! Markdown files on disk checked against one spec folder: what `cargo xtask check-docs` and
//! `agentwire check-docs` both run, so the two print the same findings.

use std::path::{Path, PathBuf};

use crate::diag::SpecErrors;

/// What checking the files found.
#[derive(Debug, Default)]
pub struct FilesReport {
    /// Every finding, rendered `doc:line: message`.
    pub findings: Vec<String>,
    /// What was not compared and why, rendered the same way.
    pub notes: Vec<String>,
    /// Per document: declarations, JSON examples and sequences compared.
    pub checked: Vec<(PathBuf, super::Report)>,
}

/// Why the files could not be checked at all.
#[derive(Debug)]
pub enum FilesError {
    /// The spec folder does not load.
    Spec(SpecErrors),
    /// A pinned source cannot be fetched or a document cannot be read.
    Io(String),
}

/// Checks each of `docs` against the spec in `spec_dir` (fetching its pinned source first);
/// document paths are shown relative to `shown_from` when they lie inside it.
pub fn check_doc_files(
    spec_dir: &Path,
    docs: &[PathBuf],
    shown_from: &Path,
) -> Result<FilesReport, FilesError> {
    crate::front::fetch::fetch_all(&[spec_dir.to_path_buf()]).map_err(FilesError::Io)?;
    let spec = crate::front::load::load_spec(spec_dir).map_err(FilesError::Spec)?;
    let mut out = FilesReport::default();
    for path in docs {
        let text = std::fs::read_to_string(path)
            .map_err(|e| FilesError::Io(format!("cannot read {}: {e}", path.display())))?;
        let report = super::check_doc(&spec, path, &text);
        out.notes.extend(render(path, shown_from, &report.notes));
        out.findings
            .extend(render(path, shown_from, &report.findings));
        out.checked.push((path.clone(), report));
    }
    Ok(out)
}

/// Findings as `doc:line: message`, the document shown relative to `shown_from`.
pub fn render(doc: &Path, shown_from: &Path, findings: &[super::Finding]) -> Vec<String> {
    let shown = doc.strip_prefix(shown_from).unwrap_or(doc);
    findings
        .iter()
        .map(|f| format!("{}:{}: {}", shown.display(), f.line, f.message))
        .collect()
}
