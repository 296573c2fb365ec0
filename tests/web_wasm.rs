//! wasm-bindgen tests of the web bindings, run in headless Chromium:
//! `CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_ONLY_WEB=1 cargo test --target wasm32-unknown-unknown --no-default-features --test web_wasm`
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use wildtool::web;

wasm_bindgen_test_configure!(run_in_browser);

fn message(err: wasm_bindgen::JsError) -> String {
    JsValue::from(err)
        .dyn_into::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_default()
}

#[wasm_bindgen_test]
fn chart_svg_escapes_hostile_labels_and_parses_in_the_browser() {
    let spec = r#"{"id":"x","title":"<img src=x onerror=alert(1)>","categories":["a<b","c"],
        "series":[{"name":"run","points":[{"value":0.5},{"value":0.25,"interval":[0.2,0.3]}]}]}"#;
    let svg = web::render_chart(spec).unwrap_or_default();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(!svg.contains("<img"));
    let parser = web_sys::DomParser::new().expect("DOMParser");
    let doc = parser
        .parse_from_string(&svg, web_sys::SupportedType::ImageSvgXml)
        .expect("parses");
    assert_eq!(doc.get_elements_by_tag_name("parsererror").length(), 0);
    assert_eq!(doc.get_elements_by_tag_name("img").length(), 0);
    let title = doc
        .get_elements_by_tag_name("title")
        .item(0)
        .and_then(|t| t.text_content());
    assert_eq!(title.as_deref(), Some("<img src=x onerror=alert(1)>"));
    let table = web::chart_table(spec).unwrap_or_default();
    assert!(table.contains("\"20.0–30.0%\""), "{table}");
}

#[wasm_bindgen_test]
fn invalid_chart_json_is_a_js_error() {
    let err = web::render_chart("{not json")
        .err()
        .map(message)
        .unwrap_or_default();
    assert!(err.starts_with("invalid chart spec JSON"), "{err}");
}

#[wasm_bindgen_test]
fn share_link_round_trips_the_demo_run() {
    let demo: serde_json::Value =
        serde_json::from_str(&web::demo_run().unwrap_or_default()).unwrap_or_default();
    let shapes = demo["shapes"].to_string();
    let run = demo["run"].to_string();
    let fp = demo["run"]["header"]["dataset_fingerprint"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let link = web::share_encode(&run, &shapes)
        .map_err(message)
        .unwrap_or_default();
    assert!(
        link.starts_with("v1.") && link.len() <= 2000,
        "{}",
        link.len()
    );
    let back: serde_json::Value = serde_json::from_str(
        &web::share_decode(&link, &fp, &shapes)
            .map_err(message)
            .unwrap_or_default(),
    )
    .unwrap_or_default();
    assert_eq!(back, demo["run"]);
    let header = web::share_read_header(&format!("#{link}"))
        .map_err(message)
        .unwrap_or_default();
    assert!(
        header.contains(&format!("\"dataset_fingerprint\":\"{fp}\"")),
        "{header}"
    );
}

#[wasm_bindgen_test]
fn hostile_share_links_give_messages() {
    let demo: serde_json::Value =
        serde_json::from_str(&web::demo_run().unwrap_or_default()).unwrap_or_default();
    let shapes = demo["shapes"].to_string();
    for (link, expect) in [
        ("v1.<img src=x>", "damaged"),
        ("v7.AAAA", "not supported"),
        ("", "empty"),
        ("v1.AAAAAAAAAAAAAAAAAAAA", "checksum"),
    ] {
        let err = web::share_decode(link, "00d3000000000001", &shapes)
            .err()
            .map(message)
            .unwrap_or_default();
        assert!(err.contains(expect), "{link}: {err}");
    }
    let err = web::share_decode("v1.AAAA", "not-hex", &shapes)
        .err()
        .map(message)
        .unwrap_or_default();
    assert!(err.contains("hexadecimal"), "{err}");
}
