//! What to write instead of a construct the loader refuses: every refusal names the
//! construct and the form to use in its place.

use oxc_ast::ast::TSSignature;

/// `a.B<T>` as a type, or `this` where a type name goes.
pub(super) const QUALIFIED: &str = "a generic qualified type name (`Ns.T<U>`) is not supported; declare the instantiation as an interface and refer to it by name";

/// `[key: number]: T`.
pub(super) const INDEX_KEY: &str =
    "index signatures must have string keys (`[key: string]: T`): JSON object keys are strings";

/// `Name<...>` other than the generics the loader reads.
pub(super) fn generic(name: &str) -> String {
    format!(
        "unsupported generic type `{name}<...>`; write `T[]`, `Array<T>`, `Record<string, T>` (or `Omit<Interface, \"key\">` as a base), or declare the instantiation as an interface"
    )
}

/// The diagnostic for a union of primitives of one JSON type, the only union the loader
/// cannot represent.
pub(super) fn union() -> &'static str {
    "a union of primitives of one JSON type (`number | integer`, `string | string`) cannot be told apart on the wire; write one of them"
}

/// The diagnostic for an interface member other than a plain property or index signature.
pub(super) fn member(_: &TSSignature<'_>) -> &'static str {
    "only plain properties are supported in an interface; leave methods and call signatures out of the message types"
}
