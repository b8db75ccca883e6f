//! The verbs over spec folders on disk (`gen`, `check-docs`, `lint`, `schema`). They run the
//! generator library at run time, so they work on any folder, with nothing compiled in, and
//! they call the same functions as this repository's `cargo xtask`.

pub mod docs;
pub mod generate;
pub mod lint;
pub mod schema;

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
