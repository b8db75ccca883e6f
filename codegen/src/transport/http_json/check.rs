//! Every HTTP rule of the binding checked against the compiled service, as the transport
//! will compile it when the server starts: the rpc exists and takes one request, the path
//! template parses, each path variable names a singular string field of the request (by a
//! dotted path through singular messages), and the body and response body name fields of
//! the request and reply. A rule from a `google.api.http` annotation is reported at the
//! annotation in its `.proto` file; one from `also:` at its line of `protocol.yaml`.

use agentwire_runtime::path_template::PathTemplate;
use protox::prost_reflect::{FieldDescriptor, Kind, MessageDescriptor, MethodDescriptor};

use super::Binding;
use crate::diag::{SourceFile, SpecError, SpecErrors, span_of};
use crate::emit::skeleton::grpc_rest::{HTTP_OPTION, read_rule};
use crate::front::proto::ProtoSpec;
use crate::ir::Protocol;

/// Checks the annotated rules of the spec's own service, then `b`'s `also:` rules.
pub fn check(
    yaml: &SourceFile,
    p: &Protocol,
    proto: &ProtoSpec,
    b: &Binding,
    errors: &mut SpecErrors,
) {
    let Some(service) = proto
        .pool
        .services()
        .find(|s| proto.own.contains(s.parent_file().name()))
    else {
        return;
    };
    for m in service.methods() {
        let local = format!("{}.{}", service.name(), m.name());
        let options = p
            .options
            .get(&local)
            .or_else(|| p.options.get(m.full_name()));
        let Some(rule) = options.and_then(|o| o.get(HTTP_OPTION)) else {
            continue;
        };
        let mut rules = Vec::new();
        read_rule(m.name(), rule, &mut rules);
        for (_, _, path, body, response) in &rules {
            if let Err(why) = check_rule(&m, path, body, response) {
                errors.push(at_annotation(proto, &m, yaml, p, why));
            }
        }
    }
    for r in &b.also {
        let Some(m) = service.methods().find(|m| m.name() == r.rpc) else {
            let names: Vec<String> = service.methods().map(|m| m.name().to_owned()).collect();
            let msg = format!(
                "`{}` is no rpc of `{}`{}",
                r.rpc,
                service.full_name(),
                crate::suggest::did_you_mean(&r.rpc, names.iter().map(String::as_str))
            );
            errors.push(SpecError::at(yaml, span_of(yaml, &r.rpc_at), msg));
            continue;
        };
        if let Err(why) = check_rule(&m, &r.path, &r.body, "") {
            errors.push(SpecError::at(yaml, span_of(yaml, &r.path_at), why));
        }
    }
}

/// What keeps the rule of `m` at `path` (with `body` and `response`) from being served.
fn check_rule(m: &MethodDescriptor, path: &str, body: &str, response: &str) -> Result<(), String> {
    let rpc = m.name();
    if m.is_client_streaming() {
        return Err(format!(
            "`{rpc}` streams client messages, which an HTTP rule cannot carry"
        ));
    }
    let template = PathTemplate::parse(path).map_err(|e| format!("HTTP rule of `{rpc}`: {e}"))?;
    let input = m.input();
    for v in template.variables() {
        let Some(last) = resolve(&input, &v.field) else {
            return Err(format!(
                "HTTP rule of `{rpc}`: path variable `{}` of `{path}` is not a field of `{}`",
                v.field,
                input.full_name()
            ));
        };
        if last.is_list() || last.is_map() || !matches!(last.kind(), Kind::String) {
            return Err(format!(
                "HTTP rule of `{rpc}`: path variable `{}` of `{path}` is not a singular string field",
                v.field
            ));
        }
    }
    if !matches!(body, "" | "*") && input.get_field_by_name(body).is_none() {
        return Err(format!(
            "HTTP rule of `{rpc}`: body `{body}` is not a field of `{}`",
            input.full_name()
        ));
    }
    let output = m.output();
    if !response.is_empty() && output.get_field_by_name(response).is_none() {
        return Err(format!(
            "HTTP rule of `{rpc}`: response body `{response}` is not a field of `{}`",
            output.full_name()
        ));
    }
    Ok(())
}

/// The field a dotted path names in `ty`, through singular message fields.
fn resolve(ty: &MessageDescriptor, dotted: &str) -> Option<FieldDescriptor> {
    let mut ty = ty.clone();
    let mut parts = dotted.split('.').peekable();
    loop {
        let field = ty.get_field_by_name(parts.next()?)?;
        if parts.peek().is_none() {
            return Some(field);
        }
        match field.kind() {
            Kind::Message(inner) if !field.is_list() && !field.is_map() => ty = inner,
            _ => return None,
        }
    }
}

/// An error at `m`'s `google.api.http` option in its `.proto` source (the rpc itself when
/// the source has no span for the option; `types:` of `protocol.yaml` when the file was
/// not read from source, as a descriptor set is not).
fn at_annotation(
    proto: &ProtoSpec,
    m: &MethodDescriptor,
    yaml: &SourceFile,
    p: &Protocol,
    why: String,
) -> SpecError {
    let file = m.parent_file();
    let source = proto.sources.get(file.name());
    let info = file.file_descriptor_proto().source_code_info.as_ref();
    let path = m.path();
    let location = info.and_then(|i| {
        // The rpc's options are field 4 of `MethodDescriptorProto`.
        let option = i.location.iter().find(|l| {
            l.path.len() > path.len() && l.path.starts_with(path) && l.path[path.len()] == 4
        });
        option.or_else(|| i.location.iter().find(|l| l.path == path))
    });
    match (source, location) {
        (Some(source), Some(l)) => {
            SpecError::at(source, crate::front::proto::span_of(source, &l.span), why)
        }
        _ => {
            let at = yaml.text.find(&p.types_file).unwrap_or(0);
            SpecError::at(yaml, (at, p.types_file.len()), why)
        }
    }
}
