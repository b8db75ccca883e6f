//! `agentwire check-docs --spec DIR DOC...`: compares Markdown documents with a spec (type
//! blocks, JSON examples, sequence listings, routes), as `cargo xtask check-docs` does.

use std::io::Write;
use std::path::PathBuf;

use agentwire_codegen::docs::files::{FilesError, check_doc_files};
use clap::Args;

use super::{FINDINGS, OK, USAGE};

#[derive(Debug, Args)]
pub struct CheckDocsArgs {
    /// The spec folder the documents describe (holding protocol.yaml).
    #[arg(long, value_name = "DIR")]
    spec: PathBuf,

    /// Markdown documents to check.
    #[arg(value_name = "DOC", required = true)]
    docs: Vec<PathBuf>,
}

pub fn run(args: &CheckDocsArgs, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let here = std::env::current_dir().unwrap_or_default();
    let report = match check_doc_files(&args.spec, &args.docs, &here) {
        Ok(report) => report,
        Err(FilesError::Spec(e)) => {
            super::report_spec_errors(&[(args.spec.clone(), e)], err);
            return USAGE;
        }
        Err(FilesError::Io(e)) => {
            let _ = writeln!(err, "error: {e}");
            return USAGE;
        }
    };
    for note in &report.notes {
        let _ = writeln!(err, "note: {note}");
    }
    for finding in &report.findings {
        let _ = writeln!(out, "{finding}");
    }
    let (mut declarations, mut examples, mut sequences) = (0, 0, 0);
    for (_, r) in &report.checked {
        declarations += r.declarations;
        examples += r.json_examples;
        sequences += r.sequences;
    }
    let what = format!(
        "{} document(s) against {}: {declarations} declarations, {examples} JSON examples, {sequences} sequences compared",
        report.checked.len(),
        args.spec.display()
    );
    if report.findings.is_empty() {
        let _ = writeln!(out, "ok: {what}");
        return OK;
    }
    let _ = writeln!(
        err,
        "{} finding(s) in {what}; make the doc (or the spec) agree at each line shown, or explain a deliberate difference in a `Spec note:` in the spec",
        report.findings.len()
    );
    FINDINGS
}
