//! ROUGE-L F as computed by the Python package `rouge` 1.0.1 through
//! `Rouge().get_scores(hyp, ref)[0]["rouge-l"]["f"]` (PROTOCOL §5.4), including its errors
//! and the official scorer's recursion limit on the LCS backtrack (§6 P15).

use std::collections::{HashMap, HashSet};

use thiserror::Error;

use super::pystr::collapse_whitespace;

/// Cells a backtrack walk may visit for a top-level string argument under CPython 3.11's
/// default recursion limit as measured in the official scorer (PROTOCOL §5.4).
pub const TOP_LEVEL_MAX_CELLS: usize = 983;

/// The walk limit for a string nested `extra_depth` object/array levels below the
/// top-level argument object: `983 − e`.
pub fn max_cells_at_depth(extra_depth: usize) -> usize {
    TOP_LEVEL_MAX_CELLS.saturating_sub(extra_depth)
}

/// Why the official ROUGE computation raises.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RougeError {
    /// The hypothesis has no sentence (empty, or only dots): `ValueError`.
    #[error("Hypothesis is empty.")]
    HypothesisEmpty,
    /// The reference has no sentence: `ValueError`.
    #[error("Reference is empty.")]
    ReferenceEmpty,
    /// The recursive backtrack of a sentence pair would exceed Python's recursion limit.
    #[error("maximum recursion depth exceeded (backtrack needs more than {limit} cells)")]
    RecursionLimit {
        /// The number of cells the walk was allowed to visit.
        limit: usize,
    },
}

/// `rouge` 1.0.1 sentence split: cut at every `.`, drop exactly-empty pieces, collapse
/// Python whitespace in each remaining piece (a whitespace-only piece becomes `""`).
pub fn sentences(text: &str) -> Vec<String> {
    text.split('.')
        .filter(|piece| !piece.is_empty())
        .map(collapse_whitespace)
        .collect()
}

/// ROUGE-L (summary level) F score of `hypothesis` against `reference`.
///
/// `max_cells` is the number of cells one sentence pair's backtrack walk may visit before
/// the official code would hit `RecursionError` (see [`max_cells_at_depth`]).
pub fn rouge_l_f(hypothesis: &str, reference: &str, max_cells: usize) -> Result<f64, RougeError> {
    let hyp = sentences(hypothesis);
    let refs = sentences(reference);
    // ROUGE-1 runs first and raises these, in this order.
    if hyp.is_empty() {
        return Err(RougeError::HypothesisEmpty);
    }
    if refs.is_empty() {
        return Err(RougeError::ReferenceEmpty);
    }

    // Intern tokens so the LCS table compares integers.
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let hyp_tokens: Vec<Vec<u32>> = hyp.iter().map(|s| tokens(s, &mut ids)).collect();
    let ref_tokens: Vec<Vec<u32>> = refs.iter().map(|s| tokens(s, &mut ids)).collect();

    let n = distinct(&hyp_tokens);
    let m = distinct(&ref_tokens);
    let mut union: HashSet<u32> = HashSet::new();
    for q in &ref_tokens {
        for h in &hyp_tokens {
            lcs_words(q, h, max_cells, &mut union)?;
        }
    }
    let llcs = union.len() as f64;
    let r_lcs = llcs / m as f64;
    let p_lcs = llcs / n as f64;
    Ok(2.0 * ((p_lcs * r_lcs) / (p_lcs + r_lcs + 1e-8)))
}

/// Tokens of one sentence (cut at every single space), interned.
fn tokens<'t>(sentence: &'t str, ids: &mut HashMap<&'t str, u32>) -> Vec<u32> {
    sentence
        .split(' ')
        .map(|tok| {
            let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
            *ids.entry(tok).or_insert(next)
        })
        .collect()
}

fn distinct(sentences: &[Vec<u32>]) -> usize {
    sentences.iter().flatten().collect::<HashSet<_>>().len()
}

