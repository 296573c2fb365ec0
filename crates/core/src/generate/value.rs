//! Slot values: what a slot draws (an entity, a number, a date, an enum value …), its
//! canonical form in arguments and observations, and how the user says it (literally, or
//! transformed: relative dates, converted units, enum paraphrases).

use crate::json::{float_repr, Value};

use super::calendar::{
    hhmm, iso, iso_month, month_end, month_start, week_start, weekday, year_start,
};
use super::pack::Words;

/// Units of quantities the generator can convert exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    /// Seconds (said as minutes when transformed).
    Seconds,
    /// Minutes (hours).
    Minutes,
    /// Hours (days).
    Hours,
    /// Days (weeks).
    Days,
    /// Meters (kilometers).
    Meters,
    /// Grams (kilograms).
    Grams,
    /// Milliliters (liters).
    Milliliters,
    /// Degrees Celsius (Fahrenheit).
    Celsius,
}

impl Unit {
    /// Parses a pack unit name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "seconds" => Self::Seconds,
            "minutes" => Self::Minutes,
            "hours" => Self::Hours,
            "days" => Self::Days,
            "meters" => Self::Meters,
            "grams" => Self::Grams,
            "milliliters" => Self::Milliliters,
            "celsius" => Self::Celsius,
            _ => return None,
        })
    }

    /// The pack/word-table name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Seconds => "seconds",
            Self::Minutes => "minutes",
            Self::Hours => "hours",
            Self::Days => "days",
            Self::Meters => "meters",
            Self::Grams => "grams",
            Self::Milliliters => "milliliters",
            Self::Celsius => "celsius",
        }
    }

    /// The unit the transformed form uses, and the value in it as a decimal string, when
    /// it is exact with at most two decimals.
    pub fn convert(self, v: i64) -> Option<(&'static str, String)> {
        let ratio = |target: &'static str, den: i64| decimal(v, den).map(|s| (target, s));
        match self {
            Self::Seconds => ratio("minutes", 60),
            Self::Minutes => ratio("hours", 60),
            Self::Hours => ratio("days", 24),
            Self::Days => ratio("weeks", 7),
            Self::Meters => ratio("kilometers", 1000),
            Self::Grams => ratio("kilograms", 1000),
            Self::Milliliters => ratio("liters", 1000),
            Self::Celsius => {
                if (v * 9) % 5 == 0 {
                    Some(("fahrenheit", (v * 9 / 5 + 32).to_string()))
                } else {
                    None
                }
            }
        }
    }
}

/// `n / den` as a decimal with at most two places, when exact.
fn decimal(n: i64, den: i64) -> Option<String> {
    if den == 0 || (n * 100) % den != 0 {
        return None;
    }
    let hundredths = n * 100 / den;
    let (int, frac) = (hundredths / 100, (hundredths % 100).abs());
    Some(match frac {
        0 => int.to_string(),
        f if f % 10 == 0 => format!("{int}.{}", f / 10),
        f => format!("{int}.{f:02}"),
    })
}

/// Named date ranges relative to the session date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PeriodKind {
    /// The previous calendar month.
    LastMonth,
    /// The current month up to its last day.
    ThisMonth,
    /// The next calendar month.
    NextMonth,
    /// Monday–Sunday of the previous week.
    LastWeek,
    /// Monday–Sunday of the next week.
    NextWeek,
    /// The 7 days ending today.
    Last7Days,
    /// The 30 days ending today.
    Last30Days,
    /// January 1 to today.
    ThisYear,
}

