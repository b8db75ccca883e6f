//! README.md's command lines, as `scripts/readme-commands --list` reads them out of its
//! ```sh blocks. Every `agentwire` line runs here against the built binary, from the
//! repository root, with the exit status the README states; every other line must be one the
//! script runs as written (`.ci/run` does, after the build) and name only files that exist.
//! Lines marked `# not run here:` are `cargo test --workspace`: the suite this test belongs to.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .into()
}

/// The README's command lines, parsed by the script the CI runs them with.
fn readme_lines() -> Vec<String> {
    let out = Command::new("bash")
        .arg(root().join("scripts/readme-commands"))
        .arg("--list")
        .output()
        .expect("bash runs the script");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The command without its trailing comment, and the exit status the comment states.
fn split(line: &str) -> (Vec<&str>, i32) {
    let (cmd, comment) = line.split_once('#').unwrap_or((line, ""));
    let status = comment
        .trim()
        .strip_prefix("exit ")
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .map_or(0, |n| n.parse().unwrap());
    (cmd.split_whitespace().collect(), status)
}

#[test]
fn every_agentwire_line_of_the_readme_runs_as_stated() {
    let lines = readme_lines();
    let prefix = ["cargo", "run", "-p", "agentwire-cli", "--"];
    let mut ran = 0;
    for line in &lines {
        let (words, status) = split(line);
        if words.len() < prefix.len() || words[..prefix.len()] != prefix {
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_agentwire"))
            .current_dir(root())
            .args(&words[prefix.len()..])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(status),
            "{line}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 3, "the README shows trace check on committed traces");
}

#[test]
fn every_other_readme_line_is_one_the_script_runs_and_names_real_files() {
    for line in readme_lines() {
        let (words, _) = split(&line);
        if line.contains("# not run here:") {
            assert_eq!(words, ["cargo", "test", "--workspace"], "{line}");
            continue;
        }
        assert_eq!(words.first(), Some(&"cargo"), "{line}");
        // Paths the line names (a word with a `/` that is not an option) exist in the repo.
        for word in words
            .iter()
            .filter(|w| w.contains('/') && !w.starts_with('-'))
        {
            assert!(root().join(word).exists(), "{line}: {word} does not exist");
        }
        // Examples it runs exist, as one file or as a folder with its `main.rs` (cargo's two
        // layouts).
        if let Some(i) = words.iter().position(|w| *w == "--example") {
            let name = words[i + 1];
            let dir = root().join("examples/skeletons/examples");
            let found = [format!("{name}.rs"), format!("{name}/main.rs")]
                .iter()
                .any(|f| dir.join(f).exists());
            assert!(found, "{line}: no example {name}");
        }
        // Packages it names are workspace members.
        if let Some(i) = words.iter().position(|w| *w == "-p") {
            let package = words[i + 1];
            let manifest = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
            assert!(
                manifest.contains(&format!("name = \"{package}\"")),
                "{line}: no package {package}"
            );
        }
    }
}
