//! Where a `.proto` spec's imports come from, searched in this order: the spec folder (the
//! pinned package's folder for a pinned `types:`), each `proto.include` entry of
//! `protocol.yaml` (a folder, or a pinned registry package whose root is the folder), the
//! common Google protos (`google/api`, `google/rpc`, `google/type`) from one pinned npm
//! package. protox's bundled `google/protobuf` well-known types come before all of them: an
//! include folder that carries its own copies (a whole `google-proto-files` root does) must
//! not shadow the ones protox was built to parse.
//!
//! Like a pinned `types:` file, pinned packages are read from the local cache only
//! (`front::sources`); `cargo xtask fetch` fills it.

use std::path::{Path, PathBuf};

use crate::front::sources::{Pin, Registry};

/// One `proto.include` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Include {
    /// A folder, relative to the spec folder (or absolute).
    Folder(PathBuf),
    /// A registry package's root.
    Pinned(Pin),
}

/// The import prefixes the common package answers; every other name it leaves alone, so
/// nothing else in the package can shadow a spec's own files.
pub const COMMON_PREFIXES: &[&str] = &["google/api/", "google/rpc/", "google/type/"];

/// The pinned package the common Google protos come from: Google's own npm package of its
/// API definitions. The hash is of `google/api/annotations.proto`.
pub fn common_pin() -> Pin {
    Pin {
        registry: Registry::Npm,
        package: "google-proto-files".to_owned(),
        version: "6.0.1".to_owned(),
        file: "google/api/annotations.proto".to_owned(),
        sha256: "e79ea741cb605a65e78ca322174764a4af9fde1962c1631e12b84c4934ba9a6c".to_owned(),
        root: None,
    }
}

/// The well-known protos protox bundles (`protox::file::GoogleFileResolver`'s list); these
/// names never resolve anywhere else.
pub const BUNDLED: &[&str] = &[
    "google/protobuf/any.proto",
    "google/protobuf/api.proto",
    "google/protobuf/descriptor.proto",
    "google/protobuf/duration.proto",
    "google/protobuf/empty.proto",
    "google/protobuf/field_mask.proto",
    "google/protobuf/source_context.proto",
    "google/protobuf/struct.proto",
    "google/protobuf/timestamp.proto",
    "google/protobuf/type.proto",
    "google/protobuf/wrappers.proto",
    "google/protobuf/compiler/plugin.proto",
];

/// Whether `name` (an import path) is one of protox's bundled well-known protos.
pub fn is_bundled(name: &str) -> bool {
    BUNDLED.contains(&name)
}

/// The file name endings of a binary `FileDescriptorSet` (`buf build -o x.binpb`, `protoc
/// --descriptor_set_out=x.pb`): such a `types:` file is read as compiled protobuf.
pub const DESCRIPTOR_SET_ENDINGS: &[&str] = &[".binpb", ".pb", ".desc", ".protoset"];

/// Whether the `types:` file `name` is a binary `FileDescriptorSet`, by its ending.
pub fn is_descriptor_set(name: &str) -> bool {
    DESCRIPTOR_SET_ENDINGS.iter().any(|e| name.ends_with(e))
}

/// Whether `name` (an import path) is one the common package answers.
pub fn is_common(name: &str) -> bool {
    COMMON_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The folders a spec's imports resolve in, already checked to exist or reported.
#[derive(Debug, Clone, Default)]
pub struct ImportRoots {
    /// The spec folder: its files are the spec's own.
    pub spec_dir: PathBuf,
    /// The `proto.include` folders, in order.
    pub extra: Vec<PathBuf>,
    /// The common package's unpacked folder, when it is in the cache.
    pub common: Option<PathBuf>,
}

impl ImportRoots {
    /// Only the spec folder (and the common package, if cached).
    pub fn folder(spec_dir: &Path) -> Self {
        ImportRoots {
            spec_dir: spec_dir.to_path_buf(),
            extra: Vec::new(),
            common: common_dir(spec_dir),
        }
    }

    /// The file an import name stands for on disk, in search order (`None`: protox's bundled
    /// well-known types, or not found).
    pub fn path_of(&self, name: &str) -> Option<PathBuf> {
        if is_bundled(name) {
            return None;
        }
        let common = self
            .common
            .iter()
            .filter(|_| is_common(name))
            .map(|c| c.join(name));
        std::iter::once(self.spec_dir.join(name))
            .chain(self.extra.iter().map(|d| d.join(name)))
            .chain(common)
            .find(|p| p.is_file())
    }
}

/// The common package's folder in the cache of `spec_dir`, if fetched and intact.
pub fn common_dir(spec_dir: &Path) -> Option<PathBuf> {
    let root = crate::front::sources::cache_root(spec_dir);
    let pin = common_pin();
    crate::front::sources::cached(&pin, &root)
        .ok()
        .map(|_| pin.package_dir(&root))
}

/// Whether the `.proto` files of `dir` import a common proto the folder does not hold itself,
/// so `cargo xtask fetch` fetches the common package for it.
pub fn needs_common(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "proto"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .any(|text| {
            imports(&text)
                .into_iter()
                .any(|name| is_common(name) && !dir.join(name).is_file())
        })
}

/// The names of a proto file's `import` statements (a plain scan; the compiler checks them).
fn imports(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("import"))
        .filter_map(|rest| {
            let rest = rest.trim_start();
            let rest = rest
                .strip_prefix("public")
                .or_else(|| rest.strip_prefix("weak"))
                .unwrap_or(rest)
                .trim_start();
            let rest = rest.strip_prefix('"')?;
            rest.find('"').map(|end| &rest[..end])
        })
        .collect()
}

