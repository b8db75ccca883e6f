//! Which era a peer speaks, learnt before connecting, for a client of a protocol whose later
//! versions name their version on every message and whose earlier ones open with a
//! handshake: a probe request names the newest version; a result of the probe's type means
//! the peer speaks it, an error with the unsupported-version code lists the peer's versions
//! and the probe is repeated in the newest both speak, anything else (another error, a
//! result of another shape, no answer in time) is a peer of the handshake era. The judging is
//! shared by the byte-stream probe here and the Streamable HTTP one
//! (`streamable_http::negotiate`).

use std::io;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};

use agentwire_runtime::framing::DEFAULT_MAX_FRAME_SIZE;
use agentwire_runtime::jsonrpc::{MethodSet, RequestSet};
use agentwire_runtime::version::Source;

use super::codec::Framing;
use super::handle::{Bound, Handle};
use super::peer::Side;
use super::versions::write_frame;

/// What a probe found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Era {
    /// Send each message naming this version, outside any session.
    Named(String),
    /// Open with the handshake (offering this version, when the peer answered a probe in it
    /// with something other than a result: a version both speak that is not spoken without
    /// the handshake).
    Handshake(Option<String>),
}

/// What one probe's answer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// The era is known.
    Found(Era),
    /// Probe again in this version.
    Again(&'static str),
    /// The peer refused the probe in a way no older peer would (its headers, say).
    Refused(String),
    /// The peer lists none of this side's versions.
    NoneShared,
}

/// The codes that decide a probe's fate, as the spec declares them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Codes {
    /// The unsupported-version code: the answer lists the peer's versions.
    pub unsupported: i64,
    /// A code no peer of the handshake era answers with (a header mismatch), if any.
    pub refused: Option<i64>,
}

/// Judges `answer` to the probe sent in `version` (`tried`: the versions probed so far,
/// `ours`: this side's, newest first); `accepts` says whether a result is of the probe's type.
pub(crate) fn judge(
    answer: &Value,
    version: &str,
    (ours, tried): (&'static [&'static str], &[&str]),
    codes: Codes,
    accepts: &dyn Fn(&Value) -> bool,
) -> Step {
    let Some(error) = answer.get("error") else {
        // A peer that answers the probe with something else than its result type (an empty
        // object, say) answers methods it does not know: one of the handshake era.
        let result = answer.get("result").unwrap_or(&Value::Null);
        return Step::Found(if accepts(result) {
            Era::Named(version.to_owned())
        } else {
            Era::Handshake(None)
        });
    };
    let code = error.get("code").and_then(Value::as_i64);
    if code.is_some() && code == codes.refused {
        let message = error.get("message").and_then(Value::as_str).unwrap_or("");
        return Step::Refused(format!(
            "the peer refused the version probe (error {}): {message}",
            codes.refused.unwrap_or_default()
        ));
    }
    if code != Some(codes.unsupported) {
        // Not refused for its version: a peer that answered the probe itself speaks the
        // version only after the handshake; any other answer is a peer that knows nothing
        // of versions named per message.
        let answered = answer.get("id").is_some_and(|id| !id.is_null());
        return Step::Found(Era::Handshake(answered.then(|| version.to_owned())));
    }
    let theirs: Vec<&str> = error
        .pointer("/data/supported")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    ours.iter()
        .copied()
        .find(|v| theirs.contains(v) && !tried.contains(v))
        .map_or(Step::NoneShared, Step::Again)
}

/// Writes `version` at `path` under `params` (a path of member names; objects are made on
/// the way, and a member that is not an object is replaced by one).
pub(crate) fn set_version(params: &mut Value, path: &[&str], version: &str) {
    let mut at = params;
    for (i, step) in path.iter().enumerate() {
        if !at.is_object() {
            *at = json!({});
        }
        let Some(map) = at.as_object_mut() else {
            return;
        };
        if i + 1 == path.len() {
            map.insert((*step).to_owned(), json!(version));
            return;
        }
        at = map.entry((*step).to_owned()).or_insert_with(|| json!({}));
    }
}

/// The id of a byte-stream probe: a string, so that a late answer is never taken for the
/// handshake's (numbered 0) or a connection's own requests (numbered from 1).
pub const STREAM_PROBE_ID: &str = "version-probe";

/// A probe on a byte stream: what to send and how to judge it.
#[derive(Clone, Copy)]
pub struct StreamProbe<'a> {
    /// How messages are delimited on the stream.
    pub framing: Framing,
    /// This side's versions, newest first.
    pub versions: &'static [&'static str],
    /// Where each message names its version, under its params (the spec's `meta:` paths).
    pub paths: &'a [&'a [&'a str]],
    /// The unsupported-version code.
    pub unsupported: i64,
    /// The probe request's method and params (the version is written into them).
    pub method: &'a str,
    pub params: &'a Value,
    /// Whether a result is of the probe's type.
    pub accepts: &'a dyn Fn(&Value) -> bool,
    /// How long each probe waits for its answer; silence is a peer of the handshake era.
    pub wait: Duration,
    /// The largest answer read.
    pub max_frame_size: usize,
}

