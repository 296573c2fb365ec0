//! The wasm-bindgen glue: the [`App`] the JS runtime talks to. It holds the page state,
//! hands dispatched actions to [`AppState::update`] and carries out the effects it
//! returns — `fetch` (with an `AbortController` per request, redirects not followed),
//! timers (`gloo-timers`), file slices (`Blob.slice` and `arrayBuffer`), and the IO adapters JS passes in
//! (key-value store, downloads, clipboard, history, the remembered key, jieba, the lab
//! module).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use gloo_timers::callback::Timeout;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};

use crate::msg::Outgoing;
use crate::msg::{Effect, FileRef, Msg};
use crate::state::{AppState, Now};
use crate::views;

/// The `localStorage` entries (`wildtool.<name>`): the remembered key, the user's prices.
const KEY: &str = "rememberedKey";
const PRICES: &str = "prices";

#[wasm_bindgen]
extern "C" {
    /// The IO adapters of `www/js/io.js`.
    pub type Io;

    #[wasm_bindgen(method, js_name = kvGet)]
    fn kv_get(this: &Io, key: &str) -> js_sys::Promise;
    #[wasm_bindgen(method, js_name = kvPut)]
    fn kv_put(this: &Io, entries: js_sys::Array) -> js_sys::Promise;
    #[wasm_bindgen(method, js_name = kvDelete)]
    fn kv_delete(this: &Io, keys: js_sys::Array) -> js_sys::Promise;
    #[wasm_bindgen(method, js_name = kvDeletePrefix)]
    fn kv_delete_prefix(this: &Io, prefix: &str) -> js_sys::Promise;
    #[wasm_bindgen(method, js_name = kvList)]
    fn kv_list(this: &Io, prefix: &str) -> js_sys::Promise;
    #[wasm_bindgen(method)]
    fn download(this: &Io, name: &str, mime: &str, data: &str);
    #[wasm_bindgen(method, js_name = downloadPng)]
    fn download_png(this: &Io, svg: &str, name: &str, width: f64, height: f64);
    #[wasm_bindgen(method)]
    fn copy(this: &Io, text: &str) -> js_sys::Promise;
    #[wasm_bindgen(method, js_name = pushUrl)]
    fn push_url(this: &Io, url: &str);
    #[wasm_bindgen(method, js_name = replaceUrl)]
    fn replace_url(this: &Io, url: &str);
    #[wasm_bindgen(method, js_name = keyGet)]
    fn key_get(this: &Io, name: &str) -> Option<String>;
    #[wasm_bindgen(method, catch, js_name = keySet)]
    fn key_set(this: &Io, name: &str, value: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, js_name = keyRemove)]
    fn key_remove(this: &Io, name: &str);
    #[wasm_bindgen(method, js_name = loadJieba)]
    fn load_jieba(this: &Io) -> js_sys::Promise;
    #[wasm_bindgen(method, js_name = loadLab)]
    fn load_lab(this: &Io, local: bool) -> js_sys::Promise;
    #[wasm_bindgen(method, getter, js_name = workerAvailable)]
    fn worker_available(this: &Io) -> bool;
    #[wasm_bindgen(method, js_name = scoreInWorker)]
    fn score_in_worker(
        this: &Io,
        file: &web_sys::Blob,
        dataset: &str,
        lang: &str,
        keep: bool,
        progress: &js_sys::Function,
    ) -> js_sys::Promise;
    #[wasm_bindgen(method, js_name = downloadKept)]
    fn download_kept(this: &Io, id: u32, name: &str);
    #[wasm_bindgen(method, js_name = requestRender)]
    fn request_render(this: &Io);
}

/// The browser objects the glue holds by id (files chosen or dropped, requests in flight):
/// a few at a time, so a list (smaller in the app shell than a hash map).
struct Handles<K, V>(Vec<(K, V)>);

impl<K, V> Default for Handles<K, V> {
    fn default() -> Self {
        Handles(Vec::new())
    }
}

impl<K: PartialEq, V> Handles<K, V> {
    fn get(&self, k: &K) -> Option<&V> {
        self.0.iter().find(|(i, _)| i == k).map(|(_, v)| v)
    }

    fn insert(&mut self, k: K, v: V) {
        self.remove(&k);
        self.0.push((k, v));
    }

