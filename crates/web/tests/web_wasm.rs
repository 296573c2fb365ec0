//! The page's pieces that need a browser, in headless Chromium: core charts parse as SVG
//! with hostile labels inert, and the transport tells an address where nothing listens.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;
use wildtool_core::chart::{self, ChartKind, ChartSpec, Layout, Orientation, Point, Series};
use wildtool_web::run::engine::{HttpReply, NetworkKind};

wasm_bindgen_test_configure!(run_in_browser);

fn hostile_spec() -> ChartSpec {
    ChartSpec {
        id: "x".into(),
        title: "<img src=x onerror=alert(1)>".into(),
        summary: None,
        categories: vec!["a<b".into(), "c".into()],
        series: vec![Series {
            name: "run\"><script>".into(),
            points: vec![Point::new(0.5), Point::with_interval(0.25, 0.2, 0.3)],
        }],
        kind: ChartKind::Bars,
        orientation: Orientation::Horizontal,
        value_axis: "Task accuracy".into(),
    }
}

#[wasm_bindgen_test]
fn charts_parse_as_svg_and_hostile_labels_stay_text() {
    for layout in [Layout::STANDARD, Layout::narrow(340.0)] {
        let svg = chart::render_svg_with(&hostile_spec(), layout);
        let parser = web_sys::DomParser::new().expect("DOMParser");
        let doc = parser
            .parse_from_string(&svg, web_sys::SupportedType::ImageSvgXml)
            .expect("parses");
        assert_eq!(doc.get_elements_by_tag_name("parsererror").length(), 0);
        assert_eq!(doc.get_elements_by_tag_name("img").length(), 0);
        assert_eq!(doc.get_elements_by_tag_name("script").length(), 0);
        let title = doc
            .get_elements_by_tag_name("title")
            .item(0)
            .and_then(|t| t.text_content());
        assert_eq!(title.as_deref(), Some("<img src=x onerror=alert(1)>"));
    }
}

#[wasm_bindgen_test]
async fn nothing_listening_is_unreachable() {
    use wildtool_core::runner::http::HttpRequest;
    use wildtool_web::run::engine::{RequestId, Transmit};
    let out = wildtool_web::msg::Outgoing {
        transmit: Transmit {
            id: RequestId(1),
            request: HttpRequest {
                method: "POST",
                url: "http://127.0.0.1:45551/v1/chat/completions".into(),
                headers: vec![("content-type".into(), "application/json".into())],
                body: "{}".into(),
            },
            deadline: 0.0,
            task: None,
            stream: false,
        },
        auth: Some(("authorization".into(), "Bearer k".into())),
    };
    match wildtool_web::transport::fetch_reply(&out, None).await {
        HttpReply::Network(f) => assert_eq!(f.kind, NetworkKind::Unreachable, "{}", f.message),
        other => panic!("{other:?}"),
    }
}

/// The ledger environment computes the same bytes in WebAssembly as natively: the
/// canonical text of every state and every gold observation of the bundled suite's ledger
/// sessions hash to the digests the native test (`crates/core/tests/it/ledger_suite.rs`) checks.
#[wasm_bindgen_test]
fn ledger_canonical_bytes_equal_the_native_ones() {
    let suite = include_str!("../../../data/suite.jsonl");
    let native = include_str!("../../../tests/fixtures/ledger-canonical.txt");
    assert_eq!(
        wildtool_core::ledger::run_file::suite_digests(suite),
        native
    );
}