/// Probes the peer on `reader`/`writer` before any connection runs over them, reading no
/// byte past the probe's answer (so the stream is handed on intact). An answer that never
/// comes, or a peer that writes something else first, is one of the handshake era (as is any
/// answer [`judge`] takes for one).
pub async fn probe_stream<R, W>(
    reader: &mut R,
    writer: &mut W,
    probe: StreamProbe<'_>,
) -> io::Result<Era>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    if probe.paths.is_empty() {
        return Ok(Era::Handshake(None));
    }
    let codes = Codes {
        unsupported: probe.unsupported,
        refused: None,
    };
    let mut version = probe.versions.first().copied();
    let mut tried = Vec::new();
    while let Some(v) = version {
        tried.push(v);
        let mut params = probe.params.clone();
        for path in probe.paths {
            set_version(&mut params, path, v);
        }
        let request = json!({"jsonrpc": "2.0", "id": STREAM_PROBE_ID, "method": probe.method,
            "params": params});
        write_frame(
            writer,
            probe.framing,
            probe.max_frame_size,
            request.to_string(),
        )
        .await?;
        let read = read_frame(reader, probe.framing, probe.max_frame_size);
        let Ok(text) = tokio::time::timeout(probe.wait, read).await else {
            return Ok(Era::Handshake(None));
        };
        let answer: Value = serde_json::from_str(&text?).unwrap_or_default();
        if answer.get("id") != Some(&json!(STREAM_PROBE_ID)) {
            return Ok(Era::Handshake(None));
        }
        match judge(&answer, v, (probe.versions, &tried), codes, probe.accepts) {
            Step::Found(era) => return Ok(era),
            Step::Again(next) => version = Some(next),
            Step::Refused(why) => return Err(io::Error::new(io::ErrorKind::InvalidData, why)),
            Step::NoneShared => version = None,
        }
    }
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "the peer speaks none of this side's versions ({})",
            probe.versions.join(", ")
        ),
    ))
}

/// The params of `probe` as JSON, and whether a result is one of its method's (its result
/// type decodes it): what a probe is judged by.
pub(crate) fn typed_probe<T: RequestSet>(probe: &T) -> (Value, impl Fn(&Value) -> bool + use<T>) {
    let params = if probe.has_params() {
        serde_json::to_value(probe).unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    let method = probe.method();
    let accepts = move |result: &Value| {
        serde_json::value::to_raw_value(result)
            .ok()
            .and_then(|raw| T::decode_result(method, &raw))
            .is_some_and(|decoded| decoded.is_ok())
    };
    (params, accepts)
}

impl<S: Bound> Handle<S> {
    /// Learns which era the peer on `reader`/`writer` speaks before a connection runs over
    /// them ([`probe_stream`]): `probe`, a request of this side's (newest) version, is sent
    /// naming each version of `versions` (newest first) where `source` says messages name
    /// theirs, as `unsupported` (the spec's unsupported-version code) directs; each probe
    /// waits `wait`. [`Era::Named`]: connect this side's version naming that one;
    /// [`Era::Handshake`]: connect the era that opens with the handshake.
    pub async fn probe_era<R, W>(
        reader: &mut R,
        writer: &mut W,
        (versions, source, unsupported): (&'static [&'static str], Source, i64),
        probe: &S::OutRequest,
        wait: Duration,
    ) -> io::Result<Era>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
        S::OutRequest: RequestSet,
    {
        let (params, accepts) = typed_probe(probe);
        let paths = source.meta_paths();
        let probe = StreamProbe {
            framing: <S as Side>::FRAMING,
            versions,
            paths: &paths,
            unsupported,
            method: probe.method(),
            params: &params,
            accepts: &accepts,
            wait,
            max_frame_size: DEFAULT_MAX_FRAME_SIZE,
        };
        probe_stream(reader, writer, probe).await
    }
}

