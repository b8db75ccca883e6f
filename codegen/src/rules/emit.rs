//! The rule checks of one value, the one emitter behind generated validators and
//! `#[derive(Validate)]`: each rule of the table becomes a call of its runtime function, in
//! table order, so a derived error is indistinguishable from a generated one.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::{Arg, Check, Constraints, Shape, Value};
use crate::ir::FORMATS;

/// The checks of the rules of `shape` in `c` on `value` (an expression: `&str` for text, `f64`
/// for a number, a slice or `&Vec` for a list), with `at` and `errors` in scope. `rt` is the
/// path of the runtime crate (`agentwire_runtime`, or `::agentwire::runtime` in a derive).
/// A text value's trimming rebinds `v`: a caller that reads `v` afterwards wraps the checks
/// in a block.
pub fn checks(
    c: &Constraints,
    shape: Shape,
    value: TokenStream,
    rt: &TokenStream,
) -> Vec<TokenStream> {
    let v_rt = quote!(#rt::validate);
    let mut value = value;
    let mut out = Vec::new();
    for (rule, arg) in c.iter().filter(|(r, _)| r.shape == shape) {
        match rule.check {
            Check::Trim => {
                // The receiver trims before checking, so the rules after it see the trimmed value.
                out.push(quote!(let v: &str = #value.trim();));
                value = quote!(v);
            }
            Check::Pattern => {
                let Value::Text(p) = arg else { continue };
                out.push(quote! {
                    static PATTERN: ::std::sync::LazyLock<#rt::regex::Regex> =
                        ::std::sync::LazyLock::new(|| {
                            #rt::regex::Regex::new(#p).expect("pattern checked when the spec was loaded")
                        });
                    #v_rt::pattern(#value, &PATTERN, #p, at, errors);
                });
            }
            Check::Schema => {
                let Value::Schema(text) = arg else { continue };
                out.push(quote! {
                    {
                        static SCHEMA: ::std::sync::LazyLock<#rt::subschema::Schema> =
                            ::std::sync::LazyLock::new(|| {
                                #rt::subschema::Schema::parse(#text)
                                    .expect("subschema checked when the spec was loaded")
                            });
                        #rt::subschema::check(#value, &SCHEMA, at, errors);
                    }
                });
            }
            Check::Call { function, .. } => {
                // A format the runtime does not know (carried from a JSON Schema) is documentation.
                if rule.arg == Arg::Format
                    && !matches!(arg, Value::Text(f) if FORMATS.contains(&f.as_str()))
                {
                    continue;
                }
                let function = Ident::new(function, Span::call_site());
                let arg = arg_tokens(arg);
                out.push(quote!(#v_rt::#function(#value, #arg at, errors);));
            }
        }
    }
    if shape == Shape::Text && !c.not_one_of.is_empty() {
        let values = &c.not_one_of;
        out.push(quote!(#v_rt::not_one_of(#value, &[#(#values),*], at, errors);));
    }
    out
}

/// A rule's argument as a Rust literal, with its trailing comma (none for a flag).
fn arg_tokens(v: &Value) -> TokenStream {
    match v {
        Value::Count(n) => quote!(#n,),
        Value::Number(n) => {
            let n = f64_tokens(*n);
            quote!(#n,)
        }
        Value::Text(t) => quote!(#t,),
        Value::Flag => TokenStream::new(),
        // Not an argument: the document is emitted as its own static (`checks`).
        Value::Schema(_) => TokenStream::new(),
        Value::KeyLists(lists) => {
            let entries = lists
                .iter()
                .map(|(k, needs)| quote!((#k, &[#(#needs),*] as &[&str])));
            quote!(&[#(#entries),*],)
        }
    }
}

/// A float literal that is also right in a derive's expansion for a negative number (`-` and
/// the magnitude: a negative literal token is not one a proc macro may hand back).
pub fn f64_tokens(n: f64) -> TokenStream {
    let magnitude = proc_macro2::Literal::f64_suffixed(n.abs());
    if n.is_sign_negative() && n != 0.0 {
        quote!(-#magnitude)
    } else {
        quote!(#magnitude)
    }
}
