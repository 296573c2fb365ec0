//! Python `difflib.SequenceMatcher(None, a, b).ratio()` on code points (PROTOCOL §5.4).
//!
//! The matched total is found by recursive longest-common-substring matching: the longest
//! common block of `a[alo..ahi]` and `b[blo..bhi]` (lowest start in `a` first, then lowest
//! start in `b`), then the same on the parts left and right of it. This is not an LCS, and
//! it is asymmetric. Auto-junk ("popular" elements of `b`, used only when `len(b) >= 200`)
//! is implemented as in CPython; there is no `isjunk` function.

use std::collections::{HashMap, HashSet};

/// `SequenceMatcher(None, a, b).ratio()` for strings, counted in code points.
pub fn ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    ratio_of(&a, &b)
}

/// `SequenceMatcher(None, a, b).ratio()` for arbitrary hashable sequences.
pub fn ratio_of<T: Eq + std::hash::Hash>(a: &[T], b: &[T]) -> f64 {
    let length = a.len() + b.len();
    if length == 0 {
        return 1.0;
    }
    let matches = Matcher::new(a, b).matched_total();
    2.0 * (matches as f64) / (length as f64)
}

/// The state CPython's `SequenceMatcher` keeps for `b` (`b2j` after auto-junk).
struct Matcher<'s, T> {
    a: &'s [T],
    b: &'s [T],
    /// Positions of each element of `b`, ascending; popular elements removed.
    b2j: HashMap<&'s T, Vec<usize>>,
}

impl<'s, T: Eq + std::hash::Hash> Matcher<'s, T> {
    fn new(a: &'s [T], b: &'s [T]) -> Self {
        let mut b2j: HashMap<&'s T, Vec<usize>> = HashMap::new();
        for (j, elt) in b.iter().enumerate() {
            b2j.entry(elt).or_default().push(j);
        }
        let n = b.len();
        if n >= 200 {
            let ntest = n / 100 + 1;
            let popular: HashSet<&'s T> = b2j
                .iter()
                .filter(|(_, idxs)| idxs.len() > ntest)
                .map(|(elt, _)| *elt)
                .collect();
            for elt in popular {
                b2j.remove(elt);
            }
        }
        Matcher { a, b, b2j }
    }

    /// CPython `find_longest_match(alo, ahi, blo, bhi)` with an empty junk set:
    /// `(i, j, size)`.
    fn find_longest_match(
        &self,
        alo: usize,
        ahi: usize,
        blo: usize,
        bhi: usize,
    ) -> (usize, usize, usize) {
        let (a, b) = (self.a, self.b);
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        // j2len[j] = length of the longest match ending with a[i-1] and b[j].
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for i in alo..ahi {
            let mut newj2len: HashMap<usize, usize> = HashMap::new();
            let Some(elt) = a.get(i) else { break };
            if let Some(positions) = self.b2j.get(elt) {
                for &j in positions {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let prev = match j.checked_sub(1) {
                        Some(pj) => j2len.get(&pj).copied().unwrap_or(0),
                        None => 0,
                    };
                    let k = prev + 1;
                    newj2len.insert(j, k);
                    if k > bestsize {
                        besti = i + 1 - k;
                        bestj = j + 1 - k;
                        bestsize = k;
                    }
                }
            }
            j2len = newj2len;
        }
        // Extend over equal non-junk elements (popular elements are not junk here), as
        // CPython does; with no popular elements this never changes the result.
        while besti > alo && bestj > blo && a.get(besti - 1) == b.get(bestj - 1) {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi
            && bestj + bestsize < bhi
            && a.get(besti + bestsize) == b.get(bestj + bestsize)
        {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    }

    /// Sum of the sizes of `get_matching_blocks()`.
    fn matched_total(&self) -> usize {
        let mut total = 0;
        let mut queue = vec![(0, self.a.len(), 0, self.b.len())];
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.find_longest_match(alo, ahi, blo, bhi);
            if k > 0 {
                total += k;
                if alo < i && blo < j {
                    queue.push((alo, i, blo, j));
                }
                if i + k < ahi && j + k < bhi {
                    queue.push((i + k, ahi, j + k, bhi));
                }
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_values() {
        assert_eq!(ratio("abcd", "bcda"), 0.75);
        assert_eq!(ratio("tide", "diet"), 0.25);
        assert_eq!(ratio("diet", "tide"), 0.5);
        assert_eq!(ratio("", ""), 1.0);
        assert_eq!(ratio("x", ""), 0.0);
    }

    #[test]
    fn golden_edit_scores() {
        assert_eq!(ratio("café", "cafe\u{301}"), 6.0 / 9.0);
        assert_eq!(ratio("Berlin", "Paris"), 4.0 / 11.0);
        assert_eq!(ratio("abce", "abcd"), 0.75);
        assert_eq!(ratio("abcdf", "abcde"), 0.8);
        assert_eq!(ratio("xxxxxxxa", "abcdefgh"), 0.125);
        assert_eq!(ratio("abcdexyz", "abcdefgh"), 0.625);
        assert_eq!(ratio("北京市", "北京"), 0.8);
    }

    #[test]
    fn not_an_lcs() {
        // LCS would be 3 ("abc"); the block matcher takes "abc" then nothing on the right.
        assert_eq!(ratio("abcxd", "dabc"), 6.0 / 9.0);
        // Lowest start in a wins among equally long blocks.
        assert_eq!(ratio("ab", "ba"), 0.5);
    }

    #[test]
    fn autojunk_removes_popular_elements_of_long_b() {
        // b has 200 'x': 'x' is popular (count > 3), so the scan finds nothing, but the
        // empty block at (0, 0) is still extended over equal elements (CPython: 8/204).
        let b = "x".repeat(200);
        assert_eq!(ratio("xxxx", &b), 8.0 / 204.0);
        let b2 = format!("a{}", "x".repeat(199));
        assert_eq!(ratio("axx", &b2), 2.0 * 3.0 / 203.0);
    }
}
