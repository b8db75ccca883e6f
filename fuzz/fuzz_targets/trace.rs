//! `agentwire trace check`'s reader on arbitrary bytes, for every protocol: as a JSON Lines
//! trace (the newline framing: lines split on `\n`, `\r\n` tolerated), and as one or two raw
//! captures (JSON Lines or `Content-Length` framed, detected from the bytes) merged by the
//! checker. The CLI's own modules are compiled in, so this is the code the command runs.
#![no_main]
#![allow(dead_code)]

// An inline module with a path: `check.rs`'s own submodules (`check/*.rs`) then resolve as
// they do in the CLI, and `crate::merge` through the re-export below.
#[path = "../../cli/src"]
mod cli {
    pub mod check;
    pub mod merge;
    pub mod report;
}

use agentwire_runtime::registry::Protocol;
use cli::check::{self, Capture, Sides, Trace};
pub use cli::{merge, report};
use libfuzzer_sys::fuzz_target;
use report::{OutputFormat, Report};

fn run(p: &dyn Protocol, bytes: &[u8]) {
    // Both output formats, the second with a findings limit, as `--format json
    // --max-findings` runs it; the sink stands in for standard output.
    let mut sink = std::io::sink();
    let mut text = Report::new(&mut sink, OutputFormat::Text, None, report::Progress::Off);
    let mut input = bytes;
    let trace = Trace {
        name: "t.jsonl",
        input: &mut input,
        size: Some(bytes.len() as u64),
    };
    let _ = check::check_trace(p, trace, &mut text);
    let mut json = Report::new(
        &mut sink,
        OutputFormat::Json,
        Some(3),
        report::Progress::Off,
    );
    // The same bytes as a one-sided capture (`--one-sided`), held in memory.
    let _ = check::check_one_sided(p, "t.jsonl", bytes, &mut json);
    // Split at the first NUL (if any) into two captures, one per role (the first two roles).
    let (a, b) = match bytes.iter().position(|&x| x == 0) {
        Some(i) => (&bytes[..i], &bytes[i + 1..]),
        None => (bytes, &[][..]),
    };
    let roles = p.roles();
    let (Some(first), Some(second)) = (roles.first(), roles.get(1)) else {
        return;
    };
    let captures = [
        Capture {
            role: (*first).to_owned(),
            file: "a".to_owned(),
            bytes: a.to_vec(),
        },
        Capture {
            role: (*second).to_owned(),
            file: "b".to_owned(),
            bytes: b.to_vec(),
        },
    ];
    let mut sink = std::io::sink();
    let mut out = Report::new(&mut sink, OutputFormat::Text, None, report::Progress::Off);
    let _ = check::check_captures(p, &captures, 1 << 16, Sides::Both, &mut out);
    let _ = check::check_captures(p, &captures[..1], 1 << 16, Sides::OneSided, &mut out);
}

fuzz_target!(|bytes: &[u8]| {
    // Every registered protocol with a checker, as the command would run it.
    for p in agentwire_protocols::protocols() {
        if p.checker().is_some() {
            run(*p, bytes);
        }
    }
});
