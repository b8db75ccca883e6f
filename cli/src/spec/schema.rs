//! `agentwire schema --spec DIR`: the protocol's JSON Schema, exactly as `gen` writes it to
//! `schemas/<module>.schema.json`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::USAGE;

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The spec folder (holding protocol.yaml).
    #[arg(long, value_name = "DIR")]
    spec: PathBuf,
}

pub fn run(args: &SchemaArgs, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let Some(files) = super::generated(&args.spec, err) else {
        return USAGE;
    };
    let path = format!("schemas/{}.schema.json", files.module);
    let Some(text) = files.text(&path) else {
        let _ = writeln!(
            err,
            "error: the generator wrote no {path} (a generator bug)"
        );
        return USAGE;
    };
    super::print(out, err, &text, "the schema")
}
