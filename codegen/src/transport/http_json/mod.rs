//! `transport.http_json`: a gRPC service that also answers HTTP+JSON, each rpc at the HTTP
//! method and path template its proto's `google.api.http` annotation gives (additional
//! bindings included), in ProtoJSON. The annotations reach the IR as plain data
//! (`Protocol::options`); the spec declares the bodies' media type and any rule the proto
//! lacks (`also:`). This carrier checks what is written here, then every rule against the
//! compiled service (`check`: a rule the transport could not serve is a diagnostic at its
//! line, not an error when the server starts), and the skeleton gains the profile
//! `agentwire_transport::grpc_rest` takes, its binding mounted beside the others
//! (`emit/skeleton/grpc_rest.rs`).

#[cfg(feature = "proto")]
mod check;

use agentwire_runtime::path_template::PathTemplate;
use proc_macro2::TokenStream;
use serde::Deserialize;
use serde_saphyr::{Location, Spanned};

use super::{Carrier, Declaring, Report};
use crate::diag::{SourceFile, SpecErrors};
use crate::front::proto::ProtoSpec;
use crate::ir::{Carried, Protocol};
use crate::yaml_node::Node;

pub struct HttpJson;

impl Carrier for HttpJson {
    fn key(&self) -> &'static str {
        "http_json"
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
        crate::emit::skeleton::grpc_rest::emit(p, proto?, carried.get()?)
    }

    fn mount(&self, _: &Protocol, _: Option<&ProtoSpec>, _: &Carried) -> Option<TokenStream> {
        Some(quote::quote! {
            let routes = agentwire_transport::grpc_rest::mount(routes, grpc.clone(), &HTTP_JSON)?;
        })
    }

    fn check_proto(
        &self,
        yaml: &SourceFile,
        p: &Protocol,
        proto: &ProtoSpec,
        carried: &Carried,
        errors: &mut SpecErrors,
    ) {
        #[cfg(feature = "proto")]
        if let Some(b) = carried.get::<Binding>() {
            check::check(yaml, p, proto, b, errors);
        }
        #[cfg(not(feature = "proto"))]
        {
            let _ = (yaml, p, carried, errors);
            proto.unreachable()
        }
    }
}

/// The binding as checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// The media type of bodies.
    pub media_type: String,
    /// Rules beside the proto's: rpc, method, path template, body mapping.
    pub also: Vec<ExtraRule>,
    /// A query parameter standing for the request header of that name (a version the
    /// spec lets clients send either way); empty for none.
    pub version_param: String,
}

/// A rule `also:` declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraRule {
    pub rpc: String,
    pub method: String,
    pub path: String,
    pub body: String,
    /// Where its `rpc:` and `path:` are written, for what the compiled service finds.
    pub rpc_at: Location,
    pub path_at: Location,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    #[serde(default)]
    media_type: Option<Spanned<String>>,
    #[serde(default)]
    also: Vec<WrittenRule>,
    #[serde(default)]
    version_param: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenRule {
    rpc: Spanned<String>,
    method: Spanned<String>,
    path: Spanned<String>,
    #[serde(default)]
    body: Option<Spanned<String>>,
}

/// The HTTP methods a rule may name (`google.api.HttpRule`'s patterns).
pub const METHODS: &[&str] = &["GET", "PUT", "POST", "DELETE", "PATCH"];

/// The checked binding of `w`; every finding goes to `report` where it is written.
fn lower(w: Written, report: &mut Report<'_>) -> Option<Binding> {
    let mut ok = true;
    let media_type = match &w.media_type {
        Some(m) => {
            let (kind, sub) = m.value.split_once('/').unwrap_or_default();
            let token = |s: &str| !s.is_empty() && s.bytes().all(super::streamable_http::is_tchar);
            if !token(kind) || !token(sub) {
                ok = false;
                report(&m.referenced, format!("`{}` is not a media type", m.value));
            }
            m.value.clone()
        }
        None => "application/json".to_owned(),
    };
    let mut also = Vec::new();
    for r in &w.also {
        if !METHODS.contains(&r.method.value.as_str()) {
            ok = false;
            let msg = format!(
                "`{}` is not an HTTP rule's method ({})",
                r.method.value,
                METHODS.join(", ")
            );
            report(&r.method.referenced, msg);
        }
        if let Err(e) = PathTemplate::parse(&r.path.value) {
            ok = false;
            report(&r.path.referenced, e.to_string());
        }
        also.push(ExtraRule {
            rpc: r.rpc.value.clone(),
            method: r.method.value.clone(),
            path: r.path.value.clone(),
            body: r.body.as_ref().map(|b| b.value.clone()).unwrap_or_default(),
            rpc_at: r.rpc.referenced,
            path_at: r.path.referenced,
        });
    }
    let version_param = match &w.version_param {
        Some(v) if v.value.is_empty() || !v.value.bytes().all(super::streamable_http::is_tchar) => {
            ok = false;
            report(&v.referenced, format!("`{}` is not a header name", v.value));
            String::new()
        }
        Some(v) => v.value.clone(),
        None => String::new(),
    };
    ok.then_some(Binding {
        media_type,
        also,
        version_param,
    })
}

#[cfg(test)]
mod tests {
    use crate::diag::SourceFile;
    use crate::front::protocol;

    fn errors(binding: &str) -> Vec<String> {
        let binding: String = binding.lines().map(|l| format!("    {l}\n")).collect();
        let text = format!(
            "protocol: demo\ntitle: Demo\ntransport:\n  kind: grpc\n  http_json:\n{binding}\
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

    const GOOD: &str = "media_type: application/demo+json\nversion_param: Demo-Version\nalso:\n  - rpc: Watch\n    method: POST\n    path: \"/things/{id=*}:watch\"";

    #[test]
    fn a_declared_binding_is_lowered_into_the_ir() {
        assert_eq!(errors(GOOD), Vec::<String>::new());
        assert_eq!(errors("{}"), Vec::<String>::new());
    }

    #[test]
    fn each_wrong_value_is_reported() {
        let cases = [
            ("application/demo+json", "json", "is not a media type"),
            ("POST", "FETCH", "is not an HTTP rule's method"),
            ("{id=*}:watch", "{id=*:watch", "is not closed"),
            ("Demo-Version", "Demo Version", "is not a header name"),
        ];
        for (from, to, want) in cases {
            let errs = errors(&GOOD.replacen(from, to, 1));
            assert!(errs.len() == 1 && errs[0].contains(want), "{to}: {errs:?}");
        }
    }
}
