//! `agentwire schema --spec DIR`: the protocol's JSON Schema, exactly as `gen` writes it to
//! `schemas/<module>.schema.json`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::{OK, USAGE};

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The spec folder (holding protocol.yaml).
    #[arg(long, value_name = "DIR")]
    spec: PathBuf,
}

pub fn run(args: &SchemaArgs, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let dirs = [args.spec.clone()];
    if let Err(e) = super::fetch(&dirs, err) {
        let _ = writeln!(err, "error: {e}");
        return USAGE;
    }
    let g = match agentwire_codegen::generate(&args.spec) {
        Ok(g) => g,
        Err(e) => {
            super::report_spec_errors(&[(args.spec.clone(), e)], err);
            return USAGE;
        }
    };
    let path = format!("schemas/{}.schema.json", g.module);
    let Some(file) = g.files.iter().find(|f| f.path == path) else {
        let _ = writeln!(
            err,
            "error: the generator wrote no {path} (a generator bug)"
        );
        return USAGE;
    };
    match out.write_all(file.render("").as_bytes()) {
        Ok(()) => OK,
        Err(e) => {
            let _ = writeln!(err, "error: cannot write the schema: {e}");
            USAGE
        }
    }
}
