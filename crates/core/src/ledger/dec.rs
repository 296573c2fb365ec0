//! Exact decimals for amounts: a mantissa and a scale (`47.23` is `4723 × 10⁻²`). No binary
//! float ever enters the ledger state: JSON numbers are read from their Python `repr` text
//! (what wildtool's JSON layer writes), and amounts are written back as JSON floats whose
//! `repr` is the decimal's shortest form (`42.0`, `-47.23`).

use std::cmp::Ordering;
use std::fmt;

use crate::json::{float_repr, PyInt, Value};

/// Most decimal places an amount may have.
pub const MAX_SCALE: u8 = 12;

/// An exact decimal number. Equality and order compare values (`42 = 42.00`); the scale is
/// kept because it sets Beancount's inferred tolerance.
#[derive(Debug, Clone, Copy)]
pub struct Dec {
    mantissa: i128,
    scale: u8,
}

impl PartialEq for Dec {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Dec {}

impl PartialOrd for Dec {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Dec {
    fn cmp(&self, other: &Self) -> Ordering {
        let s = self.scale.max(other.scale);
        self.rescaled(s).cmp(&other.rescaled(s))
    }
}

impl std::hash::Hash for Dec {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let n = self.normalized();
        n.mantissa.hash(state);
        n.scale.hash(state);
    }
}

fn pow10(n: u8) -> i128 {
    10i128.pow(u32::from(n))
}

impl Dec {
    /// Zero (scale 0).
    pub const ZERO: Dec = Dec {
        mantissa: 0,
        scale: 0,
    };

    /// `mantissa × 10^(−scale)`; `None` when the scale is over [`MAX_SCALE`].
    pub fn new(mantissa: i128, scale: u8) -> Option<Self> {
        (scale <= MAX_SCALE).then_some(Self { mantissa, scale })
    }

    /// A whole number.
    pub fn int(n: i64) -> Self {
        Self {
            mantissa: i128::from(n),
            scale: 0,
        }
    }

    /// The scale (decimal places as written).
    pub fn scale(self) -> u8 {
        self.scale
    }

