//! The verbs over spec folders on disk (`gen`, `check-docs`, `lint`, `schema`, `diagram`). They run the
//! generator library at run time, so they work on any folder, with nothing compiled in, and
//! they call the same functions as this repository's `cargo xtask`.

pub mod diagram;
pub mod docs;
pub mod generate;
pub mod lint;
pub mod schema;
pub mod source;

use std::io::Write;
use std::path::{Path, PathBuf};

use agentwire_codegen::SpecErrors;

/// Exit status: done, nothing found.
pub const OK: u8 = 0;
/// Exit status: findings (drift, doc differences, spec diagnostics from `lint`).
pub const FINDINGS: u8 = 1;
/// Exit status: a usage error, a spec that does not load, a file that cannot be read.
pub const USAGE: u8 = 2;

/// The spec folders `--spec` names: a folder holding `protocol.yaml` is one; any other folder
/// stands for the spec folders directly inside it.
pub fn expand(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for dir in dirs {
        if dir.join("protocol.yaml").is_file() {
            out.push(dir.clone());
            continue;
        }
        if !dir.is_dir() {
            return Err(format!(
                "spec folder {} does not exist (--spec takes a folder holding protocol.yaml, or a folder of such folders)",
                dir.display()
            ));
        }
        let inside = agentwire_codegen::generated_crate::spec_dirs_under(dir)?;
        if inside.is_empty() {
            return Err(format!(
                "{} holds no protocol.yaml and no spec folders (folders holding protocol.yaml)",
                dir.display()
            ));
        }
        out.extend(inside);
    }
    Ok(out)
}

/// Fetches the pinned registry files the spec folders name (`types: {npm: ...}`) into the
/// local cache, saying so on `err`.
pub fn fetch(dirs: &[PathBuf], err: &mut dyn Write) -> Result<(), String> {
    let fetched = agentwire_codegen::front::fetch::fetch_all(dirs)
        .map_err(|e| format!("cannot fetch a pinned source: {e}"))?;
    for spec in fetched {
        let _ = writeln!(err, "fetched {spec}");
    }
    Ok(())
}

/// Every spec error with its place and source line, then what to do.
pub fn report_spec_errors(all: &[(PathBuf, SpecErrors)], err: &mut dyn Write) {
    let mut count = 0;
    for (dir, errors) in all {
        let _ = writeln!(err, "spec errors in {}:", dir.display());
        for e in &errors.errors {
            count += 1;
            for line in e.render().lines() {
                let _ = writeln!(err, "  {line}");
            }
        }
    }
    let _ = writeln!(
        err,
        "error: {count} spec error(s); fix each at the file:line:col shown (`agentwire lint --spec DIR` lists them again)"
    );
}

/// `path` made absolute without resolving what does not exist yet: the existing part is
/// canonicalized (symlinks, `..`), the rest appended.
pub fn absolute(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => absolute(parent).join(name),
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

/// What the generator writes for one spec folder, held in memory.
pub struct Generated {
    pub module: String,
    files: Vec<agentwire_codegen::output::OutputFile>,
}

impl Generated {
    /// The text of the file the generator writes at `path`, if it writes one.
    pub fn text(&self, path: &str) -> Option<String> {
        self.files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.render(""))
    }
}

/// Runs the generator on one spec folder in memory (fetching what it names first); `None`
/// once the reason is written to `err`.
pub fn generated(spec: &Path, err: &mut dyn Write) -> Option<Generated> {
    if let Err(e) = fetch(&[spec.to_path_buf()], err) {
        let _ = writeln!(err, "error: {e}");
        return None;
    }
    match agentwire_codegen::generate(spec) {
        Ok(g) => Some(Generated {
            module: g.module,
            files: g.files,
        }),
        Err(e) => {
            report_spec_errors(&[(spec.to_path_buf(), e)], err);
            None
        }
    }
}

/// Writes a generated text to standard output: `OK`, or `USAGE` when it cannot be written.
pub fn print(out: &mut dyn Write, err: &mut dyn Write, text: &str, what: &str) -> u8 {
    match out.write_all(text.as_bytes()) {
        Ok(()) => OK,
        Err(e) => {
            let _ = writeln!(err, "error: cannot write {what}: {e}");
            USAGE
        }
    }
}