    fn remove(&mut self, k: &K) -> Option<V> {
        let at = self.0.iter().position(|(i, _)| i == k)?;
        Some(self.0.swap_remove(at).1)
    }
}

struct Inner {
    state: RefCell<AppState>,
    io: Io,
    files: RefCell<Handles<u32, web_sys::Blob>>,
    next_file: Cell<u32>,
    requests: RefCell<Handles<u64, web_sys::AbortController>>,
    timer: RefCell<Option<Timeout>>,
    agents_pending: Cell<bool>,
    continue_pending: Cell<bool>,
}

/// The page, as the JS runtime sees it.
#[wasm_bindgen]
pub struct App {
    inner: Rc<Inner>,
}

fn now() -> Now {
    let mono = web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now() / 1000.0)
        .unwrap_or_else(|| js_sys::Date::now() / 1000.0);
    Now {
        mono,
        unix_ms: js_sys::Date::now(),
    }
}

fn js_message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

async fn fetch_text(url: &str) -> Result<String, String> {
    let window = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| {
            format!(
                "{} (network error, or the server does not allow this page's origin — CORS)",
                js_message(&e)
            )
        })?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|e| js_message(&e))?;
    if !resp.ok() {
        return Err(format!("HTTP {}", resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(|e| js_message(&e))?)
        .await
        .map_err(|e| js_message(&e))?;
    Ok(text.as_string().unwrap_or_default())
}

impl Inner {
    fn deliver(self: &Rc<Self>, msg: Msg) {
        let effects = match self.state.try_borrow_mut() {
            Ok(mut s) => s.update(msg, now()),
            Err(_) => {
                // Re-entered from a synchronous effect: queue it.
                let me = self.clone();
                spawn_local(async move { me.deliver(msg) });
                return;
            }
        };
        self.run(effects);
        self.io.request_render();
    }

    fn run(self: &Rc<Self>, effects: Vec<Effect>) {
        for e in effects {
            self.effect(e);
        }
    }

    fn later(self: &Rc<Self>, msg: Msg, flag: Option<&'static str>) {
        let me = self.clone();
        Timeout::new(0, move || {
            match flag {
                Some("agents") => me.agents_pending.set(false),
                Some(_) => me.continue_pending.set(false),
                None => {}
            }
            me.deliver(msg);
        })
        .forget();
    }

    fn effect(self: &Rc<Self>, e: Effect) {
        match e {
            Effect::Fetch(url, purpose) => {
                let me = self.clone();
                spawn_local(async move {
                    let r = fetch_text(&url).await;
                    me.deliver(Msg::Fetched(purpose, r));
                });
            }
            Effect::ReadFile {
                file,
                offset,
                len,
                purpose,
            } => {
                let blob = self.files.borrow().get(&file.id).cloned();
                let me = self.clone();
                spawn_local(async move {
                    let bytes = match blob {
                        None => Err("the file is no longer available".to_owned()),
                        Some(b) => {
                            let end = (offset + len).min(file.size);
                            match b.slice_with_f64_and_f64(offset as f64, end as f64) {
                                Ok(part) => JsFuture::from(part.array_buffer())
                                    .await
                                    .map(|buf| js_sys::Uint8Array::new(&buf).to_vec())
                                    .map_err(|e| js_message(&e)),
                                Err(e) => Err(js_message(&e)),
                            }
                        }
                    };
                    me.deliver(Msg::FileRead {
                        purpose,
                        file,
                        offset,
                        bytes,
                    });
                });
            }
            Effect::ScoreInWorker {
                file,
                text,
                lang,
                keep,
            } => {
                let blob = self.files.borrow().get(&file.id).cloned();
                let me = self.clone();
                let id = file.id;
                let progress = Closure::<dyn FnMut(f64)>::new(move |read: f64| {
                    me.deliver(Msg::WorkerProgress {
                        file: id,
                        read: read as u64,
                    })
                });
                let p = blob.map(|b| {
                    self.io.score_in_worker(
                        &b,
                        &text,
                        lang,
                        keep,
                        progress.as_ref().unchecked_ref(),
                    )
                });
                let me = self.clone();
                spawn_local(async move {
                    let result = match p {
                        None => Err("the file is no longer available".to_owned()),
                        Some(p) => JsFuture::from(p)
                            .await
                            .map_err(|e| js_message(&e))
                            .map(|v| {
                                let a = js_sys::Array::from(&v);
                                let lines = a.get(1);
                                (
                                    a.get(0).as_string().unwrap_or_default(),
                                    lines
                                        .as_string()
                                        .ok_or(lines.as_f64().unwrap_or(0.0) as u32),
                                    a.get(2).as_string(),
                                )
                            }),
                    };
                    drop(progress);
                    me.deliver(Msg::WorkerScored { file: id, result });
                });
            }
            Effect::ReleaseFile(id) => {
                self.files.borrow_mut().remove(&id);
            }
            Effect::KvPut(entries) => {
                let arr = js_sys::Array::new();
                for (k, v) in entries {
                    arr.push(&js_sys::Array::of2(
                        &JsValue::from_str(&k),
                        &JsValue::from_str(&v),
                    ));
                }
                self.store(self.io.kv_put(arr));
            }
            Effect::KvDelete(keys) => {
                let arr: js_sys::Array = keys.iter().map(|k| JsValue::from_str(k)).collect();
                self.store(self.io.kv_delete(arr));
            }
            Effect::KvDeletePrefix(prefix) => self.store(self.io.kv_delete_prefix(&prefix)),
            Effect::KvList(prefix, purpose) => {
                let p = self.io.kv_list(&prefix);
                let me = self.clone();
                spawn_local(async move {
                    let entries = match JsFuture::from(p).await {
                        Ok(v) => js_sys::Array::from(&v)
                            .iter()
                            .filter_map(|pair| {
                                let pair = js_sys::Array::from(&pair);
                                Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
                            })
                            .collect(),
                        Err(_) => Vec::new(),
                    };
                    me.deliver(Msg::Listed(purpose, entries));
                });
            }
            Effect::KvGet(key, purpose) => {
                let p = self.io.kv_get(&key);
                let me = self.clone();
                spawn_local(async move {
                    let v = JsFuture::from(p).await.ok().and_then(|v| v.as_string());
                    me.deliver(Msg::Got(purpose, v));
                });
            }
            Effect::Download { name, mime, data } => self.io.download(&name, mime, &data),
            Effect::DownloadKept { id, name } => self.io.download_kept(id, &name),
            Effect::DownloadPng {
                svg,
                name,
                width,
                height,
            } => self.io.download_png(&svg, &name, width, height),
            Effect::Copy(text) => {
                let p = self.io.copy(&text);
                let me = self.clone();
                spawn_local(async move {
                    let ok = JsFuture::from(p)
                        .await
                        .ok()
                        .and_then(|v| v.as_bool())
                        .unwrap_or(false);
                    me.deliver(Msg::Copied(ok));
                });
            }
            Effect::PushUrl(url) => self.io.push_url(&url),
            Effect::ReplaceUrl(url) => self.io.replace_url(&url),
            Effect::SaveKey(json) => {
                if let Err(e) = self.io.key_set(KEY, &json) {
                    let me = self.clone();
                    let msg = js_message(&e);
                    spawn_local(async move {
                        me.deliver(Msg::StoreFailed(format!(
                            "the key cannot be remembered: {msg}"
                        )))
                    });
                }
            }
            Effect::ForgetKey => self.io.key_remove(KEY),
            Effect::SavePrices(Some(text)) => {
                let _ = self.io.key_set(PRICES, &text);
            }
            Effect::SavePrices(None) => self.io.key_remove(PRICES),
            Effect::LoadJieba => {
                let p = self.io.load_jieba();
                let me = self.clone();
                spawn_local(async move {
                    let r = match JsFuture::from(p).await {
                        Ok(f) => match f.dyn_into::<js_sys::Function>() {
                            Ok(cut) => {
                                // The lab module scores: it gets the same segmenter.
                                if let Ok(run) = JsFuture::from(me.io.load_lab(true)).await {
                                    if let Ok(run) = run.dyn_into::<js_sys::Function>() {
                                        let _ = run.call2(
                                            &JsValue::NULL,
                                            &JsValue::from_str("score_segmenter"),
                                            &cut,
                                        );
                                    }
                                }
                                let cut = Rc::new(move |s: &str| -> Option<Vec<String>> {
                                    let out =
                                        cut.call1(&JsValue::NULL, &JsValue::from_str(s)).ok()?;
                                    let arr = out.dyn_into::<js_sys::Array>().ok()?;
                                    arr.iter().map(|w| w.as_string()).collect()
                                });
                                if let Ok(mut s) = me.state.try_borrow_mut() {
                                    s.install_segmenter(cut);
                                }
                                Ok(())
                            }
                            Err(_) => Err("the segmenter did not load".to_owned()),
                        },
                        Err(e) => Err(js_message(&e)),
                    };
                    me.deliver(Msg::JiebaLoaded(r));
                });
            }
            Effect::Lab {
                call,
                input,
                purpose,
            } => {
                // The scorer, the stream readers and the env steps are called synchronously:
                // the main thread's module.
                let local = matches!(
                    purpose,
                    crate::msg::LabPurpose::Scorer
                        | crate::msg::LabPurpose::StreamReaders
                        | crate::msg::LabPurpose::EnvReady
                );
                let p = self.io.load_lab(local);
                let me = self.clone();
                spawn_local(async move {
                    let answer = match JsFuture::from(p).await {
                        Ok(run) => match run.dyn_into::<js_sys::Function>() {
                            Ok(run) => {
                                if local && !crate::scoring::ready() {
                                    crate::scoring::install(one_call(run.clone(), "score"));
                                }
                                if purpose == crate::msg::LabPurpose::StreamReaders {
                                    me.state
                                        .borrow_mut()
                                        .install_stream_call(one_call(run.clone(), "stream_read"));
                                    me.state.borrow_mut().cassette_call =
                                        Some(one_call(run.clone(), "cassette"));
                                }
                                if purpose == crate::msg::LabPurpose::EnvReady {
                                    me.state
                                        .borrow_mut()
                                        .install_env_call(env_call(run.clone()));
                                }
                                run.call2(
                                    &JsValue::NULL,
                                    &JsValue::from_str(call.name()),
                                    &JsValue::from_str(&input),
                                )
                                .map_err(|e| js_message(&e))
                            }
                            Err(_) => Err("the lab module did not load".to_owned()),
                        },
                        Err(e) => Err(format!(
                            "the lab module could not be loaded: {}",
                            js_message(&e)
                        )),
                    };
                    // The worker's answer is a promise; the main thread's is the text.
                    let answer = match answer.map(|out| out.dyn_into::<js_sys::Promise>()) {
                        Ok(Ok(p)) => JsFuture::from(p).await.map_err(|e| js_message(&e)),
                        Ok(Err(out)) => Ok(out),
                        Err(e) => Err(e),
                    }
                    .and_then(|out| {
                        out.as_string()
                            .ok_or_else(|| "the lab module returned no text".to_owned())
                    });
                    me.deliver(match answer {
                        Ok(output) => Msg::LabDone { purpose, output },
                        Err(error) => Msg::LabFailed { purpose, error },
                    });
                });
            }
            Effect::Send(out) => self.send(out),
            Effect::Aux(aux) => {
                let me = self.clone();
                spawn_local(async move {
                    let reply = crate::transport::fetch_aux(&aux).await;
                    me.deliver(Msg::AuxDone(aux.purpose, reply));
                });
            }
            Effect::Probe(send) => {
                let me = self.clone();
                spawn_local(async move {
                    let seq = send.seq;
                    crate::transport::fetch_probe(&send, &|input| {
                        me.deliver(Msg::Probe(seq, input))
                    })
                    .await;
                });
            }
            Effect::Abort(id) => {
                if let Some(c) = self.requests.borrow_mut().remove(&id) {
                    c.abort();
                }
            }
            Effect::WakeAt(at) => {
                let ms = ((at - now().mono) * 1000.0).clamp(0.0, 2_147_483_000.0) as u32;
                let me = self.clone();
                let t = Timeout::new(ms, move || me.deliver(Msg::Tick));
                if let Some(old) = self.timer.borrow_mut().replace(t) {
                    old.cancel();
                }
            }
            Effect::AgentsSoon => {
                if !self.agents_pending.replace(true) {
                    self.later(Msg::AgentStep, Some("agents"));
                }
            }
            Effect::ContinueSoon => {
                if !self.continue_pending.replace(true) {
                    self.later(Msg::Continue, Some("continue"));
                }
            }
        }
    }

    fn store(self: &Rc<Self>, p: js_sys::Promise) {
        let me = self.clone();
        spawn_local(async move {
            if let Err(e) = JsFuture::from(p).await {
                me.deliver(Msg::StoreFailed(js_message(&e)));
            }
        });
    }

    /// Sends one request of the live run (see [`crate::transport`]); the controller is
    /// kept so the engine can abort it.
    fn send(self: &Rc<Self>, out: Outgoing) {
        let id = out.transmit.id.0;
        let me = self.clone();
        let controller = web_sys::AbortController::new().ok();
        if let Some(c) = &controller {
            self.requests.borrow_mut().insert(id, c.clone());
        }
        spawn_local(async move {
            if out.transmit.stream {
                let deliver = |part| me.deliver(Msg::Stream(id, part));
                let failed = crate::transport::fetch_streamed(
                    &out.transmit.request,
                    out.auth.as_ref(),
                    controller.as_ref(),
                    true,
                    &deliver,
                )
                .await;
                me.requests.borrow_mut().remove(&id);
                if let Some(reply) = failed {
                    me.deliver(Msg::Reply(id, reply));
                }
                return;
            }
            let reply = crate::transport::fetch_reply(&out, controller.as_ref()).await;
            me.requests.borrow_mut().remove(&id);
            me.deliver(Msg::Reply(id, reply));
        });
    }
}

/// The lab module's calls for an env run, called synchronously through `run(call, input)`.
fn env_call(run: js_sys::Function) -> crate::env::SyncCall {
    std::rc::Rc::new(move |call: wildtool_contract::Call, input: &str| {
        run.call2(
            &JsValue::NULL,
            &JsValue::from_str(call.name()),
            &JsValue::from_str(input),
        )
        .map_err(|e| js_message(&e))?
        .as_string()
        .ok_or_else(|| "the lab module returned no text".to_owned())
    })
}

/// The lab module's call `name`, called synchronously through `run(call, input)` (its
/// scorer, its stream readers).
fn one_call(run: js_sys::Function, name: &'static str) -> crate::scoring::ScoreCall {
    std::rc::Rc::new(move |input: &str| {
        run.call2(
            &JsValue::NULL,
            &JsValue::from_str(name),
            &JsValue::from_str(input),
        )
        .map_err(|e| js_message(&e))?
        .as_string()
        .ok_or_else(|| "the lab module returned no text".to_owned())
    })
}

#[wasm_bindgen]
impl App {
    /// The page at `href`, with the IO adapters.
    #[wasm_bindgen(constructor)]
    pub fn new(io: Io, href: String) -> App {
        let key = io.key_get(KEY);
        let mut state = AppState::new(&href, key.as_deref());
        state.budget.prices = io.key_get(PRICES);
        state.flags.worker = io.worker_available();
        App {
            inner: Rc::new(Inner {
                state: RefCell::new(state),
                io,
                files: RefCell::new(Handles::default()),
                next_file: Cell::new(1),
                requests: RefCell::new(Handles::default()),
                timer: RefCell::new(None),
                agents_pending: Cell::new(false),
                continue_pending: Cell::new(false),
            }),
        }
    }

    /// Starts loading what the page needs.
    pub fn start(&self) {
        let effects = self.inner.state.borrow_mut().start();
        self.inner.run(effects);
    }

    /// A user action (`data-action`, `data-arg`, the element's value).
    pub fn dispatch(&self, action: &str, arg: &str, value: &str) {
        if let Some(msg) = Msg::from_action(action, arg, value) {
            self.inner.deliver(msg);
        }
    }

    /// A file chosen or dropped for `action`.
    #[wasm_bindgen(js_name = dispatchFile)]
    pub fn dispatch_file(&self, action: &str, _arg: &str, file: web_sys::File) {
        let id = self.inner.next_file.get();
        self.inner.next_file.set(id + 1);
        let r = FileRef {
            id,
            name: file.name(),
            size: file.size() as u64,
        };
        self.inner.files.borrow_mut().insert(id, file.into());
        match Msg::from_file_action(action, r) {
            Some(msg) => self.inner.deliver(msg),
            None => {
                self.inner.files.borrow_mut().remove(&id);
            }
        }
    }

    /// The page to render (JSON of [`views::Frame`]); the focus request is handed out once.
    pub fn frame(&self) -> String {
        let mut s = self.inner.state.borrow_mut();
        let frame = views::frame(&s);
        s.focus = None;
        frame.to_json()
    }

    /// How long the last render took (ms).
    pub fn rendered(&self, ms: f64) {
        if let Ok(mut s) = self.inner.state.try_borrow_mut() {
            s.render_ms = ms;
        }
    }
}
