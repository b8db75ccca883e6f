//! What a gRPC skeleton gains from `transport.http_json`: the binding's profile
//! (`HTTP_JSON`), whose rules are the rpcs' `google.api.http` annotations as the IR holds
//! them (`Protocol::options`, each rule before its additional bindings) and the spec's
//! `also:` rules, for `agentwire_transport::grpc_rest`.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use super::grpc_jsonrpc::descriptors_item;
use crate::front::proto::ProtoSpec;
use crate::ir::Protocol;
use crate::transport::http_json::{Binding, METHODS};

/// The option holding an rpc's HTTP rule.
pub(crate) const HTTP_OPTION: &str = "google.api.http";

/// One rule as the profile holds it: rpc, method, path, body, response body.
pub(crate) type Rule = (String, String, String, String, String);

/// The items, or `None` when the spec's own files declare no service.
pub fn emit(p: &Protocol, proto: &ProtoSpec, b: &Binding) -> Option<TokenStream> {
    let service = proto
        .pool
        .services()
        .find(|s| proto.own.contains(s.parent_file().name()))?;
    let service_name = service.full_name().to_owned();
    let mut rules: Vec<Rule> = Vec::new();
    for m in service.methods() {
        let local = format!("{}.{}", service.name(), m.name());
        let options = p
            .options
            .get(&local)
            .or_else(|| p.options.get(m.full_name()));
        if let Some(rule) = options.and_then(|o| o.get(HTTP_OPTION)) {
            read_rule(m.name(), rule, &mut rules);
        }
    }
    for r in &b.also {
        let rule = (
            r.rpc.clone(),
            r.method.clone(),
            r.path.clone(),
            r.body.clone(),
        );
        rules.push((rule.0, rule.1, rule.2, rule.3, String::new()));
    }
    let rules = rules.iter().map(|(rpc, method, path, body, response)| {
        quote!(agentwire_transport::grpc_rest::Rule {
            rpc: #rpc,
            method: #method,
            path: #path,
            body: #body,
            response_body: #response,
        })
    });
    let media = &b.media_type;
    let version_param = &b.version_param;
    let descriptors = descriptors_item(p, proto, "http_json");
    let doc = format!(
        " The HTTP+JSON binding of `{service_name}` that `spec/{}/protocol.yaml` declares \
         (`transport.http_json`): each rpc at its `google.api.http` rules, for \
         `agentwire_transport::grpc_rest::{{mount, Client}}`.",
        p.module
    );
    Some(quote! {
        #[doc = #doc]
        pub static HTTP_JSON: agentwire_transport::grpc_rest::Profile =
            agentwire_transport::grpc_rest::Profile {
                service: #service_name,
                descriptors: DESCRIPTORS,
                media_type: #media,
                rules: &[#(#rules),*],
                version_param: #version_param,
            };
        #descriptors
    })
}

/// The rule of `rpc` written as `google.api.HttpRule` (proto field names), then its
/// additional bindings; a rule with no pattern adds nothing (the transport serves what
/// is annotated).
pub(crate) fn read_rule(rpc: &str, rule: &Value, out: &mut Vec<Rule>) {
    let text = |key: &str| rule.get(key).and_then(Value::as_str).unwrap_or_default();
    let pattern = METHODS
        .iter()
        .find_map(|m| {
            let path = text(&m.to_ascii_lowercase());
            (!path.is_empty()).then(|| ((*m).to_owned(), path.to_owned()))
        })
        .or_else(|| {
            let custom = rule.get("custom")?;
            let kind = custom.get("kind")?.as_str()?;
            let path = custom.get("path")?.as_str()?;
            Some((kind.to_owned(), path.to_owned()))
        });
    if let Some((method, path)) = pattern {
        out.push((
            rpc.to_owned(),
            method,
            path,
            text("body").to_owned(),
            text("response_body").to_owned(),
        ));
    }
    for extra in rule
        .get("additional_bindings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        read_rule(rpc, extra, out);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::read_rule;

    #[test]
    fn a_rule_and_its_additional_bindings_are_read_in_order() {
        let rule = json!({"post": "/things:send", "body": "*",
            "additional_bindings": [{"get": "/{tenant}/things/{id=*}", "response_body": "thing"},
                                    {"custom": {"kind": "HEAD", "path": "/things"}}]});
        let mut out = Vec::new();
        read_rule("Send", &rule, &mut out);
        let s = |v: &str| v.to_owned();
        assert_eq!(
            out,
            [
                (s("Send"), s("POST"), s("/things:send"), s("*"), s("")),
                (
                    s("Send"),
                    s("GET"),
                    s("/{tenant}/things/{id=*}"),
                    s(""),
                    s("thing")
                ),
                (s("Send"), s("HEAD"), s("/things"), s(""), s("")),
            ]
        );
    }
}
