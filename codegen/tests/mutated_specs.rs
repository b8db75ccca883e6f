//! What the `spec_folder` fuzz target checks, as a short deterministic run under `cargo test`:
//! every spec folder of the repository, with bytes of one of its files flipped, cut or
//! repeated, goes through the whole generator; it returns a module or diagnostics, never
//! panics, and every diagnostic points at a location or at least names its file.

use std::path::{Path, PathBuf};

/// A small xorshift generator: the same mutations on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The spec folders whose files are all in the folder (a pinned `types:` is left out).
fn folders() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for parent in [root.join("spec"), root.join("tests/protocols")] {
        for entry in std::fs::read_dir(parent).unwrap().flatten() {
            let yaml = entry.path().join("protocol.yaml");
            let pinned = std::fs::read_to_string(&yaml).is_ok_and(|t| t.contains("sha256:"));
            if yaml.is_file() && !pinned {
                out.push(entry.path());
            }
        }
    }
    out.sort();
    out
}

fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    const TOKENS: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"]",
        b":",
        b"\n",
        b"\"",
        b"'",
        b";",
        b"@minLength ",
        b"import \"",
        b"google/protobuf/any.proto\"",
        b"|",
        b"?",
        b"*/",
        b"/*",
        b"oneof ",
        b"\xff",
        b"  ",
    ];
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(4) {
            0 if at < bytes.len() => bytes[at] = rng.next() as u8,
            1 => bytes.truncate(at),
            2 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                bytes.splice(at..at, token.iter().copied());
            }
            _ => {
                let end = (at + rng.below(64)).min(bytes.len());
                let copy = bytes[at.min(end)..end].to_vec();
                bytes.splice(at..at, copy);
            }
        }
    }
}

fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.ends_with("traces") {
            copy_folder(&path, &to.join(entry.file_name()));
        } else if path.is_file() && !path.ends_with("talk.rs") {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

#[test]
fn mutated_spec_folders_give_located_diagnostics_not_panics() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut errors_seen = 0;
    for original in folders() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(original.file_name().unwrap());
        copy_folder(&original, &dir);
        let files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        for _ in 0..40 {
            let file = &files[rng.below(files.len())];
            let kept = std::fs::read(file).unwrap();
            let mut bytes = kept.clone();
            mutate(&mut rng, &mut bytes);
            std::fs::write(file, &bytes).unwrap();
            if let Err(errors) = agentwire_codegen::generate(&dir) {
                let folder = dir.display().to_string();
                for e in &errors.errors {
                    errors_seen += 1;
                    let line = e.one_line();
                    assert!(
                        e.location().is_some() || line.contains(&folder),
                        "{}: a diagnostic that points nowhere: {line}",
                        file.display()
                    );
                }
            }
            std::fs::write(file, &kept).unwrap();
        }
    }
    // The mutations do break specs: the run checked real diagnostics.
    assert!(errors_seen > 100, "{errors_seen}");
}

/// A `types:` naming a file the folder lacks is an error at that line, whatever the front end
/// (found by the spec_folder fuzz target: protobuf said only "not in any include path").
#[test]
fn a_missing_types_file_is_located_at_types() {
    for types in ["gone.proto", "gone.ts", "gone.json"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("spec");
        std::fs::create_dir_all(&dir).unwrap();
        let yaml =
            format!("protocol: spec\ntitle: Spec\nsummary: A types-only spec.\ntypes: {types}\n");
        std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
        let errors = agentwire_codegen::generate(&dir).expect_err(types);
        let e = &errors.errors[0];
        assert!(e.location().is_some(), "{types}: {}", e.one_line());
        assert!(e.one_line().contains(types), "{types}: {}", e.one_line());
    }
}
