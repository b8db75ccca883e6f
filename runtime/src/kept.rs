//! What a keyed machine keeps beside its live instances, both bounded: links (a second value
//! an instance can be reached by once, such as the id of the request that carried its
//! progress token, so that request's answer can end it) and the keys of the instances that
//! finished last (`retain: N`), kept in their final state so a message naming one again, such
//! as a request reusing an answered id, is judged by that state.

use std::collections::{HashMap, VecDeque};

use crate::machine::Field;

/// Links from a value to the instance key it reaches. Bounded: beyond `limit` links, new ones
/// are not recorded (the messages that would follow them then belong to no instance).
#[derive(Debug, Clone)]
pub struct Links {
    to: HashMap<String, String, foldhash::fast::RandomState>,
    limit: usize,
}

impl Links {
    /// No links, at most `limit` at a time.
    pub fn new(limit: usize) -> Self {
        Self {
            to: HashMap::default(),
            limit,
        }
    }

    /// Records that `by` (when it can be a key) reaches the instance `key`.
    pub fn link(&mut self, by: Field<'_>, key: &str) {
        let Some(by) = by.key() else { return };
        if self.to.len() < self.limit || self.to.contains_key(by.as_ref()) {
            self.to.insert(by.into_owned(), key.to_owned());
        }
    }

    /// The instance key `by` was linked to, using the link up.
    pub fn follow(&mut self, by: Field<'_>) -> Option<std::borrow::Cow<'static, str>> {
        let by = by.key()?;
        self.to.remove(by.as_ref()).map(std::borrow::Cow::Owned)
    }

    /// Links recorded now.
    pub fn len(&self) -> usize {
        self.to.len()
    }

    pub fn is_empty(&self) -> bool {
        self.to.is_empty()
    }
}

/// The keys of the last `limit` instances that reached a final state, oldest first.
#[derive(Debug, Clone)]
pub struct Retained {
    order: VecDeque<String>,
    limit: usize,
}

impl Retained {
    /// Keeps at most `limit` keys.
    pub fn new(limit: usize) -> Self {
        Self {
            order: VecDeque::new(),
            limit,
        }
    }

    /// Keeps `key`; returns the oldest key when that makes one too many (its instance may
    /// now be dropped, if it is still in a final state).
    pub fn keep(&mut self, key: &str) -> Option<String> {
        self.order.push_back(key.to_owned());
        if self.order.len() > self.limit {
            return self.order.pop_front();
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_followed_once_and_typed() {
        let mut links = Links::new(4);
        links.link(Field::Int(7), "tok-1");
        // The string "7" is another id.
        assert_eq!(links.follow(Field::Str("7")), None);
        assert_eq!(links.follow(Field::Int(7)).as_deref(), Some("tok-1"));
        assert_eq!(links.follow(Field::Int(7)), None);
        assert!(links.is_empty());
    }

    #[test]
    fn links_and_retained_keys_are_bounded() {
        let mut links = Links::new(2);
        for n in 0..5 {
            links.link(Field::Int(n), "k");
        }
        assert_eq!(links.len(), 2);
        let mut kept = Retained::new(2);
        assert_eq!(kept.keep("a"), None);
        assert_eq!(kept.keep("b"), None);
        assert_eq!(kept.keep("c").as_deref(), Some("a"));
    }
}
