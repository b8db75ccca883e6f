//! Empty: it is here so that cargo resolves this crate's build dependencies, which ask for the
//! test build's features of the packages build scripts and procedural macros use.
fn main() {}
