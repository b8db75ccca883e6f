//! Pinned external sources: a `types:` file that a registry package publishes, named by
//! package, version, path inside the package and the file's SHA-256, so a schema comes in
//! exactly as its authors ship it and is never copied into the repository.
//!
//! Loading a spec only reads the local cache (no network, so builds and the derive macro stay
//! hermetic); `fetch` fills the cache (npm: the registry's own client, `npm pack`; crates.io:
//! the `.crate` archive from its download endpoint, the file cargo itself downloads) and is
//! run by `cargo xtask gen`/`check`/`fetch` and by the tests that load such a spec.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The registries a pin can name; the key in `protocol.yaml` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registry {
    /// npm (`npm: <package>`).
    Npm,
    /// crates.io (`crate: <name>`): a Rust crate that ships a schema, such as a `.proto`.
    Crates,
}

impl Registry {
    /// The folder under the cache root and the key in `protocol.yaml`.
    pub fn name(self) -> &'static str {
        match self {
            Registry::Npm => "npm",
            Registry::Crates => "crates",
        }
    }

    /// The key naming the package in `protocol.yaml`.
    pub fn key(self) -> &'static str {
        match self {
            Registry::Npm => "npm",
            Registry::Crates => "crate",
        }
    }
}

/// `types: {npm: <package> | crate: <name>, version: <exact version>, file: <path in the
/// package>, sha256: <hex>, root: <folder in the package>}`; `root` (optional) is the folder
/// a `.proto` file's imports are relative to, as protoc's `-I` (`proto` when the package
/// keeps `proto/service.proto` beside `proto/google/api/...`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPin {
    #[serde(default)]
    pub npm: Option<String>,
    #[serde(default, rename = "crate")]
    pub crate_name: Option<String>,
    pub version: String,
    pub file: String,
    pub sha256: String,
    #[serde(default)]
    pub root: Option<String>,
}

/// One checked pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub registry: Registry,
    pub package: String,
    pub version: String,
    /// The file's path inside the package, `/`-separated (`dist/esm/spec.types.d.ts`).
    pub file: String,
    /// Lower-case hex SHA-256 of the file.
    pub sha256: String,
    /// The folder inside the package that imports resolve against (`None`: its root).
    pub root: Option<String>,
}

/// Whether `path` is a relative `/`-separated path without `..`, `.` or empty parts.
fn relative_inside(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && path
            .split('/')
            .all(|p| !p.is_empty() && p != ".." && p != ".")
}

/// The registry and package a raw pin names: exactly one of `npm:` and `crate:`.
fn package_of(raw: &RawPin) -> Result<(Registry, String), String> {
    let (registry, name) = match (&raw.npm, &raw.crate_name) {
        (Some(n), None) => (Registry::Npm, n),
        (None, Some(c)) => (Registry::Crates, c),
        _ => {
            return Err("a pin names its package by exactly one of `npm:` and `crate:`".to_owned());
        }
    };
    let ok = match registry {
        Registry::Npm => {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "@/._-".contains(c))
                && !name.contains("..")
        }
        // crates.io's rule: ASCII letters first, then letters, digits, `-` and `_`.
        Registry::Crates => {
            name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
                && name.len() <= 64
        }
    };
    if !ok {
        return Err(format!(
            "`{}: {name}` is not {} package name",
            registry.key(),
            match registry {
                Registry::Npm => "an npm",
                Registry::Crates => "a crates.io",
            }
        ));
    }
    Ok((registry, name.clone()))
}

