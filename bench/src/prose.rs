//! Deterministic filler text for the benchmark corpora: agent-style prose, code, shell output
//! and diffs, mixing the characters JSON has to escape (newlines, quotes, backslashes, tabs,
//! control bytes) with multi-byte UTF-8.

/// Pieces the generator strings together. Each one reads like something an agent, a tool or a
/// user would really send, and together they cover every escape class serde_json emits.
const FRAGMENTS: &[&str] = &[
    "I'll start by reading `src/main.rs` to see how the server is wired up.\n",
    "The test failed with:\n\nthread 'main' panicked at src/lib.rs:42:9:\nassertion `left == right` failed\n  left: 3\n right: 4\n",
    "```rust\nfn greet(name: &str) -> String {\n    format!(\"Hello, {name}!\\n\")\n}\n```\n",
    "On Windows the config lives in C:\\Users\\dev\\AppData\\Roaming\\agent\\config.toml, so every backslash is doubled in JSON.\n",
    "Résumé of the change: naïve café handling is fixed — “smart quotes” and ‘single ones’ now round-trip.\n",
    "日本語のテキストも正しく処理されます。変更点を確認してください。\n",
    "Deploy finished 🚀, flaky test quarantined 🐛, all checks green ✅.\n",
    "\tIndented with a tab; a JSON snippet inside text: {\"key\": \"value\", \"n\": 1, \"ok\": true}\n",
    "Identifiers seen in the wild: straße, Ελληνικά, русский текст, 中文注释, emoji_🦀_crate.\n",
    "The regex ^[A-Za-z0-9_-]+$ rejects a dot, so escape it as \\. in the path pattern.\n",
    "\u{1b}[32m✓\u{1b}[0m cargo test -p core ... \u{1b}[1m42 passed\u{1b}[0m; 0 failed; finished in 1.37s\n",
    "$ git diff --stat\n src/app/core.clj | 12 +++++++-----\n 1 file changed, 7 insertions(+), 5 deletions(-)\n",
    "@@ -10,7 +10,8 @@ (ns app.core\n   (:require [clojure.string :as str]))\n-(def greeting \"hi\")\n+(def greeting \"hello\")\n+(def farewell \"bye\")\n",
    "Next I will run the linter and then summarise what changed in each module, keeping the public API stable.\n",
    "Note: the user said \"don't touch the migrations\", so the schema stays as it is.\n",
    "Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 12, in <module>\n    main()\nKeyError: 'path'\n",
    "| file | lines | status |\n|------|------:|--------|\n| lib.rs | 120 | ok |\n| main.rs | 48 | changed |\n",
    "Use `printf '%s\\n' \"$HOME\"` rather than echo when the value may start with a dash.\n",
    "Déjà vu: the cache key includes the locale (fr_FR.UTF-8), so “é” and “e\u{301}” hash differently.\n",
    "SELECT id, name FROM users WHERE email LIKE '%@example.com' AND created_at > '2025-01-01';\n",
];

/// A small xorshift generator with a fixed seed, so every run builds byte-identical corpora.
#[derive(Debug, Clone)]
pub struct Prose {
    state: u64,
}

impl Prose {
    /// A generator seeded with `seed` (any value but zero behaves the same way).
    pub fn new(seed: u64) -> Self {
        Prose { state: seed | 1 }
    }

    fn next(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state = x;
        x
    }

    /// Text of about `len` bytes of UTF-8 (never more, cut on a character boundary), at least
    /// one character long.
    pub fn text(&mut self, len: usize) -> String {
        let len = len.max(1);
        let mut out = String::with_capacity(len + 128);
        while out.len() < len {
            let i = (self.next() % FRAGMENTS.len() as u64) as usize;
            out.push_str(FRAGMENTS[i]);
        }
        let mut cut = len;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        if cut == 0 {
            // The target fell inside the first character: keep that whole character.
            cut = out.chars().next().map_or(0, char::len_utf8);
        }
        out.truncate(cut);
        out
    }

    /// A short word-like token, for ids and names that must stay plain ASCII.
    pub fn word(&mut self) -> String {
        const WORDS: &[&str] = &[
            "alpha", "bravo", "core", "delta", "echo", "fixture", "gamma", "index", "kernel",
            "lexer", "module", "parser", "query", "router", "schema", "token",
        ];
        WORDS[(self.next() % WORDS.len() as u64) as usize].to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_deterministic_and_bounded() {
        let a = Prose::new(7).text(5000);
        let b = Prose::new(7).text(5000);
        assert_eq!(a, b);
        assert!(a.len() <= 5000 && a.len() > 4800);
        assert!(!Prose::new(3).text(1).is_empty());
        let json = serde_json::to_string(&a).unwrap();
        for escape in ["\\n", "\\\"", "\\\\", "\\t", "\\u001b"] {
            assert!(json.contains(escape), "no {escape} in the text");
        }
    }
}
