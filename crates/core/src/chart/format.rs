//! Text helpers: XML escaping, percent formatting, label shortening.

/// Escapes `& < > " '` so the text is safe both as element content and inside a
/// double- or single-quoted attribute. Control characters that XML 1.0 forbids are
/// dropped.
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Formats a proportion as a percentage with one decimal (`0.5634` → `56.3%`);
/// non-finite numbers give `n/a`.
pub fn format_percent(value: f64) -> String {
    if value.is_finite() {
        format!("{:.1}%", value * 100.0)
    } else {
        "n/a".to_owned()
    }
}

/// A count with thousands separators (`1234567` → `1,234,567`).
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Formats an interval as `50.1–62.4%`.
pub(crate) fn format_interval(lo: f64, hi: f64) -> String {
    format!("{:.1}–{:.1}%", lo * 100.0, hi * 100.0)
}

/// Shortens a label to at most `max` characters, ending with `…` when cut. A count at
/// the end (`Sequential Multi-Tool (n = 128)`) is kept and the name before it is cut
/// (`Sequential Mu… (n = 128)`), so the cut never falls where the count is.
pub(crate) fn shorten(label: &str, max: usize) -> String {
    let count = label.chars().count();
    if count <= max || max == 0 {
        return label.to_owned();
    }
    if let Some(at) = label.rfind(" (n = ").filter(|_| label.ends_with(')')) {
        let (head, count_part) = label.split_at(at);
        let room = max.saturating_sub(count_part.chars().count());
        if room >= 4 {
            return format!("{}{count_part}", shorten(head, room));
        }
    }
    let mut s: String = label.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// Wraps a label into at most `lines` lines of at most `max` characters, breaking at
/// spaces; a count at the end (`(n = 128)`) stays whole. What does not fit in the last
/// line is shortened there (keeping the count), so a label is cut only when it is longer
/// than all its lines together.
pub(crate) fn wrap(label: &str, max: usize, lines: usize) -> Vec<String> {
    if label.chars().count() <= max || max == 0 || lines <= 1 {
        return vec![shorten(label, max)];
    }
    let (head, count) = match label.rfind(" (n = ").filter(|_| label.ends_with(')')) {
        Some(at) => (&label[..at], Some(label[at + 1..].to_owned())),
        None => (label, None),
    };
    // A word longer than a line is broken with a hyphen (SOFT HYPHEN marks the break).
    let mut words: Vec<String> = Vec::new();
    for w in head.split(' ') {
        let chars: Vec<char> = w.chars().collect();
        if chars.len() <= max || max < 4 {
            words.push(w.to_owned());
            continue;
        }
        let mut at = 0;
        while chars.len() - at > max {
            let piece: String = chars[at..at + max - 1].iter().collect();
            words.push(format!("{piece}\u{ad}"));
            at += max - 1;
        }
        words.push(chars[at..].iter().collect());
    }
    words.extend(count);
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut rest = words.len();
    for (i, w) in words.iter().enumerate() {
        let next = if line.is_empty() || line.ends_with('\u{ad}') {
            line.chars().count() + w.chars().count()
        } else {
            line.chars().count() + 1 + w.chars().count()
        };
        if !line.is_empty() && next > max {
            out.push(std::mem::take(&mut line));
            if out.len() == lines - 1 {
                rest = i;
                break;
            }
        }
        if !line.is_empty() && !line.ends_with('\u{ad}') {
            line.push(' ');
        }
        line.push_str(w);
    }
    if out.len() == lines - 1 && rest < words.len() {
        line = words[rest..].join(" ").replace("\u{ad} ", "\u{ad}");
    }
    if !line.is_empty() {
        out.push(line);
    }
    // A break inside a line is no break; one at a line's end is drawn as a hyphen.
    out.iter_mut().for_each(|l| {
        let joined = l.trim_end_matches('\u{ad}').replace('\u{ad}', "");
        let broken = l.ends_with('\u{ad}');
        *l = shorten(&joined, max);
        if broken {
            l.push('-');
        }
    });
    out
}

/// Approximate rendered width in px of `text` at `font_px` (sans-serif; CJK counts double).
pub(crate) fn text_width(text: &str, font_px: f64) -> f64 {
    text.chars()
        .map(|c| if (c as u32) >= 0x2E80 { 1.0 } else { 0.56 })
        .sum::<f64>()
        * font_px
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape_xml("<img src=x onerror=\"a('1')\">&"),
            "&lt;img src=x onerror=&quot;a(&#39;1&#39;)&quot;&gt;&amp;"
        );
        assert_eq!(escape_xml("a\u{0}b\nc"), "ab c");
    }

    #[test]
    fn percent() {
        assert_eq!(format_percent(0.5634), "56.3%");
        assert_eq!(format_percent(0.35714285714285715), "35.7%");
        assert_eq!(format_percent(1.0), "100.0%");
        assert_eq!(format_percent(f64::NAN), "n/a");
        assert_eq!(format_interval(0.5, 0.625), "50.0–62.5%");
    }

    #[test]
    fn wraps_at_spaces_keeping_the_count() {
        assert_eq!(
            wrap("Sequential Multi-Tool (n = 128)", 14, 2),
            ["Sequential", "Mul… (n = 128)"]
        );
        assert_eq!(
            wrap("Sequential Multi-Tool (n = 128)", 22, 2),
            ["Sequential Multi-Tool", "(n = 128)"]
        );
        assert_eq!(wrap("0 transitions", 8, 2), ["0", "transit…"]);
        assert_eq!(wrap("0 transitions", 9, 3), ["0", "transiti-", "ons"]);
        assert_eq!(
            wrap("3 transitions (n = 16)", 9, 3),
            ["3", "transiti-", "ons (n =…"]
        );
        assert_eq!(wrap("0 transitions", 12, 2), ["0", "transitions"]);
        assert_eq!(wrap("short", 12, 2), ["short"]);
        assert_eq!(
            wrap(
                "Task accuracy by task type, this run beside 2 others",
                24,
                3
            ),
            ["Task accuracy by task", "type, this run beside 2", "others"]
        );
    }

    #[test]
    fn shortens_by_chars() {
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("模型名称很长", 3), "模型…");
        assert_eq!(shorten("ok", 4), "ok");
        assert_eq!(
            shorten("Sequential Multi-Tool (n = 128)", 24),
            "Sequential Mu… (n = 128)"
        );
        assert_eq!(shorten("Sequential Multi-Tool (n = 128)", 8), "Sequent…");
    }
}
