//! A binary `FileDescriptorSet` as the types file of a protobuf spec (what `buf build -o
//! x.binpb` and `protoc --descriptor_set_out=x.pb` write): the files it holds are the spec's
//! own, already compiled, and go down the same path as `.proto` sources (`ProtoSpec`, then
//! lowering into the IR). Imports the set does not hold resolve like a `.proto`'s (the
//! bundled well-known types, `proto.include`, the common Google protos).
//!
//! A set carries no source text: constraint tags in comments (`@minLength 1`) are not read
//! from it, and diagnostics name the set's path without a line. Custom options
//! (`google.api.field_behavior`, ...) are not read from it yet: `prost_types` drops the
//! extension fields of an options message when it decodes the set (reading them needs the
//! set decoded by `prost_reflect`, which keeps them).

use std::collections::{BTreeMap, BTreeSet};

use prost::Message;
use prost_types::FileDescriptorSet;

use crate::diag::{SpecError, SpecErrors};
use crate::front::proto::ProtoSpec;
use crate::front::proto_include::{ImportRoots, descriptor_set_compiler, is_bundled, is_common};

/// How to write a set this front reads.
const HELP: &str = "write it with `buf build -o <name>.binpb` or `protoc --include_imports \
                    --descriptor_set_out=<name>.pb <files>`";

/// Reads `roots.spec_dir/file` as a `FileDescriptorSet`. Its own files are every file it holds
/// except the well-known and common Google protos; the root (whose package names the
/// protocol) is the last of them, as both tools write dependencies before their dependents.
pub fn load(roots: &ImportRoots, file: &str) -> Result<ProtoSpec, SpecErrors> {
    let path = roots.spec_dir.join(file);
    let at = |message: String| SpecError::new(format!("{}: {message}", path.display()));
    let bytes = std::fs::read(&path).map_err(|e| at(format!("cannot read: {e}")))?;
    let set = FileDescriptorSet::decode(bytes.as_slice())
        .map_err(|e| at(format!("not a FileDescriptorSet ({e})")).with_help(HELP))?;
    let own: BTreeSet<String> = (set.file.iter())
        .map(|f| f.name().to_owned())
        .filter(|n| !is_bundled(n) && !is_common(n))
        .collect();
    let Some(root) = (set.file.iter().rev())
        .map(|f| f.name().to_owned())
        .find(|n| own.contains(n))
    else {
        return Err(
            at("holds no file besides Google's common protos".to_owned())
                .with_help(HELP)
                .into(),
        );
    };
    let mut compiler = descriptor_set_compiler(roots, set);
    compiler.include_source_info(true).include_imports(true);
    compiler
        .open_files(own.iter())
        .map_err(|e| at(e.to_string()).with_help(HELP))?;
    let pool = compiler.descriptor_pool();
    let options = crate::front::proto_options::collect(&pool, &own);
    Ok(ProtoSpec {
        spec_dir: roots.spec_dir.clone(),
        file: root,
        fds: compiler.file_descriptor_set(),
        pool,
        constraints: BTreeMap::new(),
        defaults: BTreeMap::new(),
        sources: BTreeMap::new(),
        own,
        options,
    })
}
