//! The requests a sequence checker types responses by: a machine transition on a response
//! may name the request it answers (`server.response to client.initialize`) and read that
//! request's result, so the checker remembers the requests of those kinds by sender and
//! typed id (`2` and `"2"` are different requests) until the other side answers them.

use crate::machine::Field;

/// Outstanding requests of the kinds some transition names, by asker and instance key of
/// their id. Bounded: beyond `limit` entries, new requests are not remembered (their answers
/// then match only transitions that name no request), so a peer cannot grow it without end.
#[derive(Debug, Clone)]
pub struct Answers<K> {
    open: std::collections::HashMap<(&'static str, String), K, foldhash::fast::RandomState>,
    limit: usize,
}

impl<K: Copy> Answers<K> {
    /// An empty table holding at most `limit` outstanding requests.
    pub fn new(limit: usize) -> Self {
        Self {
            open: Default::default(),
            limit,
        }
    }

    /// Remembers that `asker` sent a request of `kind` with `id`. A request that reuses the
    /// id of an outstanding one replaces it (the sequence machines report the reuse).
    pub fn ask(&mut self, asker: &'static str, id: Field<'_>, kind: K) {
        let Some(key) = id.key() else { return };
        let entry = (asker, key.into_owned());
        if self.open.len() < self.limit || self.open.contains_key(&entry) {
            self.open.insert(entry, kind);
        }
    }

    /// The kind of the outstanding request of any of `askers` that a response with `id`
    /// answers, forgetting it; `None` when no remembered request has that id.
    pub fn take(&mut self, askers: &[&'static str], id: Field<'_>) -> Option<K> {
        if self.open.is_empty() {
            return None;
        }
        let key = id.key()?;
        askers
            .iter()
            .find_map(|a| self.open.remove(&(*a, key.clone().into_owned())))
    }

    /// Requests remembered now.
    pub fn len(&self) -> usize {
        self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_matched_by_typed_id_and_asker() {
        let mut a = Answers::new(8);
        a.ask("client", Field::Int(2), 'i');
        // The string "2" is another request; the server's own requests are not asked here.
        assert_eq!(a.take(&["client"], Field::Str("2")), None);
        assert_eq!(a.take(&["server"], Field::Int(2)), None);
        assert_eq!(a.take(&["client"], Field::Int(2)), Some('i'));
        // Answered once: forgotten.
        assert_eq!(a.take(&["client"], Field::Int(2)), None);
        assert!(a.is_empty());
    }

    #[test]
    fn the_table_is_bounded() {
        let mut a = Answers::new(2);
        for n in 0..5 {
            a.ask("client", Field::Int(n), n);
        }
        assert_eq!(a.len(), 2);
        assert_eq!(a.take(&["client"], Field::Int(4)), None);
        assert_eq!(a.take(&["client"], Field::Int(1)), Some(1));
    }
}
