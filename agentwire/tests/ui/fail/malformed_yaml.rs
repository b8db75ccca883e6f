//! protocol.yaml that is not YAML: the error names the file, line and column.
use agentwire::Protocol;

#[derive(Protocol)]
#[protocol(spec = "spec/malformed_yaml")]
pub struct P;

fn main() {}
