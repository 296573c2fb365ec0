//! Calendar dates (`YYYY-MM-DD`) and months (`YYYY-MM`) as day numbers, on the generator's
//! civil-calendar arithmetic.

use std::fmt;

use crate::generate::calendar::{civil_from_days, days_from_civil, iso, iso_month};

/// A calendar date (days since 1970-01-01).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Date(pub i64);

impl Date {
    /// Reads exactly `YYYY-MM-DD` with a real month and day; `None` otherwise.
    pub fn parse(text: &str) -> Option<Self> {
        let b = text.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<u32> {
            let s = text.get(r)?;
            s.bytes()
                .all(|c| c.is_ascii_digit())
                .then(|| s.parse().ok())?
        };
        let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        if !(1..=12).contains(&m) || d == 0 {
            return None;
        }
        let day = days_from_civil(i64::from(y), m, d);
        (civil_from_days(day) == (i64::from(y), m, d)).then_some(Self(day))
    }

    /// The date `n` days later.
    pub fn plus(self, n: i64) -> Self {
        Self(self.0 + n)
    }

    /// `(year, month, day)`.
    pub fn ymd(self) -> (i64, u32, u32) {
        civil_from_days(self.0)
    }

    /// The month containing this date.
    pub fn month(self) -> Month {
        let (y, m, _) = self.ymd();
        Month { year: y, month: m }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&iso(self.0))
    }
}

/// A calendar month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    /// Year.
    pub year: i64,
    /// Month, 1–12.
    pub month: u32,
}

impl Month {
    /// Reads exactly `YYYY-MM`.
    pub fn parse(text: &str) -> Option<Self> {
        Date::parse(&format!("{text}-01")).map(Date::month)
    }

    /// Its first day.
    pub fn first(self) -> Date {
        Date(days_from_civil(self.year, self.month, 1))
    }

    /// Its last day.
    pub fn last(self) -> Date {
        let (y, m) = if self.month == 12 {
            (self.year + 1, 1)
        } else {
            (self.year, self.month + 1)
        };
        Date(days_from_civil(y, m, 1) - 1)
    }
}

impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&iso_month(self.first().0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_months() {
        let d = Date::parse("2025-02-28").expect("date");
        assert_eq!(d.plus(1).to_string(), "2025-03-01");
        assert!(Date::parse("2025-02-29").is_none());
        assert!(Date::parse("2025-2-01").is_none());
        assert!(Date::parse("2025-13-01").is_none());
        let m = Month::parse("2024-02").expect("month");
        assert_eq!(m.last().to_string(), "2024-02-29");
        assert_eq!(m.to_string(), "2024-02");
    }
}