/// Reads one frame a byte at a time (so nothing after it is consumed): a line for newline
/// framing, a `Content-Length` header block and its body otherwise.
async fn read_frame<R: AsyncRead + Unpin>(
    reader: &mut R,
    framing: Framing,
    max: usize,
) -> io::Result<String> {
    let too_long = || io::Error::new(io::ErrorKind::InvalidData, "the probe's answer is too long");
    let mut line = Vec::new();
    let body = match framing {
        Framing::Newline => loop {
            let b = reader.read_u8().await?;
            if b == b'\n' {
                break line;
            }
            if line.len() >= max {
                return Err(too_long());
            }
            line.push(b);
        },
        Framing::ContentLength => {
            let mut length = None;
            loop {
                let b = reader.read_u8().await?;
                if b != b'\n' {
                    if line.len() >= 1024 {
                        return Err(too_long());
                    }
                    line.push(b);
                    continue;
                }
                let header = String::from_utf8_lossy(&line).trim().to_owned();
                line.clear();
                if header.is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':')
                    && name.trim().eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse::<usize>().ok();
                }
            }
            let length = length.filter(|n| *n <= max).ok_or_else(too_long)?;
            let mut body = vec![0; length];
            reader.read_exact(&mut body).await?;
            body
        }
    };
    String::from_utf8(body).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OURS: &[&str] = &["3", "2", "1"];
    const CODES: Codes = Codes {
        unsupported: -32031,
        refused: Some(-32030),
    };

    fn judged(answer: Value) -> Step {
        let accepts = |r: &Value| r.get("total").is_some();
        judge(&answer, "3", (OURS, &["3"]), CODES, &accepts)
    }

    #[test]
    fn each_answer_to_a_probe_is_judged_by_the_spec_codes() {
        let ok = json!({"id": 0, "result": {"total": 1}});
        assert_eq!(judged(ok), Step::Found(Era::Named("3".into())));
        let empty = json!({"id": 0, "result": {}});
        assert_eq!(judged(empty), Step::Found(Era::Handshake(None)));
        let listed = json!({"id": 0, "error": {"code": -32031, "message": "no",
            "data": {"supported": ["1", "2", "9"]}}});
        assert_eq!(judged(listed), Step::Again("2"));
        let foreign = json!({"id": 0, "error": {"code": -32031, "message": "no",
            "data": {"supported": ["9"]}}});
        assert_eq!(judged(foreign), Step::NoneShared);
        let refused = json!({"id": 0, "error": {"code": -32030, "message": "headers"}});
        assert!(matches!(judged(refused), Step::Refused(why) if why.contains("-32030")));
        let unknown = json!({"id": 0, "error": {"code": -32601, "message": "unknown"}});
        assert_eq!(
            judged(unknown),
            Step::Found(Era::Handshake(Some("3".into())))
        );
        let anonymous = json!({"id": null, "error": {"code": -32700, "message": "parse"}});
        assert_eq!(judged(anonymous), Step::Found(Era::Handshake(None)));
    }

    #[test]
    fn the_version_is_written_at_its_path_making_objects_on_the_way() {
        let mut params = json!({"name": "x", "_meta": {"other": 1}});
        set_version(&mut params, &["_meta", "example.org/version"], "7");
        assert_eq!(
            params,
            json!({"name": "x", "_meta": {"other": 1, "example.org/version": "7"}})
        );
        let mut params = json!({"_meta": "not an object"});
        set_version(&mut params, &["_meta", "v"], "2");
        assert_eq!(params, json!({"_meta": {"v": "2"}}));
        let mut params = Value::Null;
        set_version(&mut params, &["a", "b", "c"], "1");
        assert_eq!(params, json!({"a": {"b": {"c": "1"}}}));
    }

    /// A peer that answers the probe after `answer` from the version it names, then writes
    /// `after`, which must be left unread.
    async fn peer_answering(
        answer: fn(&str) -> Value,
        after: &'static str,
    ) -> (tokio::io::DuplexStream, tokio::task::JoinHandle<()>) {
        let (mine, theirs) = tokio::io::duplex(4096);
        let task = tokio::spawn(async move {
            let (mut r, mut w) = tokio::io::split(theirs);
            loop {
                let Ok(line) = read_frame(&mut r, Framing::Newline, 4096).await else {
                    return;
                };
                let asked: Value = serde_json::from_str(&line).unwrap_or_default();
                let version = asked
                    .pointer("/params/_meta/v")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let mut reply = answer(&version);
                reply["id"] = asked["id"].clone();
                let done = reply.get("result").is_some();
                let text = format!("{reply}\n{}", if done { after } else { "" });
                use tokio::io::AsyncWriteExt;
                if w.write_all(text.as_bytes()).await.is_err() || done {
                    return;
                }
            }
        });
        (mine, task)
    }

    #[tokio::test]
    async fn a_stream_probe_retries_in_a_listed_version_and_leaves_the_rest_unread() {
        let (stream, task) = peer_answering(
            |v| match v {
                "2" => json!({"jsonrpc": "2.0", "result": {"total": 0}}),
                _ => json!({"jsonrpc": "2.0", "error": {"code": -32031, "message": "no",
                    "data": {"supported": ["2"]}}}),
            },
            "{\"next\":true}\n",
        )
        .await;
        let (mut r, mut w) = tokio::io::split(stream);
        let accepts = |r: &Value| r.get("total").is_some();
        let probe = StreamProbe {
            framing: Framing::Newline,
            versions: OURS,
            paths: &[&["_meta", "v"]],
            unsupported: -32031,
            method: "count",
            params: &json!({}),
            accepts: &accepts,
            wait: Duration::from_secs(60),
            max_frame_size: 4096,
        };
        let era = probe_stream(&mut r, &mut w, probe).await.unwrap();
        assert_eq!(era, Era::Named("2".into()));
        let next = read_frame(&mut r, Framing::Newline, 4096).await.unwrap();
        assert_eq!(next, "{\"next\":true}");
        task.await.unwrap();
    }
}
