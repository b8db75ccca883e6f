//! trybuild cases for the derives: compile-fail cases with `.stderr` goldens naming the file
//! and line to fix, and pass cases that build and run.
//!
//! trybuild compiles the cases in a scratch crate, `<target>/tests/trybuild/agentwire/`, and
//! `CARGO_MANIFEST_DIR` there is that folder, so the spec folders the cases name are copied
//! into it first: `spec = "spec/ping"` then resolves exactly as in a user's crate, and error
//! messages carry the same crate-relative paths (`spec/ts_type_error/messages.ts:4:7`).

use std::path::{Path, PathBuf};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn ui() {
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR sits in the target folder")
        .to_path_buf();
    let scratch = target.join("tests/trybuild/agentwire/spec");
    let _ = std::fs::remove_dir_all(&scratch);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/spec"),
        &scratch,
    );

    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