impl PeriodKind {
    /// Parses a pack name.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "last_month" => Self::LastMonth,
            "this_month" => Self::ThisMonth,
            "next_month" => Self::NextMonth,
            "last_week" => Self::LastWeek,
            "next_week" => Self::NextWeek,
            "last_7_days" => Self::Last7Days,
            "last_30_days" => Self::Last30Days,
            "this_year" => Self::ThisYear,
            _ => return None,
        })
    }

    /// The pack/word-table name.
    pub fn name(self) -> &'static str {
        match self {
            Self::LastMonth => "last_month",
            Self::ThisMonth => "this_month",
            Self::NextMonth => "next_month",
            Self::LastWeek => "last_week",
            Self::NextWeek => "next_week",
            Self::Last7Days => "last_7_days",
            Self::Last30Days => "last_30_days",
            Self::ThisYear => "this_year",
        }
    }

    /// First and last day relative to `today`.
    pub fn range(self, today: i64) -> (i64, i64) {
        match self {
            Self::LastMonth => {
                let end = month_start(today) - 1;
                (month_start(end), end)
            }
            Self::ThisMonth => (month_start(today), month_end(today)),
            Self::NextMonth => {
                let start = month_end(today) + 1;
                (start, month_end(start))
            }
            Self::LastWeek => {
                let start = week_start(today) - 7;
                (start, start + 6)
            }
            Self::NextWeek => {
                let start = week_start(today) + 7;
                (start, start + 6)
            }
            Self::Last7Days => (today - 6, today),
            Self::Last30Days => (today - 29, today),
            Self::ThisYear => (year_start(today), today),
        }
    }
}

/// A drawn slot value.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// A plain JSON value (pack values, picks, entity fields).
    Json(Value),
    /// An integer.
    Int(i64),
    /// A quantity in a unit.
    Qty(i64, Unit),
    /// An amount of money in cents.
    Money(i64),
    /// A day number.
    Date(i64),
    /// A day number and minutes after midnight.
    DateTime(i64, i64),
    /// Minutes after midnight.
    Time(i64),
    /// A named period and its first and last day.
    Period(PeriodKind, i64, i64),
    /// An enum value.
    Choice(String),
    /// Free text.
    Text(String),
    /// An entity of the session (index into its entity table).
    Entity(usize),
}

impl Val {
    /// The canonical JSON value (entities are resolved by the caller).
    pub fn canonical(&self, neg: bool) -> Result<Value, String> {
        let sign = if neg { -1 } else { 1 };
        Ok(match self {
            Val::Json(v) => {
                if neg {
                    match v {
                        Value::Float(f) => Value::Float(-f),
                        other => match other.as_i64() {
                            Some(i) => Value::int(-i),
                            None => return Err("cannot negate a non-number".into()),
                        },
                    }
                } else {
                    v.clone()
                }
            }
            Val::Int(n) | Val::Qty(n, _) => Value::int(sign * n),
            Val::Money(c) => Value::Float((sign * c) as f64 / 100.0),
            _ if neg => return Err("cannot negate a non-number".into()),
            Val::Date(d) => Value::Str(iso(*d)),
            Val::DateTime(d, m) => Value::Str(format!("{}T{}", iso(*d), hhmm(*m))),
            Val::Time(m) => Value::Str(hhmm(*m)),
            Val::Period(_, s, e) => Value::Str(format!("{} to {}", iso(*s), iso(*e))),
            Val::Choice(s) | Val::Text(s) => Value::Str(s.clone()),
            Val::Entity(_) => return Err("entity values are resolved by the session".into()),
        })
    }

    /// The canonical text (interpolated into strings, answers and observations).
    pub fn canonical_text(&self, neg: bool) -> Result<String, String> {
        Ok(match self {
            Val::Money(c) => money_text(if neg { -c } else { *c }),
            other => text_of(&other.canonical(neg)?),
        })
    }

    /// A field of a non-entity value (`start`/`end`/`month` of periods, `date`/`time` of
    /// date-times, `month`/`weekday` of dates).
    pub fn field(&self, name: &str) -> Option<Val> {
        match (self, name) {
            (Val::Period(_, s, _), "start") => Some(Val::Date(*s)),
            (Val::Period(_, _, e), "end") => Some(Val::Date(*e)),
            (Val::Period(_, s, _), "month") => Some(Val::Text(iso_month(*s))),
            (Val::DateTime(d, _), "date") => Some(Val::Date(*d)),
            (Val::DateTime(_, m), "time") => Some(Val::Time(*m)),
            (Val::Date(d), "month") | (Val::DateTime(d, _), "month") => {
                Some(Val::Text(iso_month(*d)))
            }
            (Val::Json(Value::Object(m)), f) => m.get(f).cloned().map(Val::Json),
            (Val::Date(d), "weekday") => Some(Val::Text(
                super::calendar::WEEKDAYS
                    .get(weekday(*d))
                    .copied()
                    .unwrap_or("")
                    .to_owned(),
            )),
            _ => None,
        }
    }
}

