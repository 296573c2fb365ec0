//! The item-response fit: a Rasch model fitted by penalised joint maximum likelihood.
//!
//! Respondents are the trials of the runs; an item is a dataset task. A response is 1
//! when the task is correct, 0 when it failed; an unscored task (absent or incomplete) is
//! no response. The model: `P(correct) = σ(θ_r − b_i)` with a respondent ability `θ_r` and
//! an item difficulty `b_i`, both with a normal prior of mean 0 and standard deviation
//! [`PRIOR_SD`], so that an item every respondent passes (or fails) gets a finite
//! difficulty and the fit is unique (the penalised log-likelihood is strictly concave).
//! The fit alternates exact one-dimensional Newton steps (every ability with the
//! difficulties fixed, then every difficulty with the abilities fixed) until no value
//! moves by more than [`TOLERANCE`] or [`MAX_SWEEPS`] sweeps; it is deterministic.

/// Standard deviation of the normal prior on abilities and difficulties (logits).
pub const PRIOR_SD: f64 = 2.0;
/// Convergence tolerance (logits).
pub const TOLERANCE: f64 = 1e-10;
/// Most sweeps of the alternating Newton steps.
pub const MAX_SWEEPS: usize = 500;

/// The fitted values.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// One ability per respondent.
    pub ability: Vec<f64>,
    /// One difficulty per item.
    pub difficulty: Vec<f64>,
    /// Sweeps made.
    pub sweeps: usize,
    /// Whether the tolerance was reached.
    pub converged: bool,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// One Newton step of the penalised log-likelihood in one parameter `x`, whose responses
/// are `(correct, other)` with `P(correct) = σ(sign·(x − other))`: an ability (`sign` 1,
/// `other` the item's difficulty) or a difficulty (`sign` −1, `other` the ability).
fn newton(x: f64, responses: impl Iterator<Item = (bool, f64)>, sign: f64) -> f64 {
    let precision = 1.0 / (PRIOR_SD * PRIOR_SD);
    let (mut grad, mut info) = (-x * precision, precision);
    for (y, other) in responses {
        let p = sigmoid(sign * (x - other));
        grad += sign * (f64::from(u8::from(y)) - p);
        info += p * (1.0 - p);
    }
    x + grad / info
}

/// Fits the model to `responses[r][i]` (respondent `r`, item `i`; `None` = no response).
pub fn rasch(responses: &[Vec<Option<bool>>], items: usize) -> Fit {
    let mut ability = vec![0.0; responses.len()];
    let mut difficulty = vec![0.0; items];
    let mut sweeps = 0;
    let mut converged = false;
    while sweeps < MAX_SWEEPS && !converged {
        sweeps += 1;
        let mut moved: f64 = 0.0;
        for (r, row) in responses.iter().enumerate() {
            let Some(old) = ability.get(r).copied() else {
                continue;
            };
            let pairs = row
                .iter()
                .zip(&difficulty)
                .filter_map(|(y, b)| y.map(|y| (y, *b)));
            let new = newton(old, pairs, 1.0);
            moved = moved.max((new - old).abs());
            if let Some(a) = ability.get_mut(r) {
                *a = new;
            }
        }
        for (i, b) in difficulty.iter_mut().enumerate() {
            let pairs = responses
                .iter()
                .zip(&ability)
                .filter_map(|(row, a)| row.get(i).copied().flatten().map(|y| (y, *a)));
            let new = newton(*b, pairs, -1.0);
            moved = moved.max((new - *b).abs());
            *b = new;
        }
        converged = moved < TOLERANCE;
    }
    Fit {
        ability,
        difficulty,
        sweeps,
        converged,
    }
}

/// The point-biserial correlation of an item's responses with the respondents' fitted
/// abilities (over the respondents who answered it); 0 when either has no variance.
pub fn point_biserial(column: &[Option<bool>], ability: &[f64]) -> f64 {
    let pairs: Vec<(f64, f64)> = column
        .iter()
        .zip(ability)
        .filter_map(|(y, a)| y.map(|y| (f64::from(u8::from(y)), *a)))
        .collect();
    let n = pairs.len() as f64;
    if pairs.len() < 2 {
        return 0.0;
    }
    let (my, ma) = (
        pairs.iter().map(|p| p.0).sum::<f64>() / n,
        pairs.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (y, a) in &pairs {
        sxy += (y - my) * (a - ma);
        sxx += (y - my) * (y - my);
        syy += (a - ma) * (a - ma);
    }
    if sxx <= 0.0 || syy <= 1e-24 {
        return 0.0;
    }
    sxy / (sxx * syy).sqrt()
}