/// `_recon_lcs(x, y)` as a set, added to `out`: the LCS table's backtrack from
/// `(|x|, |y|)`, taking matches, moving up when `T[i-1][j] > T[i][j-1]` and left on ties.
/// Fails when the walk would visit more than `max_cells` cells.
///
/// Only the bottom-right `(max_cells+1)²` window of the table is kept: a walk that stays
/// within `max_cells` cells never reads outside it.
fn lcs_words(
    x: &[u32],
    y: &[u32],
    max_cells: usize,
    out: &mut HashSet<u32>,
) -> Result<(), RougeError> {
    let too_deep = RougeError::RecursionLimit { limit: max_cells };
    let (nx, ny) = (x.len(), y.len());
    // Every walk visits at least min(|x|, |y|) + 1 cells.
    if nx.min(ny) + 1 > max_cells {
        return Err(too_deep);
    }
    let r0 = nx.saturating_sub(max_cells);
    let c0 = ny.saturating_sub(max_cells);
    let width = ny - c0 + 1;
    let mut window = vec![0u32; (nx - r0 + 1) * width];

    let mut prev = vec![0u32; ny + 1];
    let mut cur = vec![0u32; ny + 1];
    for i in 0..=nx {
        if i > 0 {
            let xi = x.get(i - 1);
            cur[0] = 0;
            for j in 1..=ny {
                cur[j] = if xi == y.get(j - 1) {
                    prev[j - 1] + 1
                } else {
                    prev[j].max(cur[j - 1])
                };
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        // `prev` now holds row i.
        if i >= r0 {
            let start = (i - r0) * width;
            if let (Some(dst), Some(src)) =
                (window.get_mut(start..start + width), prev.get(c0..=ny))
            {
                dst.copy_from_slice(src);
            }
        }
    }

    let at = |i: usize, j: usize| -> Option<u32> {
        let (ri, cj) = (i.checked_sub(r0)?, j.checked_sub(c0)?);
        window.get(ri * width + cj).copied()
    };
    let (mut i, mut j) = (nx, ny);
    let mut cells = 0usize;
    loop {
        cells += 1;
        if cells > max_cells {
            return Err(too_deep);
        }
        if i == 0 || j == 0 {
            return Ok(());
        }
        let (xi, yj) = (x.get(i - 1), y.get(j - 1));
        if xi == yj {
            if let Some(&tok) = xi {
                out.insert(tok);
            }
            i -= 1;
            j -= 1;
        } else {
            match (at(i - 1, j), at(i, j - 1)) {
                (Some(up), Some(left)) if up > left => i -= 1,
                (Some(_), Some(_)) => j -= 1,
                // Unreachable while cells <= max_cells; treat as too deep.
                _ => return Err(too_deep),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(h: &str, r: &str) -> Result<f64, RougeError> {
        rouge_l_f(h, r, TOP_LEVEL_MAX_CELLS)
    }

    #[test]
    fn perfect_match_is_slightly_below_one() {
        assert_eq!(f("a b c", "a b c"), Ok(0.999999995));
        assert_eq!(f("Paris.", "Paris"), Ok(2.0 * (1.0 / (2.0 + 1e-8))));
    }

    #[test]
    fn seven_tenths_fails_but_prints_070() {
        let score = f("a b c d e f g x y z", "a b c d e f g h i j").unwrap_or(1.0);
        assert_eq!(score, 0.699999995);
        assert!(score < 0.7);
        assert_eq!(super::super::pystr::format_2f(score), "0.70");
    }

    #[test]
    fn tie_break_makes_scores_asymmetric() {
        let one_way = f("alpha alpha beta", "alpha beta alpha").unwrap_or(-1.0);
        let other = f("alpha beta alpha", "alpha alpha beta").unwrap_or(-1.0);
        assert_eq!(super::super::pystr::format_2f(one_way), "0.50");
        assert_eq!(other, 0.999999995);
    }

    #[test]
    fn set_semantics_and_sentence_order() {
        assert_eq!(f("very good plan", "very very good plan"), Ok(0.999999995));
        assert_eq!(
            f(
                "Bring the report. Meet at noon.",
                "Meet at noon. Bring the report."
            ),
            Ok(0.999999995)
        );
        assert_eq!(f("Paris,", "Paris"), Ok(0.0));
    }

    #[test]
    fn empty_inputs_raise_hypothesis_first() {
        assert_eq!(f("...", ".."), Err(RougeError::HypothesisEmpty));
        assert_eq!(f("", ""), Err(RougeError::HypothesisEmpty));
        assert_eq!(f("a", "."), Err(RougeError::ReferenceEmpty));
        // A whitespace-only piece survives as the token "".
        assert_eq!(f(" ", " "), Ok(0.999999995));
        assert_eq!(sentences("a. .b"), ["a", "", "b"]);
    }

    fn words(n: usize, last: &str) -> String {
        let mut v: Vec<String> = (0..n.saturating_sub(1)).map(|i| format!("w{i}")).collect();
        v.push(last.to_owned());
        v.join(" ")
    }

    #[test]
    fn recursion_limit_boundary_at_top_level() {
        // 981 tokens differing only in the last token: the walk visits 983 cells.
        let ok = rouge_l_f(&words(981, "P"), &words(981, "G"), max_cells_at_depth(0));
        assert!(ok.is_ok(), "{ok:?}");
        let bad = rouge_l_f(&words(982, "P"), &words(982, "G"), max_cells_at_depth(0));
        assert_eq!(bad, Err(RougeError::RecursionLimit { limit: 983 }));
    }

    #[test]
    fn recursion_limit_one_level_deeper_fails_one_earlier() {
        let ok = rouge_l_f(&words(980, "P"), &words(980, "G"), max_cells_at_depth(1));
        assert!(ok.is_ok(), "{ok:?}");
        let bad = rouge_l_f(&words(981, "P"), &words(981, "G"), max_cells_at_depth(1));
        assert!(bad.is_err());
    }

    #[test]
    fn long_unequal_sentences_use_the_window() {
        // 3000 hypothesis tokens against 5 reference tokens: the walk is short enough only
        // if it leaves early, which it cannot (it must walk left 3000 times), so it fails.
        let long = words(3000, "x");
        assert!(f(&long, "w0 w1 w2 w3 w4").is_err());
        // Identical short sentences inside long text split by dots are fine.
        let many = (0..500)
            .map(|i| format!("s{i} t{i}"))
            .collect::<Vec<_>>()
            .join(". ");
        assert_eq!(f(&many, &many), Ok(0.999999995));
    }
}
