//! A stable 64-bit fingerprint of a dataset's text, for share links.
//!
//! The hash is 64-bit FNV-1a (offset basis `0xcbf29ce484222325`, prime `0x100000001b3`)
//! over the exact UTF-8 bytes of the text, with no normalisation (line endings and a
//! trailing newline change the fingerprint). It is a short, dependency-free and
//! platform-independent identifier, not a cryptographic hash: it tells two datasets
//! apart, it does not authenticate one.

const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// The FNV-1a 64-bit hash of `text`'s bytes.
pub fn fingerprint(text: &str) -> u64 {
    fingerprint_bytes(text.as_bytes())
}

/// The FNV-1a 64-bit hash of `bytes`.
pub fn fingerprint_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(OFFSET_BASIS, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(PRIME)
    })
}

/// The fingerprint as 16 lower-case hex digits.
pub fn fingerprint_hex(text: &str) -> String {
    format!("{:016x}", fingerprint(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_fnv1a_vectors() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fingerprint(""), 0xcbf29ce484222325);
        assert_eq!(fingerprint("a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fingerprint("foobar"), 0x85944171f73967e8);
        assert_eq!(fingerprint_hex("a"), "af63dc4c8601ec8c");
    }
}
