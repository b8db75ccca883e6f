//! The generator on mutated spec folders: the input is split at NUL bytes into a
//! `protocol.yaml`, a types file (TypeScript, JSON Schema or protobuf, chosen by the first
//! byte), a `machine.yaml` and a second `.proto` the first may import. Whatever the folder
//! holds, `generate` returns the module or diagnostics, never panics, and every diagnostic
//! points into the folder: a location (`file:line:col`) or at least the file it is about.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// One folder per process, rewritten for every input (`spec` must equal `protocol:`).
fn folder() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir()
            .join(format!("agentwire-fuzz-{}", std::process::id()))
            .join("spec");
        std::fs::create_dir_all(&dir).expect("create the spec folder");
        dir
    })
}

const TYPES: [&str; 3] = ["messages.ts", "types.json", "types.proto"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let types = TYPES[usize::from(pick) % TYPES.len()];
    let mut parts = rest.split(|b| *b == 0);
    let dir = folder();
    for name in ["protocol.yaml", types, "machine.yaml", "other.proto"] {
        let path = dir.join(name);
        match parts.next() {
            Some(bytes) => std::fs::write(&path, bytes).expect("write a spec file"),
            None => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    for stale in TYPES.iter().filter(|t| **t != types) {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    if let Err(errors) = agentwire_codegen::generate(dir) {
        let folder = dir.display().to_string();
        for e in &errors.errors {
            let line = e.one_line();
            assert!(
                e.location().is_some() || line.contains(&folder),
                "a diagnostic that points nowhere: {line}"
            );
        }
    }
});
