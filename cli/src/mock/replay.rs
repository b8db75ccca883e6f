//! `agentwire mock --replay TRACE`: the recorded session the mock plays one side of. The
//! trace's messages of the mocked role are sent in their recorded order, each once the
//! peer's messages recorded before it have come; each message of the peer is compared with
//! the one the recording has in its place (its kind: request, notification, answer or error;
//! its method), and where it differs that is a deviation, reported with the recording's line;
//! the first deviation ends the replay (the recording no longer says what comes next).
//! Request ids are the live ones: an answer of the mock carries the id the live peer gave
//! the request it answers. A trace of several streams is replayed as its first. Over HTTP
//! each session the peer opens replays it afresh: the steps are shared, read once, and each
//! session keeps only its place and its ids.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

/// The largest trace replayed (it is held in memory).
const MAX_TRACE: u64 = 256 * 1024 * 1024;

/// One recorded message.
struct Step {
    line: usize,
    /// Sent by the mocked role (else awaited from the peer).
    ours: bool,
    message: Value,
}

/// The session being replayed.
#[derive(Clone)]
pub struct Script {
    /// The trace's name, for deviations.
    pub file: String,
    steps: Arc<[Step]>,
    /// The place of the next step in `steps`.
    next: usize,
    /// Recorded ids of the peer's requests, and the ids the live peer gave them.
    ids: HashMap<String, Value>,
}

/// A place where the live peer did not do what the recording has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deviation {
    pub line: usize,
    pub text: String,
}

impl Script {
    /// Reads `path`, keeping the messages `role` and `peer` sent.
    pub fn load(path: &Path, role: &str, peer: &str) -> Result<Script, String> {
        let file = path.display().to_string();
        let size = std::fs::metadata(path)
            .map_err(|e| format!("cannot read {file}: {e}"))?
            .len();
        if size > MAX_TRACE {
            return Err(format!(
                "{file} is over {MAX_TRACE} bytes, more than a replay holds"
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {file}: {e}"))?;
        let mut steps = Vec::new();
        let mut first_stream: Option<String> = None;
        for (i, line) in text.lines().enumerate() {
            let Ok(entry) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if let Some(name) = entry.get("stream").and_then(Value::as_str)
                && first_stream.get_or_insert_with(|| name.to_owned()) != name
            {
                continue;
            }
            let (Some(from), Some(message)) = (
                entry.get("from").and_then(Value::as_str),
                entry.get("message"),
            ) else {
                continue;
            };
            if from == role || from == peer {
                steps.push(Step {
                    line: i + 1,
                    ours: from == role,
                    message: message.clone(),
                });
            }
        }
        if steps.is_empty() {
            return Err(format!(
                "{file} holds no message of {role} or {peer} to replay"
            ));
        }
        Ok(Script {
            file,
            steps: steps.into(),
            next: 0,
            ids: HashMap::new(),
        })
    }

    /// Whether every recorded message was sent or awaited.
    pub fn done(&self) -> bool {
        self.next >= self.steps.len()
    }

    /// The next step, if any is left.
    fn front(&self) -> Option<&Step> {
        self.steps.get(self.next)
    }

    /// The next message the mock sends, when the recording has it next: its text, the ids of
    /// the answers it carries made the live ones.
    pub fn next_send(&mut self) -> Option<String> {
        if !self.front()?.ours {
            return None;
        }
        let mut message = self.front()?.message.clone();
        self.next += 1;
        if message.get("method").is_none()
            && let Some(id) = message.get("id").map(key)
            && let Some(live) = self.ids.get(&id)
        {
            message["id"] = live.clone();
        }
        Some(message.to_string())
    }

    /// What the recording awaits from the peer next: its line and what it is.
    pub fn awaited(&self) -> Option<(usize, String)> {
        let step = self.front().filter(|s| !s.ours)?;
        Some((step.line, describe(&step.message)))
    }

    /// Takes the peer's `live` message in place of the one the recording awaits; the
    /// deviation, if it is not the same kind of message. `None` as well when nothing is
    /// awaited (the mock answers it itself).
    pub fn take(&mut self, live: &Value) -> Result<(), Option<Deviation>> {
        let Some(step) = self.front().filter(|s| !s.ours) else {
            return Err(None);
        };
        let (line, recorded) = (step.line, step.message.clone());
        self.next += 1;
        let (want, got) = (describe(&recorded), describe(live));
        if want != got {
            // Past a deviation the recording no longer says what comes next: the replay ends.
            self.next = self.steps.len();
            let text = format!("replay: the peer sent {got} where the recording has {want}");
            return Err(Some(Deviation { line, text }));
        }
        if live.get("method").is_some()
            && let (Some(r), Some(l)) = (recorded.get("id"), live.get("id"))
        {
            self.ids.insert(key(r), l.clone());
        }
        Ok(())
    }
}

fn key(id: &Value) -> String {
    id.to_string()
}

/// What a JSON-RPC message is, in words: `a request `m``, `a notification `m``, `an answer`,
/// `an error`, or `a message that is no JSON-RPC one`.
fn describe(m: &Value) -> String {
    let method = m.get("method").and_then(Value::as_str);
    let id = m.get("id").is_some_and(|id| !id.is_null());
    match (method, id) {
        (Some(name), true) => format!("a request `{name}`"),
        (Some(name), false) => format!("a notification `{name}`"),
        (None, _) if m.get("error").is_some() => "an error".to_owned(),
        (None, _) if m.get("result").is_some() => "an answer".to_owned(),
        _ => "a message that is no JSON-RPC one".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn script(lines: &[Value]) -> Script {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        Script::load(&path, "server", "client").unwrap()
    }

    #[test]
    fn answers_carry_the_live_ids_and_deviations_name_the_line() {
        let mut s = script(&[
            json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "a"}}),
            json!({"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {}}}),
            json!({"from": "client", "message": {"jsonrpc": "2.0", "method": "n"}}),
        ]);
        assert_eq!(s.next_send(), None);
        assert_eq!(s.awaited(), Some((1, "a request `a`".into())));
        assert_eq!(
            s.take(&json!({"jsonrpc": "2.0", "id": "x", "method": "a"})),
            Ok(())
        );
        let sent: Value = serde_json::from_str(&s.next_send().unwrap()).unwrap();
        assert_eq!(sent["id"], "x");
        let d = s.take(&json!({"jsonrpc": "2.0", "id": 2, "method": "n"}));
        assert_eq!(
            d,
            Err(Some(Deviation {
                line: 3,
                text:
                    "replay: the peer sent a request `n` where the recording has a notification `n`"
                        .into()
            }))
        );
        assert!(s.done());
        assert_eq!(s.take(&json!({})), Err(None));
    }
}
