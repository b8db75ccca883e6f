//! Choosing the version to speak with a server whose messages name their version
//! ([`Profile::version_source`]): a probe request names the newest version this client
//! speaks; an answer with the profile's unsupported-version code lists the server's, and the
//! probe is repeated in the newest version both speak. A version whose probe is answered with
//! anything else than a result is one that opens with the handshake (an era that negotiates);
//! a server answering with no error this profile knows (an older server, a 404 or 405 of one
//! without such messages) is one to open with the handshake too.

use std::time::Duration;

use serde_json::{Value, json};

use super::client::{Client, ClientConfig};
use super::error::ClientError;
use super::profile::Profile;

/// What [`negotiate`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Era {
    /// Send each message naming this version, outside any session.
    Named(String),
    /// Open a session with the handshake (offering this version, when the server listed one
    /// both speak that cannot be spoken without it).
    Handshake(Option<String>),
}

/// Probes `url` with a `probe` request of `params` (a method the server answers outside a
/// session, without side effects it minds) and says which version to speak, within `wait`
/// per probe. The probe names each version it tries under the profile's `meta:` paths in its
/// params (and in the version header, which the client sets from them).
pub async fn negotiate(
    url: &str,
    profile: Profile,
    config: ClientConfig,
    (probe, params): (&str, Value),
    wait: Duration,
) -> Result<Era, ClientError> {
    let Some(paths) = profile
        .version_source
        .map(|s| s.meta_paths())
        .filter(|p| !p.is_empty())
    else {
        return Ok(Era::Handshake(None));
    };
    let mut version = profile.versions.first().copied();
    let mut tried = Vec::new();
    while let Some(v) = version {
        tried.push(v);
        let (client, mut received) = Client::new(url, profile, config.clone())?;
        let mut params = params.clone();
        for path in &paths {
            set(&mut params, path, v);
        }
        let request = json!({"jsonrpc": "2.0", "id": 0, "method": probe, "params": params});
        let answer = match client.send(&request.to_string()).await {
            Ok(()) => match tokio::time::timeout(wait, received.recv()).await {
                Ok(Some(Ok(text))) => serde_json::from_str::<Value>(&text).unwrap_or_default(),
                Ok(Some(Err(e))) => return Err(e),
                Ok(None) | Err(_) => {
                    let after = wait;
                    return Err(ClientError::Timeout { what: "answer the version probe", after });
                }
            },
            Err(ClientError::Status { status, body }) if (400..500).contains(&status) => {
                serde_json::from_str::<Value>(&body).unwrap_or_default()
            }
            Err(e) => return Err(e),
        };
        let Some(error) = answer.get("error") else {
            return Ok(Era::Named(v.to_owned()));
        };
        let code = error.get("code").and_then(Value::as_i64);
        if code != Some(profile.unsupported_code) {
            // Not refused for its version: an answer to the probe is an era that opens with
            // the handshake; anything else, a server that knows nothing of versions named
            // per message.
            let answered = answer.get("id") == Some(&json!(0));
            return Ok(Era::Handshake(answered.then(|| v.to_owned())));
        }
        let theirs: Vec<&str> = error["data"]["supported"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        version = profile
            .versions
            .iter()
            .copied()
            .find(|ours| theirs.contains(ours) && !tried.contains(ours));
    }
    Err(ClientError::Invalid {
        rule: format!(
            "the server speaks none of this client's versions ({})",
            profile.versions.join(", ")
        ),
    })
}

/// Writes `version` at `path` under `params`.
fn set(params: &mut Value, path: &[&str], version: &str) {
    let mut at = params;
    for (i, step) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        if !at.is_object() {
            *at = json!({});
        }
        let Some(map) = at.as_object_mut() else { return };
        let next = map
            .entry((*step).to_owned())
            .or_insert_with(|| if last { json!(version) } else { json!({}) });
        if last {
            *next = json!(version);
            return;
        }
        at = next;
    }
}
