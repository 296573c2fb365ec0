//! Mixed-radix packing of per-task states into one big unsigned integer, written as a
//! fixed number of big-endian bytes. The byte count depends only on the radices (that
//! is, on the dataset's task shapes), never on the outcomes.

/// Little-endian base-2^32 natural number.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Nat(Vec<u32>);

impl Nat {
    fn from_u64(v: u64) -> Self {
        let mut n = Nat(vec![v as u32, (v >> 32) as u32]);
        n.trim();
        n
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// `self = self * mul + add`.
    fn mul_add(&mut self, mul: u64, add: u64) {
        let mut carry: u128 = u128::from(add);
        for limb in self.0.iter_mut() {
            let v = u128::from(*limb) * u128::from(mul) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        while carry > 0 {
            self.0.push(carry as u32);
            carry >>= 32;
        }
        self.trim();
    }

    /// `self /= div`, returning the remainder. `div` must be non-zero.
    fn div_rem(&mut self, div: u64) -> u64 {
        let div = u128::from(div.max(1));
        let mut rem: u128 = 0;
        for limb in self.0.iter_mut().rev() {
            let cur = (rem << 32) | u128::from(*limb);
            *limb = (cur / div) as u32;
            rem = cur % div;
        }
        self.trim();
        rem as u64
    }

    /// `self - 1`, saturating at zero.
    fn decrement(&mut self) {
        for limb in self.0.iter_mut() {
            if *limb > 0 {
                *limb -= 1;
                break;
            }
            *limb = u32::MAX;
        }
        self.trim();
    }

    fn byte_len(&self) -> usize {
        match self.0.last() {
            None => 0,
            Some(top) => (self.0.len() - 1) * 4 + (4 - top.leading_zeros() as usize / 8),
        }
    }

    fn to_be_bytes(&self, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        for (i, byte) in out.iter_mut().rev().enumerate() {
            let limb = self.0.get(i / 4).copied().unwrap_or(0);
            *byte = (limb >> (8 * (i % 4))) as u8;
        }
        out
    }

    fn from_be_bytes(bytes: &[u8]) -> Self {
        let mut limbs = vec![0u32; bytes.len().div_ceil(4)];
        for (i, byte) in bytes.iter().rev().enumerate() {
            if let Some(limb) = limbs.get_mut(i / 4) {
                *limb |= u32::from(*byte) << (8 * (i % 4));
            }
        }
        let mut n = Nat(limbs);
        n.trim();
        n
    }

    fn less_than(&self, other: &Nat) -> bool {
        if self.0.len() != other.0.len() {
            return self.0.len() < other.0.len();
        }
        for (a, b) in self.0.iter().rev().zip(other.0.iter().rev()) {
            if a != b {
                return a < b;
            }
        }
        false
    }
}

/// Number of bytes needed for any value of the mixed-radix space `radices`
/// (every radix must be at least 1).
pub(crate) fn packed_len(radices: &[u64]) -> usize {
    let mut space = Nat::from_u64(1);
    for r in radices {
        space.mul_add((*r).max(1), 0);
    }
    space.decrement();
    space.byte_len()
}

/// Packs `digits[i] < radices[i]` into `packed_len(radices)` big-endian bytes.
/// Returns `None` if a digit is out of range or the lengths differ.
pub(crate) fn pack(digits: &[u64], radices: &[u64]) -> Option<Vec<u8>> {
    if digits.len() != radices.len() {
        return None;
    }
    let mut acc = Nat(Vec::new());
    for (d, r) in digits.iter().zip(radices) {
        if d >= r {
            return None;
        }
        acc.mul_add(*r, *d);
    }
    Some(acc.to_be_bytes(packed_len(radices)))
}

/// Inverse of [`pack`]. Returns `None` when the bytes encode a value outside the space.
pub(crate) fn unpack(bytes: &[u8], radices: &[u64]) -> Option<Vec<u64>> {
    let mut space = Nat::from_u64(1);
    for r in radices {
        space.mul_add((*r).max(1), 0);
    }
    let mut acc = Nat::from_be_bytes(bytes);
    if !acc.less_than(&space) {
        return None;
    }
    let mut digits = vec![0u64; radices.len()];
    for (slot, r) in digits.iter_mut().zip(radices).rev() {
        *slot = acc.div_rem((*r).max(1));
    }
    Some(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_lengths() {
        let radices = [3u64, 1, 7, 1 << 40, 5, 2];
        let digits = [2u64, 0, 6, (1 << 40) - 1, 0, 1];
        let bytes = pack(&digits, &radices).unwrap_or_default();
        assert_eq!(bytes.len(), packed_len(&radices));
        assert_eq!(unpack(&bytes, &radices), Some(digits.to_vec()));
        // 3*7*2^40*5*2 = 210 * 2^40 → 48 bits → 6 bytes.
        assert_eq!(packed_len(&radices), 6);
        assert_eq!(packed_len(&[]), 0);
        assert_eq!(packed_len(&[256]), 1);
        assert_eq!(packed_len(&[257]), 2);
        assert_eq!(pack(&[3], &[3]), None);
        assert_eq!(unpack(&[3], &[3]), None);
        assert_eq!(unpack(&[2], &[3]), Some(vec![2]));
    }
}
