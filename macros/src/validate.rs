//! `#[derive(Validate)]`: the `Validate` impl of a hand-written struct or enum, built from
//! `#[validate(...)]` field attributes. The checks call the same runtime functions as
//! generated validators, in the same order, under the same JSON pointers (the names serde
//! uses on the wire), so a derived error is indistinguishable from a generated one.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Expr, Fields, Lit, LitStr, Type};

use agentwire_codegen::rules::{self, Arg, Constraints, Rule, Shape, TagError, Value};

use crate::ctxt::Ctxt;
use crate::serde_names::{SerdeAttrs, field_name, unraw, variant_name};

pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    let mut cx = Ctxt::default();
    let container = ContainerAttrs::parse(&input.attrs, &mut cx);
    let serde = SerdeAttrs::read(&input.attrs);
    let rt = &container.runtime;
    let mut body = match &input.data {
        Data::Struct(s) => {
            let fields = parse_fields(&s.fields, &mut cx);
            let key_rule = serde.rename_all.as_deref();
            // A newtype and a `#[serde(transparent)]` struct sit at their field's pointer.
            let flat = serde.transparent
                || matches!(s.fields, Fields::Unnamed(ref u) if u.unnamed.len() == 1);
            let checks = fields.iter().filter(|f| !f.rules.is_empty()).map(|f| {
                let access = &f.member;
                let segment = if flat || f.flatten {
                    None
                } else {
                    Some(f.segment(key_rule))
                };
                let inner = f.rules.checks(&f.ty, rt);
                let inner = wrap(segment.into_iter().collect(), inner);
                quote! {
                    {
                        let v = &self.#access;
                        #inner
                    }
                }
            });
            quote!(#(#checks)*)
        }
        Data::Enum(e) => enum_body(e, &serde, rt, &mut cx),
        Data::Union(u) => {
            cx.error_at(
                u.union_token,
                "`#[derive(Validate)]` works on structs and enums, not unions",
            );
            TokenStream::new()
        }
    };
    if let Some(custom) = &container.custom {
        body.extend(quote!(#custom(self, at, errors);));
    }
    if let Err(errors) = cx.finish() {
        return errors;
    }
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let (at, errors) = if body.is_empty() {
        (quote!(_at), quote!(_errors))
    } else {
        (quote!(at), quote!(errors))
    };
    quote! {
        #[automatically_derived]
        impl #impl_generics #rt::Validate for #name #ty_generics #where_clause {
            fn validate_at(
                &self,
                #at: &mut #rt::JsonPointer,
                #errors: &mut ::std::vec::Vec<#rt::FieldError>,
            ) {
                #body
            }
        }
    }
}

fn enum_body(e: &syn::DataEnum, serde: &SerdeAttrs, rt: &syn::Path, cx: &mut Ctxt) -> TokenStream {
    if e.variants.is_empty() {
        return quote!(match *self {});
    }
    let mut any = false;
    let arms: Vec<TokenStream> = e
        .variants
        .iter()
        .map(|variant| {
            for attr in variant.attrs.iter().filter(|a| a.path().is_ident("validate")) {
                cx.error_at(
                    attr,
                    "`#[validate(...)]` goes on the enum or on a variant's fields, not on the variant",
                );
            }
            let ident = &variant.ident;
            let vserde = SerdeAttrs::read(&variant.attrs);
            let fields = parse_fields(&variant.fields, cx);
            if fields.iter().all(|f| f.rules.is_empty()) {
                return quote!(Self::#ident { .. } => {});
            }
            any = true;
            // Where serde puts the variant's content.
            let mut prefix = Vec::new();
            if serde.untagged {
            } else if let Some(content) = &serde.content {
                if serde.tag.is_some() {
                    prefix.push(Segment::Key(content.clone()));
                }
            } else if serde.tag.is_none() {
                let name = vserde.rename.clone().unwrap_or_else(|| {
                    variant_name(&unraw(ident), serde.rename_all.as_deref())
                });
                prefix.push(Segment::Key(name));
            }
            let key_rule = vserde
                .rename_all
                .as_deref()
                .or(serde.rename_all_fields.as_deref());
            let newtype = matches!(variant.fields, Fields::Unnamed(ref u) if u.unnamed.len() == 1);
            let mut bindings = Vec::new();
            let mut checks = Vec::new();
            for (i, f) in fields.iter().enumerate() {
                if f.rules.is_empty() {
                    continue;
                }
                let binding = format_ident!("__field{i}");
                let member = &f.member;
                bindings.push(quote!(#member: #binding));
                let mut segments = prefix.clone();
                if !newtype && !f.flatten {
                    segments.push(f.segment(key_rule));
                }
                let inner = wrap(segments, f.rules.checks(&f.ty, rt));
                checks.push(quote! {
                    {
                        let v = #binding;
                        #inner
                    }
                });
            }
            quote!(Self::#ident { #(#bindings,)* .. } => { #(#checks)* })
        })
        .collect();
    if !any {
        return TokenStream::new();
    }
    quote! {
        match self {
            #(#arms)*
        }
    }
}

/// One step of a JSON pointer.
#[derive(Clone)]
enum Segment {
    Key(String),
    Index(usize),
}

/// `checks` run with `segments` pushed onto the pointer `at`.
fn wrap(segments: Vec<Segment>, checks: TokenStream) -> TokenStream {
    segments.into_iter().rev().fold(checks, |inner, s| match s {
        Segment::Key(k) => quote!(at.with(#k, |at| { #inner });),
        Segment::Index(i) => quote!(at.with_index(#i, |at| { #inner });),
    })
}

struct ContainerAttrs {
    runtime: syn::Path,
    custom: Option<syn::Path>,
}

impl ContainerAttrs {
    fn parse(attrs: &[syn::Attribute], cx: &mut Ctxt) -> Self {
        let mut out = Self {
            runtime: syn::parse_quote!(::agentwire::runtime),
            custom: None,
        };
        let mut runtime_seen = false;
        for attr in attrs.iter().filter(|a| a.path().is_ident("validate")) {
            let parsed = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("crate") {
                    let lit: LitStr = meta.value()?.parse()?;
                    if runtime_seen {
                        cx.error_at(&meta.path, "duplicate `crate`");
                    }
                    runtime_seen = true;
                    match lit.parse::<syn::Path>() {
                        Ok(p) => out.runtime = p,
                        Err(_) => cx.error_at(
                            &lit,
                            "`crate` must be a path to the runtime, e.g. \"::agentwire::runtime\"",
                        ),
                    }
                } else if meta.path.is_ident("custom") {
                    let path = parse_path_value(&meta)?;
                    if out.custom.is_some() {
                        cx.error_at(&meta.path, "duplicate `custom` on the type");
                    }
                    out.custom = Some(path);
                } else {
                    cx.error_at(
                        &meta.path,
                        format!(
                            "unknown validate attribute `{}` on a type; expected `custom = path` or `crate = \"...\"` (field rules go on fields)",
                            path_text(&meta.path)
                        ),
                    );
                    skip_value(&meta)?;
                }
                Ok(())
            });
            if let Err(e) = parsed {
                cx.push(e);
            }
        }
        out
    }
}

/// A field, with its rules and where it sits.
struct FieldInfo {
    /// `name` or the tuple index.
    member: syn::Member,
    ty: Type,
    rules: Rules,
    flatten: bool,
    /// The JSON key given by `#[serde(rename)]`.
    rename: Option<String>,
}

impl FieldInfo {
    fn segment(&self, rename_all: Option<&str>) -> Segment {
        match &self.member {
            syn::Member::Named(ident) => Segment::Key(
                self.rename
                    .clone()
                    .unwrap_or_else(|| field_name(&unraw(ident), rename_all)),
            ),
            syn::Member::Unnamed(index) => Segment::Index(index.index as usize),
        }
    }
}

fn parse_fields(fields: &Fields, cx: &mut Ctxt) -> Vec<FieldInfo> {
    fields
        .iter()
        .enumerate()
        .map(|(i, field)| {
            let serde = SerdeAttrs::read(&field.attrs);
            let member = match &field.ident {
                Some(ident) => syn::Member::Named(ident.clone()),
                None => syn::Member::Unnamed(syn::Index {
                    index: i as u32,
                    span: field.ty.span(),
                }),
            };
            FieldInfo {
                member,
                ty: field.ty.clone(),
                rules: Rules::parse(field, cx),
                flatten: serde.flatten,
                rename: serde.rename,
            }
        })
        .collect()
}

/// The rules of one field, in the order generated validators check them.
#[derive(Default)]
struct Rules {
    /// The table's rules, as generated validators hold them.
    constraints: Constraints,
    /// `non_empty`: `min_length = 1` on a string, `min_items = 1` on a list.
    non_empty: Option<Span>,
    nested: bool,
    custom: Vec<syn::Path>,
}

impl Rules {
    fn is_empty(&self) -> bool {
        self.constraints.is_empty()
            && self.non_empty.is_none()
            && !self.nested
            && self.custom.is_empty()
    }

    fn parse(field: &syn::Field, cx: &mut Ctxt) -> Self {
        let mut rules = Self::default();
        let shape = shape_of(strip_options(&field.ty));
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("validate")) {
            if let Err(e) = attr.meta.require_list() {
                cx.push(e);
                continue;
            }
            let parsed = attr.parse_nested_meta(|meta| {
                let key = path_text(&meta.path);
                let takes_none = matches!(key.as_str(), "non_empty" | "nested")
                    || rules::by_key(&key).is_some_and(|r| r.arg == Arg::Flag);
                if takes_none && !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                    cx.error_at(&meta.path, format!("`{key}` takes no value"));
                    return skip_value(&meta);
                }
                match key.as_str() {
                    "non_empty" => {
                        if rules.non_empty.is_some() {
                            cx.error_at(&meta.path, "duplicate `non_empty`");
                        }
                        if shape == Shape::Number {
                            cx.error_at(
                                &meta.path,
                                "`non_empty` applies to strings and lists, and this field is a number",
                            );
                        }
                        rules.non_empty = Some(meta.path.span());
                    }
                    "nested" => {
                        if rules.nested {
                            cx.error_at(&meta.path, "duplicate `nested`");
                        }
                        rules.nested = true;
                    }
                    "custom" => rules.custom.push(parse_path_value(&meta)?),
                    _ => match rules::by_key(&key) {
                        Some(rule) => rules.rule(rule, &meta, shape, cx)?,
                        None => {
                            cx.error_at(
                                &meta.path,
                                format!(
                                    "unknown validate attribute `{key}`; expected {}",
                                    field_keys()
                                ),
                            );
                            skip_value(&meta)?;
                        }
                    },
                }
                Ok(())
            });
            if let Err(e) = parsed {
                cx.push(e);
            }
        }
        rules.check_consistency(field, cx);
        rules
    }

    /// One rule of the table, `key = value` (or the key alone for a flag), through the
    /// checks every front end runs: the argument, the fit to the field, a duplicate.
    fn rule(
        &mut self,
        rule: Rule,
        meta: &syn::meta::ParseNestedMeta<'_>,
        shape: Shape,
        cx: &mut Ctxt,
    ) -> syn::Result<()> {
        let key = rule.name;
        let value = match rule.arg {
            Arg::Flag => Ok(Value::Flag),
            // A rule on a whole object: the derive checks fields, and says so.
            Arg::KeyLists | Arg::Schema => {
                let _: LitStr = meta.value()?.parse()?;
                cx.error_at(
                    &meta.path,
                    format!("`{key}` is a rule on a whole object, which `#[derive(Validate)]` does not check; check it in a `custom` function"),
                );
                Err(())
            }
            Arg::Count | Arg::Number | Arg::Positive => {
                let expr: Expr = meta.value()?.parse()?;
                argument(rule, &expr).map_err(|e| cx.error_at(&expr, one_line(&e)))
            }
            Arg::Regex | Arg::Format => {
                let lit: LitStr = meta.value()?.parse()?;
                let text = lit.value();
                let checked = if rule.arg == Arg::Regex {
                    rules::pattern(key, &text)
                } else {
                    rules::format(key, &text)
                };
                checked
                    .map(|()| Value::Text(text))
                    .map_err(|e| cx.error_at(&lit, one_line(&e)))
            }
        };
        if let Err(e) = rules::fits(rule, key, shape) {
            cx.error_at(&meta.path, e.message);
        }
        if let Ok(value) = value
            && let Err(e) = rules::apply(&mut self.constraints, rule, key, value)
        {
            cx.error_at(&meta.path, e.message);
        }
        Ok(())
    }

    fn check_consistency(&self, field: &syn::Field, cx: &mut Ctxt) {
        let at = field
            .ident
            .as_ref()
            .map_or_else(|| field.ty.span(), |i| i.span());
        let mut fail = |message: String| cx.push(syn::Error::new(at, message));
        let name = |rule: Rule, v: f64| format!("{} = {v}", rule.name);
        for (_, e) in rules::check_bounds(&self.constraints, name) {
            fail(e.message);
        }
        let c = &self.constraints;
        if self.non_empty.is_some() && (c.has(&rules::MIN_LENGTH) || c.has(&rules::MIN_ITEMS)) {
            fail("`non_empty` means a minimum of 1; drop it or the explicit minimum".to_owned());
        }
    }

    /// The checks on `v: &ty`, with `at` and `errors` in scope: the generated validators'
    /// emitter ([`rules::emit::checks`]) on each kind of value the rules constrain, then the
    /// derive's own `nested` and `custom`.
    fn checks(&self, ty: &Type, rt: &syn::Path) -> TokenStream {
        if let Some(inner) = option_inner(ty) {
            let inner = self.checks(inner, rt);
            return quote!(if let ::core::option::Option::Some(v) = v { #inner });
        }
        let shape = shape_of(ty);
        let mut c = self.constraints.clone();
        if self.non_empty.is_some() {
            let rule = if shape == Shape::List {
                &rules::MIN_ITEMS
            } else {
                &rules::MIN_LENGTH
            };
            c.set(rule, Value::Count(1));
        }
        let rt_path = quote!(#rt);
        let mut out = Vec::new();
        let text = rules::emit::checks(&c, Shape::Text, quote!(s), &rt_path);
        if !text.is_empty() {
            // Spanned at the field's type, so a non-string field is reported there; in a block,
            // as trimming rebinds `v`.
            let as_str = quote_spanned!(ty.span()=> ::core::convert::AsRef::<str>::as_ref(v));
            out.push(quote!({ let s: &str = #as_str; #(#text)* }));
        }
        let number = quote!((*v as f64));
        out.extend(rules::emit::checks(&c, Shape::Number, number, &rt_path));
        let list = quote_spanned!(ty.span()=> v);
        out.extend(rules::emit::checks(&c, Shape::List, list, &rt_path));
        if self.nested {
            out.push(quote_spanned!(ty.span()=> #rt::Validate::validate_at(v, at, errors);));
        }
        for custom in &self.custom {
            out.push(quote!(#custom(v, at, errors);));
        }
        quote!(#(#out)*)
    }
}

/// Every key a field's `#[validate(...)]` takes: the table's rules, then the derive's own.
fn field_keys() -> String {
    // A rule on a whole object is refused on a field, so it is not offered for one.
    let mut keys: Vec<String> = (rules::RULES.iter())
        .filter(|r| r.shape != Shape::Object)
        .map(|r| format!("`{}`", r.name))
        .collect();
    keys.extend(["`non_empty`", "`nested`"].map(String::from));
    format!("{} or `custom`", keys.join(", "))
}

/// A count or number rule's argument from its literal, in the shared wording when it is not one.
fn argument(rule: Rule, expr: &Expr) -> Result<Value, TagError> {
    let text = quote!(#expr).to_string();
    if rule.arg == Arg::Count {
        if let Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) = expr
            && let Ok(n) = i.base10_parse::<u64>()
        {
            return Ok(Value::Count(n));
        }
        return rules::count(rule.name, &text).map(Value::Count);
    }
    match number_of(expr) {
        Some(n) if rule.arg == Arg::Positive => {
            rules::positive(rule.name, &n.to_string()).map(Value::Number)
        }
        Some(n) => Ok(Value::Number(n)),
        None => Err(rules::number(rule.name, &text).err().unwrap_or_else(|| {
            TagError::new(
                format!("`{}` needs a finite number literal", rule.name),
                "write a number such as 1 or -0.5",
            )
        })),
    }
}

/// A number literal, possibly negated, as `f64`; `None` for anything else or a non-finite value.
fn number_of(expr: &Expr) -> Option<f64> {
    let n = match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse::<f64>().ok()?,
            Lit::Float(f) => f.base10_parse::<f64>().ok()?,
            _ => return None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => -number_of(&u.expr)?,
        Expr::Group(g) => number_of(&g.expr)?,
        _ => return None,
    };
    n.is_finite().then_some(n)
}

/// `key = path` or `key = "path"`.
fn parse_path_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<syn::Path> {
    let value = meta.value()?;
    if value.peek(LitStr) {
        let lit: LitStr = value.parse()?;
        lit.parse()
    } else {
        value.parse()
    }
}

/// Consumes whatever follows an unknown key so the attribute's other mistakes are found too.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

fn path_text(path: &syn::Path) -> String {
    quote!(#path).to_string().replace(' ', "")
}

/// A shared-pipeline error as one compile error line: what is wrong; how to fix it.
fn one_line(e: &TagError) -> String {
    format!("{}; {}", e.message, e.help)
}

/// `T` when `ty` is `Option<T>` (however the path to `Option` is written).
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first() {
        Some(syn::GenericArgument::Type(t)) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

fn strip_options(mut ty: &Type) -> &Type {
    while let Some(inner) = option_inner(ty) {
        ty = inner;
    }
    ty
}

fn shape_of(ty: &Type) -> Shape {
    match ty {
        Type::Reference(r) => shape_of(&r.elem),
        Type::Group(g) => shape_of(&g.elem),
        Type::Paren(p) => shape_of(&p.elem),
        Type::Array(_) | Type::Slice(_) => Shape::List,
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return Shape::Unknown;
            };
            match last.ident.to_string().as_str() {
                "String" | "str" | "Cow" => Shape::Text,
                "Vec" | "VecDeque" | "SmallVec" => Shape::List,
                "Box" | "Rc" | "Arc" => match &last.arguments {
                    syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                        Some(syn::GenericArgument::Type(t)) => shape_of(t),
                        _ => Shape::Unknown,
                    },
                    _ => Shape::Unknown,
                },
                "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64"
                | "u128" | "usize" | "f32" | "f64" => Shape::Number,
                "bool" => Shape::Other,
                _ => Shape::Unknown,
            }
        }
        _ => Shape::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(input: TokenStream) -> String {
        let input: DeriveInput = syn::parse2(input).unwrap();
        derive(&input).to_string()
    }

    #[test]
    fn every_mistake_is_reported_at_once() {
        let out = expand(quote! {
            struct S {
                #[validate(min_lenght = 1, pattern = "[unclosed")]
                a: String,
                #[validate(min_items = 1)]
                b: String,
                #[validate(minimum = "x")]
                c: i64,
            }
        });
        assert_eq!(out.matches("compile_error").count(), 4, "{out}");
        assert!(
            out.contains("unknown validate attribute `min_lenght`"),
            "{out}"
        );
        assert!(out.contains("not a valid regular expression"), "{out}");
        assert!(out.contains("`min_items` applies to lists"), "{out}");
        assert!(out.contains("needs a finite number"), "{out}");
    }

    #[test]
    fn pointers_follow_serde_names() {
        let out = expand(quote! {
            #[serde(rename_all = "camelCase")]
            struct S {
                #[validate(min_length = 1)]
                tool_call_id: String,
                #[serde(rename = "x-y")]
                #[validate(nested)]
                other: Option<Inner>,
            }
        });
        assert!(out.contains("\"toolCallId\""), "{out}");
        assert!(out.contains("\"x-y\""), "{out}");
    }

    #[test]
    fn enums_place_fields_where_serde_does() {
        let out = expand(quote! {
            #[serde(tag = "type", rename_all = "snake_case")]
            enum E {
                Ask { #[validate(non_empty)] text: String },
                Wrapped(#[validate(nested)] Inner),
                Plain,
            }
        });
        // Internally tagged: no variant segment, fields at their own keys.
        assert!(!out.contains("\"ask\""), "{out}");
        assert!(out.contains("\"text\""), "{out}");
        let external = expand(quote! {
            enum E { Ask { #[validate(non_empty)] text: String } }
        });
        assert!(external.contains("\"Ask\""), "{external}");
    }

    #[test]
    fn negative_bounds_are_emitted_as_negation() {
        let out = expand(quote! {
            struct S { #[validate(minimum = -2.5, maximum = 10)] n: f64 }
        });
        assert!(out.contains("- 2.5f64"), "{out}");
        assert!(out.contains("10f64"), "{out}");
    }
}
