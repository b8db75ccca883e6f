//! What a spec declares about its HTTP+JSON binding, as constants a generated skeleton holds.

/// The HTTP+JSON binding of one gRPC service.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    /// The full proto name of the service.
    pub service: &'static str,
    /// The spec's compiled `.proto` files with their imports, an encoded
    /// `google.protobuf.FileDescriptorSet`: what ProtoJSON is read and written from.
    pub descriptors: &'static [u8],
    /// The media type of request and response bodies (`application/json` unless the spec
    /// names its own).
    pub media_type: &'static str,
    /// The HTTP rules, each rpc's primary rule before its additional bindings.
    pub rules: &'static [Rule],
    /// A query parameter that stands for the request header of the same name when the
    /// request lacks that header (a version the spec lets clients send either way); it is
    /// taken out of the query before the rest binds request fields. Empty for none.
    pub version_param: &'static str,
}

/// One `google.api.http` rule (or additional binding) of an rpc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// The rpc's name in the service.
    pub rpc: &'static str,
    /// The HTTP method (`GET`, `POST`, ..., or a custom rule's kind).
    pub method: &'static str,
    /// The path template.
    pub path: &'static str,
    /// The body mapping: `*` (the whole request), a field of the request, or empty (no body:
    /// every field not in the path is a query parameter).
    pub body: &'static str,
    /// The field of the reply sent as the body; empty for the whole reply.
    pub response_body: &'static str,
}
