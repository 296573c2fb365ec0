//! The shell of wildtool's self-contained HTML pages — the report (`wildtool report`),
//! `compare.html` and `sweep.html` — and the pieces they share: one document head (a
//! Content-Security-Policy that allows no script and no external resource, one
//! stylesheet), the page header, headline metrics, figures and data tables. Every piece
//! of text is escaped here.

use std::fmt::Write as _;

use super::{escape_xml, ChartTable};

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1f24;background:#f4f6f8;margin:0;line-height:1.45}\
header{background:#10263b;color:#fff;padding:18px 28px}header h1{margin:0;font-size:1.4rem}header p{margin:4px 0 0;color:#c9d6e3}\
main{max-width:1280px;margin:0 auto;padding:20px 28px 40px}h2{margin-top:32px}\
.headline{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px;margin-bottom:18px}\
.metric{background:#fff;border:1px solid #d9dee4;border-radius:8px;padding:12px 14px}\
.metric b{display:block;font-size:1.5rem;color:#0072b2}.metric span{display:block;color:#5b6470;font-size:.85rem}\
.banner{background:#fff4d6;border:1px solid #c98a00;border-radius:8px;padding:10px 14px;margin-bottom:14px}\
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));gap:16px}.single{grid-template-columns:minmax(0,960px)}\
figure{margin:0;background:#fff;border:1px solid #d9dee4;border-radius:8px;padding:10px;min-width:0}figure svg{width:100%;height:auto;display:block}\
.table{overflow-x:auto;max-width:100%}table{border-collapse:collapse;font-size:.85rem;margin-top:6px;background:#fff}caption{text-align:left;font-weight:600}\
th,td{border-bottom:1px solid #d9dee4;padding:3px 8px;text-align:right;white-space:nowrap}th[scope=row]{text-align:left}\
.note{color:#5b6470;font-size:.9rem;max-width:70em}\
pre{background:#fff;border:1px solid #d9dee4;border-radius:8px;padding:12px;overflow-x:auto;font-size:.8rem}";

/// Starts a page: the document head titled `title`, and the page header with `title` as
/// its heading and `subtitle` under it; the caller writes the body and calls [`close`].
pub(crate) fn open(out: &mut String, title: &str, subtitle: &str) {
    out.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    let title = escape_xml(title);
    let _ = write!(
        out,
        "<title>{title}</title><style>{STYLE}</style></head><body><header><h1>{title}</h1><p>{}</p></header><main>",
        escape_xml(subtitle)
    );
}

/// Ends a page started with [`open`].
pub(crate) fn close(out: &mut String) {
    out.push_str("</main></body></html>\n");
}

/// A headline metric: its value large, its name, then one line per note.
pub(crate) fn metric(out: &mut String, value: &str, name: &str, notes: &[String]) {
    let _ = write!(
        out,
        "<div class=\"metric\"><b>{}</b><span>{}</span>",
        escape_xml(value),
        escape_xml(name)
    );
    for n in notes {
        let _ = write!(out, "<span>{}</span>", escape_xml(n));
    }
    out.push_str("</div>");
}

/// A chart as a figure: its SVG (already escaped by the renderer), its description as the
/// caption, and its data table.
pub(crate) fn figure(out: &mut String, id: &str, svg: &str, description: &str, data: &ChartTable) {
    let _ = write!(out, "<figure id=\"{}\">", escape_xml(id));
    out.push_str(svg);
    let _ = write!(out, "<figcaption>{}</figcaption>", escape_xml(description));
    table_html(out, data);
    out.push_str("</figure>");
}

/// A data table: caption, column headers, and rows whose first cell heads the row.
pub(crate) fn table_html(out: &mut String, t: &ChartTable) {
    let _ = write!(
        out,
        "<div class=\"table\"><table><caption>{}</caption><thead><tr>",
        escape_xml(&t.caption)
    );
    for h in &t.headers {
        let _ = write!(out, "<th scope=\"col\">{}</th>", escape_xml(h));
    }
    out.push_str("</tr></thead><tbody>");
    for row in &t.rows {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            if i == 0 {
                let _ = write!(out, "<th scope=\"row\">{}</th>", escape_xml(cell));
            } else {
                let _ = write!(out, "<td>{}</td>", escape_xml(cell));
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_allows_no_script_and_escapes_every_text() {
        let evil = "<script>x</script>";
        let mut out = String::new();
        open(&mut out, evil, evil);
        metric(&mut out, evil, evil, &[evil.to_owned()]);
        let t = ChartTable {
            caption: evil.to_owned(),
            headers: vec![evil.to_owned(), "n".to_owned()],
            rows: vec![vec![evil.to_owned(), evil.to_owned()]],
        };
        figure(&mut out, evil, "<svg></svg>", evil, &t);
        close(&mut out);
        assert!(!out.contains("<script"), "{out}");
        assert_eq!(out.matches("&lt;script&gt;").count(), 12);
        assert!(out
            .contains("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""));
        assert!(out.contains("<th scope=\"row\">&lt;script"));
        assert!(out.contains("<td>&lt;script"));
        assert!(out.starts_with("<!doctype html>\n") && out.ends_with("</main></body></html>\n"));
    }
}
