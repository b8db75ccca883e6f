//! A field of an unknown TypeScript type: the error names messages.ts:line:col.
use agentwire::Protocol;

#[derive(Protocol)]
#[protocol(spec = "spec/ts_type_error")]
pub struct P;

fn main() {}
