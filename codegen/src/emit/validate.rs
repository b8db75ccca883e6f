//! Validator emitter, the one for JSON and protobuf types alike: `impl Validate` for structs
//! and newtypes, checking every constraint the type cannot express and recursing into nested
//! values with their JSON pointer. For a protobuf spec the same checks are written against
//! prost's types (enum fields are `i32`, a oneof is an `Option` of an enum, implicit-presence
//! scalars are bare values).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Constraints, Field, Scalar, Ty, TypeDef, TypeKind};
use crate::naming::{Name, Names, RustPath};
use crate::rules::{self, Shape};

/// The names of the types whose values can fail validation: those with a constraint of their
/// own or holding, at any depth, a type that has one. Validators skip every field outside this
/// set, so a field with nothing to check costs nothing, not even a pointer segment.
pub fn fallible_types(types: &BTreeMap<String, TypeDef>, proto: bool) -> BTreeSet<String> {
    let v = Validators {
        types,
        fallible: BTreeSet::new(),
        proto,
        package: "",
    };
    let mut fallible = BTreeSet::new();
    // A fixpoint, because types refer to each other (and to themselves) in any order.
    loop {
        let before = fallible.len();
        let v = Validators {
            fallible: fallible.clone(),
            ..v
        };
        for (name, def) in types {
            if !fallible.contains(name) && v.can_fail(def) {
                fallible.insert(name.clone());
            }
        }
        if fallible.len() == before {
            return fallible;
        }
    }
}

/// Emits validators for the types of one protocol.
#[derive(Clone)]
pub struct Validators<'a> {
    pub types: &'a BTreeMap<String, TypeDef>,
    /// [`fallible_types`] of the protocol.
    pub fallible: BTreeSet<String>,
    /// Whether the Rust types are prost's.
    pub proto: bool,
    /// The protobuf package, for messages that name a proto type (empty for JSON).
    pub package: &'a str,
}

impl<'a> Validators<'a> {
    /// `package` is the protobuf package when the types are prost's.
    pub fn new(types: &'a BTreeMap<String, TypeDef>, package: Option<&'a str>) -> Self {
        let proto = package.is_some();
        Self {
            types,
            fallible: fallible_types(types, proto),
            proto,
            package: package.unwrap_or_default(),
        }
    }