impl Pin {
    /// Checks the raw form: an exact version, a relative path without `..`, a 64-digit hash.
    /// Returns the message of the first rule broken.
    pub fn from_raw(raw: RawPin) -> Result<Pin, String> {
        let (registry, package) = package_of(&raw)?;
        let exact = !raw.version.is_empty()
            && raw
                .version
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c))
            && raw.version.starts_with(|c: char| c.is_ascii_digit());
        if !exact {
            return Err(format!(
                "`version: {}` must be an exact version (e.g. 1.2.3), not a range or a tag",
                raw.version
            ));
        }
        if !relative_inside(&raw.file) {
            return Err(format!(
                "`file: {}` must be a relative path inside the package, without `..`",
                raw.file
            ));
        }
        let sha = raw.sha256.to_ascii_lowercase();
        if sha.len() != 64 || !sha.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!(
                "`sha256: {}` must be the file's SHA-256 as 64 hex digits",
                raw.sha256
            ));
        }
        if let Some(root) = &raw.root {
            let under = raw
                .file
                .strip_prefix(root.as_str())
                .and_then(|r| r.strip_prefix('/'));
            if !relative_inside(root) || under.is_none() {
                return Err(format!(
                    "`root: {root}` must be a relative folder inside the package that holds `file: {}`",
                    raw.file
                ));
            }
        }
        Ok(Pin {
            registry,
            package,
            version: raw.version,
            file: raw.file,
            sha256: sha,
            root: raw.root,
        })
    }

    /// The folder inside the cache that the types file and its imports are relative to:
    /// the package folder, or its `root` folder.
    pub fn root_dir(&self, root: &Path) -> PathBuf {
        match &self.root {
            Some(r) => self.package_dir(root).join(r),
            None => self.package_dir(root),
        }
    }

    /// The file's path relative to [`Pin::root_dir`].
    pub fn file_in_root(&self) -> &str {
        match &self.root {
            Some(r) => self.file[r.len()..].trim_start_matches('/'),
            None => &self.file,
        }
    }

    /// `<package>@<version>`, as the registry's client takes it.
    pub fn spec(&self) -> String {
        format!("{}@{}", self.package, self.version)
    }

    /// The unpacked package's folder in the cache: `<root>/npm/<package>@<version>/`.
    pub fn package_dir(&self, root: &Path) -> PathBuf {
        root.join(self.registry.name()).join(self.spec())
    }

    /// The file's place in the cache.
    pub fn cached_file(&self, root: &Path) -> PathBuf {
        self.package_dir(root).join(&self.file)
    }

    /// How to fill the cache by hand, for the "not fetched" diagnostic.
    pub fn fetch_help(&self, root: &Path) -> String {
        let by_hand = match self.registry {
            Registry::Npm => format!(
                "`npm pack {}` and unpack the tarball's `package/` folder",
                self.spec()
            ),
            Registry::Crates => format!(
                "download {} and unpack its `{}-{}/` folder",
                self.crate_url(),
                self.package,
                self.version
            ),
        };
        format!(
            "run `cargo xtask fetch` in the agentwire workspace, or by hand: {by_hand} into {} \
             (the cache root is $AGENTWIRE_SOURCES, else $CARGO_TARGET_DIR/sources, else \
             target/sources of the workspace holding the spec)",
            self.package_dir(root).display()
        )
    }

    /// crates.io's download address of the pinned `.crate` archive.
    pub fn crate_url(&self) -> String {
        format!(
            "https://static.crates.io/crates/{0}/{0}-{1}.crate",
            self.package, self.version
        )
    }
}

/// The cache root for a spec folder: `$AGENTWIRE_SOURCES`, else `$CARGO_TARGET_DIR/sources`,
/// else `target/sources` in the nearest ancestor holding a `Cargo.lock` (the workspace).
pub fn cache_root(spec_dir: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("AGENTWIRE_SOURCES").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let spec_dir = std::path::absolute(spec_dir).unwrap_or_else(|_| spec_dir.to_path_buf());
    let workspace = spec_dir
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(&spec_dir)
        .to_path_buf();
    match std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        Some(t) => workspace.join(t).join("sources"),
        None => workspace.join("target").join("sources"),
    }
}

/// The lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Why a pinned file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheError {
    /// Not in the cache yet.
    Missing(PathBuf),
    /// In the cache with other contents than the pin says.
    Mismatch { path: PathBuf, actual: String },
}

/// The cached file, checked against its pin.
pub fn cached(pin: &Pin, root: &Path) -> Result<PathBuf, CacheError> {
    let path = pin.cached_file(root);
    let Ok(bytes) = std::fs::read(&path) else {
        return Err(CacheError::Missing(path));
    };
    let actual = sha256_hex(&bytes);
    if actual == pin.sha256 {
        Ok(path)
    } else {
        Err(CacheError::Mismatch { path, actual })
    }
}

