//! Python `repr(float)`: the shortest round-trip digits laid out as CPython does (§4.6).

/// Python `repr(x)` for a finite `x`, with `json.dumps` spellings for the rest:
/// NaN is `NaN`, infinities are `Infinity` / `-Infinity`.
///
/// Positional notation for 1e-4 <= |x| < 1e16 (`0.0001`, `123.0`), scientific otherwise
/// with no `.0` in the mantissa and at least two exponent digits (`1e-05`, `1.5e+16`);
/// integral floats keep `.0`; `-0.0` keeps its sign.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        finite_repr(x)
    }
}

/// Python `repr(x)` exactly, including `nan`, `inf` and `-inf`.
pub fn py_float_repr_plain(x: f64) -> String {
    if x.is_nan() {
        "nan".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_owned()
    } else {
        finite_repr(x)
    }
}

/// Appends [`float_repr`] of `x` to `out`.
pub(crate) fn push_float_repr(out: &mut String, x: f64) {
    out.push_str(&float_repr(x));
}

/// The shortest round-trip digits in `{:e}` form, choosing like CPython (David Gay's
/// `dtoa` mode 0) the candidate closest to `x`, ties to even.
///
/// Rust's `{:e}` gives a shortest digit string, but on an exact tie (`1156983321958482.25`)
/// it may pick the upper neighbour where CPython prints `1156983321958482.2`. The correctly
/// rounded (half-to-even) string of the same length is used whenever it round-trips.
fn shortest_sci(x: f64) -> String {
    let sci = format!("{x:e}");
    let mantissa = sci.split('e').next().unwrap_or("");
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).count();
    if digits < 2 {
        return sci;
    }
    let nearest = format!("{:.*e}", digits - 1, x);
    if nearest.parse::<f64>().is_ok_and(|y| y == x) {
        nearest
    } else {
        sci
    }
}

fn finite_repr(x: f64) -> String {
    // An integral float below 2^53 is its integer and ".0" (every such integer is a float
    // of its own, so no shorter digits round-trip): latencies of 0.0, whole amounts.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() < EXACT {
        let mut out = String::with_capacity(24);
        if x.is_sign_negative() && x == 0.0 {
            out.push_str("-0.0");
        } else {
            use std::fmt::Write as _;
            let _ = write!(out, "{}.0", x as i64);
        }
        return out;
    }
    general_repr(x)
}

/// [`finite_repr`] for any finite `x`, from the shortest digits.
fn general_repr(x: f64) -> String {
    // Shortest round-trip digits: "-1.2345e-7", "5e-324", "0e0".
    let sci = shortest_sci(x);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = match digits.trim_end_matches('0') {
        "" => "0",
        trimmed => trimmed,
    };
    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        push_positional(&mut out, digits, exp);
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let magnitude = exp.unsigned_abs();
        if magnitude < 10 {
            out.push('0');
        }
        out.push_str(&magnitude.to_string());
    }
    out
}

/// Writes `0.d1d2… × 10^(exp+1)` positionally, always with a fractional part.
fn push_positional(out: &mut String, digits: &str, exp: i32) {
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
        return;
    }
    let int_len = exp as usize + 1;
    if digits.len() <= int_len {
        out.push_str(digits);
        for _ in digits.len()..int_len {
            out.push('0');
        }
        out.push_str(".0");
    } else {
        let (int_part, frac) = digits.split_at(int_len);
        out.push_str(int_part);
        out.push('.');
        out.push_str(frac);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_reprs() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (123.0, "123.0"),
            (0.5625, "0.5625"),
            (0.2857142857142857, "0.2857142857142857"),
            (0.35714285714285715, "0.35714285714285715"),
            (0.0001, "0.0001"),
            (0.00012, "0.00012"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e22, "1e+22"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (-2.5e-100, "-2.5e-100"),
            (0.1, "0.1"),
            (100.0, "100.0"),
            (123456789.125, "123456789.125"),
            // Exact ties between two shortest candidates go to even, as in CPython.
            (1156983321958482.2, "1156983321958482.2"),
            (-1425502010969177.2, "-1425502010969177.2"),
            (821266108446277.2, "821266108446277.2"),
        ];
        for &(x, want) in cases {
            assert_eq!(float_repr(x), want, "{x:e}");
        }
    }

    #[test]
    fn special_values() {
        assert_eq!(float_repr(f64::NAN), "NaN");
        assert_eq!(float_repr(f64::INFINITY), "Infinity");
        assert_eq!(float_repr(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(py_float_repr_plain(f64::NAN), "nan");
        assert_eq!(py_float_repr_plain(f64::NEG_INFINITY), "-inf");
        assert_eq!(py_float_repr_plain(2.0), "2.0");
    }

    #[test]
    fn integral_fast_path_is_the_general_layout() {
        let mut xs: Vec<f64> = vec![0.0, -0.0, 1.0, -1.0, 10.0, 123.0, 1e15, -1e15, 1e16 - 2.0];
        xs.extend([
            (1u64 << 52) as f64,
            ((1u64 << 53) - 1) as f64,
            -(((1u64 << 53) - 1) as f64),
        ]);
        let mut v: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2000 {
            v ^= v << 13;
            v ^= v >> 7;
            v ^= v << 17;
            xs.push((v % (1u64 << 53)) as f64);
            xs.push((v % 100_000) as f64 * 10f64.powi((v % 12) as i32));
        }
        for x in xs {
            if x.abs() < 9_007_199_254_740_992.0 {
                assert_eq!(finite_repr(x), general_repr(x), "{x:?}");
            }
        }
    }
}
