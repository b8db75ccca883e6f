//! `transport.streamable_http`: a JSON-RPC protocol that also runs over Streamable HTTP. The
//! spec declares every name the transport uses (the endpoint's path, the session and version
//! headers, the accepted versions, the request that opens a session); this carrier reads and
//! checks them and emits them as the skeleton's `STREAMABLE_HTTP` profile, which the
//! transport's server and client take (`agentwire_transport::streamable_http::Profile`).

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::quote;
use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

use super::{Carrier, Declaring, Report};
use crate::ir::{Call, Carried, Method, Protocol, VersionSource};
use crate::yaml_node::Node;

pub struct StreamableHttp;

impl Carrier for StreamableHttp {
    fn key(&self) -> &'static str {
        "streamable_http"
    }

    fn carries(&self) -> &'static [&'static str] {
        &["jsonrpc"]
    }

    fn declare(&self, raw: &Node, cx: &Declaring<'_>, report: &mut Report<'_>) -> Option<Carried> {
        let written: Written = super::read(raw, report)?;
        let raw = fill(written, cx, report)?;
        lower(&raw, cx.methods, cx.version, report).map(|p| Carried::new(self.key(), p))
    }

    fn skeleton_items(
        &self,
        p: &Protocol,
        _: Option<&crate::front::proto::ProtoSpec>,
        carried: &Carried,
    ) -> Option<TokenStream> {
        carried.get().map(|s| emit(p, s))
    }
}

/// A Streamable HTTP profile as the spec declares it: the facts the transport's server and
/// client take from the spec (`agentwire_transport::streamable_http::Profile`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The endpoint's path (`/...`).
    pub path: String,
    /// The session id header, as the spec spells it.
    pub session_header: String,
    /// The protocol version header, as the spec spells it.
    pub version_header: String,
    /// The versions the version header may name, newest first.
    pub versions: Vec<String>,
    /// The request method that opens a session.
    pub opens_with: String,
    /// The member of that request's params and result naming the protocol version.
    pub version_member: String,
    /// The first version whose clients expect a priming event on each POST stream.
    pub priming_since: Option<String>,
    /// The folder's `version:` when a message may name its version by itself (`meta:` or
    /// `header:`): such messages are served outside any session.
    pub version_source: Option<VersionSource>,
    /// `version.unsupported_code`.
    pub unsupported_code: Option<i64>,
    /// `mirror.headers`: each header and the member paths it mirrors, by header name.
    pub mirror: Vec<(String, Vec<Vec<String>>)>,
    /// `mirror.since`.
    pub mirror_since: Option<String>,
    /// `mirror.base64`: the markers around a base64-encoded value.
    pub mirror_base64: Option<(String, String)>,
    /// `mismatch_code`.
    pub mismatch_code: Option<i64>,
    /// `sealed_state`: the params and result members carrying sealed state.
    pub sealed_state: Option<(String, String)>,
    /// `error_status`: the HTTP status of an error answer to a request served alone, by
    /// JSON-RPC code.
    pub error_status: Vec<(i64, u16)>,
}

/// `streamable_http.sealed_state` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSealed {
    params: Spanned<String>,
    result: Spanned<String>,
}

/// `streamable_http.mirror` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMirror {
    /// Header name to the dotted member path it mirrors, or a list of them tried in order.
    headers: Spanned<BTreeMap<String, Paths>>,
    #[serde(default)]
    since: Option<Spanned<String>>,
    #[serde(default)]
    base64: Option<Spanned<(String, String)>>,
}

/// One dotted path, or several tried in order.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Paths {
    One(String),
    Many(Vec<String>),
}

/// `transport.streamable_http` as written: `versions`, `opens_with` and `version_member`
/// may be left out in a folder whose `version:` is a handshake, which says them once for
/// every carrier (`fill`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    path: Spanned<String>,
    session_header: Spanned<String>,
    version_header: Spanned<String>,
    #[serde(default)]
    versions: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    opens_with: Option<Spanned<String>>,
    #[serde(default)]
    version_member: Option<Spanned<String>>,
    #[serde(default)]
    priming_since: Option<Spanned<String>>,
    #[serde(default)]
    mirror: Option<RawMirror>,
    #[serde(default)]
    mismatch_code: Option<Spanned<i64>>,
    #[serde(default)]
    sealed_state: Option<RawSealed>,
    #[serde(default)]
    error_status: Option<Spanned<BTreeMap<i64, u16>>>,
}

