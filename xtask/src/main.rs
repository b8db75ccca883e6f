//! `cargo xtask`: the project's own commands. `gen` regenerates `generated/` from `spec/`;
//! `check` fails when anything there is stale.

mod gen_all;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = gen_all::workspace_root();
    let mode = match args.first().map(String::as_str) {
        Some("gen") => gen_all::Mode::Write,
        Some("check") => gen_all::Mode::Check,
        _ => {
            eprintln!("usage: cargo xtask <gen|check>");
            eprintln!("  gen    regenerate generated/ from spec/ (writes only changed files)");
            eprintln!("  check  fail if generated/ is stale or a spec has errors");
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
