//! Tool-call ids for rendered gold history (PROTOCOL §2.3): `"toolu_bdrk_"` plus 24
//! characters from `[A-Za-z0-9]`. The official generator is unseeded (N2); wildtool uses a
//! small deterministic generator with an optional seed so prompts are reproducible.

const ALPHABET: &[u8; 62] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A source of history tool-call ids.
pub trait IdSource {
    /// The next id.
    fn next_id(&mut self) -> String;
}

/// Deterministic ids from a seeded xorshift64* generator.
#[derive(Debug, Clone)]
pub struct SeededIds {
    state: u64,
}

impl SeededIds {
    /// A generator with the given seed (any value, including 0).
    pub fn new(seed: u64) -> Self {
        // splitmix64 of the seed, so that 0 and small seeds still give a good state.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Self { state: z | 1 }
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

impl IdSource for SeededIds {
    fn next_id(&mut self) -> String {
        let mut id = String::with_capacity(35);
        id.push_str("toolu_bdrk_");
        for _ in 0..24 {
            let idx = (self.next_u64() % ALPHABET.len() as u64) as usize;
            id.push(char::from(ALPHABET[idx]));
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_official_shape_and_are_reproducible() {
        let mut a = SeededIds::new(7);
        let mut b = SeededIds::new(7);
        let id = a.next_id();
        assert_eq!(id, b.next_id());
        assert!(id.starts_with("toolu_bdrk_"));
        assert_eq!(id.len(), 35);
        assert!(id[11..].chars().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a.next_id(), id, "successive ids differ");
        assert_ne!(SeededIds::new(8).next_id(), id, "seeds matter");
    }
}
