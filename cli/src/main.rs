//! The `agentwire` binary: the command line of `agentwire_cli` over the built-in protocols.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Not `stdout().lock()`: `agentwire proxy` writes standard output from another thread,
    // which the main thread's lock, held for the whole run, would block forever.
    let mut out = std::io::BufWriter::new(std::io::stdout());
    match agentwire_cli::run(
        agentwire_protocols::protocols(),
        std::env::args_os(),
        &mut out,
    ) {
        Ok(code) => ExitCode::from(code),
        // Prints the message (help and version to stdout) and exits with clap's status.
        Err(e) => {
            drop(out);
            e.exit()
        }
    }
}
