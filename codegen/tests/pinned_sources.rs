//! `types:` naming a pinned registry file: the loader reads it from the local cache (checked
//! against its SHA-256), says how to fetch it when it is missing, and refuses a cached file
//! whose contents differ from the pin.

use std::path::{Path, PathBuf};

use agentwire_codegen::front::load::load_spec;
use agentwire_codegen::front::sources::{Pin, RawPin, cache_root, sha256_hex};
use agentwire_codegen::generate;

const TS: &str = "type ClientMessage = Ping;
type ServerMessage = Pong;
interface Ping { type: 'ping'; id: string }
interface Pong { type: 'pong'; id: string }
";

/// A spec folder whose `types:` pins `package@1.0.0`'s `dist/types.d.ts` with `sha` (inside a
/// fake workspace, so the cache root is the one a real workspace would use).
fn spec(root: &Path, package: &str, sha: &str) -> PathBuf {
    std::fs::write(root.join("Cargo.lock"), "").unwrap();
    let dir = root.join("spec/demo");
    std::fs::create_dir_all(&dir).unwrap();
    let yaml = format!(
        "protocol: demo
title: Demo
transport: {{kind: websocket, framing: json-text}}
roles: [client, server]
types:
  npm: \"{package}\"
  version: 1.0.0
  file: dist/types.d.ts
  sha256: {sha}
channels:
  - {{from: client, to: server, union: ClientMessage}}
  - {{from: server, to: client, union: ServerMessage}}
messages:
  - {{kind: ping, from: client, type: Ping}}
  - {{kind: pong, from: server, type: Pong}}
"
    );
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    dir
}

fn pin(package: &str, sha: &str) -> Pin {
    Pin::from_raw(RawPin {
        npm: Some(package.to_owned()),
        version: "1.0.0".to_owned(),
        file: "dist/types.d.ts".to_owned(),
        sha256: sha.to_owned(),
        ..RawPin::default()
    })
    .unwrap()
}

/// A package name no registry holds and no other test run uses.
fn package(tag: &str) -> String {
    format!("@agentwire-test/{tag}-{}", std::process::id())
}

#[test]
fn a_cached_pinned_file_is_the_types_file() {
    let tmp = tempfile::tempdir().unwrap();
    let sha = sha256_hex(TS.as_bytes());
    let package = package("cached");
    let dir = spec(tmp.path(), &package, &sha);
    let root = cache_root(&dir);
    let pin = pin(&package, &sha);
    let cached = pin.cached_file(&root);
    std::fs::create_dir_all(cached.parent().unwrap()).unwrap();
    std::fs::write(&cached, TS).unwrap();

    let g = generate(&dir).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(g.spec.protocol.types.contains_key("Ping"));
    assert_eq!(g.spec.protocol.types_file, "dist/types.d.ts");
    // The derive includes the cached file, so a new fetch rebuilds the crate.
    assert!(g.spec.files.contains(&cached), "{:?}", g.spec.files);

    // Another file under the same pin is a mismatch, reported at `types:`.
    std::fs::write(&cached, TS.replace("string", "number")).unwrap();
    let err = load_spec(&dir).unwrap_err();
    let msg = err.errors[0].one_line();
    assert!(msg.contains("but `types:` pins"), "{msg}");
    assert!(msg.contains("protocol.yaml:6"), "{msg}");
    std::fs::remove_dir_all(pin.package_dir(&root)).unwrap();
}

#[test]
fn a_missing_pinned_file_says_how_to_fetch_it() {
    let tmp = tempfile::tempdir().unwrap();
    let package = package("missing");
    let dir = spec(tmp.path(), &package, &sha256_hex(b"x"));
    let err = load_spec(&dir).unwrap_err();
    let e = &err.errors[0];
    let msg = e.one_line();
    assert!(msg.contains("is not fetched yet"), "{msg}");
    assert!(msg.contains(&format!("{package}@1.0.0")), "{msg}");
    let help = e.help.clone().unwrap_or_default();
    assert!(help.contains("cargo xtask fetch"), "{help}");
    assert!(
        help.contains(&format!("npm pack {package}@1.0.0")),
        "{help}"
    );
}

#[test]
fn a_pin_that_breaks_a_rule_is_an_error_at_types() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = spec(tmp.path(), "@scope/pkg", "not-a-hash");
    let err = load_spec(&dir).unwrap_err();
    let msg = err.errors[0].one_line();
    assert!(msg.contains("must be the file's SHA-256"), "{msg}");
    assert!(msg.contains("protocol.yaml:6"), "{msg}");
}

/// Tests (and `cargo xtask gen` beside them) may fetch the same pin at once: each fetch
/// works in its own folder and the first complete package to land is kept, so every caller
/// gets the file. A real fetch from the npm registry, of a small package.
#[test]
fn concurrent_fetches_of_one_pin_all_succeed() {
    let cache = tempfile::tempdir().unwrap();
    let pin = Pin::from_raw(RawPin {
        npm: Some("is-number".to_owned()),
        version: "7.0.0".to_owned(),
        file: "index.js".to_owned(),
        sha256: "04255e482e181687823a95b207802ddd32e746c65dce4c95a5176fc192735960".to_owned(),
        ..RawPin::default()
    })
    .unwrap();
    let results: Vec<Result<PathBuf, String>> = std::thread::scope(|s| {
        let fetches: Vec<_> = (0..4)
            .map(|_| s.spawn(|| agentwire_codegen::front::sources::fetch(&pin, cache.path())))
            .collect();
        fetches.into_iter().map(|f| f.join().unwrap()).collect()
    });
    for result in results {
        let path = result.expect("every concurrent fetch succeeds");
        assert_eq!(path, pin.cached_file(cache.path()));
    }
    let leftovers: Vec<_> = std::fs::read_dir(cache.path().join("npm"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".fetch-"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "work folders left behind: {leftovers:?}"
    );
}
