//! `agentwire diagram --spec DIR`: the protocol's state machines as Mermaid diagrams, exactly
//! as `gen` writes them to `diagrams/<module>.md`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::USAGE;

#[derive(Debug, Args)]
pub struct DiagramArgs {
    /// The spec folder (holding protocol.yaml).
    #[arg(long, value_name = "DIR")]
    spec: PathBuf,
}

pub fn run(args: &DiagramArgs, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let Some(files) = super::generated(&args.spec, err) else {
        return USAGE;
    };
    // The generator draws only machines; a types-only or machine-less spec has none.
    let Some(text) = files.text(&format!("diagrams/{}.md", files.module)) else {
        let _ = writeln!(
            err,
            "error: protocol {} declares no state machine (no `machine:` in {}), so there is nothing to draw",
            files.module,
            args.spec.join("protocol.yaml").display()
        );
        return USAGE;
    };
    super::print(out, err, &text, "the diagrams")
}
