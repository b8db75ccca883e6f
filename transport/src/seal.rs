//! Sealed state: a server's own state handed to a client as an opaque string the client
//! gives back later (a multi-round request's continuation), sealed so that the client can
//! neither read a meaning into it that the server must trust nor change it, and any server
//! instance holding the key can open it (nothing is kept on the server).
//!
//! The sealed form is base64url (no padding) of
//! `version (1 byte) ‖ expiry (u64, seconds since the Unix epoch, big endian) ‖ state ‖ tag`,
//! where `tag` is HMAC-SHA256 under the key over a domain label, the length and bytes of the
//! context the state is bound to (the request method, say, so that state sealed for one
//! request is refused on another), then everything before the tag. Opening checks the tag
//! in constant time before reading anything else, then the expiry. The state is integrity
//! protected, not hidden: a server that must keep it secret from the client encrypts it
//! first.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = hmac::Hmac<Sha256>;

/// The format's version byte.
const VERSION: u8 = 1;
/// Separates this use of the key from any other.
const DOMAIN: &[u8] = b"agentwire sealed state v1\0";
/// The tag's length (HMAC-SHA256).
const TAG: usize = 32;
/// Before the state: the version byte and the expiry.
const HEAD: usize = 1 + 8;
/// The shortest key accepted: as long as the hash's output.
pub const MIN_KEY_BYTES: usize = 32;
/// The largest sealed string opened (a client's copy is attacker-controlled input).
pub const MAX_SEALED_BYTES: usize = 64 * 1024;

/// Why state could not be sealed or opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    /// The key is shorter than [`MIN_KEY_BYTES`].
    #[error("a sealing key needs at least {MIN_KEY_BYTES} bytes, not {0}")]
    ShortKey(usize),
    /// The string is not base64url, or too short to hold a tag.
    #[error("sealed state is malformed: {0}")]
    Malformed(&'static str),
    /// Larger than [`MAX_SEALED_BYTES`].
    #[error("sealed state is larger than {MAX_SEALED_BYTES} bytes")]
    TooLarge,
    /// The tag does not verify: the state was changed, bound to another context, or sealed
    /// under another key.
    #[error(
        "sealed state does not verify (changed, sealed for another request, or under another key)"
    )]
    Forged,
    /// It verified, but its time ran out.
    #[error("sealed state expired {0:?} ago")]
    Expired(Duration),
}

/// Seals and opens state with one secret key, shared by every server instance that must
/// continue another's flows; keys being rotated out still open what they sealed.
#[derive(Clone)]
pub struct Sealer {
    /// Seals with the first; opens with any.
    keys: Vec<Vec<u8>>,
    ttl: Duration,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the keys.
        f.debug_struct("Sealer")
            .field("keys", &self.keys.len())
            .field("ttl", &self.ttl)
            .finish()
    }
}

impl Sealer {
    /// A sealer with `key` (at least [`MIN_KEY_BYTES`] random bytes) whose sealed state
    /// expires `ttl` after sealing.
    pub fn new(key: &[u8], ttl: Duration) -> Result<Self, SealError> {
        if key.len() < MIN_KEY_BYTES {
            return Err(SealError::ShortKey(key.len()));
        }
        Ok(Self {
            keys: vec![key.to_vec()],
            ttl,
        })
    }

    /// Also opens state sealed under `old` (a key being rotated out); sealing keeps the
    /// newest key.
    pub fn also_opening(mut self, old: &[u8]) -> Result<Self, SealError> {
        if old.len() < MIN_KEY_BYTES {
            return Err(SealError::ShortKey(old.len()));
        }
        self.keys.push(old.to_vec());
        Ok(self)
    }

    /// How long sealed state lives.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Seals `state` bound to `context` (opening it needs the same context).
    pub fn seal(&self, context: &str, state: &[u8]) -> Result<String, SealError> {
        self.seal_at(context, state, SystemTime::now())
    }

    fn seal_at(&self, context: &str, state: &[u8], now: SystemTime) -> Result<String, SealError> {
        let expiry = seconds(now).saturating_add(self.ttl.as_secs().max(1));
        let mut body = Vec::with_capacity(HEAD + state.len() + TAG);
        body.push(VERSION);
        body.extend_from_slice(&expiry.to_be_bytes());
        body.extend_from_slice(state);
        let key = self.keys.first().ok_or(SealError::ShortKey(0))?;
        let tag = mac(key, context, &body)
            .ok_or(SealError::ShortKey(key.len()))?
            .finalize()
            .into_bytes();
        body.extend_from_slice(&tag);
        if body.len() * 4 / 3 + 4 > MAX_SEALED_BYTES {
            return Err(SealError::TooLarge);
        }
        Ok(URL_SAFE_NO_PAD.encode(body))
    }

