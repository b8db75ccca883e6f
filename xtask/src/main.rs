//! `cargo xtask`: the project's own commands. `gen` regenerates `generated/` from `spec/`;
//! `check` fails when anything there is stale.

mod gen_all;

use std::process::ExitCode;

/// `check-docs --spec <dir> <file.md>...`
fn check_docs(root: &std::path::Path, args: &[String]) -> ExitCode {
    let (Some("--spec"), Some(spec), files) =
        (args.first().map(String::as_str), args.get(1), args.get(2..))
    else {
        eprintln!("usage: cargo xtask check-docs --spec <spec dir> <doc.md>...");
        return ExitCode::from(2);
    };
    let files: Vec<std::path::PathBuf> = files.unwrap_or_default().iter().map(Into::into).collect();
    if files.is_empty() {
        eprintln!("usage: cargo xtask check-docs --spec <spec dir> <doc.md>...");
        return ExitCode::from(2);
    }
    match gen_all::check_docs(root, std::path::Path::new(spec), &files) {
        Ok(findings) if findings.is_empty() => ExitCode::SUCCESS,
        Ok(findings) => {
            for f in findings {
                println!("{f}");
            }
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}

/// `fetch`: fills the pinned-source cache (gen and check do it too, before they load).
fn fetch(root: &std::path::Path) -> ExitCode {
    match gen_all::fetch(root) {
        Ok(fetched) => {
            for spec in &fetched {
                println!("fetched {spec}");
            }
            println!("{} source(s) fetched; the rest were cached", fetched.len());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = gen_all::workspace_root();
    let mode = match args.first().map(String::as_str) {
        Some("gen") => gen_all::Mode::Write,
        Some("check") => gen_all::Mode::Check,
        Some("check-docs") => return check_docs(&root, &args[1..]),
        Some("fetch") => return fetch(&root),
        _ => {
            eprintln!("usage: cargo xtask <gen|check|check-docs|fetch>");
            eprintln!(
                "  gen         regenerate generated/ (and the docs' state diagrams) from spec/"
            );
            eprintln!(
                "  check       fail if generated/ is stale, a spec has errors or the docs drifted"
            );
            eprintln!(
                "  check-docs --spec <spec dir> <doc.md>...   check any Markdown file against a spec"
            );
            eprintln!(
                "  fetch       fetch the pinned registry files spec/ names into the local cache"
            );
            return ExitCode::from(2);
        }
    };
    match gen_all::run(&root, mode) {
        Ok(report) => {
            for line in &report.summaries {
                println!("{line}");
            }
            if mode == gen_all::Mode::Write {
                println!("{} file(s) updated", report.changed.len());
            } else {
                println!("generated/ is up to date");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
