//! Every test protocol's recorded traces, checked through the same entry point as the
//! `agentwire trace check` binary, with the built-in and the test protocols registered.
//!
//! Convention, per spec folder `<module>/traces/`: `<name>.jsonl` is a JSON Lines trace;
//! `<name>.<role>.bin` files are the captures of one connection, one per sender (protocols
//! with Content-Length framing); `<name>.expect` holds the exact findings the check prints
//! (no file: none). Each protocol with a machine needs one accepted and one rejected trace.

use std::collections::BTreeMap;
use std::path::Path;

use agentwire_runtime::registry::Protocol;

/// The built-in protocols and the test protocols, as one registry.
fn registry() -> Vec<&'static dyn Protocol> {
    let mut all = agentwire_protocols::protocols().to_vec();
    all.extend_from_slice(agentwire_test_protocols::protocols());
    all
}

/// Runs `agentwire trace check --protocol <module> <args>`; returns (exit code, stdout).
fn trace_check(module: &str, args: &[String]) -> (u8, String) {
    let mut argv = vec!["agentwire", "trace", "check", "--protocol", module];
    argv.extend(args.iter().map(String::as_str));
    let mut out = Vec::new();
    let code = agentwire_cli::run(&registry(), argv, &mut out)
        .unwrap_or_else(|e| panic!("{module} {args:?}: usage error: {e}"));
    (code, String::from_utf8(out).unwrap())
}

/// The check runs of one traces folder: name -> the arguments naming its files.
fn runs(dir: &Path) -> BTreeMap<String, Vec<String>> {
    let mut runs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return runs;
    };
    let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let shown = path.to_string_lossy().into_owned();
        if let Some(name) = file.strip_suffix(".jsonl") {
            runs.entry(name.to_owned()).or_default().push(shown);
        } else if let Some((name, role)) = file
            .strip_suffix(".bin")
            .and_then(|stem| stem.rsplit_once('.'))
        {
            let args = runs.entry(name.to_owned()).or_default();
            args.extend(["--from".to_owned(), role.to_owned(), shown]);
        }
    }
    runs
}

#[test]
fn every_test_protocol_trace_gives_the_expected_findings() {
    let mut checked = 0;
    for p in agentwire_test_protocols::protocols() {
        if p.checker().is_none() {
            continue;
        }
        let dir = Path::new(p.name()).join("traces");
        let (mut accepted, mut rejected) = (0, 0);
        for (name, args) in runs(&dir) {
            let expect_path = dir.join(format!("{name}.expect"));
            let expected = std::fs::read_to_string(&expect_path).unwrap_or_default();
            let (code, found) = trace_check(p.name(), &args);
            if expected.is_empty() {
                // An accepted trace prints only the summary of what was checked (for a
                // protocol with versions, the version it was checked as after the name).
                let summary = format!(", protocol {}", p.name());
                let ends = found.ends_with(&format!("{summary}\n"))
                    || (!p.versions().is_empty()
                        && found.contains(&format!("{summary} (version ")));
                assert!(
                    found.starts_with("ok: ") && ends && found.lines().count() == 1,
                    "{}: expected no findings, got\n{found}",
                    dir.join(&name).display()
                );
                assert_eq!(code, 0, "{name}: exit code");
                accepted += 1;
            } else {
                assert_eq!(
                    found,
                    expected,
                    "{}: findings differ from {}",
                    dir.join(&name).display(),
                    expect_path.display()
                );
                assert_eq!(code, 1, "{name}: exit code");
                rejected += 1;
            }
            checked += 1;
        }
        assert!(
            accepted > 0 && rejected > 0,
            "{}: needs an accepted and a rejected trace in {}",
            p.name(),
            dir.display()
        );
    }
    assert!(checked > 0, "no test protocol has traces");
}

#[test]
fn an_unknown_protocol_is_a_usage_error_listing_the_registered_ones() {
    let argv = [
        "agentwire",
        "trace",
        "check",
        "--protocol",
        "nope",
        "x.jsonl",
    ];
    let err = agentwire_cli::run(&registry(), argv, &mut Vec::new()).unwrap_err();
    let text = err.to_string();
    for p in registry() {
        assert!(text.contains(p.name()), "{text}");
    }
}
