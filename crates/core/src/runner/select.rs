//! `--sessions RANGE`: which dataset sessions (0-based line indexes) to run.

/// A parsed selection such as `0-9,12,20-`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRange {
    parts: Vec<(usize, usize)>,
}

/// A malformed range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid --sessions {input:?}: {reason} (expected e.g. 0-9,12,20-)")]
pub struct RangeError {
    /// The input.
    pub input: String,
    /// What is wrong.
    pub reason: String,
}

impl SessionRange {
    /// Parses comma-separated `N`, `A-B` (inclusive) and `A-` (open) parts.
    pub fn parse(input: &str) -> Result<Self, RangeError> {
        let err = |reason: &str| RangeError {
            input: input.to_owned(),
            reason: reason.to_owned(),
        };
        let num = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| err(&format!("{s:?} is not a number")))
        };
        let mut parts = Vec::new();
        for part in input.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (a, b) = match part.split_once('-') {
                Some((a, "")) => (num(a)?, usize::MAX),
                Some((a, b)) => (num(a)?, num(b)?),
                None => {
                    let n = num(part)?;
                    (n, n)
                }
            };
            if b < a {
                return Err(err(&format!("{part:?} is backwards")));
            }
            parts.push((a, b));
        }
        if parts.is_empty() {
            return Err(err("empty"));
        }
        Ok(Self { parts })
    }

    /// True when session `line` is selected.
    pub fn contains(&self, line: usize) -> bool {
        self.parts.iter().any(|&(a, b)| (a..=b).contains(&line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_and_select() {
        let r = SessionRange::parse("0-2, 5,9-").unwrap_or_else(|e| panic!("{e}"));
        let picked: Vec<usize> = (0..12).filter(|&i| r.contains(i)).collect();
        assert_eq!(picked, vec![0, 1, 2, 5, 9, 10, 11]);
        assert!(SessionRange::parse("3-1").is_err());
        assert!(SessionRange::parse("x").is_err());
        assert!(SessionRange::parse("").is_err());
    }
}
