//! `agentwire completions SHELL`: the shell's completion script for every verb and option,
//! generated from the same clap command the binary parses with, so it cannot drift.

use std::io::Write;

use clap::Args;
use clap_complete::Shell;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum)]
    shell: Shell,
}

/// Writes the completion script of `cmd` for the shell of `args` to `out`; 2 when `out`
/// cannot be written (a closed pipe), else 0.
pub fn run(args: &CompletionsArgs, mut cmd: clap::Command, out: &mut dyn Write) -> u8 {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "agentwire", &mut script);
    match out.write_all(&script).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(_) => 2,
    }
}
