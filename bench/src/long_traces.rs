//! Long, valid traces for the sequence-checker benchmark, built deterministically in code.
//!
//! One connection per protocol, a few thousand messages each, with many machine instances
//! open at once where the protocol has keyed machines; and trace prefixes that leave N
//! instances of one keyed machine open, for memory accounting.
//!
//! Every builder returns trace entries in the format of spec/README.md ("Trace files"):
//! `{"from": role, "message": ...}`, or `{"from": role, "http": {...}}` for an HTTP exchange.
//! Message shapes follow tests/fixtures/<module>/valid and the accepted fixture traces; the
//! order of messages follows each protocol's machine.yaml. The tests at the bottom decode and
//! check every trace, so a builder that drifts from the spec fails `cargo test`.

use serde_json::{Value, json};

use crate::prose::Prose;

/// A small xorshift generator with a fixed seed: the traces are byte-identical on every run.
#[derive(Debug, Clone)]
struct Dice(u64);

impl Dice {
    fn new(seed: u64) -> Self {
        Dice(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True about once in `n` calls.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

fn message(from: &str, message: Value) -> Value {
    json!({"from": from, "message": message})
}

/// Merges per-instance scripts into one stream, keeping the order within each script. The
/// next message comes from a script picked with odds proportional to what it has left, so
/// every script is spread over the whole stream and many instances are open at any point.
fn interleave(scripts: Vec<Vec<Value>>, dice: &mut Dice) -> Vec<Value> {
    let mut left: Vec<usize> = scripts.iter().map(Vec::len).collect();
    let mut total: usize = left.iter().sum();
    let mut queues: Vec<std::vec::IntoIter<Value>> =
        scripts.into_iter().map(Vec::into_iter).collect();
    let mut out = Vec::with_capacity(total);
    while total > 0 {
        let mut pick = dice.below(total);
        let mut i = 0;
        while pick >= left[i] {
            pick -= left[i];
            i += 1;
        }
        out.extend(queues[i].next());
        left[i] -= 1;
        total -= 1;
    }
    out
}

/// `n` growing prefixes of `text`, the last one the whole text, each cut on a character
/// boundary: the snapshots a streaming reply goes through.
fn snapshots(text: &str, n: usize) -> Vec<&str> {
    (1..=n)
        .map(|i| {
            let mut cut = text.len() * i / n;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            &text[..cut]
        })
        .collect()
}

// -------------------------------------------------------------------------------------------
// helix_zed
// -------------------------------------------------------------------------------------------

fn helix_session_id(s: usize) -> String {
    format!("ses_01k6{:06x}q{s}", 0x3a_9f00 + s * 7919)
}

fn helix_thread_id(s: usize) -> String {
    format!(
        "{:08x}-24ae-4c1b-9f3e-{:012x}",
        0x8405_cd2a_usize + s,
        0x5eed_0000 + s * 104_729
    )
}

fn helix_chat(session: &str, thread: Option<&str>, text: String, request: &str) -> Value {
    message(
        "helix",
        json!({"type": "chat_message", "data": {
            "helix_session_id": session, "acp_thread_id": thread, "message": text,
            "request_id": request,
        }}),
    )
}

fn zed_context_created(session: &str, thread: &str) -> Value {
    message(
        "zed",
        json!({"session_id": session, "event_type": "context_created", "data": {
            "acp_thread_id": thread, "helix_session_id": session,
        }}),
    )
}

fn zed_message_added(session: &str, thread: &str, id: &str, content: &str, ts: u64) -> Value {
    message(
        "zed",
        json!({"session_id": session, "event_type": "message_added", "data": {
            "acp_thread_id": thread, "message_id": id, "role": "assistant", "content": content,
            "timestamp": ts,
        }}),
    )
}

fn zed_message_completed(session: &str, thread: &str, id: &str, request: &str) -> Value {
    message(
        "zed",
        json!({"session_id": session, "event_type": "message_completed", "data": {
            "acp_thread_id": thread, "message_id": id, "request_id": request,
        }}),
    )
}

/// Ten Helix sessions on one Zed connection, interleaved: each opens with a chat_message
/// without a thread and gets its context_created before any message_added, and runs 18 turns
/// in all; every turn streams 10 to 30 growing
/// message_added snapshots of a 300 B to 1.8 KB reply and ends with message_completed.
pub fn helix_zed() -> Vec<Value> {
    const SESSIONS: usize = 10;
    const TURNS: usize = 18;
    let mut dice = Dice::new(0x4e11_2ed0);
    let mut prose = Prose::new(0x4e11);
    let scripts = (0..SESSIONS)
        .map(|s| {
            let session = helix_session_id(s);
            let thread = helix_thread_id(s);
            let mut ts = 1_759_410_000 + 97 * s as u64;
            let mut script = Vec::new();
            for t in 0..TURNS {
                let request = format!("req_{}", 1_759_400_000 + 1000 * s + t);
                let first = t == 0;
                let question = prose.text(dice.between(20, 240));
                let thread_field = (!first).then_some(thread.as_str());
                script.push(helix_chat(&session, thread_field, question, &request));
                let reply = prose.text(dice.between(300, 1800));
                let id = format!("ai_msg_{ts}");
                if first {
                    script.push(zed_context_created(&session, &thread));
                }
                for part in snapshots(&reply, dice.between(10, 30)) {
                    script.push(zed_message_added(&session, &thread, &id, part, ts));
                    ts += dice.below(2) as u64;
                }
                script.push(zed_message_completed(&session, &thread, &id, &request));
                ts += 5 + dice.below(60) as u64;
            }
            script
        })
        .collect();
    interleave(scripts, &mut dice)
}

// -------------------------------------------------------------------------------------------
// agentloop
// -------------------------------------------------------------------------------------------

/// Writes agentloop frames with fresh frame ids.
struct AgentLoop {
    out: Vec<Value>,
    next_id: u64,
}

impl AgentLoop {
    fn send(&mut self, from: &str, kind: &str, payload: Option<Value>) {
        let id = format!("550e8400-e29b-41d4-a716-{:012}", self.next_id);
        self.next_id += 1;
        let mut frame = json!({"id": id, "type": kind});
        if let Some(payload) = payload {
            frame["payload"] = payload;
        }
        self.out.push(message(from, frame));
    }

    fn item(&mut self, payload: Value) {
        self.send("server", "response_item", Some(payload));
    }

    fn loading(&mut self, loading: bool) {
        self.send("server", "loading_state", Some(json!({"loading": loading})));
    }

    fn context_info(&mut self, tokens: u64) {
        self.send(
            "server",
            "context_info",
            Some(json!({
                "tokenCount": tokens, "usagePercent": (tokens as f64 / 1280.0).min(100.0),
                "transcriptLength": tokens / 500, "maxTokens": 128_000,
                "strategy": "ThresholdContextManager",
            })),
        );
    }

    fn compacted(&mut self, old: u64, new: u64) {
        let percent = ((old - new) as f64 * 1000.0 / old as f64).round() / 10.0;
        self.send(
            "server",
            "context_compacted",
            Some(json!({
                "oldTokenCount": old, "newTokenCount": new, "reductionPercent": percent,
                "strategy": "ThresholdContextManager",
            })),
        );
    }
}

/// One agentloop connection with 230 turns: user input, loading, reasoning, assistant text,
/// function and shell calls with their outputs, approvals (with items still streaming while
/// one is pending), automatic and manual compactions, context statistics asked for inside
/// and between turns, failed turns, and errors outside any turn.
pub fn agentloop() -> Vec<Value> {
    const TURNS: usize = 230;
    let mut dice = Dice::new(0xa6e7_100b);
    let mut prose = Prose::new(0xa6e7);
    let mut w = AgentLoop {
        out: Vec::new(),
        next_id: 1,
    };
    let mut tokens: u64 = 8_000;
    let mut last_response: Option<String> = None;
    for t in 0..TURNS {
        // A frame the server could not read, answered outside any turn.
        if t % 37 == 5 {
            w.send(
                "server",
                "error",
                Some(json!({"message": "Unknown message type"})),
            );
        }
        let input = |prose: &mut Prose, dice: &mut Dice| {
            json!([{"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": prose.text(dice.between(30, 300))},
            ]}])
        };
        // Refused before the agent started: no loading states follow.
        if t % 53 == 7 {
            let payload = json!({"input": input(&mut prose, &mut dice)});
            w.send("client", "user_input", Some(payload));
            w.send(
                "server",
                "error",
                Some(json!({"message": "AgentLoop not initialized", "details": null})),
            );
        }
        let mut payload = json!({"input": input(&mut prose, &mut dice)});
        if let Some(previous) = &last_response {
            payload["previousResponseId"] = json!(previous);
        }
        w.send("client", "user_input", Some(payload));
        w.loading(true);
        // The client asks for context statistics while the turn runs; answered a few items on.
        let mut info_due = dice.one_in(4).then(|| dice.between(1, 4));
        if info_due.is_some() {
            w.send("client", "get_context_info", None);
        }
        if !dice.one_in(4) {
            let text = prose.text(dice.between(80, 600));
            w.item(json!({"id": format!("reasoning_{t}"), "type": "reasoning",
                "content": [{"type": "input_text", "text": text}],
                "duration_ms": dice.between(200, 9000)}));
        }
        let steps = dice.between(1, 5);
        for k in 0..steps {
            let call = format!("call_{t}_{k}");
            match dice.below(5) {
                0 => {
                    let text = prose.text(dice.between(40, 500));
                    w.item(json!({"id": format!("resp_{t}_{k}"), "type": "message",
                        "role": "assistant", "content": [{"type": "output_text", "text": text}]}));
                }
                1 => {
                    let path = format!("src/{}.rs", prose.word());
                    w.item(json!({"id": call, "type": "function_call", "call_id": call,
                        "name": "read_file", "arguments": json!({"path": path}).to_string()}));
                    let output = json!({"output": prose.text(dice.between(100, 2500)),
                        "metadata": {"exit_code": 0, "duration_seconds": 0.1}});
                    w.item(
                        json!({"id": format!("output_{t}_{k}"), "type": "function_call_output",
                        "call_id": call, "output": output.to_string()}),
                    );
                }
                2 => {
                    w.item(
                        json!({"id": format!("shell_{t}_{k}"), "type": "local_shell_call",
                        "action": {"command": ["git", "status"]}, "status": "completed"}),
                    );
                    let output = json!({"output": prose.text(dice.between(60, 1200)),
                        "metadata": {"exit_code": 0, "duration_seconds": 0.4}});
                    w.item(json!({"id": format!("shell_output_{t}_{k}"),
                        "type": "local_shell_call_output", "output": output.to_string()}));
                }
                _ => {
                    // An approval: a shell command or a patch; shell items may keep coming
                    // while the user decides.
                    let patch = dice.one_in(2);
                    let request = if patch {
                        let diff = format!(
                            "*** Begin Patch\n*** Update File: src/{}.rs\n@@ -1,3 +1,4 @@\n{}*** End Patch",
                            prose.word(),
                            prose.text(dice.between(80, 900))
                        );
                        json!({"command": ["apply_patch", "*** Begin Patch..."],
                            "applyPatch": {"patch": diff}})
                    } else {
                        json!({"command": ["rm", "-rf", format!("target/{}", prose.word())]})
                    };
                    w.send("server", "approval_request", Some(request));
                    if dice.one_in(3) {
                        w.item(
                            json!({"id": format!("shell_{t}_{k}"), "type": "local_shell_call",
                            "action": {"command": ["git", "diff"]}, "status": "in_progress"}),
                        );
                    }
                    let response = match dice.below(6) {
                        0 => json!({"review": "no-continue",
                            "explanation": "Skip this one, carry on with the rest."}),
                        1 => json!({"review": "always"}),
                        2 => json!({"review": "explain"}),
                        _ => json!({"review": "yes", "customDenyMessage": null}),
                    };
                    w.send("client", "approval_response", Some(response));
                }
            }
            if let Some(due) = info_due.as_mut() {
                *due -= 1;
                if *due == 0 {
                    w.context_info(tokens);
                    info_due = None;
                }
            }
        }
        if info_due.is_some() {
            w.context_info(tokens);
        }
        tokens += dice.between(2_000, 9_000) as u64;
        // The server compacts on its own once the context grows large.
        if tokens > 100_000 {
            let new = 10_000 + dice.between(0, 5_000) as u64;
            w.compacted(tokens, new);
            tokens = new;
        }
        if t % 15 == 9 {
            // A failed turn: error, then loading false, and no agent_finished.
            w.send(
                "server",
                "error",
                Some(json!({"message": "Failed to process user input",
                    "details": {"error": "Rate limit exceeded", "code": 429}})),
            );
            w.loading(false);
            continue;
        }
        let text = prose.text(dice.between(60, 900));
        w.item(
            json!({"id": format!("resp_{t}"), "type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": text}]}),
        );
        w.loading(false);
        let response = format!("resp_{:06x}", 0xdef000 + t);
        w.send(
            "server",
            "agent_finished",
            Some(json!({"responseId": response})),
        );
        last_response = Some(response);
        // Between turns: statistics, or a compaction the user asked for.
        if dice.one_in(8) {
            w.send("client", "get_context_info", Some(json!({})));
            w.context_info(tokens);
        }
        if dice.one_in(10) {
            w.send("client", "manual_compact", None);
            let new = tokens / 4 + 2_000;
            w.compacted(tokens, new);
            tokens = new;
        }
    }
    w.out
}