/// Text of a JSON value: strings raw, numbers as Python prints them, others as JSON.
pub fn text_of(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Float(f) => float_repr(*f),
        other => crate::json::dumps(other, crate::json::Escape::Utf8),
    }
}

/// Cents as `12.34` / `-0.50`.
pub fn money_text(c: i64) -> String {
    let sign = if c < 0 { "-" } else { "" };
    let a = c.abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

fn fill(pattern: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = pattern.to_owned();
    for (k, v) in pairs {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// The user's words for a quantity: literal (`90 minutes`) or transformed (`1.5 hours`).
pub fn say_qty(words: &Words, v: i64, unit: Unit, transformed: bool) -> Option<String> {
    let (name, number) = if transformed {
        let (n, s) = unit.convert(v)?;
        (n, s)
    } else {
        (unit.name(), v.to_string())
    };
    let forms = words.units.get(name)?;
    let word = if number == "1" { &forms[0] } else { &forms[1] };
    Some(format!("{number} {word}"))
}

fn say_time(words: &Words, minutes: i64, transformed: bool) -> String {
    if !transformed {
        return fill(&words.at_time, &[("t", &hhmm(minutes))]);
    }
    let (h, m) = (minutes / 60, minutes % 60);
    let t = if h == 12 && m == 0 {
        words.noon.clone()
    } else {
        // The hour a quarter-to time names is the next one.
        let named = if m == 45 { h + 1 } else { h };
        let h12 = match named % 12 {
            0 => 12,
            x => x,
        }
        .to_string();
        let clock = match m {
            0 => h12,
            15 => fill(&words.quarter_past, &[("h", &h12)]),
            30 => fill(&words.half_past, &[("h", &h12)]),
            45 => fill(&words.quarter_to, &[("h", &h12)]),
            _ => fill(&words.past, &[("h", &h12), ("m", &m.to_string())]),
        };
        let part = if h < 12 {
            &words.am
        } else if h < 18 {
            &words.pm
        } else {
            &words.evening
        };
        fill(part, &[("h", &clock)])
    };
    fill(&words.at_time, &[("t", &t)])
}

/// Ways of saying the day `offset` days from today, relative to the session date.
pub fn relative_days(words: &Words, today: i64, offset: i64) -> Vec<String> {
    let n = offset.abs().to_string();
    let mut out = Vec::new();
    match offset {
        0 => out.push(words.today.clone()),
        1 => out.push(words.tomorrow.clone()),
        -1 => out.push(words.yesterday.clone()),
        2 => out.push(words.after_tomorrow.clone()),
        _ => {}
    }
    if (2..=6).contains(&offset) {
        let wd = words
            .weekdays
            .get(weekday(today + offset))
            .cloned()
            .unwrap_or_default();
        out.push(fill(&words.coming, &[("wd", &wd)]));
    }
    if offset >= 2 {
        out.push(fill(&words.in_days, &[("n", &n)]));
    }
    if offset <= -2 {
        out.push(fill(&words.days_ago, &[("n", &n)]));
    }
    if offset > 0 && offset % 7 == 0 {
        let w = (offset / 7).to_string();
        out.push(if offset == 7 {
            words.week_ahead.clone()
        } else {
            fill(&words.weeks_ahead, &[("n", &w)])
        });
    }
    out
}

/// How the user says a value: `(text, transformed)`; `transformed` is `None` for values
/// the argument-style factor does not touch (names, plain numbers, amounts, texts).
pub fn say(
    words: &Words,
    val: &Val,
    today: i64,
    transformed: bool,
    lit: &str,
    phrases: &[String],
    pick: &mut dyn FnMut(usize) -> usize,
) -> Result<(String, Option<bool>), String> {
    Ok(match val {
        Val::Qty(v, u) => (
            say_qty(words, *v, *u, transformed)
                .ok_or_else(|| format!("{v} {} has no exact conversion", u.name()))?,
            Some(transformed),
        ),
        Val::Date(d) => (
            say_date(words, *d, today, transformed, pick),
            Some(transformed),
        ),
        Val::DateTime(d, m) => {
            let day = say_date(words, *d, today, transformed, pick);
            let time = say_time(words, *m, transformed);
            (
                fill(&words.date_time, &[("d", &day), ("t", &time)]),
                Some(transformed),
            )
        }
        Val::Time(m) => (say_time(words, *m, transformed), Some(transformed)),
        Val::Period(k, s, e) => {
            if transformed {
                (
                    words
                        .periods
                        .get(k.name())
                        .cloned()
                        .ok_or_else(|| format!("no words for period {}", k.name()))?,
                    Some(true),
                )
            } else {
                (
                    fill(&words.period, &[("start", &iso(*s)), ("end", &iso(*e))]),
                    Some(false),
                )
            }
        }
        Val::Choice(v) => {
            if transformed && !phrases.is_empty() {
                let i = pick(phrases.len());
                (phrases.get(i).cloned().unwrap_or_default(), Some(true))
            } else {
                (fill(lit, &[("v", v)]), Some(false))
            }
        }
        Val::Money(c) => (money_text(*c), None),
        other => (other.canonical_text(false)?, None),
    })
}

fn say_date(
    words: &Words,
    day: i64,
    today: i64,
    transformed: bool,
    pick: &mut dyn FnMut(usize) -> usize,
) -> String {
    if transformed {
        let options = relative_days(words, today, day - today);
        if let Some(s) = options.get(pick(options.len())) {
            return s.clone();
        }
    }
    fill(&words.on_date, &[("d", &iso(day))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_exact_or_absent() {
        assert_eq!(Unit::Minutes.convert(90), Some(("hours", "1.5".into())));
        assert_eq!(Unit::Minutes.convert(45), Some(("hours", "0.75".into())));
        assert_eq!(Unit::Minutes.convert(50), None);
        assert_eq!(
            Unit::Meters.convert(2500),
            Some(("kilometers", "2.5".into()))
        );
        assert_eq!(Unit::Celsius.convert(20), Some(("fahrenheit", "68".into())));
        assert_eq!(Unit::Celsius.convert(21), None);
        assert_eq!(money_text(4723), "47.23");
        assert_eq!(money_text(-50), "-0.50");
        assert_eq!(Val::Money(4200).canonical(false), Ok(Value::Float(42.0)));
        assert_eq!(Val::Money(4723).canonical(true), Ok(Value::Float(-47.23)));
        let w: Words = serde_json::from_str(
            r#"{"on_date": "on {d}", "at_time": "at {t}", "date_time": "{d} {t}", "period": "from {start} to {end}",
                "today": "today", "tomorrow": "tomorrow", "yesterday": "yesterday", "after_tomorrow": "the day after tomorrow",
                "in_days": "in {n} days", "days_ago": "{n} days ago", "week_ahead": "a week from today",
                "weeks_ahead": "{n} weeks from today", "coming": "this coming {wd}", "noon": "noon",
                "am": "{h} in the morning", "pm": "{h} in the afternoon", "evening": "{h} in the evening",
                "half_past": "half past {h}", "quarter_past": "quarter past {h}", "quarter_to": "quarter to {h}",
                "past": "{m} past {h}", "weekdays": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
                "periods": {}, "units": {}}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        for (mins, said) in [
            (10 * 60 + 30, "at half past 10 in the morning"),
            (11 * 60 + 45, "at quarter to 12 in the morning"),
            (12 * 60, "at noon"),
            (19 * 60 + 15, "at quarter past 7 in the evening"),
            (9 * 60 + 20, "at 20 past 9 in the morning"),
        ] {
            assert_eq!(say_time(&w, mins, true), said);
            assert!(!said.contains(&hhmm(mins)));
        }
    }

    #[test]
    fn periods_are_calendar_ranges() {
        let today = super::super::calendar::days_from_civil(2025, 3, 14);
        let (s, e) = PeriodKind::LastMonth.range(today);
        assert_eq!((iso(s), iso(e)), ("2025-02-01".into(), "2025-02-28".into()));
        let (s, e) = PeriodKind::LastWeek.range(today);
        assert_eq!((iso(s), iso(e)), ("2025-03-03".into(), "2025-03-09".into()));
    }
}
