//! `agentwire lint --spec DIR...`: loads each spec folder and runs the whole generator on it
//! in memory, reporting every diagnostic at its `file:line:col`; writes nothing.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::{FINDINGS, OK, USAGE};

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Spec folders (each holding protocol.yaml), or folders of spec folders.
    #[arg(long = "spec", value_name = "DIR", required = true, num_args = 1..)]
    specs: Vec<PathBuf>,
}

pub fn run(args: &LintArgs, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let dirs = match super::expand(&args.specs) {
        Ok(dirs) => dirs,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return USAGE;
        }
    };
    if let Err(e) = super::fetch(&dirs, err) {
        let _ = writeln!(err, "error: {e}");
        return USAGE;
    }
    let mut problems = 0;
    let mut bad_folders = 0;
    for dir in &dirs {
        match agentwire_codegen::generate(dir) {
            Ok(g) => {
                let first = g.summary.lines().next().unwrap_or_default();
                let _ = writeln!(out, "ok: {}: {first}", dir.display());
                for note in &g.spec.notes {
                    let _ = writeln!(err, "note: {}: {note}", dir.display());
                }
            }
            Err(errors) => {
                bad_folders += 1;
                for e in &errors.errors {
                    problems += 1;
                    let _ = writeln!(out, "{}", e.render());
                }
            }
        }
    }
    if problems == 0 {
        let _ = writeln!(
            err,
            "{} spec folder(s) load and generate cleanly",
            dirs.len()
        );
        return OK;
    }
    let _ = writeln!(
        err,
        "{problems} problem(s) in {bad_folders} of {} spec folder(s); fix each at the file:line:col shown",
        dirs.len()
    );
    FINDINGS
}
