//! A carrier's checked declaration in the IR. A carrier is a transport a spec declares beside
//! its kind (`transport.<key>`); the plug-in registered for the key in `crate::transport`
//! reads and checks it into a type of its own module, which the IR holds without knowing it:
//! only that plug-in looks inside, by its type.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

/// One declared carrier: its key under `transport:` and its plug-in's value.
#[derive(Debug, Clone)]
pub struct Carried {
    pub key: &'static str,
    value: Arc<dyn CarriedValue>,
}

impl Carried {
    /// The value the plug-in registered for `key` made of `transport.<key>`.
    pub fn new<T: CarriedValue>(key: &'static str, value: T) -> Self {
        Carried {
            key,
            value: Arc::new(value),
        }
    }

    /// The value, if it is a `T`.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.value.as_any().downcast_ref()
    }
}

impl PartialEq for Carried {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.value.same(other.value.as_any())
    }
}

impl Eq for Carried {}

/// What a carrier's value is: any comparable, printable type of its module.
pub trait CarriedValue: Any + Debug + Send + Sync {
    fn as_any(&self) -> &dyn Any;
    /// Whether `other` is a value of the same type, equal to this one.
    fn same(&self, other: &dyn Any) -> bool;
}

impl<T: Any + Debug + PartialEq + Send + Sync> CarriedValue for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn same(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<T>() == Some(self)
    }
}