// -------------------------------------------------------------------------------------------
// external_agents
// -------------------------------------------------------------------------------------------

const EXTERNAL_AGENTS: [&str; 3] = ["external-agent-a", "external-agent-b", "support-bot"];

fn external_session_id(s: usize) -> String {
    format!("proj-{:02}_{:04x}", s, 0xbe00 + s * 131)
}

/// A `createdAt` `secs` seconds after 2025-12-12T00:00:00Z (stays within that day).
fn created_at(secs: u64) -> String {
    assert!(secs < 86_400, "clock left the day");
    format!(
        "2025-12-12T{:02}:{:02}:{:02}.000Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

fn http(from: &str, path: &str, status: Option<u16>, body: Value) -> Value {
    let mut exchange = json!({"method": "POST", "path": path, "body": body});
    if let Some(status) = status {
        exchange["status"] = json!(status);
    }
    json!({"from": from, "http": exchange})
}

fn create_session(agent: &str, session: &str, status: u16) -> Value {
    http(
        "web_ui",
        "/api/plugins/sessions/operations/create",
        Some(status),
        json!({"agentId": agent, "sessionId": session}),
    )
}

fn broadcast(session: &str, role: &str, text: &str, at: &str) -> Value {
    message(
        "agent_server",
        json!({"type": "message", "sessionId": session, "role": role, "text": text,
            "createdAt": at}),
    )
}

fn forward_input(session: &str, agent: &str, text: &str, at: &str, status: Option<u16>) -> Value {
    http(
        "agent_server",
        "http://external.internal/v1/assistant/input",
        status,
        json!({"sessionId": session, "agentId": agent,
            "callbackUrl": format!("http://agent-server.internal/external/sessions/{session}/messages"),
            "message": {"type": "user", "text": text, "createdAt": at}}),
    )
}

fn inject_message(session: &str, status: u16, body: &str) -> Value {
    http(
        "external_system",
        &format!("/external/sessions/{session}/messages"),
        Some(status),
        json!(body),
    )
}

/// One web UI connection that visits twelve sessions of three external agents in turn: each
/// visit creates the session (201) or attaches again (200; now and then another agent is
/// refused with 409), says hello and gets session_ready, then runs 3 to 9 rounds of user
/// message, stored echo, forward to the agent and callback with its assistant broadcast. Some
/// forwards fail (503 or a timeout) and get an error line; some replies are too large (413);
/// the last forward of a visit may leave only after the UI has moved on to the next session;
/// a few callbacks name sessions that do not exist (404).
pub fn external_agents() -> Vec<Value> {
    const SESSIONS: usize = 12;
    const VISITS: usize = 120;
    let mut dice = Dice::new(0x00e7_e2a1);
    let mut prose = Prose::new(0xe7e2);
    let mut out = Vec::new();
    let mut clock: u64 = 0;
    let mut created = [false; SESSIONS];
    // Forwards that leave after the UI has switched to another session.
    let mut late_forwards: Vec<Value> = Vec::new();
    for visit in 0..VISITS {
        let s = (visit * 5 + dice.below(3)) % SESSIONS;
        let session = external_session_id(s);
        let agent = EXTERNAL_AGENTS[s % EXTERNAL_AGENTS.len()];
        if !created[s] {
            out.push(create_session(agent, &session, 201));
            created[s] = true;
        } else if dice.one_in(5) {
            out.push(create_session(agent, &session, 200));
        }
        if dice.one_in(9) {
            let other = EXTERNAL_AGENTS[(s + 1) % EXTERNAL_AGENTS.len()];
            out.push(create_session(other, &session, 409));
        }
        out.push(message(
            "web_ui",
            json!({"type": "hello", "sessionId": session}),
        ));
        out.push(message(
            "agent_server",
            json!({"type": "session_ready", "sessionId": session, "agentId": agent}),
        ));
        out.append(&mut late_forwards);
        let rounds = dice.between(3, 9);
        for round in 0..rounds {
            let mut texts = vec![prose.text(dice.between(5, 400))];
            // Now and then the user sends a second message before the first is echoed.
            if dice.one_in(6) {
                texts.push(prose.text(dice.between(5, 200)));
            }
            let mut stored = Vec::new();
            for text in &texts {
                out.push(message(
                    "web_ui",
                    json!({"type": "user_message", "text": text}),
                ));
            }
            for text in &texts {
                clock += dice.between(1, 20) as u64;
                let at = created_at(clock);
                out.push(broadcast(&session, "user", text, &at));
                stored.push((text.clone(), at));
            }
            let last = round + 1 == rounds;
            for (text, at) in &stored {
                if last && dice.one_in(2) {
                    let status = [200, 202, 204][dice.below(3)];
                    late_forwards.push(forward_input(&session, agent, text, at, Some(status)));
                    continue;
                }
                match dice.below(14) {
                    0 => {
                        out.push(forward_input(&session, agent, text, at, Some(503)));
                        clock += 1;
                        out.push(broadcast(
                            &session,
                            "error",
                            "External agent answered 503",
                            &created_at(clock),
                        ));
                    }
                    1 => {
                        out.push(forward_input(&session, agent, text, at, None));
                        clock += 5;
                        out.push(broadcast(
                            &session,
                            "error",
                            "External agent did not answer within 5 s",
                            &created_at(clock),
                        ));
                    }
                    _ => {
                        let status = [200, 200, 202, 204][dice.below(4)];
                        out.push(forward_input(&session, agent, text, at, Some(status)));
                        let reply = prose.text(dice.between(40, 1500));
                        if dice.one_in(15) {
                            out.push(inject_message(&session, 413, &reply));
                            continue;
                        }
                        out.push(inject_message(&session, 200, &reply));
                        clock += dice.between(1, 30) as u64;
                        out.push(broadcast(&session, "assistant", &reply, &created_at(clock)));
                    }
                }
            }
        }
        if dice.one_in(12) {
            let stale = format!("gone-{visit}");
            out.push(inject_message(
                &stale,
                404,
                "late reply for a deleted session",
            ));
        }
    }
    out.append(&mut late_forwards);
    out
}

// -------------------------------------------------------------------------------------------
// eca
// -------------------------------------------------------------------------------------------

fn rpc_request(id: Value, method: &str, params: Option<Value>) -> Value {
    let mut m = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        m["params"] = params;
    }
    message("client", m)
}

fn rpc_notify(from: &str, method: &str, params: Value) -> Value {
    message(
        from,
        json!({"jsonrpc": "2.0", "method": method, "params": params}),
    )
}

fn rpc_result(id: Value, result: Value) -> Value {
    message(
        "server",
        json!({"jsonrpc": "2.0", "id": id, "result": result}),
    )
}

fn eca_content(chat: &str, role: &str, content: Value) -> Value {
    rpc_notify(
        "server",
        "chat/contentReceived",
        json!({"chatId": chat, "content": content, "role": role}),
    )
}

fn eca_initialize() -> Vec<Value> {
    vec![
        rpc_request(
            json!(1),
            "initialize",
            Some(
                json!({"processId": 4242, "clientInfo": {"name": "emacs", "version": "29.4"},
                "initializationOptions": {"chatBehavior": "agent"},
                "capabilities": {"codeAssistant": {"chat": true, "doc": false, "edit": true, "fix": false}},
                "workspaceFolders": [{"uri": "file:///home/dev/project", "name": "project"}]}),
            ),
        ),
        rpc_result(
            json!(1),
            json!({"models": ["openai/gpt-4.1", "anthropic/claude-sonnet-4"],
                "chatDefaultModel": "anthropic/claude-sonnet-4", "chatBehaviors": ["agent", "plan"],
                "chatDefaultBehavior": "agent",
                "chatWelcomeMessage": "Welcome to ECA! Type /help to see what I can do."}),
        ),
        rpc_notify("client", "initialized", json!({})),
        // Server notifications start once `initialized` has arrived.
        rpc_notify(
            "server",
            "$/showMessage",
            json!({"type": "warning", "message": "No config found, using defaults"}),
        ),
    ]
}

fn eca_server_updated(name: &str, status: &str) -> Value {
    rpc_notify(
        "server",
        "tool/serverUpdated",
        json!({"type": "mcp", "name": name, "command": "npx",
            "args": ["-y", format!("@modelcontextprotocol/server-{name}"), "/home/dev/project"],
            "status": status,
            "tools": [{"name": "read_file", "description": "Read a file", "parameters": null,
                "disabled": false}]}),
    )
}

/// Request ids in the chat scripts are placeholders (`"tmp-..."`) until the scripts are
/// merged; then they become the increasing integers a client hands out, in stream order.
fn eca_number_requests(entries: &mut [Value], first: i64) -> i64 {
    let mut ids = std::collections::HashMap::new();
    let mut next = first;
    for entry in entries {
        let Some(id) = entry.pointer_mut("/message/id") else {
            continue;
        };
        let Some(tmp) = id.as_str().filter(|s| s.starts_with("tmp-")) else {
            continue;
        };
        let n = *ids.entry(tmp.to_owned()).or_insert_with(|| {
            next += 1;
            next - 1
        });
        *id = json!(n);
    }
    next
}

/// One prompt of one chat, from the request to progress finished.
fn eca_prompt(chat: &str, turn: usize, prose: &mut Prose, dice: &mut Dice) -> Vec<Value> {
    let mut s = Vec::new();
    let tmp = json!(format!("tmp-{chat}-{turn}"));
    let question = prose.text(dice.between(20, 300));
    let mut params = json!({"chatId": chat, "requestId": format!("req-{chat}-{turn}"),
        "message": question});
    if turn == 0 {
        params["model"] = json!("anthropic/claude-sonnet-4");
        params["behavior"] = json!("agent");
        params["contexts"] = json!([{"type": "file", "path": "/home/dev/project/src/app/core.clj",
            "linesRange": {"start": 10, "end": 42}}, {"type": "repoMap"}]);
    }
    s.push(rpc_request(tmp.clone(), "chat/prompt", Some(params)));
    s.push(rpc_result(
        tmp,
        json!({"chatId": chat, "model": "anthropic/claude-sonnet-4", "status": "success"}),
    ));
    s.push(eca_content(
        chat,
        "user",
        json!({"type": "text", "text": question}),
    ));
    s.push(eca_content(
        chat,
        "system",
        json!({"type": "progress", "state": "running", "text": "Waiting model"}),
    ));
    if !dice.one_in(4) {
        let id = format!("reason-{chat}-{turn}");
        s.push(eca_content(
            chat,
            "assistant",
            json!({"type": "reasonStarted", "id": id}),
        ));
        for _ in 0..dice.between(2, 7) {
            let text = prose.text(dice.between(10, 120));
            s.push(eca_content(
                chat,
                "assistant",
                json!({"type": "reasonText", "id": id, "text": text}),
            ));
        }
        s.push(eca_content(
            chat,
            "assistant",
            json!({"type": "reasonFinished", "id": id}),
        ));
    }
    let text_chunks = |s: &mut Vec<Value>, prose: &mut Prose, dice: &mut Dice, n: usize| {
        for _ in 0..n {
            let text = prose.text(dice.between(10, 160));
            s.push(eca_content(
                chat,
                "assistant",
                json!({"type": "text", "text": text}),
            ));
        }
    };
    let n = dice.between(3, 9);
    text_chunks(&mut s, prose, dice, n);
    for k in 0..dice.between(0, 2) {
        let id = format!("call-{chat}-{turn}-{k}");
        let path = format!("src/app/{}.clj", prose.word());
        let manual = dice.one_in(2);
        let (origin, name) = if manual {
            ("native", "eca_edit_file")
        } else {
            ("mcp", "read_file")
        };
        let args = json!({"path": path}).to_string();
        for part in snapshots(&args, dice.between(1, 3)) {
            s.push(eca_content(
                chat,
                "assistant",
                json!({"type": "toolCallPrepare", "origin": origin, "id": id, "name": name,
                    "argumentsText": part, "manualApproval": manual}),
            ));
        }
        s.push(eca_content(
            chat,
            "assistant",
            json!({"type": "toolCallRun", "origin": origin, "id": id, "name": name,
                "arguments": {"path": path}, "manualApproval": manual}),
        ));
        let approval = json!({"chatId": chat, "toolCallId": id});
        if manual && dice.one_in(5) {
            s.push(rpc_notify("client", "chat/toolCallReject", approval));
            s.push(eca_content(
                chat,
                "assistant",
                json!({"type": "toolCallRejected", "origin": origin, "id": id, "name": name,
                    "arguments": {"path": path}, "reason": "user"}),
            ));
        } else {
            if manual {
                s.push(rpc_notify("client", "chat/toolCallApprove", approval));
            }
            let output = prose.text(dice.between(40, 1500));
            s.push(eca_content(
                chat,
                "assistant",
                json!({"type": "toolCalled", "origin": origin, "id": id, "name": name,
                    "arguments": [path], "error": false,
                    "outputs": [{"type": "text", "content": output}]}),
            ));
        }
        let n = dice.between(1, 4);
        text_chunks(&mut s, prose, dice, n);
    }
    if dice.one_in(5) {
        s.push(eca_content(
            chat,
            "assistant",
            json!({"type": "url", "title": "Clojure docs", "url": "https://clojure.org/reference"}),
        ));
    }
    s.push(eca_content(
        chat,
        "system",
        json!({"type": "usage", "messageInputTokens": dice.between(500, 9000),
            "messageOutputTokens": dice.between(50, 2000), "sessionTokens": 4210 + 900 * turn,
            "messageCost": "$0.01", "sessionCost": format!("${}.{:02}", turn / 10, turn % 10 * 4)}),
    ));
    if dice.one_in(20) {
        s.push(rpc_notify(
            "client",
            "chat/promptStop",
            json!({"chatId": chat}),
        ));
    }
    s.push(eca_content(
        chat,
        "system",
        json!({"type": "progress", "state": "finished", "text": ""}),
    ));
    s
}

/// What the editor does besides chatting: context and command completions, MCP servers
/// stopped and started, messages for the user.
fn eca_editor(prose: &mut Prose, dice: &mut Dice) -> Vec<Value> {
    let mut s = Vec::new();
    for i in 0..40 {
        let chat = format!("chat-{}", i % 6 + 1);
        match i % 4 {
            0 => {
                let tmp = json!(format!("tmp-query-{i}"));
                let query = prose.word();
                s.push(rpc_request(
                    tmp.clone(),
                    "chat/queryContext",
                    Some(
                        json!({"chatId": chat, "query": query, "contexts": [{"type": "repoMap"}]}),
                    ),
                ));
                s.push(rpc_result(
                    tmp,
                    json!({"chatId": chat, "contexts": [
                        {"type": "file", "path": format!("/home/dev/project/src/app/{query}.clj")},
                        {"type": "directory", "path": "/home/dev/project/src"},
                        {"type": "repoMap"}]}),
                ));
            }
            1 => {
                let tmp = json!(format!("tmp-commands-{i}"));
                s.push(rpc_request(
                    tmp.clone(),
                    "chat/queryCommands",
                    Some(json!({"chatId": chat, "query": "re"})),
                ));
                s.push(rpc_result(
                    tmp,
                    json!({"chatId": chat, "commands": [
                        {"name": "review", "description": "Review a file", "type": "mcp-prompt",
                            "arguments": [{"name": "file", "description": "File to review", "required": true}]},
                        {"name": "repo-map", "description": "Show the repository map", "type": "native",
                            "arguments": []}]}),
                ));
            }
            2 => {
                let name = ["filesystem", "github"][dice.below(2)];
                s.push(rpc_notify(
                    "client",
                    "mcp/stopServer",
                    json!({"name": name}),
                ));
                s.push(eca_server_updated(name, "stopped"));
                s.push(rpc_notify(
                    "client",
                    "mcp/startServer",
                    json!({"name": name}),
                ));
                s.push(eca_server_updated(name, "starting"));
                s.push(eca_server_updated(name, "running"));
            }
            _ => {
                let text = prose.text(dice.between(20, 120));
                s.push(rpc_notify(
                    "server",
                    "$/showMessage",
                    json!({"type": "info", "message": text}),
                ));
            }
        }
    }
    s
}

/// One ECA connection: initialize handshake and MCP servers coming up, then six chats whose
/// prompts (22 each) run concurrently and interleave, next to the editor's own requests;
/// every prompt is answered, echoes the user text, reports progress running, reasons,
/// streams text, makes tool calls (with manual approval, some rejected), reports usage and
/// finishes; then shutdown, its response and exit.
pub fn eca() -> Vec<Value> {
    const CHATS: usize = 6;
    const PROMPTS: usize = 22;
    let mut dice = Dice::new(0xeca0_eca1);
    let mut prose = Prose::new(0xeca);
    let mut out = eca_initialize();
    out.push(eca_server_updated("filesystem", "running"));
    out.push(eca_server_updated("github", "running"));
    let mut scripts: Vec<Vec<Value>> = (1..=CHATS)
        .map(|c| {
            let chat = format!("chat-{c}");
            (0..PROMPTS)
                .flat_map(|t| eca_prompt(&chat, t, &mut prose, &mut dice))
                .collect()
        })
        .collect();
    scripts.push(eca_editor(&mut prose, &mut dice));
    let mut body = interleave(scripts, &mut dice);
    let shutdown = eca_number_requests(&mut body, 2);
    out.append(&mut body);
    out.push(rpc_request(json!(shutdown), "shutdown", None));
    out.push(rpc_result(json!(shutdown), Value::Null));
    out.push(message(
        "client",
        json!({"jsonrpc": "2.0", "method": "exit"}),
    ));
    out
}

// -------------------------------------------------------------------------------------------
// coven
// -------------------------------------------------------------------------------------------

fn coven_register() -> Value {
    message(
        "agent",
        json!({"register": {"agent_id": "550e8400-e29b-41d4-a716-446655440000",
            "name": "mux-agent-1", "capabilities": ["chat", "base", "notes"],
            "metadata": {"working_directory": "/home/user/project", "hostname": "dev-machine",
                "os": "linux", "workspaces": ["dev", "personal"], "backend": "mux"},
            "protocol_features": ["token_usage", "tool_states", "injection", "cancellation"]}}),
    )
}

fn coven_welcome() -> Value {
    message(
        "gateway",
        json!({"welcome": {"server_id": "gw-eu-1", "agent_id": "mux-agent-1",
            "instance_id": "k3x9", "principal_id": "7d9f4c1e-2b1a-4c8e-9a55-0e6f3b2d1c00",
            "available_tools": [{"name": "elevenlabs.speak", "description": "Turn text into speech",
                "input_schema_json": "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
                "required_capabilities": ["chat"], "timeout_seconds": 30},
                {"name": "notes.append", "description": "Append to a note",
                "input_schema_json": "{\"type\":\"object\"}"}],
            "mcp_token": "mcp-tok-123", "mcp_endpoint": "https://gateway.example/mcp",
            "secrets": {"GITHUB_TOKEN": "ghp_example", "OPENAI_API_KEY": "sk-example"}}}),
    )
}

fn coven_response(request: &str, event: &str, value: Value) -> Value {
    let mut response = json!({"request_id": request});
    response[event] = value;
    message("agent", json!({"response": response}))
}

fn coven_tool_state(request: &str, id: &str, state: &str) -> Value {
    coven_response(request, "tool_state", json!({"id": id, "state": state}))
}

/// Writes the coven stream: a heartbeat every 60 messages, context injections and pack tool
/// calls at random points, and their acks and results a few messages later.
struct Coven {
    out: Vec<Value>,
    dice: Dice,
    /// Messages to send later, with how many stream messages must pass first.
    later: Vec<(usize, Value)>,
    since_heartbeat: usize,
    clock_ms: u64,
    injections: usize,
    pack_tools: usize,
}

impl Coven {
    fn push(&mut self, entry: Value) {
        self.out.push(entry);
        self.clock_ms += 40 + self.dice.below(400) as u64;
        self.since_heartbeat += 1;
        if self.since_heartbeat >= 60 {
            self.since_heartbeat = 0;
            let beat = json!({"heartbeat": {"timestamp_ms": self.clock_ms.to_string()}});
            self.out.push(message("agent", beat));
        }
        let mut i = 0;
        while i < self.later.len() {
            if self.later[i].0 == 0 {
                let (_, entry) = self.later.remove(i);
                self.out.push(entry);
            } else {
                self.later[i].0 -= 1;
                i += 1;
            }
        }
        // The gateway pushes context now and then; a pack tool call goes out now and then.
        if self.dice.one_in(45) {
            self.injections += 1;
            let id = format!("inj-{}", self.injections);
            let priority = [
                "INJECTION_PRIORITY_IMMEDIATE",
                "INJECTION_PRIORITY_NORMAL",
                "INJECTION_PRIORITY_DEFERRED",
            ][self.dice.below(3)];
            self.out.push(message(
                "gateway",
                json!({"inject_context": {"injection_id": id,
                    "content": "The user just opened README.md", "priority": priority,
                    "source": "pack:elevenlabs"}}),
            ));
            let ack = if self.dice.one_in(5) {
                json!({"injection_id": id, "reason": "turn already finished"})
            } else {
                json!({"injection_id": id, "accepted": true})
            };
            let delay = self.dice.between(0, 6);
            self.later
                .push((delay, message("agent", json!({"injection_ack": ack}))));
        }
        if self.dice.one_in(70) {
            self.pack_tools += 1;
            let id = format!("pt-{}", self.pack_tools);
            self.out.push(message(
                "agent",
                json!({"execute_pack_tool": {"request_id": id, "tool_name": "elevenlabs.speak",
                    "input_json": "{\"text\":\"hi\"}"}}),
            ));
            let result = if self.dice.one_in(6) {
                json!({"request_id": id, "error": "tool timed out after 30s"})
            } else {
                json!({"request_id": id,
                    "output_json": "{\"audio_url\":\"https://cdn.example/a.mp3\"}"})
            };
            let delay = self.dice.between(1, 10);
            self.later.push((
                delay,
                message("gateway", json!({"pack_tool_result": result})),
            ));
        }
    }

    /// Sends everything still scheduled.
    fn flush(&mut self) {
        for (_, entry) in std::mem::take(&mut self.later) {
            self.out.push(entry);
        }
    }
}

/// One coven agent stream: register with all four features, welcome, then 150 requests one
/// after the other, each streamed as thinking, text, tool calls with their states (some
/// awaiting approval, some denied or failing), tool results, usage and done; some are
/// cancelled or fail. Heartbeats, context injections with their acks and pack tool calls
/// with their results run alongside; the gateway shuts the stream down at the end.
pub fn coven() -> Vec<Value> {
    const REQUESTS: usize = 150;
    let mut prose = Prose::new(0xc0e7);
    let mut w = Coven {
        out: Vec::new(),
        dice: Dice::new(0xc0e7_5eed),
        later: Vec::new(),
        since_heartbeat: 0,
        clock_ms: 1_718_000_000_000,
        injections: 0,
        pack_tools: 0,
    };
    w.out.push(coven_register());
    w.out.push(message(
        "agent",
        json!({"heartbeat": {"timestamp_ms": "1718000000000"}}),
    ));
    w.out.push(coven_welcome());
    let mut tools = 0;
    for r in 0..REQUESTS {
        let request = format!("req-{}", r + 1);
        let content = prose.text(w.dice.between(20, 400));
        w.push(message(
            "gateway",
            json!({"send_message": {"request_id": request, "thread_id": format!("thread-{}", r / 10),
                "sender": "alice", "content": content}}),
        ));
        if r % 10 == 0 {
            let session = json!({"session_id": format!("sess-{}", r / 10)});
            w.push(coven_response(&request, "session_init", session));
        }
        for _ in 0..w.dice.between(1, 5) {
            let thinking = prose.text(w.dice.between(20, 200));
            w.push(coven_response(&request, "thinking", json!(thinking)));
        }
        // Cancelled early now and then.
        if r % 25 == 12 {
            w.push(message(
                "gateway",
                json!({"cancel_request": {"request_id": request, "reason": "user_requested"}}),
            ));
            w.push(coven_response(
                &request,
                "cancelled",
                json!({"reason": "user_requested"}),
            ));
            continue;
        }
        let mut full = String::new();
        for _ in 0..w.dice.between(2, 8) {
            let text = prose.text(w.dice.between(10, 200));
            full.push_str(&text);
            w.push(coven_response(&request, "text", json!(text)));
        }
        for _ in 0..w.dice.between(0, 3) {
            tools += 1;
            let id = format!("toolu_{tools:05}");
            let input = json!({"path": format!("src/{}.rs", prose.word())}).to_string();
            let tool = json!({"id": id, "name": "read_file", "input_json": input});
            w.push(coven_response(&request, "tool_use", tool));
            w.push(coven_tool_state(&request, &id, "TOOL_STATE_PENDING"));
            let mut denied = false;
            if w.dice.one_in(4) {
                let ask = json!({"id": id, "name": "shell", "input_json": "{\"command\":\"rm -rf build\"}"});
                w.push(coven_response(&request, "tool_approval_request", ask));
                w.push(coven_tool_state(
                    &request,
                    &id,
                    "TOOL_STATE_AWAITING_APPROVAL",
                ));
                denied = w.dice.one_in(4);
                let answer = if denied {
                    json!({"tool_approval": {"id": id}})
                } else {
                    json!({"tool_approval": {"id": id, "approved": true}})
                };
                w.push(message("gateway", answer));
            }
            if denied {
                w.push(coven_tool_state(&request, &id, "TOOL_STATE_DENIED"));
                let result = json!({"id": id, "output": "denied by the user", "is_error": true});
                w.push(coven_response(&request, "tool_result", result));
                continue;
            }
            w.push(coven_tool_state(&request, &id, "TOOL_STATE_RUNNING"));
            let failed = w.dice.one_in(10);
            let output = prose.text(w.dice.between(20, 2000));
            let result = if failed {
                json!({"id": id, "output": output, "is_error": true})
            } else {
                json!({"id": id, "output": output})
            };
            w.push(coven_response(&request, "tool_result", result));
            let end = if failed {
                "TOOL_STATE_FAILED"
            } else {
                "TOOL_STATE_COMPLETED"
            };
            w.push(coven_tool_state(&request, &id, end));
            let text = prose.text(w.dice.between(10, 200));
            full.push_str(&text);
            w.push(coven_response(&request, "text", json!(text)));
        }
        let usage = json!({"input_tokens": w.dice.between(200, 9000),
            "output_tokens": w.dice.between(20, 2000), "cache_read_tokens": w.dice.between(0, 4000)});
        w.push(coven_response(&request, "usage", usage));
        if r % 31 == 30 {
            w.push(coven_response(
                &request,
                "error",
                json!("backend process exited with status 1"),
            ));
        } else {
            w.push(coven_response(
                &request,
                "done",
                json!({"full_response": full}),
            ));
        }
    }
    w.flush();
    w.out.push(message(
        "gateway",
        json!({"shutdown": {"reason": "gateway maintenance"}}),
    ));
    w.out
}

// -------------------------------------------------------------------------------------------
// Prefixes that leave instances open
// -------------------------------------------------------------------------------------------

/// A trace prefix that leaves `count` instances of one keyed machine open, and what those
/// instances hold on the heap, worked out from the messages that made them.
#[derive(Debug, Clone)]
pub struct OpenInstances {
    /// `module.machine`.
    pub machine: &'static str,
    /// The state the instances are left in.
    pub state: &'static str,
    pub entries: Vec<Value>,
    /// Instances of `machine` left open.
    pub count: usize,
    /// Live instances of all machines after the prefix (`Checker::live_instances`).
    pub live: usize,
    /// Bytes of all instance keys (each key is a `String` in the machine's map).
    pub key_bytes: usize,
    /// Bytes of all strings the instances remember (values and set elements).
    pub remembered_bytes: usize,
    /// Non-empty sets across all instances (each holds at least one B-tree node).
    pub sets: usize,
}

impl OpenInstances {
    fn new(machine: &'static str, state: &'static str, entries: Vec<Value>) -> Self {
        OpenInstances {
            machine,
            state,
            entries,
            count: 0,
            live: 0,
            key_bytes: 0,
            remembered_bytes: 0,
            sets: 0,
        }
    }
}

/// helix_zed `session`: `n` sessions in the middle of their first reply (`streaming`), each
/// remembering its thread, request, message id and a 400-byte content snapshot.
pub fn helix_zed_open(n: usize) -> OpenInstances {
    let mut prose = Prose::new(0x4e12);
    let mut o = OpenInstances::new("helix_zed.session", "streaming", Vec::new());
    for s in 0..n {
        let session = helix_session_id(s);
        let thread = helix_thread_id(s);
        let request = format!("req_{}", 1_759_400_000 + s);
        let id = format!("ai_msg_{}", 1_759_410_000 + s);
        let content = prose.text(400);
        o.entries
            .push(helix_chat(&session, None, prose.text(80), &request));
        o.entries.push(zed_context_created(&session, &thread));
        o.entries.push(zed_message_added(
            &session,
            &thread,
            &id,
            &content,
            1_759_410_000,
        ));
        o.key_bytes += session.len();
        o.remembered_bytes += thread.len() + request.len() + id.len() + content.len();
    }
    o.count = n;
    o.live = n;
    o
}

/// external_agents `session`: `n` live sessions, each remembering its agent and one stored
/// user message not yet forwarded. The connection machine adds one more live instance.
pub fn external_agents_open(n: usize) -> OpenInstances {
    let mut o = OpenInstances::new("external_agents.session", "live", Vec::new());
    for s in 0..n {
        let session = external_session_id(s);
        let agent = EXTERNAL_AGENTS[s % EXTERNAL_AGENTS.len()];
        let at = created_at(s as u64);
        o.entries.push(create_session(agent, &session, 201));
        o.entries.push(message(
            "web_ui",
            json!({"type": "hello", "sessionId": session}),
        ));
        o.entries.push(message(
            "agent_server",
            json!({"type": "session_ready", "sessionId": session, "agentId": agent}),
        ));
        o.entries.push(message(
            "web_ui",
            json!({"type": "user_message", "text": "hello"}),
        ));
        o.entries.push(broadcast(&session, "user", "hello", &at));
        o.key_bytes += session.len();
        o.remembered_bytes += agent.len() + at.len();
        o.sets += 2;
    }
    o.count = n;
    o.live = n + 1;
    o
}

/// The eca prefixes, one per keyed machine.
#[derive(Debug, Clone)]
pub struct EcaOpen {
    pub request: OpenInstances,
    pub chat: OpenInstances,
    pub tool_call: OpenInstances,
    pub reason: OpenInstances,
    pub mcp_server: OpenInstances,
}

/// The eca prefixes: for each keyed machine, `n` instances open after the initialize
/// handshake (the lifecycle machine adds one live instance to each).
pub fn eca_open(n: usize) -> EcaOpen {
    let prompt = |chat: &str| {
        let mut e = eca_initialize();
        e.push(rpc_request(
            json!(2),
            "chat/prompt",
            Some(json!({"chatId": chat, "requestId": "req-1", "message": "Fix the tests"})),
        ));
        e.push(rpc_result(
            json!(2),
            json!({"chatId": chat, "model": "anthropic/claude-sonnet-4", "status": "success"}),
        ));
        e.push(eca_content(
            chat,
            "system",
            json!({"type": "progress", "state": "running", "text": "Waiting model"}),
        ));
        e
    };

    // request: outstanding queryCommands requests, ids 2..n+2 (keys are the decimal ids).
    let mut request = OpenInstances::new("eca.request", "pending", eca_initialize());
    for i in 0..n {
        let id = i as i64 + 2;
        request.entries.push(rpc_request(
            json!(id),
            "chat/queryCommands",
            Some(json!({"chatId": "chat-1", "query": "re"})),
        ));
        request.key_bytes += id.to_string().len();
    }

    // chat: chats opened by a prompt without chatId, each seen first through its content.
    let mut chat = OpenInstances::new("eca.chat", "prompted", eca_initialize());
    for i in 0..n {
        let id = format!("chat-{:04}", i + 1);
        chat.entries.push(eca_content(
            &id,
            "user",
            json!({"type": "text", "text": "Explain what core.clj does"}),
        ));
        chat.key_bytes += id.len();
    }

    // tool_call: calls of one running chat, each waiting for the user's approval.
    let mut tool_call = OpenInstances::new("eca.tool_call", "awaiting_approval", prompt("chat-1"));
    for i in 0..n {
        let id = format!("call-{:04}", i + 1);
        tool_call.entries.push(eca_content(
            "chat-1",
            "assistant",
            json!({"type": "toolCallRun", "origin": "native", "id": id, "name": "eca_edit_file",
                "arguments": {"path": "src/app/core.clj"}, "manualApproval": true}),
        ));
        tool_call.key_bytes += id.len();
    }

    // reason: reasoning blocks of one running chat, started and not finished.
    let mut reason = OpenInstances::new("eca.reason", "reasoning", prompt("chat-1"));
    for i in 0..n {
        let id = format!("reason-{:04}", i + 1);
        reason.entries.push(eca_content(
            "chat-1",
            "assistant",
            json!({"type": "reasonStarted", "id": id}),
        ));
        reason.key_bytes += id.len();
    }

    // mcp_server: servers asked to stop, their update not yet in.
    let mut mcp = OpenInstances::new("eca.mcp_server", "updating", eca_initialize());
    for i in 0..n {
        let name = format!("server-{:04}", i + 1);
        mcp.entries.push(rpc_notify(
            "client",
            "mcp/stopServer",
            json!({"name": name}),
        ));
        mcp.key_bytes += name.len();
    }

    // The prompt prefixes leave one chat instance open (its request was answered and dropped).
    for (o, extra) in [
        (&mut request, 0),
        (&mut chat, 0),
        (&mut tool_call, 1),
        (&mut reason, 1),
        (&mut mcp, 0),
    ] {
        o.count = n;
        o.live = n + 1 + extra;
    }
    EcaOpen {
        request,
        chat,
        tool_call,
        reason,
        mcp_server: mcp,
    }
}

/// The coven prefixes, one per keyed machine that can hold many instances (`request` holds
/// at most one: the stream allows one send_message in flight).
#[derive(Debug, Clone)]
pub struct CovenOpen {
    pub tool: OpenInstances,
    pub tool_approval: OpenInstances,
    pub injection: OpenInstances,
    pub pack_tool: OpenInstances,
}

/// The coven prefixes: for each keyed machine that can hold many instances, `n` open after
/// register, welcome and one send_message (the stream and that request add two live
/// instances).
pub fn coven_open(n: usize) -> CovenOpen {
    let start = || {
        vec![
            coven_register(),
            coven_welcome(),
            message(
                "gateway",
                json!({"send_message": {"request_id": "req-1", "content": "go"}}),
            ),
        ]
    };

    // tool: finished calls. `ended` is not a final state, so a stream keeps one of these
    // (with the id in its `results` set) for every tool call it has made.
    let mut tool = OpenInstances::new("coven.tool", "ended", start());
    for i in 0..n {
        let id = format!("toolu_{:05}", i + 1);
        let use_ =
            json!({"id": id, "name": "read_file", "input_json": "{\"path\":\"src/main.rs\"}"});
        tool.entries.push(coven_response("req-1", "tool_use", use_));
        tool.entries
            .push(coven_tool_state("req-1", &id, "TOOL_STATE_RUNNING"));
        let result = json!({"id": id, "output": "fn main() {}"});
        tool.entries
            .push(coven_response("req-1", "tool_result", result));
        tool.entries
            .push(coven_tool_state("req-1", &id, "TOOL_STATE_COMPLETED"));
        tool.key_bytes += id.len();
        tool.remembered_bytes += id.len();
        tool.sets += 1;
    }
    tool.count = n;
    tool.live = n + 2;

    // tool_approval: approval requests not answered yet (each also opens a tool instance).
    let mut approval = OpenInstances::new("coven.tool_approval", "awaiting", start());
    for i in 0..n {
        let id = format!("toolu_{:05}", i + 1);
        let use_ = json!({"id": id, "name": "shell", "input_json": "{\"command\":\"make\"}"});
        approval
            .entries
            .push(coven_response("req-1", "tool_use", use_));
        let ask = json!({"id": id, "name": "shell", "input_json": "{\"command\":\"make\"}"});
        approval
            .entries
            .push(coven_response("req-1", "tool_approval_request", ask));
        approval.key_bytes += id.len();
    }
    approval.count = n;
    approval.live = 2 * n + 2;

    // injection: injected context not acknowledged yet.
    let mut injection = OpenInstances::new("coven.injection", "pending", start());
    for i in 0..n {
        let id = format!("inj-{:05}", i + 1);
        injection.entries.push(message(
            "gateway",
            json!({"inject_context": {"injection_id": id, "content": "The user just opened README.md",
                "priority": "INJECTION_PRIORITY_NORMAL"}}),
        ));
        injection.key_bytes += id.len();
    }
    injection.count = n;
    injection.live = n + 2;

    // pack_tool: pack tool calls without a result yet.
    let mut pack = OpenInstances::new("coven.pack_tool", "running", start());
    for i in 0..n {
        let id = format!("pt-{:05}", i + 1);
        pack.entries.push(message(
            "agent",
            json!({"execute_pack_tool": {"request_id": id, "tool_name": "elevenlabs.speak",
                "input_json": "{\"text\":\"hi\"}"}}),
        ));
        pack.key_bytes += id.len();
    }
    pack.count = n;
    pack.live = n + 2;

    CovenOpen {
        tool,
        tool_approval: approval,
        injection,
        pack_tool: pack,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes every entry, runs the checker over the whole trace and finishes it; with
    /// `finish`, the trace must also end with every instance in an accepting state.
    macro_rules! check {
        ($module:ident, $entries:expr, $finish:expr) => {{
            use agentwire_protocols::$module::machine::{Checker, Recorded};
            let entries: &[Value] = $entries;
            let decoded: Vec<Recorded> = entries
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let from = e["from"].as_str().expect("from");
                    match Recorded::decode(from, e) {
                        Some(Ok(m)) => m,
                        Some(Err(err)) => panic!("entry {i} invalid: {err}\n{e}"),
                        None => panic!("entry {i}: unknown sender {from}"),
                    }
                })
                .collect();
            let mut checker = Checker::new();
            for (i, m) in decoded.iter().enumerate() {
                if let Err(v) = checker.observe(m.as_message()) {
                    panic!("entry {i}: {v}\n{}", entries[i]);
                }
            }
            let live = checker.live_instances();
            if $finish {
                if let Err(v) = checker.finish() {
                    let all: Vec<String> = v.iter().map(ToString::to_string).collect();
                    panic!("end of stream:\n{}", all.join("\n"));
                }
            }
            live
        }};
    }

    fn assert_long(name: &str, entries: &[Value]) {
        assert!(
            (2_000..=5_000).contains(&entries.len()),
            "{name}: {} messages",
            entries.len()
        );
    }

    #[test]
    fn helix_zed_trace_is_accepted() {
        let t = helix_zed();
        assert_long("helix_zed", &t);
        check!(helix_zed, &t, true);
    }

    #[test]
    fn agentloop_trace_is_accepted() {
        let t = agentloop();
        assert_long("agentloop", &t);
        check!(agentloop, &t, true);
    }

    #[test]
    fn external_agents_trace_is_accepted() {
        let t = external_agents();
        assert_long("external_agents", &t);
        check!(external_agents, &t, true);
    }

    #[test]
    fn eca_trace_is_accepted() {
        let t = eca();
        assert_long("eca", &t);
        check!(eca, &t, true);
    }

    #[test]
    fn coven_trace_is_accepted() {
        let t = coven();
        assert_long("coven", &t);
        check!(coven, &t, true);
    }

    #[test]
    fn traces_are_deterministic() {
        assert_eq!(helix_zed(), helix_zed());
        assert_eq!(eca(), eca());
        assert_eq!(coven(), coven());
    }

    #[test]
    fn prefixes_leave_the_instances_open() {
        let o = helix_zed_open(50);
        assert_eq!(
            check!(helix_zed, &o.entries, false),
            o.live,
            "{}",
            o.machine
        );
        let o = external_agents_open(50);
        assert_eq!(
            check!(external_agents, &o.entries, false),
            o.live,
            "{}",
            o.machine
        );
        let e = eca_open(50);
        for o in [e.request, e.chat, e.tool_call, e.reason, e.mcp_server] {
            assert_eq!(check!(eca, &o.entries, false), o.live, "{}", o.machine);
        }
        let c = coven_open(50);
        for o in [c.tool, c.tool_approval, c.injection, c.pack_tool] {
            assert_eq!(check!(coven, &o.entries, false), o.live, "{}", o.machine);
        }
    }
}
