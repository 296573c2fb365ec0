// Boots the page: loads the WebAssembly app (crates/web), hands it the IO adapters, and
// renders what it returns. All state, decisions, counting and file formats are Rust's;
// this file, js/render.js and js/io.js only build DOM, wire events and do IO.
import init, { App } from './pkg/wildtool.js';
import { applyFrame, wireEvents } from './js/render.js';
import { makeIo } from './js/io.js';

const root = document.getElementById('app');
let app = null;
let pending = false;
let hooks = {};

function render() {
  pending = false;
  if (!app) return;
  const started = performance.now();
  hooks = applyFrame(root, JSON.parse(app.frame()), hooks);
  app.rendered(performance.now() - started);
}

/** Renders on the next animation frame (or within 200 ms in a background tab). */
function schedule() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { if (pending) render(); });
  setTimeout(() => { if (pending) render(); }, 200);
}

async function main() {
  await init();
  const io = await makeIo(schedule);
  app = new App(io, location.href);
  // A user's event is answered in the same task: what they see next is its result.
  wireEvents(root, app, render);
  window.addEventListener('popstate', () => { app.dispatch('popstate', '', location.href); schedule(); });
  let resized = null;
  const viewport = () => { app.dispatch('viewport', '', String(window.innerWidth)); schedule(); };
  window.addEventListener('resize', () => { clearTimeout(resized); resized = setTimeout(viewport, 150); });
  viewport();
  document.body.dataset.wasm = 'ready';
  render();
  app.start();
  schedule();
}

main().catch((err) => {
  document.body.dataset.wasm = 'error';
  const msg = document.createElement('p');
  msg.className = 'status';
  msg.dataset.kind = 'error';
  msg.textContent = `The page could not start: ${err && err.message ? err.message : err}`;
  root.replaceChildren(msg);
});
