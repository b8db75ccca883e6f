//! The protocol a command works on: a registered one named by `--protocol NAME`, or a spec
//! folder given by `--spec DIR`, interpreted at run time. Shared by `trace check`, `proxy` and
//! `mock`, each of which turns a usage error into its own exit.

use std::path::Path;

use agentwire_runtime::registry::Protocol;
use clap::error::ErrorKind;

/// The spec folder `dir`, loaded and interpreted (pinned third-party sources fetched first).
pub(crate) fn interpret(dir: &Path) -> Result<crate::interp::Interpreted, UsageError> {
    let invalid = |e: String| (ErrorKind::InvalidValue, e);
    crate::spec::fetch(&[dir.to_path_buf()], &mut std::io::sink()).map_err(invalid)?;
    crate::interp::Interpreted::load(dir).map_err(|e| {
        invalid(format!(
            "cannot check against spec folder {}:\n{e}",
            dir.display()
        ))
    })
}

/// The registered protocol named `name`, or a usage error listing the known ones.
pub(crate) fn find_protocol<'a>(
    registry: &[&'a dyn Protocol],
    name: &str,
) -> Result<&'a dyn Protocol, UsageError> {
    // `my-proto` is accepted for `my_proto`, as a shell user may type it.
    let found = agentwire_runtime::registry::find(registry, name)
        .or_else(|| agentwire_runtime::registry::find(registry, &name.replace('-', "_")));
    found.ok_or_else(|| {
        let known: Vec<&str> = registry.iter().map(|p| p.name()).collect();
        (
            ErrorKind::InvalidValue,
            format!(
                "unknown protocol `{name}`; the known protocols are {}",
                known.join(", ")
            ),
        )
    })
}

pub(crate) type UsageError = (ErrorKind, String);