/// `Written` with every version fact, its own or the folder's.
#[derive(Debug, Clone)]
struct Raw {
    path: Spanned<String>,
    session_header: Spanned<String>,
    version_header: Spanned<String>,
    versions: Spanned<Vec<String>>,
    opens_with: Spanned<String>,
    version_member: Spanned<String>,
    priming_since: Option<Spanned<String>>,
    mirror: Option<RawMirror>,
    mismatch_code: Option<Spanned<i64>>,
    sealed_state: Option<RawSealed>,
    error_status: Option<Spanned<BTreeMap<i64, u16>>>,
    version_source: Option<VersionSource>,
    unsupported_code: Option<i64>,
}

/// The version facts `w` leaves out, from the folder's handshake `version:` and `versions:`
/// (located at `path`); one still missing is an error naming both ways to say it.
fn fill(w: Written, cx: &Declaring<'_>, report: &mut Report<'_>) -> Option<Raw> {
    let at = w.path.referenced;
    let here = |v| Spanned::new(v, at, at);
    let handshake = cx
        .versions
        .as_ref()
        .and_then(|(source, names)| Some((source.handshake()?, names)));
    let (method, member, names) = match handshake {
        Some(((method, member), names)) => (
            Some(here(method.to_owned())),
            Some(here(member.to_owned())),
            Some(Spanned::new(
                names.iter().map(|n| (*n).to_owned()).collect(),
                at,
                at,
            )),
        ),
        _ => (None, None, None),
    };
    let mut missing = Vec::new();
    let versions = w.versions.or(names);
    let opens_with = w.opens_with.or(method);
    let version_member = w.version_member.or(member);
    for (key, absent) in [
        ("versions", versions.is_none()),
        ("opens_with", opens_with.is_none()),
        ("version_member", version_member.is_none()),
    ] {
        if absent {
            missing.push(key);
        }
    }
    if !missing.is_empty() {
        let msg = format!(
            "`streamable_http` needs {}, or a folder-wide `version:` handshake with `versions:`",
            missing
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        report(&at, msg);
        return None;
    }
    Some(Raw {
        path: w.path,
        session_header: w.session_header,
        version_header: w.version_header,
        versions: versions?,
        opens_with: opens_with?,
        version_member: version_member?,
        priming_since: w.priming_since,
        mirror: w.mirror,
        mismatch_code: w.mismatch_code,
        sealed_state: w.sealed_state,
        error_status: w.error_status,
        version_source: cx
            .versions
            .as_ref()
            .map(|(source, _)| (*source).clone())
            .filter(per_message),
        unsupported_code: cx.unsupported_code,
    })
}

/// The checked profile of `raw` in a protocol with `methods`; every finding goes to `report`
/// at the value it is about (and `None` comes back with any).
fn lower(
    raw: &Raw,
    methods: &[&Method],
    version: Option<&str>,
    report: &mut Report<'_>,
) -> Option<Profile> {
    let mut ok = true;
    let mut fail = |at: &Location, msg: String| {
        ok = false;
        report(at, msg);
    };
    check_path(&raw.path, &mut fail);
    for h in [&raw.session_header, &raw.version_header] {
        if h.value.is_empty() || !h.value.bytes().all(is_tchar) {
            let msg = format!(
                "`{}` is not an HTTP header name (letters, digits and `-`, say)",
                h.value
            );
            fail(&h.referenced, msg);
        }
    }
    if raw
        .session_header
        .value
        .eq_ignore_ascii_case(&raw.version_header.value)
    {
        let msg = "the session and version headers must differ".to_owned();
        fail(&raw.version_header.referenced, msg);
    }
    check_versions(raw, &mut fail);
    // A version of the folder that the profile does not list is not opened by `opens_with`
    // over HTTP, and neither is one listed whose messages name their version themselves
    // while it has no such request (a later era without a handshake, whose requests are
    // each served alone), so their methods need not have it.
    let listed = version.is_none_or(|v| raw.versions.value.iter().any(|x| x == v));
    let self_naming = version.is_some()
        && raw.version_source.is_some()
        && !methods.iter().any(|m| m.name == raw.opens_with.value);
    if listed && !self_naming {
        check_opening(raw, methods, &mut fail);
    }
    let mirror = raw
        .mirror
        .as_ref()
        .map(|m| check_mirror(raw, m, &mut fail))
        .unwrap_or_default();
    if let Some(code) = &raw.mismatch_code
        && i32::try_from(code.value).is_err()
    {
        let msg = format!("`mismatch_code: {}` is no JSON-RPC error code", code.value);
        fail(&code.referenced, msg);
    }
    if let Some(s) = &raw.sealed_state {
        for member in [&s.params, &s.result] {
            if member.value.is_empty() {
                fail(
                    &member.referenced,
                    "`sealed_state` names an empty member".to_owned(),
                );
            }
        }
    }
    if let Some(statuses) = &raw.error_status {
        check_error_status(raw, statuses, &mut fail);
    }
    ok.then(|| Profile {
        path: raw.path.value.clone(),
        session_header: raw.session_header.value.clone(),
        version_header: raw.version_header.value.clone(),
        versions: raw.versions.value.clone(),
        opens_with: raw.opens_with.value.clone(),
        version_member: raw.version_member.value.clone(),
        priming_since: raw.priming_since.as_ref().map(|p| p.value.clone()),
        version_source: raw.version_source.clone(),
        unsupported_code: raw.unsupported_code,
        mirror,
        mirror_since: raw
            .mirror
            .as_ref()
            .and_then(|m| m.since.as_ref())
            .map(|s| s.value.clone()),
        mirror_base64: raw
            .mirror
            .as_ref()
            .and_then(|m| m.base64.as_ref())
            .map(|b| b.value.clone()),
        mismatch_code: raw.mismatch_code.as_ref().map(|c| c.value),
        sealed_state: raw
            .sealed_state
            .as_ref()
            .map(|s| (s.params.value.clone(), s.result.value.clone())),
        error_status: raw
            .error_status
            .as_ref()
            .map(|e| e.value.iter().map(|(c, s)| (*c, *s)).collect())
            .unwrap_or_default(),
    })
}

/// `error_status:` maps JSON-RPC error codes to HTTP error statuses (4xx, 5xx), and means
/// something only where requests are served alone (a version source naming versions per
/// message).
fn check_error_status(raw: &Raw, statuses: &Spanned<BTreeMap<i64, u16>>, fail: &mut Report<'_>) {
    let at = &statuses.referenced;
    if raw.version_source.is_none() {
        let msg = "`error_status` applies to requests served alone, which need a `version:` \
                   naming versions per message (`meta:` or `header:`)"
            .to_owned();
        fail(at, msg);
    }
    for (code, status) in &statuses.value {
        if i32::try_from(*code).is_err() {
            fail(at, format!("`{code}` is no JSON-RPC error code"));
        }
        if !(400..=599).contains(status) {
            fail(
                at,
                format!("`{code}: {status}` is not an HTTP error status (400 to 599)"),
            );
        }
    }
}

/// Whether `source` lets a message name its version by itself (`meta:` or `header:`).
fn per_message(source: &VersionSource) -> bool {
    match source {
        VersionSource::Meta { .. } | VersionSource::Header { .. } => true,
        VersionSource::Handshake { .. } => false,
        VersionSource::Any(sources) => sources.iter().any(per_message),
    }
}

/// `mirror:`'s headers as member paths: each header an HTTP name, none twice (in any case)
/// nor the session or version header, each path non-empty; `since` one of the versions and
/// `base64` two non-empty markers.
fn check_mirror(
    raw: &Raw,
    m: &RawMirror,
    fail: &mut Report<'_>,
) -> Vec<(String, Vec<Vec<String>>)> {
    let at = &m.headers.referenced;
    let mut out: Vec<(String, Vec<Vec<String>>)> = Vec::new();
    if m.headers.value.is_empty() {
        fail(at, "`mirror.headers` names no header".to_owned());
    }
    for (name, paths) in &m.headers.value {
        if name.is_empty() || !name.bytes().all(is_tchar) {
            fail(
                at,
                format!("mirrored header `{name}` is not an HTTP header name"),
            );
        }
        let taken = [&raw.session_header.value, &raw.version_header.value]
            .into_iter()
            .chain(out.iter().map(|(n, _)| n))
            .any(|other| other.eq_ignore_ascii_case(name));
        if taken {
            fail(
                at,
                format!("mirrored header `{name}` is named twice (header names ignore case)"),
            );
        }
        let written = match paths {
            Paths::One(p) => vec![p.clone()],
            Paths::Many(ps) => ps.clone(),
        };
        let split: Vec<Vec<String>> = written
            .iter()
            .map(|p| p.split('.').map(str::to_owned).collect())
            .collect();
        if split.is_empty() || split.iter().flatten().any(String::is_empty) {
            fail(
                at,
                format!(
                    "mirrored header `{name}` needs member paths like `method` or `params.name`"
                ),
            );
        }
        out.push((name.clone(), split));
    }
    if let Some(since) = &m.since
        && !raw.versions.value.contains(&since.value)
    {
        let msg = format!(
            "`mirror.since: {}` is not one of the versions ({})",
            since.value,
            raw.versions.value.join(", ")
        );
        fail(&since.referenced, msg);
    }
    if let Some(b) = &m.base64
        && (b.value.0.is_empty() || b.value.1.is_empty())
    {
        fail(
            &b.referenced,
            "`mirror.base64` needs two non-empty markers".to_owned(),
        );
    }
    out
}

/// A path is absolute and names one fixed route (no parameters, no spaces).
pub(super) fn check_path(path: &Spanned<String>, fail: &mut Report<'_>) {
    let p = &path.value;
    let fixed = p.starts_with('/')
        && p.bytes()
            .all(|b| b.is_ascii_graphic() && !b"{}?#".contains(&b));
    if !fixed {
        let msg = format!("`{p}` is not an endpoint path (`/name`, without parameters or query)");
        fail(&path.referenced, msg);
    }
}

/// At least one version, none twice, each one a header value; `priming_since` is one of them.
fn check_versions(raw: &Raw, fail: &mut Report<'_>) {
    let versions = &raw.versions.value;
    let at = &raw.versions.referenced;
    if versions.is_empty() {
        fail(at, "`versions` lists no protocol version".to_owned());
    }
    for (i, v) in versions.iter().enumerate() {
        if v.is_empty() || !v.bytes().all(|b| b.is_ascii_graphic()) {
            fail(at, format!("version `{v}` cannot be sent in a header"));
        }
        if versions[..i].contains(v) {
            fail(at, format!("version `{v}` is listed twice"));
        }
    }
    if let Some(p) = &raw.priming_since
        && !versions.is_empty()
        && !versions.contains(&p.value)
    {
        let msg = format!(
            "`priming_since: {}` is not one of the versions ({})",
            p.value,
            versions.join(", ")
        );
        fail(&p.referenced, msg);
    }
}

/// `opens_with` is a request of the spec; `version_member` names a member.
fn check_opening(raw: &Raw, methods: &[&Method], fail: &mut Report<'_>) {
    let name = &raw.opens_with.value;
    let named = |m: &&&Method| &m.name == name;
    let request = methods.iter().find(|m| named(m) && m.call == Call::Request);
    match request.or_else(|| methods.iter().find(named)) {
        Some(m) if m.call == Call::Request => {}
        Some(_) => {
            let msg = format!("`{name}` is a notification: a session opens with a request");
            fail(&raw.opens_with.referenced, msg);
        }
        None => {
            let known: Vec<&str> = methods
                .iter()
                .filter(|m| m.call == Call::Request)
                .map(|m| m.name.as_str())
                .collect();
            let msg = format!(
                "`{name}` is not a request of this protocol{}",
                crate::suggest::did_you_mean(name, known.iter().copied())
            );
            fail(&raw.opens_with.referenced, msg);
        }
    }
    if raw.version_member.value.is_empty() {
        let msg = "`version_member` names no member".to_owned();
        fail(&raw.version_member.referenced, msg);
    }
}

/// RFC 9110's `tchar`: what a header name is made of.
pub(super) fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The skeleton's `STREAMABLE_HTTP` constant.
fn emit(p: &Protocol, s: &Profile) -> TokenStream {
    let doc = format!(
        " The Streamable HTTP profile `spec/{}/protocol.yaml` declares \
         (`transport.streamable_http`): give it to \
         `agentwire_transport::streamable_http::ServerConfig::new` and `Client::new`.",
        p.module
    );
    let Profile {
        path,
        session_header,
        version_header,
        versions,
        opens_with,
        version_member,
        priming_since,
        version_source,
        unsupported_code,
        mirror,
        mirror_since,
        mirror_base64,
        mismatch_code,
        sealed_state,
        error_status,
    } = s;
    let sealed = match sealed_state {
        Some((params, result)) => quote! {
            Some(agentwire_transport::streamable_http::SealedState { params: #params, result: #result })
        },
        None => quote!(None),
    };
    let some_str = |v: &Option<String>| match v {
        Some(v) => quote!(Some(#v)),
        None => quote!(None),
    };
    let priming = some_str(priming_since);
    let mirror_since = some_str(mirror_since);
    let source = match version_source {
        Some(source) => {
            let source = crate::emit::versions::one_source(source);
            quote!(Some(#source))
        }
        None => quote!(None),
    };
    let unsupported = match unsupported_code {
        Some(code) => quote!(#code),
        None => quote!(agentwire_transport::streamable_http::DEFAULT_UNSUPPORTED_CODE),
    };
    let mismatch = match mismatch_code {
        Some(code) => quote!(#code),
        None => quote!(agentwire_transport::streamable_http::DEFAULT_MISMATCH_CODE),
    };
    let mirrors = mirror.iter().map(|(header, paths)| {
        let paths = paths.iter().map(|p| quote!(&[#(#p),*]));
        quote! {
            agentwire_transport::streamable_http::Mirror { header: #header, members: &[#(#paths),*] }
        }
    });
    let statuses = error_status
        .iter()
        .map(|(code, status)| quote!((#code, #status)));
    let base64 = match mirror_base64 {
        Some((open, close)) => quote!(Some((#open, #close))),
        None => quote!(None),
    };
    quote! {
        #[doc = #doc]
        pub const STREAMABLE_HTTP: agentwire_transport::streamable_http::Profile =
            agentwire_transport::streamable_http::Profile {
                path: #path,
                session_header: #session_header,
                version_header: #version_header,
                versions: &[#(#versions),*],
                opens_with: #opens_with,
                version_member: #version_member,
                priming_since: #priming,
                version_source: #source,
                unsupported_code: #unsupported,
                mirror: &[#(#mirrors),*],
                mirror_since: #mirror_since,
                mirror_base64: #base64,
                mismatch_code: #mismatch,
                sealed_state: #sealed,
                error_status: &[#(#statuses),*],
            };
    }
}

#[cfg(test)]
mod tests {
    use crate::diag::SourceFile;
    use crate::front::protocol;

    /// The errors of a JSON-RPC `protocol.yaml` whose transport declares `profile` (YAML
    /// lines at the carrier's indentation), as one-line texts.
    fn errors(kind: &str, profile: &str) -> Vec<String> {
        let framing = if kind == "jsonrpc" {
            "newline"
        } else {
            "json-text"
        };
        let profile: String = profile.lines().map(|l| format!("    {l}\n")).collect();
        let text = format!(
            "protocol: demo\ntitle: Demo\ntransport:\n  kind: {kind}\n  framing: {framing}\n  \
             streamable_http:\n{profile}roles: [client, server]\ntypes: messages.ts\n\
             jsonrpc:\n  methods:\n    - method: open\n      call: request\n      \
             from: client\n    - method: note\n      call: notification\n      from: client\n"
        );
        let file = SourceFile {
            path: "demo/protocol.yaml".into(),
            text: text.into(),
        };
        match protocol::load(&file) {
            Ok(_) => Vec::new(),
            Err(e) => e.errors.iter().map(|e| e.one_line()).collect(),
        }
    }

    const GOOD: &str = "path: /rpc\nsession_header: Demo-Session\nversion_header: Demo-Version\n\
                        versions: [\"2\", \"1\"]\nopens_with: open\nversion_member: version\n\
                        priming_since: \"2\"";

    #[test]
    fn a_declared_profile_is_lowered_into_the_ir() {
        assert_eq!(errors("jsonrpc", GOOD), Vec::<String>::new());
    }

    #[test]
    fn each_wrong_value_is_reported_where_written() {
        let cases = [
            ("path: /rpc", "path: rpc", "is not an endpoint path"),
            ("path: /rpc", "path: /rpc/{id}", "is not an endpoint path"),
            (
                "session_header: Demo-Session",
                "session_header: Demo Session",
                "is not an HTTP header name",
            ),
            (
                "version_header: Demo-Version",
                "version_header: demo-session",
                "must differ",
            ),
            ("[\"2\", \"1\"]", "[\"2\", \"2\"]", "listed twice"),
            ("[\"2\", \"1\"]", "[]", "lists no protocol version"),
            (
                "priming_since: \"2\"",
                "priming_since: \"3\"",
                "is not one of the versions",
            ),
            ("opens_with: open", "opens_with: note", "is a notification"),
            (
                "opens_with: open",
                "opens_with: opn",
                "did you mean `open`?",
            ),
        ];
        for (from, to, want) in cases {
            let errs = errors("jsonrpc", &GOOD.replace(from, to));
            assert!(errs.len() == 1 && errs[0].contains(want), "{to}: {errs:?}");
        }
    }

    #[test]
    fn only_the_kinds_it_carries_may_declare_it() {
        let errs = errors("websocket", GOOD);
        assert!(
            errs.iter()
                .any(|e| e.contains("carries jsonrpc protocols, not `websocket`")),
            "{errs:?}"
        );
    }
}
