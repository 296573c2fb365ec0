//! Civil-calendar arithmetic on day numbers (days since 1970-01-01, proleptic Gregorian):
//! the session date of `env_info`, dates relative to it, months and weeks.

/// English weekday names, Monday first: the official `env_info` spelling.
pub const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// The day number of a civil date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(m);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date `(year, month, day)` of a day number.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Weekday index of a day number, 0 = Monday.
pub fn weekday(day: i64) -> usize {
    // 1970-01-01 was a Thursday (index 3).
    (day + 3).rem_euclid(7) as usize
}

/// `YYYY-MM-DD`.
pub fn iso(day: i64) -> String {
    let (y, m, d) = civil_from_days(day);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM`.
pub fn iso_month(day: i64) -> String {
    let (y, m, _) = civil_from_days(day);
    format!("{y:04}-{m:02}")
}

/// `HH:MM` of minutes after midnight.
pub fn hhmm(minutes: i64) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// First day of the month containing `day`.
pub fn month_start(day: i64) -> i64 {
    let (y, m, _) = civil_from_days(day);
    days_from_civil(y, m, 1)
}

/// Last day of the month containing `day`.
pub fn month_end(day: i64) -> i64 {
    let (y, m, _) = civil_from_days(day);
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    days_from_civil(ny, nm, 1) - 1
}

/// First day of the year containing `day`.
pub fn year_start(day: i64) -> i64 {
    let (y, _, _) = civil_from_days(day);
    days_from_civil(y, 1, 1)
}

/// Monday of the week containing `day`.
pub fn week_start(day: i64) -> i64 {
    day - weekday(day) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        let d = days_from_civil(2025, 3, 14);
        assert_eq!(iso(d), "2025-03-14");
        assert_eq!(WEEKDAYS[weekday(d)], "Friday");
        assert_eq!(iso(month_end(days_from_civil(2024, 2, 10))), "2024-02-29");
        assert_eq!(iso(month_end(days_from_civil(2025, 12, 31))), "2025-12-31");
        assert_eq!(iso(week_start(d)), "2025-03-10");
        for z in [-1000, 0, 59, 60, 10_000, 20_000, 30_000] {
            let (y, m, dd) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, dd), z);
        }
        assert_eq!(hhmm(19 * 60 + 5), "19:05");
    }
}
