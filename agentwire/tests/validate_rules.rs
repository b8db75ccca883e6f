//! `#[derive(Validate)]` takes every rule of the generator's rule table through the same
//! emitter as generated validators: `multiple_of`, the newest, end to end.
#![deny(warnings)]

use agentwire::{Rule, Validate};

#[derive(Validate)]
struct Order {
    #[validate(multiple_of = 0.25, minimum = 0)]
    quantity: f64,
    #[validate(multiple_of = 5)]
    batch: Option<u32>,
}

fn failures(order: &Order) -> Vec<(String, Rule)> {
    match order.validate() {
        Ok(()) => Vec::new(),
        Err(e) => e.errors.into_iter().map(|e| (e.pointer, e.rule)).collect(),
    }
}

#[test]
fn the_derive_checks_multiple_of() {
    let ok = Order {
        quantity: 1.75,
        batch: Some(15),
    };
    assert!(failures(&ok).is_empty());
    let bad = Order {
        quantity: 0.3,
        batch: Some(12),
    };
    assert_eq!(
        failures(&bad),
        [
            ("/quantity".to_owned(), Rule::MultipleOf(0.25)),
            ("/batch".to_owned(), Rule::MultipleOf(5.0)),
        ]
    );
    let unset = Order {
        quantity: -0.5,
        batch: None,
    };
    assert_eq!(
        failures(&unset),
        [("/quantity".to_owned(), Rule::Minimum(0.0))]
    );
}
