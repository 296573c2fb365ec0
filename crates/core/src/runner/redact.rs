//! Redaction of secrets by value: whatever a server's wording, a text that quotes the API
//! key (whole, as `Bearer KEY` or `x-api-key: KEY`, or a long enough piece of it, as a
//! server that shows the key's start or end does) is shown with the key replaced by
//! [`MASK`]. Both front doors pass every message they print, store or show through the
//! [`Redactor`] of the keys they hold.

/// What a redacted key reads as.
pub const MASK: &str = "<redacted>";

/// The shortest piece of a key that is redacted on its own (a piece this long cannot be
/// an accident of wording; shorter keys are only redacted whole).
pub const MIN_PIECE: usize = 8;

/// The keys to redact.
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Vec<Vec<u8>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a key.
        write!(f, "Redactor({} secret(s))", self.secrets.len())
    }
}

impl Redactor {
    /// A redactor of `secrets` (empty ones are ignored).
    pub fn new<S: AsRef<str>>(secrets: impl IntoIterator<Item = S>) -> Self {
        let mut r = Self::default();
        for s in secrets {
            r.add(s.as_ref());
        }
        r
    }

    /// Adds a key.
    pub fn add(&mut self, secret: &str) {
        let secret = secret.trim().as_bytes().to_vec();
        if !secret.is_empty() && !self.secrets.contains(&secret) {
            self.secrets.push(secret);
        }
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// The length of the longest piece of a key starting at `text[i..]` that is redacted:
    /// the whole key, or at least [`MIN_PIECE`] bytes of it.
    fn match_at(&self, text: &[u8], i: usize) -> usize {
        let mut best = 0;
        for secret in &self.secrets {
            let whole = secret.len();
            if text[i..].starts_with(secret) {
                best = best.max(whole);
                continue;
            }
            if whole < MIN_PIECE {
                continue;
            }
            // The longest common run of text[i..] with any suffix-start of the key.
            for start in 0..=whole - MIN_PIECE {
                let piece = &secret[start..];
                let n = piece
                    .iter()
                    .zip(&text[i..])
                    .take_while(|(a, b)| a == b)
                    .count();
                if n >= MIN_PIECE {
                    best = best.max(n);
                }
            }
        }
        best
    }

    /// `bytes` with every key (and every long piece of one) replaced by [`MASK`].
    pub fn redact_bytes(&self, bytes: &[u8]) -> Vec<u8> {
        if self.secrets.is_empty() {
            return bytes.to_vec();
        }
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let n = self.match_at(bytes, i);
            if n > 0 {
                out.extend_from_slice(MASK.as_bytes());
                i += n;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        out
    }

    /// `text` with every key replaced (see [`Redactor::redact_bytes`]); the result is
    /// valid UTF-8 (a cut through a character is replaced).
    pub fn redact(&self, text: &str) -> String {
        if self.secrets.is_empty() {
            return text.to_owned();
        }
        String::from_utf8_lossy(&self.redact_bytes(text.as_bytes())).into_owned()
    }

    /// The longest key, in bytes (what a streamed text must hold back to redact a key
    /// split across chunks).
    pub fn longest(&self) -> usize {
        self.secrets.iter().map(Vec::len).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-live-0123456789abcdefXYZ";

    #[test]
    fn every_wording_loses_the_key() {
        let r = Redactor::new([KEY]);
        for text in [
            format!("invalid key {KEY}"),
            format!("{{\"error\": {{\"message\": \"key '{KEY}' is not valid\"}}}}"),
            format!("Authorization: Bearer {KEY}"),
            format!("x-api-key: {KEY}"),
            format!("<html><body><h1>401</h1><p>{KEY}</p></body></html>"),
            format!("key starting {} rejected", &KEY[..12]),
            format!("key ending in {}", &KEY[KEY.len() - 10..]),
        ] {
            let out = r.redact(&text);
            assert!(!out.contains(&KEY[..MIN_PIECE]), "{out}");
            assert!(!out.contains(&KEY[KEY.len() - MIN_PIECE..]), "{out}");
            assert!(out.contains(MASK), "{out}");
        }
    }

    #[test]
    fn other_text_is_kept_and_short_keys_are_redacted_whole_only() {
        let r = Redactor::new(["abc"]);
        assert_eq!(r.redact("ab abc abcd"), format!("ab {MASK} {MASK}d"));
        let r = Redactor::new([KEY]);
        // Seven characters of the key are wording, not a key.
        assert_eq!(r.redact("sk-live fine"), "sk-live fine");
        assert_eq!(Redactor::default().redact("x"), "x");
        assert_eq!(format!("{r:?}"), "Redactor(1 secret(s))");
    }

    #[test]
    fn multibyte_text_stays_valid() {
        let r = Redactor::new([KEY]);
        let out = r.redact(&format!("键 {KEY} 键"));
        assert_eq!(out, format!("键 {MASK} 键"));
    }
}