/// Fills the cache for `pin` unless it already holds the right file: `npm pack` (or the
/// `.crate` download) into a temporary folder beside the cache, `tar` to unpack, the hash checked before the package
/// folder is moved into place (so a failed fetch leaves no half-filled cache).
pub fn fetch(pin: &Pin, root: &Path) -> Result<PathBuf, String> {
    if let Ok(path) = cached(pin, root) {
        return Ok(path);
    }
    let parent = root.join(pin.registry.name());
    std::fs::create_dir_all(&parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    // One work folder per fetch, even for two threads of one process (tests fetch at once).
    static FETCHES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let work = parent.join(format!(
        ".fetch-{}-{}-{}",
        pin.spec().replace('/', "+"),
        std::process::id(),
        FETCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let result = fetch_into(pin, &work).and_then(|unpacked| place(pin, root, &unpacked));
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// Downloads the package into `work` with the registry's client and unpacks it; returns the
/// unpacked package's folder.
fn fetch_into(pin: &Pin, work: &Path) -> Result<PathBuf, String> {
    match pin.registry {
        Registry::Npm => {
            let tarball = npm_pack(pin, work)?;
            untar(&tarball, work)?;
            Ok(work.join("package"))
        }
        Registry::Crates => {
            let archive = download_crate(pin, work)?;
            untar(&archive, work)?;
            Ok(work.join(format!("{}-{}", pin.package, pin.version)))
        }
    }
}

/// `npm pack` into `work`; returns the tarball.
fn npm_pack(pin: &Pin, work: &Path) -> Result<PathBuf, String> {
    let out = Command::new("npm")
        .args(["pack", "--silent", "--pack-destination"])
        .arg(work)
        .arg(pin.spec())
        .current_dir(work)
        .output()
        .map_err(|e| {
            format!(
                "cannot run `npm pack {}` (is npm installed?): {e}",
                pin.spec()
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "`npm pack {}` failed (offline, or no such version?): {}",
            pin.spec(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .rev()
        .find(|l| l.trim().ends_with(".tgz"))
        .map(|l| work.join(l.trim()))
        .ok_or_else(|| format!("`npm pack {}` named no tarball", pin.spec()))
}

/// The `.crate` archive from crates.io's download endpoint (the file cargo itself fetches),
/// with curl and a deadline; returns the archive. The pinned file's hash is checked once
/// the archive is unpacked.
fn download_crate(pin: &Pin, work: &Path) -> Result<PathBuf, String> {
    let archive = work.join(format!("{}-{}.crate", pin.package, pin.version));
    let out = Command::new("curl")
        .args(["-sSfL", "--max-time", "300", "-o"])
        .arg(&archive)
        .arg(pin.crate_url())
        .output()
        .map_err(|e| {
            format!(
                "cannot run curl for {} (is curl installed?): {e}",
                pin.crate_url()
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "downloading {} failed (offline, or no such version?): {}",
            pin.crate_url(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(archive)
}

/// `tar -xzf` of `tarball` into `work`.
fn untar(tarball: &Path, work: &Path) -> Result<(), String> {
    let untar = Command::new("tar")
        .arg("-xzf")
        .arg(tarball)
        .arg("-C")
        .arg(work)
        .output()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    if !untar.status.success() {
        return Err(format!(
            "cannot unpack {}: {}",
            tarball.display(),
            String::from_utf8_lossy(&untar.stderr).trim()
        ));
    }
    Ok(())
}

/// Checks the unpacked file against the pin and moves the package into the cache.
fn place(pin: &Pin, root: &Path, unpacked: &Path) -> Result<PathBuf, String> {
    let file = unpacked.join(&pin.file);
    let bytes =
        std::fs::read(&file).map_err(|_| format!("{} has no file `{}`", pin.spec(), pin.file))?;
    let actual = sha256_hex(&bytes);
    if actual != pin.sha256 {
        return Err(format!(
            "{} `{}` has SHA-256 {actual}, but the pin says {}",
            pin.spec(),
            pin.file,
            pin.sha256
        ));
    }
    let dest = pin.package_dir(root);
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    // A concurrent fetch may have placed the same package meanwhile: keep a good one.
    if let Ok(path) = cached(pin, root) {
        return Ok(path);
    }
    if dest.exists() {
        std::fs::remove_dir_all(&dest)
            .map_err(|e| format!("cannot replace {}: {e}", dest.display()))?;
    }
    if let Err(e) = std::fs::rename(unpacked, &dest) {
        // Lost a race with another fetch that finished first: its copy is as good.
        return cached(pin, root)
            .map_err(|_| format!("cannot move the package to {}: {e}", dest.display()));
    }
    Ok(pin.cached_file(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawPin {
        RawPin {
            npm: Some("@scope/pkg".into()),
            version: "1.2.3".into(),
            file: "dist/types.d.ts".into(),
            sha256: sha256_hex(b"type A = string;\n"),
            ..RawPin::default()
        }
    }

    #[test]
    fn a_pin_must_be_exact_and_inside_the_package() {
        assert!(Pin::from_raw(raw()).is_ok());
        for (field, value) in [
            ("version", "^1.2.3"),
            ("version", "latest"),
            ("file", "../etc/passwd"),
            ("file", "/abs"),
            ("sha256", "abc"),
            ("npm", "a b"),
        ] {
            let mut r = raw();
            match field {
                "version" => r.version = value.into(),
                "file" => r.file = value.into(),
                "sha256" => r.sha256 = value.into(),
                _ => r.npm = Some(value.into()),
            }
            let err = Pin::from_raw(r).unwrap_err();
            assert!(err.contains(field), "{field}: {err}");
        }
    }

    #[test]
    fn the_cache_is_checked_against_the_hash() {
        let root = tempfile::tempdir().unwrap();
        let pin = Pin::from_raw(raw()).unwrap();
        assert_eq!(
            cached(&pin, root.path()),
            Err(CacheError::Missing(pin.cached_file(root.path())))
        );
        let path = pin.cached_file(root.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"type A = number;\n").unwrap();
        assert!(matches!(
            cached(&pin, root.path()),
            Err(CacheError::Mismatch { .. })
        ));
        std::fs::write(&path, b"type A = string;\n").unwrap();
        assert_eq!(cached(&pin, root.path()), Ok(path.clone()));
        assert!(path.ends_with("npm/@scope/pkg@1.2.3/dist/types.d.ts"));
    }

    #[test]
    fn a_crate_pin_names_a_crate_and_may_root_its_imports() {
        let raw = || RawPin {
            crate_name: Some("a2a-pb".into()),
            version: "0.3.2".into(),
            file: "proto/a2a.proto".into(),
            sha256: sha256_hex(b"syntax = \"proto3\";\n"),
            root: Some("proto".into()),
            ..RawPin::default()
        };
        let pin = Pin::from_raw(raw()).unwrap();
        assert_eq!(pin.registry, Registry::Crates);
        assert_eq!(pin.file_in_root(), "a2a.proto");
        let cache = Path::new("/cache");
        assert_eq!(
            pin.root_dir(cache),
            Path::new("/cache/crates/a2a-pb@0.3.2/proto")
        );
        assert_eq!(
            pin.cached_file(cache),
            Path::new("/cache/crates/a2a-pb@0.3.2/proto/a2a.proto")
        );
        assert_eq!(
            pin.crate_url(),
            "https://static.crates.io/crates/a2a-pb/a2a-pb-0.3.2.crate"
        );
        assert!(pin.fetch_help(cache).contains(&pin.crate_url()));
        // Both registries, or neither, is no pin.
        let both = RawPin {
            npm: Some("x".into()),
            ..raw()
        };
        assert!(Pin::from_raw(both).unwrap_err().contains("exactly one"));
        let neither = RawPin {
            crate_name: None,
            ..raw()
        };
        assert!(Pin::from_raw(neither).unwrap_err().contains("exactly one"));
        for bad in ["9lives", "a/b", "a.b", ""] {
            let r = RawPin {
                crate_name: Some(bad.into()),
                ..raw()
            };
            assert!(Pin::from_raw(r).unwrap_err().contains("crate:"), "{bad}");
        }
        // The root must hold the file, and stay inside the package.
        for bad in ["src", "../proto", "prot", "/proto"] {
            let r = RawPin {
                root: Some(bad.into()),
                ..raw()
            };
            assert!(Pin::from_raw(r).unwrap_err().contains("root:"), "{bad}");
        }
    }
}