    /// Reads `-12.34`, `42`, `1e-05`, `1.5e+16` (Python float `repr` and integer text).
    /// `None` for anything else, for more than [`MAX_SCALE`] places or out-of-range values.
    pub fn parse(text: &str) -> Option<Self> {
        let (body, exp) = match text.find(['e', 'E']) {
            Some(i) => (&text[..i], text[i + 1..].parse::<i32>().ok()?),
            None => (text, 0),
        };
        let (neg, digits) = match body.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, body.strip_prefix('+').unwrap_or(body)),
        };
        let (int_part, frac) = digits.split_once('.').unwrap_or((digits, ""));
        if int_part.is_empty() && frac.is_empty() {
            return None;
        }
        if !int_part
            .bytes()
            .chain(frac.bytes())
            .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut mantissa: i128 = 0;
        for b in int_part.bytes().chain(frac.bytes()) {
            mantissa = mantissa
                .checked_mul(10)?
                .checked_add(i128::from(b - b'0'))?;
        }
        let mut scale = frac.len() as i32 - exp;
        while scale < 0 {
            mantissa = mantissa.checked_mul(10)?;
            scale += 1;
        }
        // Trailing zeros beyond the limit carry no value.
        while scale > i32::from(MAX_SCALE) && mantissa % 10 == 0 {
            mantissa /= 10;
            scale -= 1;
        }
        if scale > i32::from(MAX_SCALE) || mantissa > pow10(30) {
            return None;
        }
        Some(Self {
            mantissa: if neg { -mantissa } else { mantissa },
            scale: scale as u8,
        })
    }

    /// A JSON number as the model sent it: an integer exactly, a float through its Python
    /// `repr` text. `None` for other values and non-finite floats.
    pub fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Int(PyInt::Small(n)) => Some(Self::int(*n)),
            Value::Int(PyInt::Big(digits)) => Self::parse(digits),
            Value::Float(f) if f.is_finite() => Self::parse(&float_repr(*f)),
            _ => None,
        }
    }

    /// The JSON float whose `repr` is this decimal's shortest form (`42.0`, `-47.23`).
    pub fn to_value(self) -> Value {
        let text = self.normalized().plain();
        Value::Float(text.parse::<f64>().unwrap_or(0.0))
    }

    fn rescaled(self, scale: u8) -> i128 {
        if scale <= self.scale {
            self.mantissa
        } else {
            self.mantissa.saturating_mul(pow10(scale - self.scale))
        }
    }

    /// The same value at `scale` places or more (never loses digits).
    pub fn with_min_scale(self, scale: u8) -> Self {
        if self.scale >= scale {
            self
        } else {
            Self {
                mantissa: self.rescaled(scale),
                scale,
            }
        }
    }

    /// Trailing zeros removed.
    pub fn normalized(self) -> Self {
        let mut d = self;
        while d.scale > 0 && d.mantissa % 10 == 0 {
            d.mantissa /= 10;
            d.scale -= 1;
        }
        d
    }

    /// Sum (scale: the larger of the two).
    pub fn plus(self, other: Self) -> Self {
        let s = self.scale.max(other.scale);
        Self {
            mantissa: self.rescaled(s).saturating_add(other.rescaled(s)),
            scale: s,
        }
    }

    /// Difference.
    pub fn minus(self, other: Self) -> Self {
        self.plus(other.negated())
    }

    /// Negation.
    pub fn negated(self) -> Self {
        Self {
            mantissa: -self.mantissa,
            scale: self.scale,
        }
    }

    /// Absolute value.
    pub fn abs(self) -> Self {
        Self {
            mantissa: self.mantissa.abs(),
            scale: self.scale,
        }
    }

    /// True for zero.
    pub fn is_zero(self) -> bool {
        self.mantissa == 0
    }

    /// True below zero.
    pub fn is_negative(self) -> bool {
        self.mantissa < 0
    }

    /// Product, rounded half-to-even to `places`.
    pub fn mul_round(self, other: Self, places: u8) -> Self {
        let mantissa = self.mantissa.saturating_mul(other.mantissa);
        Self {
            mantissa,
            scale: self.scale.saturating_add(other.scale),
        }
        .round(places)
    }

    /// Quotient rounded half-to-even to `places`; `None` when dividing by zero.
    pub fn div_round(self, other: Self, places: u8) -> Option<Self> {
        if other.mantissa == 0 {
            return None;
        }
        let shift = i32::from(places) + i32::from(other.scale) - i32::from(self.scale);
        let (num, den) = if shift >= 0 {
            (
                self.mantissa
                    .checked_mul(10i128.checked_pow(shift as u32)?)?,
                other.mantissa,
            )
        } else {
            (
                self.mantissa,
                other
                    .mantissa
                    .checked_mul(10i128.checked_pow((-shift) as u32)?)?,
            )
        };
        let (num, den) = if den < 0 { (-num, -den) } else { (num, den) };
        let q = num / den;
        let r = num % den;
        let up = match (r.abs() * 2).cmp(&den) {
            Ordering::Greater => true,
            Ordering::Equal => q % 2 != 0,
            Ordering::Less => false,
        };
        let q = if up { q + num.signum() } else { q };
        Some(Self {
            mantissa: q,
            scale: places,
        })
    }

    /// Rounded half-to-even to `places` decimal places.
    pub fn round(self, places: u8) -> Self {
        if self.scale <= places {
            return self;
        }
        let div = pow10(self.scale - places);
        let q = self.mantissa / div;
        let r = self.mantissa % div;
        let twice = r.abs() * 2;
        let up = match twice.cmp(&div) {
            Ordering::Greater => true,
            Ordering::Equal => q % 2 != 0,
            Ordering::Less => false,
        };
        let q = if up { q + self.mantissa.signum() } else { q };
        Self {
            mantissa: q,
            scale: places,
        }
    }

    /// Beancount's tolerance for a number written at this scale: half of its last digit
    /// (`0.005` for two places), zero for a whole number.
    pub fn half_unit(self) -> Self {
        if self.scale == 0 {
            Self::ZERO
        } else {
            Self {
                mantissa: 5,
                scale: self.scale + 1,
            }
        }
    }

    /// One unit of the last digit (`0.01` for two places; the balance-assertion tolerance).
    pub fn unit(self) -> Self {
        if self.scale == 0 {
            Self::ZERO
        } else {
            Self {
                mantissa: 1,
                scale: self.scale,
            }
        }
    }

    /// The plain text at its own scale: `42.00`, `-0.5`, `1200`.
    pub fn plain(self) -> String {
        let neg = self.mantissa < 0;
        let digits = self.mantissa.unsigned_abs().to_string();
        let scale = usize::from(self.scale);
        let body = if scale == 0 {
            digits
        } else if digits.len() > scale {
            let (i, f) = digits.split_at(digits.len() - scale);
            format!("{i}.{f}")
        } else {
            format!("0.{}{digits}", "0".repeat(scale - digits.len()))
        };
        if neg {
            format!("-{body}")
        } else {
            body
        }
    }
}

impl fmt::Display for Dec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.plain())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Dec {
        Dec::parse(s).expect(s)
    }

    #[test]
    fn parses_repr_text_and_compares_by_value() {
        assert_eq!(d("47.23").plain(), "47.23");
        assert_eq!(d("42"), d("42.00"));
        assert_eq!(d("1e-05").plain(), "0.00001");
        assert_eq!(d("1.5e+3").plain(), "1500");
        assert_eq!(d("-0.5").plain(), "-0.5");
        assert!(Dec::parse("1.2.3").is_none());
        assert!(Dec::parse("abc").is_none());
        assert!(Dec::parse("0.1234567890123").is_none());
        assert_eq!(
            Dec::from_value(&Value::Float(47.23)).map(Dec::plain),
            Some("47.23".into())
        );
        assert_eq!(
            Dec::from_value(&Value::int(42)).map(Dec::plain),
            Some("42".into())
        );
        assert_eq!(
            float_repr(match d("42.00").to_value() {
                Value::Float(f) => f,
                _ => 0.0,
            }),
            "42.0"
        );
    }

    #[test]
    fn arithmetic_and_rounding() {
        assert_eq!(d("0.1").plus(d("0.2")), d("0.3"));
        assert_eq!(d("1200").mul_round(d("0.8512"), 2).plain(), "1021.44");
        assert_eq!(d("2.345").round(2).plain(), "2.34");
        assert_eq!(d("2.355").round(2).plain(), "2.36");
        assert_eq!(d("-2.355").round(2).plain(), "-2.36");
        assert_eq!(d("42.00").half_unit().plain(), "0.005");
        assert_eq!(d("42.00").unit().plain(), "0.01");
        assert_eq!(d("42").with_min_scale(2).plain(), "42.00");
        assert_eq!(
            d("1").div_round(d("0.8512"), 6).map(Dec::plain),
            Some("1.174812".into())
        );
        assert_eq!(
            d("-1").div_round(d("3"), 2).map(Dec::plain),
            Some("-0.33".into())
        );
    }
}
