//! `transport.jsonrpc_http`: a gRPC service that also answers JSON-RPC 2.0 over HTTP, each
//! rpc a method of its name (server-streaming ones answered with Server-Sent Events), in
//! ProtoJSON. The spec declares the endpoint's path, the table from its errors' reasons to
//! JSON-RPC codes, the version header both bindings honour and the discovery document served
//! beside them; this carrier checks them, and the skeleton gains the profile
//! `agentwire_transport::grpc_jsonrpc` takes and a function mounting both bindings of the
//! service for one handler (`emit/skeleton/grpc_jsonrpc.rs`).

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::streamable_http::{check_path, is_tchar};
use super::{Carrier, Declaring, Report};
use crate::front::proto::ProtoSpec;
use crate::ir::{Carried, Protocol};
use crate::yaml_node::Node;

pub struct JsonRpcHttp;

impl Carrier for JsonRpcHttp {
    fn key(&self) -> &'static str {
        "jsonrpc_http"
    }

    fn carries(&self) -> &'static [&'static str] {
        &["grpc"]
    }

    fn declare(&self, raw: &Node, _: &Declaring<'_>, report: &mut Report<'_>) -> Option<Carried> {
        let written: Written = super::read(raw, report)?;
        lower(written, report).map(|b| Carried::new(self.key(), b))
    }

    fn skeleton_items(
        &self,
        p: &Protocol,
        proto: Option<&ProtoSpec>,
        carried: &Carried,
    ) -> Option<TokenStream> {
        crate::emit::skeleton::grpc_jsonrpc::emit(p, proto?, carried.get()?)
    }
}

/// The binding as checked: what the skeleton's profile holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The endpoint's path.
    pub path: String,
    /// The domain of the error reasons.
    pub domain: String,
    /// Each error reason with its JSON-RPC code, as written.
    pub errors: Vec<(String, i64)>,
    pub version: Option<Version>,
    /// The discovery document's path and message type (as written: local or full name).
    pub discovery: Option<(String, String)>,
}

