//! Unknown keys in #[protocol(...)]: each is reported at its own span, in one compile.
use agentwire::Protocol;

#[derive(Protocol)]
#[protocol(spec = "spec/ping", schema = true, crates = "x")]
pub struct P;

#[derive(Protocol)]
pub struct NoSpec;

fn main() {}
