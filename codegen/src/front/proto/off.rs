//! The protobuf front when the `proto` feature is off: loading a `.proto` types file is the
//! diagnostic naming the feature, so no `ProtoSpec` ever exists, and the functions the rest
//! of the generator calls on one (lowering, the gRPC checks) cannot be reached. `front::proto_lower`
//! names this module then.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::diag::SpecErrors;
use crate::front::features::{Front, missing};
use crate::ir::TypeDef;

/// Never built: no value of it exists.
#[derive(Debug, Clone, Copy)]
enum Never {}

/// A compiled `.proto` spec, which a build without protobuf support cannot make.
#[derive(Debug, Clone)]
pub struct ProtoSpec {
    /// The root `.proto` file, relative to the spec folder.
    pub file: String,
    never: Never,
}

impl ProtoSpec {
    /// Proves a `ProtoSpec` is never reached in this build.
    pub fn unreachable(&self) -> ! {
        match self.never {}
    }

    /// Every `.proto` file read from disk.
    pub fn source_paths(&self) -> Vec<PathBuf> {
        self.unreachable()
    }

    /// The spec's proto package.
    pub fn package(&self) -> Result<String, SpecErrors> {
        self.unreachable()
    }
}

/// Refuses `spec_dir/file`: this build has no protobuf front.
pub fn load_proto(spec_dir: &Path, file: &str) -> Result<ProtoSpec, SpecErrors> {
    let path: PathBuf = spec_dir.join(file);
    Err(missing(Front::Proto, &path).into())
}

/// Refuses `roots.spec_dir/file`: this build has no protobuf front.
pub fn load_proto_in(
    roots: &crate::front::proto_include::ImportRoots,
    file: &str,
) -> Result<ProtoSpec, SpecErrors> {
    load_proto(&roots.spec_dir, file)
}

/// Refuses the descriptor set `roots.spec_dir/file`: this build has no protobuf front.
pub fn load_descriptor_set_in(
    roots: &crate::front::proto_include::ImportRoots,
    file: &str,
) -> Result<ProtoSpec, SpecErrors> {
    load_proto(&roots.spec_dir, file)
}

/// `proto_lower::options`.
pub fn options(
    spec: &ProtoSpec,
    _package: &str,
) -> BTreeMap<String, BTreeMap<String, serde_json::Value>> {
    spec.unreachable()
}

/// `proto_lower::lower`.
pub fn lower(spec: &ProtoSpec, _package: &str) -> BTreeMap<String, TypeDef> {
    spec.unreachable()
}
