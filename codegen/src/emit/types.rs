//! Rust type emitter: structs, string enums, tagged unions and newtypes with their serde and
//! (feature-gated) schemars attributes.

use std::collections::BTreeMap;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Constraints, Field, Ty, TypeDef, TypeKind, Variant};
use crate::naming::{extra_ident, field_ident, rust_ty, type_ident, variant_names};
use crate::rules::{Schemars, Value};

fn doc_attr(doc: &str) -> TokenStream {
    if doc.is_empty() {
        return TokenStream::new();
    }
    let lines = doc.lines().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

/// The schemars attributes that carry a field's constraints into derived schemas; `with`
/// overrides the type schemars sees (so optional and nullable come out as the spec says).
fn schemars_attrs(c: &Constraints, with: Option<TokenStream>) -> TokenStream {
    let mut parts = Vec::new();
    if let Some(with) = with {
        let with = with.to_string().replace(' ', "");
        parts.push(quote!(with = #with));
    }
    // One `length` and one `range` for all the rules that bound them (a string's length rule
    // wins over a list's, as it comes first in the table).
    let (mut length, mut range) = ([None, None], [None, None]);
    let mut others = Vec::new();
    for (rule, v) in c.iter() {
        let value = match v {
            Value::Count(n) => quote!(#n),
            Value::Number(n) => quote!(#n),
            Value::Text(t) => quote!(#t),
            Value::Flag => quote!(true),
            // An object's rule: the struct's schema carries it (`emit::schema`).
            Value::KeyLists(_) | Value::Schema(_) => continue,
        };
        let keyword = rule.keyword;
        match rule.schemars {
            Schemars::Length(end) => {
                length[end as usize].get_or_insert(value);
            }
            Schemars::Range(end) => {
                range[end as usize].get_or_insert(value);
            }
            Schemars::Regex => others.push(quote!(regex(pattern = #value))),
            Schemars::Extend => others.push(quote!(extend(#keyword = #value))),
            Schemars::None => {}
        }
    }
    for (name, [min, max]) in [(quote!(length), length), (quote!(range), range)] {
        match (min, max) {
            (Some(a), Some(b)) => parts.push(quote!(#name(min = #a, max = #b))),
            (Some(a), None) => parts.push(quote!(#name(min = #a))),
            (None, Some(b)) => parts.push(quote!(#name(max = #b))),
            (None, None) => {}
        }
    }
    parts.extend(others);
    if parts.is_empty() {
        return TokenStream::new();
    }
    quote!(#[cfg_attr(feature = "schemars", schemars(#(#parts),*))])
}

fn derives(copy: bool) -> TokenStream {
    let extra = if copy {
        quote!(Copy, Eq, Hash, PartialOrd, Ord,)
    } else {
        TokenStream::new()
    };
    quote! {
        #[derive(Debug, Clone, PartialEq, #extra agentwire_runtime::serde::Serialize, agentwire_runtime::serde::Deserialize)]
        #[serde(crate = "agentwire_runtime::serde")]
        #[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]
    }
}

/// The discriminator a union member writes itself and, decoded alone, requires: `(tag,
/// value)` when every tagged union holding `name` dispatches it on the same pair and nothing
/// else uses it. A member held under different tags or values (`ContentChunk` as three kinds
/// of one update), also used without a tag (a field of type `ContentChunk`), or whose tag a
/// union fixes beside it (`Variant::beside`: its own schema has no tag field) has none: its
/// unions write the tag for it, and alone it is read without one, as the schema says.
pub fn own_tag(types: &BTreeMap<String, TypeDef>, name: &str) -> Option<(String, String)> {
    let pairs = crate::ir::tag_pairs(types, name);
    let first = pairs.first()?.clone();
    // A struct that still declares the field keeps it as a field.
    let declared = match types.get(name).map(|d| &d.kind) {
        Some(TypeKind::Struct(fields)) => fields.iter().any(|f| f.name == first.0),
        _ => true,
    };
    (!declared
        && pairs.iter().all(|p| *p == first)
        && !crate::ir::used_outside_tagged_unions(types, name)
        && !crate::ir::tagged_beside(types, name))
    .then_some(first)
}

/// Emits one named type; `types` is every type of the protocol (a union member learns its
/// discriminator from the unions that hold it).
pub fn emit_type(def: &TypeDef, types: &BTreeMap<String, TypeDef>) -> TokenStream {
    let name = type_ident(&def.name);
    let doc = doc_attr(&def.doc);
    match &def.kind {
        TypeKind::Struct(fields) => {
            let tag = own_tag(types, &def.name);
            let tag_optional = crate::emit::defaults::is_default_member(types, &def.name);
            let keeps = def.keeps_undeclared();
            let decode = emit_struct_deserialize(
                &name,
                fields,
                Reads {
                    open: def.open.as_ref(),
                    tag: tag.as_ref(),
                    tag_optional,
                    undeclared: keeps,
                },
            );
            let undeclared = keeps.then(|| {
                quote! {
                    /// The members this closed struct does not declare, as sent: its
                    /// conditions read them; they are never written.
                    #[doc(hidden)]
                    #[serde(skip)]
                    pub __undeclared: agentwire_runtime::subschema::Undeclared,
                }
            });
            let extra = def.open.as_ref().map(|ty| {
                let ident = extra_ident(fields);
                let ty = rust_ty(ty);
                quote! {
                    /// Members beyond the declared fields, in the order they arrived.
                    #[serde(flatten)]
                    pub #ident: agentwire_runtime::Members<#ty>,
                }
            });
            // serde writes a struct's tag first; schemars keeps the type's own name.
            let tag_attr = tag.map(|(tag, value)| {
                let rust_name = def.name.as_str();
                quote! {
                    #[serde(tag = #tag, rename = #value)]
                    #[cfg_attr(feature = "schemars", schemars(rename = #rust_name))]
                }
            });
            let default =
                crate::emit::build::derives_default(fields, types).then(|| quote!(Default,));
            let build = crate::emit::build::emit_builders(
                &name,
                fields,
                (def.open.is_some(), keeps),
                types,
            );
            let fields = fields.iter().map(|f| emit_field(f, types));
            quote! {
                #doc
                #[derive(Debug, Clone, PartialEq, #default agentwire_runtime::serde::Serialize)]
                #[serde(crate = "agentwire_runtime::serde")]
                #[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]
                #tag_attr
                pub struct #name { #(#fields)* #extra #undeclared }
                #decode
                #build
            }
        }
        TypeKind::Enum(values) => emit_enum(&name, &doc, values, &whole_checks(def)),
        TypeKind::Untagged(members) => emit_untagged(&name, &doc, members, &whole_checks(def)),
        TypeKind::Union { tag, variants } => {
            emit_union(&name, &doc, tag, variants, types, &whole_checks(def))
        }
        // Only protobuf specs have oneofs, and prost writes their types.
        TypeKind::Oneof { .. } => TokenStream::new(),
        TypeKind::Alias {
            target,
            constraints,
        } if !constraints.is_empty() => {
            let derives = derives(false);
            let inner = rust_ty(target);
            let schemars = schemars_attrs(constraints, None);
            let field = Field {
                name: String::new(),
                ty: target.clone(),
                optional: false,
                doc: String::new(),
                constraints: Constraints::default(),
                origin: def.origin.clone(),
                defaulted: false,
                default: None,
                must_be_set: false,
            };
            let numbers = number_writer(&field, types).map(|w| quote!(#[serde(#w)]));
            quote! {
                #doc
                #derives
                #[serde(transparent)]
                pub struct #name(#numbers #schemars pub #inner);
            }
        }
        TypeKind::Alias { target, .. } => {
            let inner = rust_ty(target);
            quote! { #doc pub type #name = #inner; }
        }
    }
}

/// A hand-written `Deserialize` for a struct: it reads only JSON objects (serde's derive would
/// also take an array of the field values, which no protocol here allows), skips unknown keys
/// of a closed struct and keeps those of an open one, and keeps "absent" apart from `null` for
/// optional fields. A union member also gets `__read`, which its unions call after they have
/// read the discriminator; decoded alone (`standalone`), it requires its discriminator.
fn emit_struct_deserialize(name: &Ident, fields: &[Field], reads: Reads<'_>) -> TokenStream {
    let expecting = format!("a `{name}` object");
    let read = struct_read_body(name, fields, reads);
    let (helper, visit, map) = if reads.tag.is_some() {
        let helper = quote! {
            impl #name {
                /// Reads the members of an object; `standalone` when no union read the
                /// discriminator first.
                #[doc(hidden)]
                pub fn __read<'de, A: agentwire_runtime::serde::de::MapAccess<'de>>(mut map: A, standalone: bool) -> Result<Self, A::Error> {
                    #read
                }
            }
        };
        (helper, quote!(#name::__read(map, true)), quote!(map))
    } else {
        (TokenStream::new(), read, quote!(mut map))
    };
    quote! {
        #helper
        impl<'de> agentwire_runtime::serde::Deserialize<'de> for #name {
            fn deserialize<D: agentwire_runtime::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct Visitor;
                impl<'de> agentwire_runtime::serde::de::Visitor<'de> for Visitor {
                    type Value = #name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(#expecting)
                    }
                    fn visit_map<A: agentwire_runtime::serde::de::MapAccess<'de>>(self, #map: A) -> Result<#name, A::Error> {
                        #visit
                    }
                }
                d.deserialize_map(Visitor)
            }
        }
    }
}

/// The declaration, match arm and final check that read a struct's own tag (`tag`: the
/// member and its value) when it is read on its own; nothing without one.
fn tag_parts(
    tag: Option<&(String, String)>,
    tag_optional: bool,
) -> (TokenStream, TokenStream, TokenStream) {
    match tag {
        Some((tag, value)) => {
            let wrong = format!("unknown `{tag}` value `{{}}`, expected one of `{value}`");
            (
                quote!(let mut tag_seen = false;),
                quote! {
                    #tag if standalone => {
                        if tag_seen {
                            return Err(agentwire_runtime::serde::de::Error::duplicate_field(#tag));
                        }
                        let kind: agentwire_runtime::tagged::Text<'de> = map.next_value()?;
                        if kind.as_str() != #value {
                            return Err(agentwire_runtime::serde::de::Error::custom(format_args!(#wrong, kind.as_str())));
                        }
                        tag_seen = true;
                    }
                },
                // A member whose tag defaults to its own value reads as itself without it.
                if tag_optional {
                    TokenStream::new()
                } else {
                    quote! {
                        if standalone && !tag_seen {
                            return Err(agentwire_runtime::serde::de::Error::missing_field(#tag));
                        }
                    }
                },
            )
        }
        None => Default::default(),
    }
}

/// What a struct's reader does besides its fields.
#[derive(Clone, Copy)]
struct Reads<'a> {
    /// An open struct's members' type.
    open: Option<&'a Ty>,
    /// Its own tag (`tag_parts`).
    tag: Option<&'a (String, String)>,
    tag_optional: bool,
    /// A closed struct keeps what it does not declare (`TypeDef::keeps_undeclared`).
    undeclared: bool,
}

/// The statements that read a struct from `map` (a `MapAccess`) and return it.
fn struct_read_body(name: &Ident, fields: &[Field], reads: Reads<'_>) -> TokenStream {
    let Reads {
        open,
        tag,
        tag_optional,
        undeclared,
    } = reads;
    let slots: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("f{i}")).collect();
    let slot_decls = fields.iter().zip(&slots).map(|(f, slot)| {
        let ty = rust_ty(&f.ty);
        quote!(let mut #slot: Option<#ty> = None;)
    });
    let arms = fields.iter().zip(&slots).map(|(f, slot)| {
        let key = &f.name;
        quote! {
            #key => {
                if #slot.is_some() {
                    return Err(agentwire_runtime::serde::de::Error::duplicate_field(#key));
                }
                #slot = Some(map.next_value()?);
            }
        }
    });
    let inits = fields.iter().zip(&slots).map(|(f, slot)| {
        let ident = field_ident(&f.name);
        let key = &f.name;
        if f.optional {
            quote!(#ident: #slot,)
        } else {
            quote!(#ident: #slot.ok_or_else(|| agentwire_runtime::serde::de::Error::missing_field(#key))?,)
        }
    });
    let (tag_decl, tag_arm, tag_check) = tag_parts(tag, tag_optional);
    let mut extra_only = None;
    let (extra_decl, extra_arm, extra_init) = match open {
        Some(ty) => {
            let ident = extra_ident(fields);
            let ty = rust_ty(ty);
            let read = quote! {
                let value: #ty = map.next_value()?;
                #ident.push_read(key.as_str().to_owned(), value);
            };
            // Without fields or a tag every key is an extension member: no match to write.
            if fields.is_empty() && tag.is_none() {
                extra_only = Some(read.clone());
            }
            (
                // The local is named as the field, so the struct literal can use the shorthand.
                quote!(let mut #ident: agentwire_runtime::Members<#ty> = agentwire_runtime::Members::new();),
                quote!(_ => { #read }),
                quote!(#ident,),
            )
        }
        None if undeclared => {
            let read = quote! {
                let value: agentwire_runtime::serde_json::Value = map.next_value()?;
                __undeclared.push_read(key.as_str().to_owned(), value);
            };
            if fields.is_empty() && tag.is_none() {
                extra_only = Some(read.clone());
            }
            (
                quote!(let mut __undeclared = agentwire_runtime::subschema::Undeclared::default();),
                quote!(_ => { #read }),
                quote!(__undeclared,),
            )
        }
        None => (
            TokenStream::new(),
            quote! {
                _ => {
                    map.next_value::<agentwire_runtime::serde::de::IgnoredAny>()?;
                }
            },
            TokenStream::new(),
        ),
    };
    // An empty closed object type still reads (and ignores) every key, so arrays are refused.
    let read_keys = if fields.is_empty() && open.is_none() && tag.is_none() && !undeclared {
        quote! {
            while map.next_key::<agentwire_runtime::serde::de::IgnoredAny>()?.is_some() {
                map.next_value::<agentwire_runtime::serde::de::IgnoredAny>()?;
            }
        }
    } else if let Some(read) = extra_only {
        quote! {
            while let Some(key) = map.next_key::<agentwire_runtime::tagged::Text<'de>>()? {
                #read
            }
        }
    } else {
        quote! {
            while let Some(key) = map.next_key::<agentwire_runtime::tagged::Text<'de>>()? {
                match key.as_str() {
                    #(#arms)*
                    #tag_arm
                    #extra_arm
                }
            }
        }
    };
    quote! {
        #(#slot_decls)*
        #tag_decl
        #extra_decl
        #read_keys
        #tag_check
        Ok(#name { #(#inits)* #extra_init })
    }
}

/// `ty` with every plain alias of a number-holding type (`type Version = number`) replaced by
/// what it stands for, through lists, maps and `| null`: where `number` hides from a field's
/// own type. A constrained alias is a newtype that writes itself, and stays named.
pub(crate) fn number_shape(ty: &Ty, types: &BTreeMap<String, TypeDef>, depth: u8) -> Ty {
    let inner = |t: &Ty| Box::new(number_shape(t, types, depth));
    match ty {
        Ty::Array(t) => Ty::Array(inner(t)),
        Ty::Map(t) => Ty::Map(inner(t)),
        Ty::Nullable(t) => Ty::Nullable(inner(t)),
        Ty::Named(n) if depth < 16 => match types.get(n).map(|d| &d.kind) {
            Some(TypeKind::Alias {
                target,
                constraints,
            }) if constraints.is_empty() => number_shape(target, types, depth + 1),
            _ => ty.clone(),
        },
        _ => ty.clone(),
    }
}

/// Whether a type holds a bare `number` below lists, maps and `| null`.
pub(crate) fn holds_number(ty: &Ty) -> bool {
    match ty {
        Ty::Number => true,
        Ty::Array(t) | Ty::Map(t) | Ty::Nullable(t) => holds_number(t),
        _ => false,
    }
}

/// The `serialize_with` that keeps a field's whole numbers whole, if its type holds any.
fn number_writer(f: &Field, types: &BTreeMap<String, TypeDef>) -> Option<TokenStream> {
    let shape = number_shape(&f.ty, types, 0);
    let path = match (&shape, f.optional) {
        (Ty::Number, false) => "agentwire_runtime::serde_helpers::number::serialize",
        (Ty::Number, true) => "agentwire_runtime::serde_helpers::option_number::serialize",
        (Ty::Nullable(inner), false) if **inner == Ty::Number => {
            "agentwire_runtime::serde_helpers::option_number::serialize"
        }
        (shape, _) if holds_number(shape) => {
            "agentwire_runtime::serde_helpers::whole_numbers::serialize"
        }
        _ => return None,
    };
    Some(quote!(serialize_with = #path))
}

fn emit_field(f: &Field, types: &BTreeMap<String, TypeDef>) -> TokenStream {
    let ident = field_ident(&f.name);
    let doc = doc_attr(&f.doc);
    let ty = rust_ty(&f.ty);
    let mut serde_parts = Vec::new();
    if ident.to_string().trim_start_matches("r#") != f.name {
        let json = &f.name;
        serde_parts.push(quote!(rename = #json));
    }
    let required_nullable = !f.optional && matches!(f.ty, Ty::Nullable(_));
    let field_ty = if f.optional {
        // `present` keeps a present `null` apart from an absent key and rejects `null` where
        // the type does not admit it.
        serde_parts.push(quote!(default));
        serde_parts.push(quote!(skip_serializing_if = "Option::is_none"));
        serde_parts.push(quote!(
            deserialize_with = "agentwire_runtime::serde_helpers::present"
        ));
        serde_parts.extend(number_writer(f, types));
        quote!(Option<#ty>)
    } else {
        if required_nullable {
            // Without this serde would accept a missing key as `None`.
            serde_parts.push(quote!(
                deserialize_with = "agentwire_runtime::serde_helpers::nullable"
            ));
        }
        serde_parts.extend(number_writer(f, types));
        ty
    };
    let serde_attr = if serde_parts.is_empty() {
        TokenStream::new()
    } else {
        quote!(#[serde(#(#serde_parts),*)])
    };
    // schemars reads `Option<T>` as "optional and nullable"; say which of the two applies.
    let with = if f.optional {
        Some(rust_ty(&f.ty))
    } else if let Ty::Nullable(inner) = &f.ty {
        let inner = rust_ty(inner);
        Some(quote!(agentwire_runtime::literal::Nullable<#inner>))
    } else {
        None
    };
    let schemars = schemars_attrs(&f.constraints, with);
    quote! {
        #doc
        #serde_attr
        #schemars
        pub #ident: #field_ty,
    }
}

/// `string | number`: one variant per JSON type, tried in order; a whole `number` is
/// written without `.0`.
/// The checks of the rules on a value of `def` as a whole, on its JSON form (a union's or an
/// enum's `subschema`), after its members' own.
fn whole_checks(def: &TypeDef) -> TokenStream {
    let rt = quote!(agentwire_runtime);
    let checks =
        crate::rules::emit::checks(&def.rules, crate::rules::Shape::Object, quote!(self), &rt);
    quote!(#(#checks)*)
}

fn emit_untagged(
    name: &Ident,
    doc: &TokenStream,
    members: &[Ty],
    whole: &TokenStream,
) -> TokenStream {
    // An open enum (`'a' | 'b' | string`): the known values, then any other string.
    let open_enum = matches!(members, [Ty::Named(_), Ty::String]);
    let mut taken: Vec<String> = Vec::new();
    let variants = members
        .iter()
        .map(|t| {
            let base = if open_enum && t.named().is_some() {
                "Known".to_owned()
            } else {
                untagged_variant(t)
            };
            // Two members of one shape (`A[]` and `A[][]` aside) get a number.
            let mut variant = base.clone();
            let mut n = 2;
            while taken.contains(&variant) {
                variant = format!("{base}{n}");
                n += 1;
            }
            taken.push(variant.clone());
            let variant = format_ident!("{variant}");
            let ty = rust_ty(t);
            let ser = matches!(t, Ty::Number).then(|| {
            quote!(#[serde(serialize_with = "agentwire_runtime::serde_helpers::number::serialize")])
        });
            quote!(#ser #variant(#ty),)
        })
        .collect::<Vec<_>>();
    let idents: Vec<Ident> = taken.iter().map(|v| format_ident!("{v}")).collect();
    // serde derives the writing (and schemars reads `untagged`); the reading tries every
    // member and keeps the one that reads the value whole (`agentwire_runtime::untagged`).
    let derives = quote! {
        #[derive(Debug, Clone, PartialEq, agentwire_runtime::serde::Serialize)]
        #[serde(crate = "agentwire_runtime::serde")]
        #[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]
    };
    let label = Literal::string(&name.to_string());
    quote! {
        #doc
        #derives
        #[serde(untagged)]
        pub enum #name { #(#variants)* }

        impl<'de> agentwire_runtime::serde::Deserialize<'de> for #name {
            fn deserialize<D: agentwire_runtime::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const MEMBERS: &[agentwire_runtime::untagged::Member<#name>] = &[
                    #( |v| agentwire_runtime::untagged::member(v).map(#name::#idents), )*
                ];
                agentwire_runtime::untagged::deserialize(d, #label, MEMBERS)
            }
        }

        impl agentwire_runtime::Validate for #name {
            #[inline]
            fn validate_at(&self, at: &mut agentwire_runtime::JsonPointer, errors: &mut Vec<agentwire_runtime::FieldError>) {
                match self { #( Self::#idents(v) => agentwire_runtime::Validate::validate_at(v, at, errors), )* }
                #whole
            }
        }
    }
}

/// The variant name of an untagged union's member: its JSON type, or the type it names.
fn untagged_variant(t: &Ty) -> String {
    match t {
        Ty::String => "String".to_owned(),
        Ty::Integer => "Integer".to_owned(),
        Ty::Number => "Number".to_owned(),
        Ty::Bool | Ty::BoolLiteral(_) => "Bool".to_owned(),
        Ty::Named(n) => type_ident(n).to_string(),
        Ty::Array(inner) => format!("{}List", untagged_variant(inner)),
        Ty::Map(inner) => format!("{}Map", untagged_variant(inner)),
        Ty::Nullable(inner) => untagged_variant(inner),
        Ty::Any | Ty::Scalar(_) | Ty::WellKnown(_) => "Value".to_owned(),
    }
}

fn emit_enum(
    name: &Ident,
    doc: &TokenStream,
    values: &[String],
    whole: &TokenStream,
) -> TokenStream {
    let derives = derives(true);
    let variants: Vec<Ident> = variant_names(values.iter().map(String::as_str))
        .iter()
        .map(|v| format_ident!("{v}"))
        .collect();
    let lits = values.iter().map(|v| Literal::string(v));
    let lits2 = lits.clone();
    let all = &variants;
    let (at, errors) = if whole.is_empty() {
        (quote!(_), quote!(_))
    } else {
        (quote!(at), quote!(errors))
    };
    quote! {
        #doc
        #derives
        pub enum #name {
            #( #[serde(rename = #lits)] #variants, )*
        }

        impl #name {
            /// Every value, in spec order.
            pub const ALL: &'static [Self] = &[#(Self::#all),*];

            /// The value as it appears on the wire.
            pub fn as_str(&self) -> &'static str {
                match self { #( Self::#all => #lits2, )* }
            }
        }

        impl agentwire_runtime::Validate for #name {
            #[inline]
            fn validate_at(&self, #at: &mut agentwire_runtime::JsonPointer, #errors: &mut Vec<agentwire_runtime::FieldError>) {
                #whole
            }
        }
    }
}

fn emit_union(
    name: &Ident,
    doc: &TokenStream,
    tag: &str,
    variants: &[Variant],
    types: &BTreeMap<String, TypeDef>,
    whole: &TokenStream,
) -> TokenStream {
    let idents: Vec<Ident> = variant_names(variants.iter().map(|v| v.value.as_str()))
        .iter()
        .map(|v| format_ident!("{v}"))
        .collect();
    let members: Vec<Ident> = variants.iter().map(|v| type_ident(&v.type_name)).collect();
    let values: Vec<&str> = variants.iter().map(|v| v.value.as_str()).collect();
    // A member struct that writes and reads its own discriminator (see `own_tag`) is handed
    // the object after it; any other member gets the tag written for it.
    let own: Vec<bool> = variants
        .iter()
        .map(|v| {
            matches!(
                types.get(&v.type_name).map(|d| &d.kind),
                Some(TypeKind::Struct(_))
            ) && own_tag(types, &v.type_name).is_some_and(|(t, k)| t == tag && k == v.value)
        })
        .collect();
    let reads = variants
        .iter()
        .zip(&own)
        .zip(&members)
        .map(|((_, own), member)| {
            if *own {
                quote!(#member::__read(rest, false))
            } else {
                quote!(agentwire_runtime::tagged::variant(rest))
            }
        });
    let writes = own.iter().zip(&values).map(|(own, value)| {
        if *own {
            quote!(agentwire_runtime::serde::Serialize::serialize(v, s))
        } else {
            quote!(agentwire_runtime::tagged::serialize_with_tag(#tag, #value, v, s))
        }
    });
    let default_kind = crate::emit::defaults::default_kind(variants);
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq)]
        #[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]
        #[cfg_attr(feature = "schemars", serde(tag = #tag))]
        pub enum #name {
            #( #[cfg_attr(feature = "schemars", serde(rename = #values))] #idents(#members), )*
        }

        impl #name {
            /// The discriminator field.
            pub const TAG: &'static str = #tag;

            /// The discriminator value of this message.
            pub fn kind(&self) -> &'static str {
                match self { #( Self::#idents(_) => #values, )* }
            }
        }

        impl agentwire_runtime::serde::Serialize for #name {
            fn serialize<S: agentwire_runtime::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self { #( Self::#idents(v) => #writes, )* }
            }
        }

        impl<'de> agentwire_runtime::serde::Deserialize<'de> for #name {
            fn deserialize<D: agentwire_runtime::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                agentwire_runtime::tagged::deserialize(d)
            }
        }

        impl<'de> agentwire_runtime::tagged::TaggedUnion<'de> for #name {
            const TAG: &'static str = #tag;
            const KINDS: &'static [&'static str] = &[#(#values),*];
            #default_kind

            fn from_kind<M: agentwire_runtime::serde::de::MapAccess<'de>>(kind: &str, rest: M) -> Result<Self, M::Error> {
                match kind {
                    #( #values => #reads.map(Self::#idents), )*
                    _ => Err(agentwire_runtime::tagged::unknown_kind::<Self, M::Error>(kind)),
                }
            }
        }

        impl agentwire_runtime::Validate for #name {
            fn validate_at(&self, at: &mut agentwire_runtime::JsonPointer, errors: &mut Vec<agentwire_runtime::FieldError>) {
                match self { #( Self::#idents(v) => v.validate_at(at, errors), )* }
                #whole
            }
        }
    }
}