/// A version header, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub header: String,
    pub supported: Vec<String>,
    pub absent: String,
    /// The refusal's gRPC code, as `tonic::Code` names the variant.
    pub code: String,
    pub reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    path: Spanned<String>,
    #[serde(default)]
    errors: Option<WrittenErrors>,
    #[serde(default)]
    version: Option<WrittenVersion>,
    #[serde(default)]
    discovery: Option<WrittenDiscovery>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenErrors {
    domain: Spanned<String>,
    codes: Spanned<BTreeMap<String, i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenVersion {
    header: Spanned<String>,
    supported: Spanned<Vec<String>>,
    absent: Spanned<String>,
    status: Spanned<String>,
    reason: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenDiscovery {
    path: Spanned<String>,
    #[serde(rename = "type")]
    ty: Spanned<String>,
}

/// gRPC's status codes as `protocol.yaml` names them, with `tonic::Code`'s variant.
const GRPC_CODES: &[(&str, &str)] = &[
    ("CANCELLED", "Cancelled"),
    ("UNKNOWN", "Unknown"),
    ("INVALID_ARGUMENT", "InvalidArgument"),
    ("DEADLINE_EXCEEDED", "DeadlineExceeded"),
    ("NOT_FOUND", "NotFound"),
    ("ALREADY_EXISTS", "AlreadyExists"),
    ("PERMISSION_DENIED", "PermissionDenied"),
    ("RESOURCE_EXHAUSTED", "ResourceExhausted"),
    ("FAILED_PRECONDITION", "FailedPrecondition"),
    ("ABORTED", "Aborted"),
    ("OUT_OF_RANGE", "OutOfRange"),
    ("UNIMPLEMENTED", "Unimplemented"),
    ("INTERNAL", "Internal"),
    ("UNAVAILABLE", "Unavailable"),
    ("DATA_LOSS", "DataLoss"),
    ("UNAUTHENTICATED", "Unauthenticated"),
];

/// Whether `reason` is an `ErrorInfo.reason` (UPPER_SNAKE_CASE, as google.rpc asks).
fn is_reason(reason: &str) -> bool {
    !reason.is_empty()
        && reason
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Whether JSON-RPC 2.0 leaves `code` to the application: outside the reserved
/// -32768..=-32000, or in its server-error part -32099..=-32000.
fn is_application_code(code: i64) -> bool {
    !(-32768..=-32000).contains(&code) || (-32099..=-32000).contains(&code)
}

/// The checked binding of `w`; every finding goes to `report` where it is written.
fn lower(w: Written, report: &mut Report<'_>) -> Option<Binding> {
    let mut ok = true;
    let mut fail = |at: &serde_saphyr::Location, msg: String| {
        ok = false;
        report(at, msg);
    };
    check_path(&w.path, &mut fail);
    let (domain, errors) = match &w.errors {
        Some(e) => {
            for (reason, code) in &e.codes.value {
                if !is_reason(reason) {
                    fail(
                        &e.codes.referenced,
                        format!("`{reason}` is not an error reason (UPPER_SNAKE_CASE)"),
                    );
                }
                if !is_application_code(*code) {
                    fail(
                        &e.codes.referenced,
                        format!(
                            "{code} is reserved by JSON-RPC 2.0 (-32768 to -32100 and -32700 to -32600)"
                        ),
                    );
                }
            }
            if e.domain.value.trim().is_empty() {
                fail(&e.domain.referenced, "`domain` is empty".to_owned());
            }
            let codes = e.codes.value.iter().map(|(r, c)| (r.clone(), *c)).collect();
            (e.domain.value.clone(), codes)
        }
        None => (String::new(), Vec::new()),
    };
    let version = w
        .version
        .as_ref()
        .and_then(|v| check_version(v, &domain, &mut fail));
    let discovery = w.discovery.as_ref().map(|d| {
        check_path(&d.path, &mut fail);
        if d.path.value == w.path.value {
            fail(
                &d.path.referenced,
                "the discovery document needs a path of its own".to_owned(),
            );
        }
        (d.path.value.clone(), d.ty.value.clone())
    });
    ok.then(|| Binding {
        path: w.path.value.clone(),
        domain,
        errors,
        version,
        discovery,
    })
}

/// The checked version header (its refusal's reason needs an error domain).
fn check_version(v: &WrittenVersion, domain: &str, fail: &mut Report<'_>) -> Option<Version> {
    if v.header.value.is_empty() || !v.header.value.bytes().all(is_tchar) {
        fail(
            &v.header.referenced,
            format!("`{}` is not an HTTP header name", v.header.value),
        );
    }
    if v.supported.value.is_empty() {
        fail(
            &v.supported.referenced,
            "`supported` lists no version".to_owned(),
        );
    }
    for s in v.supported.value.iter().chain([&v.absent.value]) {
        let major_minor = s.split('.').count() == 2
            && s.split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if !major_minor {
            fail(
                &v.supported.referenced,
                format!("`{s}` is not a Major.Minor version"),
            );
        }
    }
    let code = GRPC_CODES
        .iter()
        .find(|(n, _)| *n == v.status.value)
        .map(|(_, c)| *c);
    if code.is_none() {
        let names = GRPC_CODES.iter().map(|(n, _)| *n);
        let msg = format!(
            "`{}` is not a gRPC status code{}",
            v.status.value,
            crate::suggest::did_you_mean(&v.status.value, names)
        );
        fail(&v.status.referenced, msg);
    }
    if !is_reason(&v.reason.value) {
        fail(
            &v.reason.referenced,
            format!(
                "`{}` is not an error reason (UPPER_SNAKE_CASE)",
                v.reason.value
            ),
        );
    }
    if domain.is_empty() {
        fail(
            &v.reason.referenced,
            "a version refusal's reason needs `errors.domain`".to_owned(),
        );
    }
    Some(Version {
        header: v.header.value.clone(),
        supported: v.supported.value.clone(),
        absent: v.absent.value.clone(),
        code: code?.to_owned(),
        reason: v.reason.value.clone(),
    })
}

#[cfg(test)]
mod tests {
    use crate::diag::SourceFile;
    use crate::front::protocol;

    /// The errors of a gRPC `protocol.yaml` whose transport declares `binding` (YAML lines at
    /// the carrier's indentation), as one-line texts.
    fn errors(kind: &str, binding: &str) -> Vec<String> {
        let binding: String = binding.lines().map(|l| format!("    {l}\n")).collect();
        let text = format!(
            "protocol: demo\ntitle: Demo\ntransport:\n  kind: {kind}\n  jsonrpc_http:\n{binding}\
             roles: [client, server]\ntypes: demo.proto\n"
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

    const GOOD: &str = "path: /\nerrors:\n  domain: demo.example\n  codes: {THING_NOT_FOUND: -32001, GONE: 7}\n\
                        version:\n  header: Demo-Version\n  supported: [\"1.0\"]\n  absent: \"0.3\"\n  \
                        status: FAILED_PRECONDITION\n  reason: VERSION_NOT_SUPPORTED\n\
                        discovery:\n  path: /.well-known/demo.json\n  type: Card";

    #[test]
    fn a_declared_binding_is_lowered_into_the_ir() {
        assert_eq!(errors("grpc", GOOD), Vec::<String>::new());
    }

    #[test]
    fn each_wrong_value_is_reported() {
        let cases = [
            ("path: /\n", "path: rpc\n", "is not an endpoint path"),
            ("-32001", "-32601", "reserved by JSON-RPC 2.0"),
            ("THING_NOT_FOUND", "thing", "is not an error reason"),
            (
                "FAILED_PRECONDITION",
                "FAILED_PRECONDITON",
                "did you mean `FAILED_PRECONDITION`?",
            ),
            ("\"1.0\"", "\"1\"", "is not a Major.Minor version"),
            ("Demo-Version", "Demo Version", "is not an HTTP header name"),
            ("/.well-known/demo.json", "/", "a path of its own"),
        ];
        for (from, to, want) in cases {
            let errs = errors("grpc", &GOOD.replacen(from, to, 1));
            assert!(errs.len() == 1 && errs[0].contains(want), "{to}: {errs:?}");
        }
    }

    #[test]
    fn only_grpc_protocols_may_declare_it() {
        let errs = errors("websocket", GOOD);
        assert!(
            errs.iter()
                .any(|e| e.contains("carries grpc protocols, not `websocket`")),
            "{errs:?}"
        );
    }
}