    fn kind(&self, name: &str) -> Option<&'a TypeKind> {
        self.types.get(name).map(|d| &d.kind)
    }

    fn can_fail(&self, def: &TypeDef) -> bool {
        // A rule on the value as a whole (a union's `subschema`).
        if !def.rules.is_empty() {
            return true;
        }
        match &def.kind {
            TypeKind::Struct(fields) => {
                fields.iter().any(|f| self.field_checks(f).is_some())
                    || self.extra_checks(def).is_some()
                    || !def.rules.is_empty()
            }
            // A prost enum field is an `i32` that may hold a number the enum lacks.
            TypeKind::Enum(_) => self.proto,
            // Each member's JSON type is checked by decoding; primitives carry no rule, a
            // member that names a type carries that type's.
            TypeKind::Untagged(members) => members.iter().any(|t| {
                self.value_checks(t, &Default::default(), quote!(v))
                    .is_some()
            }),
            TypeKind::Union { variants, .. } => variants
                .iter()
                .any(|v| self.fallible.contains(&v.type_name)),
            TypeKind::Oneof { cases, required } => {
                *required
                    || cases.iter().any(|c| {
                        self.value_checks(&c.ty, &c.constraints, quote!(v))
                            .is_some()
                    })
            }
            TypeKind::Alias {
                target,
                constraints,
            } => {
                !constraints.only(Shape::Object).is_empty()
                    || self.value_checks(target, constraints, quote!(v)).is_some()
            }
        }
    }

    fn names(&self) -> Names {
        if self.proto {
            Names::Prost
        } else {
            Names::Spec
        }
    }

    fn type_path(&self, name: &str) -> RustPath {
        self.names().type_path(name)
    }

    fn member(&self, name: &str) -> Name {
        self.names().field(name)
    }

    /// The `Validate` impl of a struct or constrained newtype (enums and unions of a JSON
    /// protocol get theirs from the type emitter; a protobuf enum or oneof is checked where it
    /// is used).
    pub fn emit(&self, def: &TypeDef) -> TokenStream {
        let name = self.type_path(&def.name);
        let body = match &def.kind {
            TypeKind::Struct(fields) => {
                let checks = fields.iter().filter_map(|f| self.field_checks(f));
                let extra = self.extra_checks(def);
                // The rules on the object as a whole, on its JSON form.
                let whole = if self.proto {
                    Vec::new()
                } else {
                    let rt = quote!(agentwire_runtime);
                    // A closed struct's conditions see the members it skipped, as sent.
                    let value = if def.keeps_undeclared() {
                        quote!(&agentwire_runtime::subschema::AsSent(
                            self,
                            &self.__undeclared
                        ))
                    } else {
                        quote!(self)
                    };
                    rules::emit::checks(&def.rules, Shape::Object, value, &rt)
                };
                quote!(#(#checks)* #extra #(#whole)*)
            }
            TypeKind::Alias {
                target,
                constraints,
            } if !constraints.is_empty() => {
                // The rules on the value as a whole (`subschema`) after the target's own.
                let rt = quote!(agentwire_runtime);
                let whole = rules::emit::checks(constraints, Shape::Object, quote!(self), &rt);
                let own = self
                    .value_checks(target, &constraints.without(Shape::Object), quote!(v))
                    .map(|c| quote! { let v = &self.0; #c });
                quote!(#own #(#whole)*)
            }
            _ => return TokenStream::new(),
        };
        let (at, errors) = if body.is_empty() {
            (quote!(_at), quote!(_errors))
        } else {
            (quote!(at), quote!(errors))
        };
        quote! {
            impl agentwire_runtime::Validate for #name {
                fn validate_at(&self, #at: &mut agentwire_runtime::JsonPointer, #errors: &mut Vec<agentwire_runtime::FieldError>) {
                    #body
                }
            }
        }
    }

    /// The checks of an open struct's extra members, each under its own key; `None` when the
    /// struct is closed or its members' type has nothing to check.
    fn extra_checks(&self, def: &TypeDef) -> Option<TokenStream> {
        let (TypeKind::Struct(fields), Some(ty)) = (&def.kind, &def.open) else {
            return None;
        };
        if self.proto || !needs_walk(ty, &self.fallible) {
            return None;
        }
        let ident = crate::naming::extra_ident(fields);
        Some(quote!(agentwire_runtime::Validate::validate_at(&self.#ident, at, errors);))
    }

    /// The checks of one struct field, under its JSON key; `None` when nothing can fail.
    fn field_checks(&self, f: &Field) -> Option<TokenStream> {
        let ident = self.member(&f.name);
        if let Some(TypeKind::Oneof { cases, required }) = f.ty.named().and_then(|n| self.kind(n)) {
            return self.oneof_checks(f, cases, *required);
        }
        let json = &f.name;
        // Checked first and on the whole field (its `Option`), so an absent field is reported
        // once, under its own key.
        let set = f.must_be_set.then(|| {
            quote! {
                at.with(#json, |at| agentwire_runtime::validate::required(&self.#ident, #json, at, errors));
            }
        });
        let Some(check) = self.value_checks(&f.ty, &f.constraints, quote!(v)) else {
            return set;
        };
        Some(if f.optional && !f.defaulted {
            quote! {
                #set
                if let Some(v) = &self.#ident {
                    at.with(#json, |at| { #check });
                }
            }
        } else {
            quote! {
                #set
                let v = &self.#ident;
                at.with(#json, |at| { #check });
            }
        })
    }

    /// A oneof field: the case that is set is checked under its own key (proto3 JSON puts the
    /// case among the message's keys); a stream wrapper's oneof must be set.
    fn oneof_checks(&self, f: &Field, cases: &[Field], required: bool) -> Option<TokenStream> {
        let oneof = f.ty.named()?;
        let enum_path = self.type_path(oneof);
        let member = self.member(&f.name);
        let mut arms = Vec::new();
        let mut single = None;
        for c in cases {
            if let Some(check) = self.value_checks(&c.ty, &c.constraints, quote!(v)) {
                let variant = crate::naming::prost_variant(&c.name);
                let key = &c.name;
                let body = quote!(at.with(#key, |at| { #check }));
                single = Some(quote! {
                    if let Some(#enum_path::#variant(v)) = &self.#member { #body; }
                });
                arms.push(quote! { Some(#enum_path::#variant(v)) => #body, });
            }
        }
        if !required {
            return match arms.len() {
                0 => None,
                // One case to check is an `if let` (clippy's single_match).
                1 => single,
                _ => Some(quote! { match &self.#member { #(#arms)* _ => {} } }),
            };
        }
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        let missing = format!(
            "no `{}` case is set; expected one of: {}",
            f.name,
            names.join(", ")
        );
        let rest = (arms.len() < cases.len()).then(|| quote!(Some(_) => {}));
        Some(quote! {
            match &self.#member {
                #(#arms)*
                #rest
                None => errors.push(agentwire_runtime::FieldError::new(
                    at.as_str(),
                    agentwire_runtime::Rule::MissingKind,
                    #missing,
                )),
            }
        })
    }

    /// Checks for a value `v` (a reference) of type `ty`; `None` when nothing can fail.
    fn value_checks(&self, ty: &Ty, c: &Constraints, v: TokenStream) -> Option<TokenStream> {
        if let Ty::Nullable(inner) = ty {
            let inner = self.value_checks(inner, c, quote!(v))?;
            return Some(quote! { if let Some(v) = #v { #inner } });
        }
        let rt = quote!(agentwire_runtime);
        let mut out = Vec::new();
        match ty {
            Ty::String => out.extend(rules::emit::checks(c, Shape::Text, v, &rt)),
            Ty::Number | Ty::Integer | Ty::Scalar(_) => {
                let as_f64 = match ty {
                    Ty::Integer | Ty::Scalar(Scalar::Int64 | Scalar::Uint64) => quote!(*#v as f64),
                    Ty::Scalar(Scalar::Int32 | Scalar::Uint32 | Scalar::Float) => {
                        quote!(f64::from(*#v))
                    }
                    _ => quote!(*#v),
                };
                out.extend(rules::emit::checks(c, Shape::Number, as_f64, &rt));
            }
            Ty::Array(inner) => {
                out.extend(rules::emit::checks(c, Shape::List, v.clone(), &rt));
                out.extend(self.each(inner, c, &v, false));
            }
            Ty::Map(inner) => out.extend(self.each(inner, c, &v, true)),
            Ty::Named(name) if self.fallible.contains(name) => match self.kind(name) {
                Some(TypeKind::Enum(_)) if self.proto => {
                    let path = self.type_path(name);
                    let message = format!("{{}} is not a value of {}.{name}", self.package);
                    out.push(quote! {
                        if #path::try_from(*#v).is_err() {
                            errors.push(agentwire_runtime::FieldError::new(
                                at.as_str(),
                                agentwire_runtime::Rule::Enum,
                                format!(#message, #v),
                            ));
                        }
                    });
                }
                _ => out.push(quote!(agentwire_runtime::Validate::validate_at(#v, at, errors);)),
            },
            _ => {}
        }
        (!out.is_empty()).then(|| quote!(#(#out)*))
    }

    /// The checks of every element of a list (or value of a map) `v`: the element rules (every
    /// rule but the item counts) and the element type's own. Without element rules, a walk
    /// through the container's `Validate` impl does it.
    fn each(&self, inner: &Ty, c: &Constraints, v: &TokenStream, map: bool) -> Option<TokenStream> {
        let element = c.without(Shape::List);
        let enum_element = self.proto
            && matches!(
                inner.named().and_then(|n| self.kind(n)),
                Some(TypeKind::Enum(_))
            );
        // prost maps may have non-string keys, which the runtime's map walk does not take.
        if element.is_empty() && !enum_element && !(map && self.proto) {
            return needs_walk(inner, &self.fallible)
                .then(|| quote!(agentwire_runtime::Validate::validate_at(#v, at, errors);));
        }
        let check = self.value_checks(inner, &element, quote!(v))?;
        Some(if map {
            quote! {
                for (k, v) in #v {
                    at.with(&::std::string::ToString::to_string(k), |at| { #check });
                }
            }
        } else {
            quote! {
                for (i, v) in #v.iter().enumerate() {
                    at.with_index(i, |at| { #check });
                }
            }
        })
    }
}

/// Whether values of `ty` can hold something that fails validation.
fn needs_walk(ty: &Ty, fallible: &BTreeSet<String>) -> bool {
    match ty {
        Ty::Named(name) => fallible.contains(name),
        Ty::Array(inner) | Ty::Map(inner) | Ty::Nullable(inner) => needs_walk(inner, fallible),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::ts::load_text;

    #[test]
    fn fallibility_follows_references_at_any_depth_and_through_cycles() {
        let types = load_text(
            r#"
/** @minLength 1 */
export type Id = string;
export interface Plain { text: string; n: number; kind: "a" | "b" }
interface HoldsId { ids: Id[] }
interface Deep { inner?: { holder: HoldsId | null } }
interface Tree { children: Tree[]; label: string }
interface A { type: "a"; plain: Plain }
interface B { type: "b"; deep: Deep }
type AorB = A | B;
type OnlyA = A;
            "#,
        );
        let v = Validators::new(&types, None);
        let fallible = &v.fallible;
        for name in ["Id", "HoldsId", "Deep", "B", "AorB"] {
            assert!(fallible.contains(name), "{name} can fail: {fallible:?}");
        }
        for name in ["Plain", "Tree", "A", "OnlyA"] {
            assert!(!fallible.contains(name), "{name} has nothing to check");
        }
        // A validator walks into fallible fields only.
        let a = v.emit(&types["A"]).to_string();
        assert!(!a.contains("\"plain\""), "{a}");
        let b = v.emit(&types["B"]).to_string();
        assert!(b.contains("\"deep\""), "{b}");
    }
}
