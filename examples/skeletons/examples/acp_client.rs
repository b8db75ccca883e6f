//! An ACP client on the generated skeleton: starts an agent as a subprocess and speaks
//! newline-delimited JSON-RPC on its stdio. It initializes (declaring that it reads and writes
//! text files and runs terminals, which it then does for the agent), opens a session in the
//! current directory, runs one prompt turn printing every update as it arrives and allowing
//! what the agent asks, then a second turn that it cancels while the agent waits for
//! permission, and checks that turn ends with `cancelled` and every terminal was released.
//!
//! `cargo run --example acp_client` starts the `acp_agent` example found next to its own
//! executable (building it first if it is not there); `-- COMMAND [ARGS...]` starts any ACP
//! agent instead.

use std::sync::Arc;
use std::time::Duration;

use agentwire_examples::Failure;
use agentwire_examples::acp::{
    ClientAnswers, PROTOCOL_VERSION, Permission, blocks_text, client_capabilities,
};
use agentwire_protocols::acp::v1::AgentNotification;
use agentwire_protocols::skeletons::acp::{AgentNotifications, Client};
use agentwire_transport::jsonrpc::Config;
use serde_json::{Value, json};

type Boxed = Box<dyn std::error::Error + Send + Sync>;

fn typed<T: agentwire_runtime::serde::de::DeserializeOwned>(v: Value) -> Result<T, Boxed> {
    Ok(serde_json::from_value(v)?)
}

/// One line for an update (ACP's `SessionUpdate` as JSON).
fn update_line(update: &Value) -> String {
    let kind = update["sessionUpdate"].as_str().unwrap_or("?");
    match kind {
        "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk" => {
            let content = Value::Array(vec![update["content"].clone()]);
            format!("{kind}: {}", blocks_text(&content))
        }
        "tool_call" => format!(
            "tool_call {} {:?} ({})",
            update["toolCallId"].as_str().unwrap_or("?"),
            update["title"].as_str().unwrap_or_default(),
            update["status"].as_str().unwrap_or("pending")
        ),
        "tool_call_update" => {
            let status = update["status"].as_str().unwrap_or("unchanged");
            format!(
                "tool_call_update {} {status}",
                update["toolCallId"].as_str().unwrap_or("?")
            )
        }
        other => other.to_owned(),
    }
}

fn print_note(note: &AgentNotification) {
    match note {
        AgentNotification::SessionUpdate(u) => {
            let update = serde_json::to_value(&u.update).unwrap_or_default();
            println!("  {}", update_line(&update));
        }
        other => println!("  {}", serde_json::to_value(other).unwrap_or_default()),
    }
}

/// Sends one prompt and prints the session's updates as they arrive; returns the stop reason.
async fn turn(
    client: &Client,
    notes: &mut AgentNotifications,
    session: &str,
    text: &str,
) -> Result<String, Boxed> {
    println!("prompt: {text}");
    let params = typed(json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}))?;
    let prompt = client.session_prompt(params);
    tokio::pin!(prompt);
    let done = loop {
        tokio::select! {
            done = &mut prompt => break done?,
            Some(note) = notes.recv() => print_note(&note),
        }
    };
    // The turn's updates came before its answer; any still queued are printed now.
    while let Ok(Some(note)) = tokio::time::timeout(Duration::from_millis(20), notes.recv()).await {
        print_note(&note);
    }
    let stop = serde_json::to_value(done.stop_reason)?;
    Ok(stop.as_str().unwrap_or("?").to_owned())
}

async fn demo(program: &str, args: &[String]) -> Result<(), Boxed> {
    let answers = Arc::new(ClientAnswers::new(true));
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args);
    let (client, mut notes, _connection, mut child) =
        Client::spawn_with(Arc::clone(&answers), cmd, Config::default())
            .map_err(|e| Failure(format!("cannot start `{program}`: {e}")))?;
    let init = client
        .initialize(typed(json!({
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": client_capabilities(),
            "clientInfo": {"name": "agentwire-acp-client", "version": env!("CARGO_PKG_VERSION")}
        }))?)
        .await
        .map_err(|e| Failure(format!("`{program}` did not initialize: {e}")))?;
    let init = serde_json::to_value(&init)?;
    println!(
        "initialized: {} speaking ACP version {}",
        init["agentInfo"]["name"].as_str().unwrap_or("an agent"),
        init["protocolVersion"]
    );
    let cwd = std::env::current_dir()?.to_string_lossy().into_owned();
    let session = client
        .session_new(typed(json!({"cwd": cwd, "mcpServers": []}))?)
        .await?
        .session_id;
    println!("session {session} in {cwd}");

    let stop = turn(&client, &mut notes, &session, "What does the README say?").await?;
    println!("turn ended: {stop}");

    answers.set_permission(Permission::CancelTurn);
    let stop = turn(&client, &mut notes, &session, "Read it again.").await?;
    println!("turn ended: {stop}");
    if stop != "cancelled" || !answers.take_cancelled() {
        return Err(Failure(format!("the cancelled turn ended with {stop}")).into());
    }
    let live = answers.live_terminals();
    if live > 0 {
        return Err(Failure(format!("the agent left {live} terminal(s) unreleased")).into());
    }
    client.close();
    match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
        Ok(status) => println!("agent exited: {}", status?),
        Err(_) => {
            child.kill().await?;
            println!("agent did not exit at the end of its input; killed");
        }
    }
    Ok(())
}

/// The `acp_agent` example beside this executable, built first when missing (over the whole
/// workspace, as `cargo run` resolves its features; see `mcp_client`).
fn sibling_agent() -> Result<String, Boxed> {
    let me = std::env::current_exe()?;
    let agent = me.with_file_name(format!("acp_agent{}", std::env::consts::EXE_SUFFIX));
    if !agent.exists() {
        eprintln!("acp_client: building the acp_agent example first");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "--quiet", "--workspace", "--example", "acp_agent"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()?;
        if !status.success() || !agent.exists() {
            return Err(Failure(format!(
                "no acp_agent at {}; build it with `cargo build --example acp_agent`, or pass \
                 an agent command",
                agent.display()
            ))
            .into());
        }
    }
    Ok(agent.to_string_lossy().into_owned())
}

async fn run(args: Vec<String>) -> Result<(), Boxed> {
    match args.as_slice() {
        [flag, ..] if flag.starts_with("--") => Err(Failure(
            "usage: acp_client [COMMAND [ARGS...]] (no argument: the acp_agent example)".into(),
        )
        .into()),
        [] => demo(&sibling_agent()?, &[]).await,
        [program, rest @ ..] => demo(program, rest).await,
    }
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("acp_client", run(std::env::args().skip(1).collect()).await);
}