    /// The state `sealed` holds, if it verifies under one of the keys for `context` and has
    /// not expired.
    pub fn open(&self, context: &str, sealed: &str) -> Result<Vec<u8>, SealError> {
        self.open_at(context, sealed, SystemTime::now())
    }

    fn open_at(&self, context: &str, sealed: &str, now: SystemTime) -> Result<Vec<u8>, SealError> {
        if sealed.len() > MAX_SEALED_BYTES {
            return Err(SealError::TooLarge);
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(sealed)
            .map_err(|_| SealError::Malformed("not base64url"))?;
        if bytes.len() < HEAD + TAG {
            return Err(SealError::Malformed("too short"));
        }
        let (body, tag) = bytes.split_at(bytes.len() - TAG);
        // `verify_slice` compares in constant time.
        let verified = self
            .keys
            .iter()
            .any(|key| mac(key, context, body).is_some_and(|m| m.verify_slice(tag).is_ok()));
        if !verified {
            return Err(SealError::Forged);
        }
        if body[0] != VERSION {
            return Err(SealError::Malformed("unknown version"));
        }
        let mut expiry = [0u8; 8];
        expiry.copy_from_slice(&body[1..HEAD]);
        let expiry = u64::from_be_bytes(expiry);
        let now = seconds(now);
        if now >= expiry {
            return Err(SealError::Expired(Duration::from_secs(now - expiry)));
        }
        Ok(body[HEAD..].to_vec())
    }
}

/// The MAC over the domain label, the context and `body`; `None` only if HMAC refused the
/// key, which it does for no length.
fn mac(key: &[u8], context: &str, body: &[u8]) -> Option<HmacSha256> {
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(key).ok()?;
    m.update(DOMAIN);
    m.update(&(context.len() as u64).to_be_bytes());
    m.update(context.as_bytes());
    m.update(body);
    Some(m)
}

fn seconds(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";
    const OTHER: &[u8] = b"fedcba9876543210fedcba9876543210";

    fn sealer() -> Sealer {
        Sealer::new(KEY, Duration::from_secs(60)).unwrap()
    }

    #[test]
    fn sealed_state_opens_for_its_context_only() {
        let s = sealer();
        let sealed = s.seal("tools/call", b"{\"step\":2}").unwrap();
        assert!(!sealed.contains('+') && !sealed.contains('/') && !sealed.contains('='));
        assert_eq!(s.open("tools/call", &sealed).unwrap(), b"{\"step\":2}");
        assert_eq!(s.open("prompts/get", &sealed), Err(SealError::Forged));
        // Another instance with the same key opens it.
        assert_eq!(
            sealer().open("tools/call", &sealed).unwrap(),
            b"{\"step\":2}"
        );
    }

    #[test]
    fn every_changed_byte_a_foreign_key_and_time_are_refused() {
        let s = sealer();
        let sealed = s.seal("m", b"state").unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(&sealed).unwrap();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x01;
            let e = s.open("m", &URL_SAFE_NO_PAD.encode(&b)).unwrap_err();
            assert_eq!(e, SealError::Forged, "byte {i}");
        }
        let foreign = Sealer::new(OTHER, Duration::from_secs(60)).unwrap();
        assert_eq!(foreign.open("m", &sealed), Err(SealError::Forged));
        let later = SystemTime::now() + Duration::from_secs(61);
        assert!(matches!(
            s.open_at("m", &sealed, later),
            Err(SealError::Expired(_))
        ));
        assert_eq!(
            s.open("m", "not base64!"),
            Err(SealError::Malformed("not base64url"))
        );
        assert_eq!(s.open("m", "AAAA"), Err(SealError::Malformed("too short")));
        let huge = "A".repeat(MAX_SEALED_BYTES + 1);
        assert_eq!(s.open("m", &huge), Err(SealError::TooLarge));
        assert_eq!(
            Sealer::new(b"short", Duration::from_secs(1)).unwrap_err(),
            SealError::ShortKey(5)
        );
    }

    #[test]
    fn a_rotated_key_still_opens_what_it_sealed() {
        let old = Sealer::new(OTHER, Duration::from_secs(60)).unwrap();
        let sealed = old.seal("m", b"x").unwrap();
        let rotated = sealer().also_opening(OTHER).unwrap();
        assert_eq!(rotated.open("m", &sealed).unwrap(), b"x");
        // New state is sealed under the new key.
        assert_eq!(
            old.open("m", &rotated.seal("m", b"y").unwrap()),
            Err(SealError::Forged)
        );
        assert!(!format!("{rotated:?}").contains("0123"));
    }
}