#[cfg(feature = "proto")]
pub use resolver::{compiler, descriptor_set_compiler};

#[cfg(feature = "proto")]
mod resolver {
    use protox::file::{
        ChainFileResolver, DescriptorSetFileResolver, File, FileResolver, GoogleFileResolver,
        IncludeFileResolver,
    };

    use super::{ImportRoots, is_common};

    /// The common package, answering only the common prefixes.
    struct Common(IncludeFileResolver);

    impl FileResolver for Common {
        fn open_file(&self, name: &str) -> Result<File, protox::Error> {
            if is_common(name) {
                self.0.open_file(name)
            } else {
                Err(protox::Error::file_not_found(name))
            }
        }
    }

    /// A protox compiler resolving the bundled well-known types first, then imports through
    /// `roots` (the bundled resolver answers only its own names, so the rest fall through).
    pub fn compiler(roots: &ImportRoots) -> protox::Compiler {
        let mut chain = ChainFileResolver::new();
        chain.add(GoogleFileResolver::new());
        chain.add(IncludeFileResolver::new(roots.spec_dir.clone()));
        protox::Compiler::with_file_resolver(imports(chain, roots))
    }

    /// A protox compiler whose files are the already compiled ones of `set` (a
    /// `FileDescriptorSet` given as the types file), after the bundled well-known types;
    /// what the set imports without holding resolves through `roots`' include folders and the
    /// common package, as for a `.proto` (`protoc` without `--include_imports` leaves them out).
    pub fn descriptor_set_compiler(
        roots: &ImportRoots,
        set: prost_types::FileDescriptorSet,
    ) -> protox::Compiler {
        let mut chain = ChainFileResolver::new();
        chain.add(GoogleFileResolver::new());
        chain.add(DescriptorSetFileResolver::new(set));
        protox::Compiler::with_file_resolver(imports(chain, roots))
    }

    /// `chain` followed by the `proto.include` folders and the common package.
    fn imports(mut chain: ChainFileResolver, roots: &ImportRoots) -> ChainFileResolver {
        for dir in &roots.extra {
            chain.add(IncludeFileResolver::new(dir.clone()));
        }
        if let Some(dir) = &roots.common {
            chain.add(Common(IncludeFileResolver::new(dir.clone())));
        }
        chain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_read_with_their_modifiers() {
        let text = "syntax = \"proto3\";\nimport \"a/b.proto\";\nimport public \"c.proto\";\n  import weak \"google/api/http.proto\";\n// import \"no.proto\";\n";
        assert_eq!(
            imports(text),
            ["a/b.proto", "c.proto", "google/api/http.proto"]
        );
        assert!(is_common("google/rpc/status.proto"));
        assert!(!is_common("google/protobuf/empty.proto"));
        assert!(!is_common("google/cloud/x.proto"));
    }

    #[test]
    fn the_common_package_is_needed_only_for_imports_the_folder_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let proto = "syntax = \"proto3\";\nimport \"google/api/http.proto\";\nimport \"google/protobuf/empty.proto\";\n";
        std::fs::write(dir.path().join("a.proto"), proto).unwrap();
        assert!(needs_common(dir.path()));
        std::fs::create_dir_all(dir.path().join("google/api")).unwrap();
        std::fs::write(
            dir.path().join("google/api/http.proto"),
            "syntax = \"proto3\";\n",
        )
        .unwrap();
        assert!(!needs_common(dir.path()));
        // The roots find the folder's own copy first.
        let roots = ImportRoots {
            spec_dir: dir.path().to_path_buf(),
            extra: Vec::new(),
            common: None,
        };
        assert_eq!(
            roots.path_of("google/api/http.proto"),
            Some(dir.path().join("google/api/http.proto"))
        );
        assert_eq!(roots.path_of("google/protobuf/empty.proto"), None);
    }
}
