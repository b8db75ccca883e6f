//! The example client's version 2 side (ACP's draft): a prompt's answer only acknowledges it
//! (`messageId`), and the turn ends with a `state_update` update whose state is `idle`,
//! carrying the stop reason (prompt-lifecycle, "4. Check for Completion").

use std::time::Duration;

use agentwire_examples::Failure;
use agentwire_examples::acp::{ClientAnswers, Permission};
use agentwire_protocols::acp::v2::{AgentNotification, InitializeRequest};
use agentwire_protocols::skeletons::acp::v2::{AgentNotifications, Client};
use serde_json::json;

use super::{Boxed, typed, update_line, wait_exit};

/// How long a turn may take to report its end.
const TURN_DEADLINE: Duration = Duration::from_secs(60);

/// The version 2 `initialize` this client offers: it declares no capability (version 2's
/// client capabilities are authentication and elicitation, which it does not offer).
pub fn offer() -> Result<InitializeRequest, Boxed> {
    typed(json!({
        "protocolVersion": 2,
        "info": {"name": "agentwire-acp-client", "version": env!("CARGO_PKG_VERSION")},
        "capabilities": {}
    }))
}

/// Sends one prompt, prints the session's updates until its turn is `idle` again, and returns
/// the stop reason.
async fn turn(
    client: &Client,
    notes: &mut AgentNotifications,
    session: &str,
    text: &str,
) -> Result<String, Boxed> {
    println!("prompt: {text}");
    let params = typed(json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}))?;
    let inserted = client.session_prompt(params).await?;
    println!("prompt inserted as {}", inserted.message_id);
    let ended = tokio::time::timeout(TURN_DEADLINE, async {
        while let Some(note) = notes.recv().await {
            let AgentNotification::SessionUpdate(u) = &note else {
                println!("  {}", serde_json::to_value(&note).unwrap_or_default());
                continue;
            };
            let update = serde_json::to_value(&u.update).unwrap_or_default();
            println!("  {}", update_line(&update));
            if u.session_id == session
                && update["sessionUpdate"] == "state_update"
                && update["state"] == "idle"
            {
                return Some(update["stopReason"].as_str().unwrap_or("?").to_owned());
            }
        }
        None
    })
    .await;
    match ended {
        Ok(Some(stop)) => Ok(stop),
        Ok(None) => Err(Failure("the agent closed the connection mid-turn".into()).into()),
        Err(_) => Err(Failure(format!("the turn did not end within {TURN_DEADLINE:?}")).into()),
    }
}

/// The version 2 demo once initialized: a session, a turn allowing what the agent asks, a
/// turn the user cancels while asked for permission, then the agent's exit.
pub async fn turns(
    client: Client,
    mut notes: AgentNotifications,
    child: tokio::process::Child,
    answers: &ClientAnswers,
) -> Result<(), Boxed> {
    let cwd = std::env::current_dir()?.to_string_lossy().into_owned();
    let session = client
        .session_new(typed(json!({"cwd": cwd}))?)
        .await?
        .session_id;
    println!("session {session} in {cwd}");

    let stop = turn(&client, &mut notes, &session, "What should we do?").await?;
    println!("turn ended: {stop}");

    answers.set_permission(Permission::CancelTurn);
    let stop = turn(&client, &mut notes, &session, "Plan it again.").await?;
    println!("turn ended: {stop}");
    if stop != "cancelled" || !answers.take_cancelled() {
        return Err(Failure(format!("the cancelled turn ended with {stop}")).into());
    }
    client.close();
    wait_exit(child).await
}
