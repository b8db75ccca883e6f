//! A message kind listed twice in the catalogue: the error names the second entry's line.
use agentwire::Protocol;

#[derive(Protocol)]
#[protocol(spec = "spec/duplicate_kind")]
pub struct P;

fn main() {}
