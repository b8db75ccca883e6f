//! A spec folder that does not exist: the error sits on the spec literal to fix.
use agentwire::Protocol;

#[derive(Protocol)]
#[protocol(spec = "spec/nowhere")]
pub struct P;

fn main() {}
