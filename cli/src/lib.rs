//! The `agentwire` command line as a library: `run` parses the arguments and runs the command
//! against any registry of generated protocols, so tests (and crates with protocols of their
//! own) use the same entry point as the binary, which passes `agentwire_protocols::protocols()`.

mod app;
mod check;
mod completions;
pub mod interp;
mod merge;
mod mock;
mod new;
mod protocol_arg;
mod proxy;
mod report;
mod spec;

pub use app::run;
