//! What makes a run checkable and re-usable by someone else: the run manifest (what was
//! run, with which settings, and a SHA-256 of every request and reply, in order per task,
//! plus the numbers the run claims, [`manifest`]), cassettes (recorded request/reply
//! pairs keyed by the canonical request, for free and deterministic replays,
//! [`cassette`]), and verification of a bundle of files against the dataset
//! ([`verify`]: typed claims, each holding or not with its first difference).
//!
//! Everything here is a pure function of text: the command line and the page call the
//! same functions.

pub mod cassette;
pub mod eee;
pub mod manifest;
pub mod verify;

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    #[test]
    fn sha256_of_abc() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
