//! `agentwire completions SHELL`: the bash script names every verb `agentwire --help` lists
//! and is accepted by `bash -n`; every other shell gets a script too, and an unknown shell is
//! a usage error.

use std::process::{Command, Output};

fn agentwire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agentwire"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The verbs of the `Commands:` section of `agentwire --help` (`help` aside).
fn verbs() -> Vec<String> {
    let out = agentwire(&["--help"]);
    assert!(out.status.success(), "{out:?}");
    let help = String::from_utf8(out.stdout).unwrap();
    let section = help
        .split_once("Commands:")
        .map(|(_, rest)| rest)
        .expect("help lists commands");
    section
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|v| *v != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_bash_script_names_every_verb_and_parses() {
    let verbs = verbs();
    assert!(
        ["trace", "gen", "check-docs", "completions"]
            .iter()
            .all(|v| verbs.iter().any(|w| w == v)),
        "{verbs:?}"
    );
    let out = agentwire(&["completions", "bash"]);
    assert!(out.status.success(), "{out:?}");
    let script = String::from_utf8(out.stdout).unwrap();
    for verb in &verbs {
        // clap_complete's bash script names each subcommand in its `case` arms.
        assert!(
            script.contains(&format!("agentwire,{verb})")),
            "verb {verb} missing from the bash completions"
        );
    }
    assert!(script.contains("--spec") && script.contains("--format"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentwire.bash");
    std::fs::write(&path, &script).unwrap();
    let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
    assert!(check.status.success(), "bash -n: {check:?}");
}

#[test]
fn every_shell_gets_a_script_and_an_unknown_one_is_a_usage_error() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = agentwire(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {out:?}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains("check-docs"), "{shell}: {script}");
    }
    let out = agentwire(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
}
