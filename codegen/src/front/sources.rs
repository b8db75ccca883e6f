//! Pinned external sources: a `types:` file that a registry package publishes, named by
//! package, version, path inside the package and the file's SHA-256, so a schema comes in
//! exactly as its authors ship it and is never copied into the repository.
//!
//! Loading a spec only reads the local cache (no network, so builds and the derive macro stay
//! hermetic); `fetch` fills the cache with the registry's own client (`npm pack`) and is run
//! by `cargo xtask gen`/`check`/`fetch` and by the tests that load such a spec.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The registries a pin can name. Only npm so far; the key in `protocol.yaml` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Registry {
    Npm,
}

impl Registry {
    /// The folder under the cache root and the key in `protocol.yaml`.
    pub fn name(self) -> &'static str {
        match self {
            Registry::Npm => "npm",
        }
    }
}

/// `types: {npm: <package>, version: <exact version>, file: <path in the package>, sha256: <hex>}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPin {
    pub npm: String,
    pub version: String,
    pub file: String,
    pub sha256: String,
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
}

impl Pin {
    /// Checks the raw form: an exact version, a relative path without `..`, a 64-digit hash.
    /// Returns the message of the first rule broken.
    pub fn from_raw(raw: RawPin) -> Result<Pin, String> {
        let package_ok = !raw.npm.is_empty()
            && raw
                .npm
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "@/._-".contains(c))
            && !raw.npm.contains("..");
        if !package_ok {
            return Err(format!("`npm: {}` is not an npm package name", raw.npm));
        }
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
        let file_ok = !raw.file.is_empty()
            && !raw.file.starts_with('/')
            && !raw.file.contains('\\')
            && raw
                .file
                .split('/')
                .all(|p| !p.is_empty() && p != ".." && p != ".");
        if !file_ok {
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
        Ok(Pin {
            registry: Registry::Npm,
            package: raw.npm,
            version: raw.version,
            file: raw.file,
            sha256: sha,
        })
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
        format!(
            "run `cargo xtask fetch` in the agentwire workspace, or by hand: `npm pack {}` and \
             unpack the tarball's `package/` folder into {} (the cache root is \
             $AGENTWIRE_SOURCES, else $CARGO_TARGET_DIR/sources, else target/sources of the \
             workspace holding the spec)",
            self.spec(),
            self.package_dir(root).display()
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

/// Fills the cache for `pin` unless it already holds the right file: `npm pack` into a
/// temporary folder beside the cache, `tar` to unpack, the hash checked before the package
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
    let result = fetch_into(pin, &work).and_then(|()| place(pin, root, &work));
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// `npm pack` and `tar -x` into `work`, leaving the package in `work/package`.
fn fetch_into(pin: &Pin, work: &Path) -> Result<(), String> {
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
    let tarball = String::from_utf8_lossy(&out.stdout)
        .lines()
        .rev()
        .find(|l| l.trim().ends_with(".tgz"))
        .map(|l| work.join(l.trim()))
        .ok_or_else(|| format!("`npm pack {}` named no tarball", pin.spec()))?;
    let untar = Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
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
fn place(pin: &Pin, root: &Path, work: &Path) -> Result<PathBuf, String> {
    let unpacked = work.join("package");
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
    if let Err(e) = std::fs::rename(&unpacked, &dest) {
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
            npm: "@scope/pkg".into(),
            version: "1.2.3".into(),
            file: "dist/types.d.ts".into(),
            sha256: sha256_hex(b"type A = string;\n"),
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
                _ => r.npm = value.into(),
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
}
