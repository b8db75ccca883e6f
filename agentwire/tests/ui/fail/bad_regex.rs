//! A @pattern that is not a regex: the error names messages.ts and the line of the tag.
use agentwire::Protocol;

#[derive(Protocol)]
#[protocol(spec = "spec/bad_regex")]
pub struct P;

fn main() {}
