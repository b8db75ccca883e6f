//! The JSON names serde gives fields and variants, read from `#[serde(...)]` attributes, so a
//! derived validator reports the same JSON pointer a decoder would. Unknown or malformed serde
//! attributes are ignored here: serde's own derive reports them.

use syn::{Attribute, Expr, Lit, Meta};

/// The serde attributes that move a value's JSON pointer.
#[derive(Default)]
pub(crate) struct SerdeAttrs {
    pub(crate) rename: Option<String>,
    pub(crate) rename_all: Option<String>,
    pub(crate) rename_all_fields: Option<String>,
    pub(crate) tag: Option<String>,
    pub(crate) content: Option<String>,
    pub(crate) untagged: bool,
    pub(crate) transparent: bool,
    pub(crate) flatten: bool,
}

impl SerdeAttrs {
    pub(crate) fn read(attrs: &[Attribute]) -> Self {
        let mut out = Self::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
            let Ok(list) = attr.parse_args_with(
                syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated,
            ) else {
                continue;
            };
            for meta in list {
                let Some(key) = meta.path().get_ident().map(|i| i.to_string()) else {
                    continue;
                };
                match (key.as_str(), &meta) {
                    ("untagged", Meta::Path(_)) => out.untagged = true,
                    ("transparent", Meta::Path(_)) => out.transparent = true,
                    ("flatten", Meta::Path(_)) => out.flatten = true,
                    ("rename" | "rename_all" | "rename_all_fields" | "tag" | "content", _) => {
                        let Some(value) = deserialize_name(&meta) else {
                            continue;
                        };
                        match key.as_str() {
                            "rename" => out.rename = Some(value),
                            "rename_all" => out.rename_all = Some(value),
                            "rename_all_fields" => out.rename_all_fields = Some(value),
                            "tag" => out.tag = Some(value),
                            _ => out.content = Some(value),
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }
}

/// `key = "v"` or `key(deserialize = "v", ...)`: the name used when reading JSON.
fn deserialize_name(meta: &Meta) -> Option<String> {
    match meta {
        Meta::NameValue(nv) => string_of(&nv.value),
        Meta::List(list) => {
            let inner = list
                .parse_args_with(
                    syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated,
                )
                .ok()?;
            inner.iter().find_map(|m| match m {
                Meta::NameValue(nv) if nv.path.is_ident("deserialize") => string_of(&nv.value),
                _ => None,
            })
        }
        Meta::Path(_) => None,
    }
}

fn string_of(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// A Rust identifier as written, without a raw `r#` prefix.
pub(crate) fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// A field's name (snake_case) under a container's `rename_all`, as serde spells it.
pub(crate) fn field_name(field: &str, rule: Option<&str>) -> String {
    match rule {
        Some("UPPERCASE" | "SCREAMING_SNAKE_CASE") => field.to_ascii_uppercase(),
        Some("PascalCase") => pascal(field),
        Some("camelCase") => {
            let p = pascal(field);
            lower_first(&p)
        }
        Some("kebab-case") => field.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => field.to_ascii_uppercase().replace('_', "-"),
        _ => field.to_owned(),
    }
}

/// A variant's name (PascalCase) under an enum's `rename_all`, as serde spells it.
pub(crate) fn variant_name(variant: &str, rule: Option<&str>) -> String {
    match rule {
        Some("lowercase") => variant.to_ascii_lowercase(),
        Some("UPPERCASE") => variant.to_ascii_uppercase(),
        Some("camelCase") => lower_first(variant),
        Some("snake_case") => snake(variant),
        Some("SCREAMING_SNAKE_CASE") => snake(variant).to_ascii_uppercase(),
        Some("kebab-case") => snake(variant).replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => snake(variant).to_ascii_uppercase().replace('_', "-"),
        _ => variant.to_owned(),
    }
}

fn pascal(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn snake(pascal: &str) -> String {
    let mut out = String::new();
    for (i, c) in pascal.char_indices() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_serdes_rename_rules() {
        assert_eq!(field_name("tool_call_id", Some("camelCase")), "toolCallId");
        assert_eq!(field_name("tool_call_id", Some("PascalCase")), "ToolCallId");
        assert_eq!(field_name("a_b", Some("SCREAMING-KEBAB-CASE")), "A-B");
        assert_eq!(variant_name("ToolCall", Some("snake_case")), "tool_call");
        assert_eq!(variant_name("ToolCall", Some("kebab-case")), "tool-call");
        assert_eq!(variant_name("ToolCall", Some("camelCase")), "toolCall");
        assert_eq!(variant_name("ToolCall", None), "ToolCall");
    }

    #[test]
    fn serde_attributes_are_read_leniently() {
        let attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[serde(tag = "type", rename_all(serialize = "x", deserialize = "camelCase"))]),
            syn::parse_quote!(#[serde(deny_unknown_fields, bound = "T: X")]),
            syn::parse_quote!(#[serde(this is not a meta list)]),
        ];
        let a = SerdeAttrs::read(&attrs);
        assert_eq!(a.tag.as_deref(), Some("type"));
        assert_eq!(a.rename_all.as_deref(), Some("camelCase"));
        assert!(!a.untagged);
    }
}
