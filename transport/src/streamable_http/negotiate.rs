//! Choosing the version to speak with a server whose messages name their version
//! ([`Profile::version_source`]), over Streamable HTTP: a probe request names the newest
//! version this client speaks, each probe from a client of its own, and its answer (or the
//! body of a 4xx) is judged as on a byte stream (`jsonrpc::era`): a result of the probe's
//! type means the server speaks the version named; the profile's unsupported-version code
//! lists the server's versions and the probe is repeated in the newest both speak; the
//! profile's header-mismatch code is a server of that era refusing this client's request,
//! reported rather than taken for an older server; anything else (another error, a 4xx
//! naming no such error, a result of another shape) is a server of the era that opens with
//! the handshake, and the client falls back to it.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::client::{Client, ClientConfig, Received};
use super::error::ClientError;
use super::profile::Profile;
pub use crate::jsonrpc::Era;
use crate::jsonrpc::era::{Codes, Step, judge, set_version};

/// The id of the probe request (each probe is a client of its own, so it reuses none).
const PROBE_ID: i64 = 0;

/// Probes `url` with a `probe` request of `params` (a method the server answers outside a
/// session, without side effects it minds) and says which version to speak, within `wait`
/// per probe. The probe names each version it tries under the profile's `meta:` paths in its
/// params (and in the version header, which the client sets from them); `accepts` says
/// whether a result is one the probe's method answers with (its result type). A profile whose
/// messages do not name their version has nothing to probe: [`Era::Handshake`].
pub async fn negotiate(
    url: &str,
    profile: Profile,
    config: ClientConfig,
    (probe, params): (&str, Value),
    accepts: impl Fn(&Value) -> bool,
    wait: Duration,
) -> Result<Era, ClientError> {
    let Some(paths) = profile
        .version_source
        .map(|s| s.meta_paths())
        .filter(|p| !p.is_empty())
    else {
        return Ok(Era::Handshake(None));
    };
    let codes = Codes {
        unsupported: profile.unsupported_code,
        refused: Some(profile.mismatch_code),
    };
    let mut version = profile.versions.first().copied();
    let mut tried = Vec::new();
    while let Some(v) = version {
        tried.push(v);
        let mut params = params.clone();
        for path in &paths {
            set_version(&mut params, path, v);
        }
        let request = json!({"jsonrpc": "2.0", "id": PROBE_ID, "method": probe, "params": params});
        let answer = ask(url, profile, config.clone(), &request, wait).await?;
        match judge(&answer, v, (profile.versions, &tried), codes, &accepts) {
            Step::Found(era) => return Ok(era),
            Step::Again(next) => version = Some(next),
            Step::Refused(rule) => return Err(ClientError::Invalid { rule }),
            Step::NoneShared => version = None,
        }
    }
    Err(ClientError::Invalid {
        rule: format!(
            "the server speaks none of this client's versions ({})",
            profile.versions.join(", ")
        ),
    })
}

/// Sends `request` from a client of its own and returns its answer: the JSON-RPC response
/// with the probe's id (what the server streamed before it is skipped), or the body of a 4xx
/// answer (`{}` when it is not JSON), each within `wait`.
async fn ask(
    url: &str,
    profile: Profile,
    config: ClientConfig,
    request: &Value,
    wait: Duration,
) -> Result<Value, ClientError> {
    let (client, received) = Client::new(url, profile, config)?;
    match client.send(&request.to_string()).await {
        Ok(()) => {}
        Err(ClientError::Status { status, body }) if (400..500).contains(&status) => {
            return Ok(serde_json::from_str(&body).unwrap_or_else(|_| json!({})));
        }
        Err(e) => return Err(e),
    }
    let timeout = ClientError::Timeout {
        what: "answer the version probe",
        after: wait,
    };
    tokio::time::timeout(wait, answer_of(received))
        .await
        .map_err(|_| timeout.clone())?
        .ok_or(timeout)?
}

/// The first message on `received` that answers the probe.
async fn answer_of(mut received: mpsc::Receiver<Received>) -> Option<Result<Value, ClientError>> {
    while let Some(item) = received.recv().await {
        let text = match item {
            Ok(text) => text,
            Err(e) => return Some(Err(e)),
        };
        let message: Value = serde_json::from_str(&text).unwrap_or_default();
        let is_answer = message.get("id") == Some(&json!(PROBE_ID))
            && (message.get("result").is_some() || message.get("error").is_some());
        if is_answer {
            return Some(Ok(message));
        }
    }
    None
}
