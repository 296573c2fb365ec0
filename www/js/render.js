// The renderer: patches the live DOM in place from a view tree built in Rust
// (crates/web/src/ui.rs). A text node is a string, an SVG leaf {svg}, an element
// {t, a, c, k}. Text goes through textContent/data, attribute values through
// setAttribute; attribute names starting with "on" are never set. Form state the user
// owns is respected: a focused field keeps what is being typed, and a <details> without
// a data-action keeps its open state.

const isField = (el) => el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;

/** Attributes whose live state belongs to the user: set as properties, never removed. */
function userOwned(el, name) {
  if (name === 'value' || name === 'checked') return isField(el);
  return name === 'open' && el.localName === 'details';
}

/** Parses Rust-generated SVG markup into a node of this document (scripts removed). */
export function svgNode(markup) {
  const doc = new DOMParser().parseFromString(markup, 'image/svg+xml');
  const root = doc.documentElement;
  if (root.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length) {
    const box = document.createElement('p');
    box.textContent = 'This chart could not be drawn.';
    return box;
  }
  for (const bad of root.querySelectorAll('script, foreignObject')) bad.remove();
  for (const node of root.querySelectorAll('*')) {
    for (const { name } of [...node.attributes]) if (/^on/i.test(name)) node.removeAttribute(name);
  }
  return document.importNode(root, true);
}

function svgLeaf(markup) {
  const wrap = document.createElement('div');
  wrap.className = 'svg-leaf';
  wrap.append(svgNode(markup));
  wrap.__svg = markup;
  return wrap;
}

function create(n) {
  if (typeof n === 'string') return document.createTextNode(n);
  if (n.svg !== undefined) return svgLeaf(n.svg);
  const el = document.createElement(n.t);
  if (n.k !== undefined) el.__k = n.k;
  patchElement(el, n);
  return el;
}

function reusable(dom, n) {
  if (!dom) return false;
  if (typeof n === 'string') return dom.nodeType === Node.TEXT_NODE;
  if (n.svg !== undefined) return dom.__svg !== undefined;
  return dom.nodeType === Node.ELEMENT_NODE && dom.__svg === undefined && dom.localName === n.t && dom.__k === n.k;
}

/** Returns `dom` brought up to date with `n`, or a new node when it cannot be reused. */
function sync(dom, n) {
  if (!reusable(dom, n)) return create(n);
  if (typeof n === 'string') {
    if (dom.data !== n) dom.data = n;
  } else if (n.svg !== undefined) {
    return dom.__svg === n.svg ? dom : svgLeaf(n.svg);
  } else {
    patchElement(dom, n);
  }
  return dom;
}

function patchElement(el, n) {
  const a = n.a || {};
  for (const { name } of [...el.attributes]) {
    if (!(name in a) && !userOwned(el, name)) el.removeAttribute(name);
  }
  for (const [k, v] of Object.entries(a)) {
    if (/^on/i.test(k) || userOwned(el, k)) continue;
    if (el.getAttribute(k) !== v) el.setAttribute(k, v);
  }
  patchChildren(el, n.c || []);
  // Properties after the children, so a <select> has its options before its value.
  if (el.type === 'checkbox' || el.type === 'radio') el.checked = 'checked' in a;
  if (n.t === 'details' && ('open' in a || a['data-action'] !== undefined) && el.open !== ('open' in a)) el.open = 'open' in a;
  if (isField(el) && 'value' in a && el.type !== 'file' && el.value !== a.value && el !== document.activeElement) el.value = a.value;
}

/** Brings `parent`'s children in line with `kids`: keyed ones by key, the rest by place. */
export function patchChildren(parent, kids) {
  const keyed = new Map();
  for (const c of parent.childNodes) if (c.__k !== undefined) keyed.set(c.__k, c);
  for (let i = 0; i < kids.length; i += 1) {
    const n = kids[i];
    const at = parent.childNodes[i] || null;
    const keyOf = typeof n === 'object' && n.k !== undefined ? n.k : undefined;
    const cand = keyOf !== undefined ? keyed.get(keyOf) || null : at && at.__k === undefined ? at : null;
    if (cand) keyed.delete(cand.__k);
    const next = sync(cand, n);
    if (next === at) continue;
    if (cand && cand !== next && cand === at) at.replaceWith(next);
    else {
      if (cand && cand !== next) cand.remove();
      parent.insertBefore(next, parent.childNodes[i] || null);
    }
  }
  while (parent.childNodes.length > kids.length) parent.lastChild.remove();
}

/**
 * Event delegation: elements with data-action (and data-arg) call
 * app.dispatch(action, arg, value) on click, input, change and toggle; elements with
 * data-drop take dropped files (app.dispatchFile). `after` runs after every dispatch.
 */
export function wireEvents(root, app, after) {
  const send = (el, value) => {
    app.dispatch(el.dataset.action, el.dataset.arg || '', value);
    after();
  };
  const sendFile = (action, arg, file) => {
    app.dispatchFile(action, arg || '', file);
    after();
  };
  root.addEventListener('click', (ev) => {
    const el = ev.target.closest('[data-action]');
    if (!el || !root.contains(el) || el.matches('input, select, textarea, details')) return;
    if (el.matches('a[href]')) {
      if (ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey || ev.button !== 0) return;
      ev.preventDefault();
    }
    if (el.matches('summary')) return;
    send(el, el.dataset.value ?? '');
  });
  root.addEventListener('input', (ev) => {
    const el = ev.target;
    if (el.dataset?.action && el.matches('textarea, input:not([type=checkbox]):not([type=radio]):not([type=file])')) send(el, el.value);
  });
  root.addEventListener('change', (ev) => {
    const el = ev.target;
    if (!el.dataset?.action) return;
    if (el.type === 'file') {
      const file = el.files && el.files[0];
      if (file) sendFile(el.dataset.action, el.dataset.arg, file);
      el.value = '';
    } else if (el.type === 'checkbox') {
      send(el, el.checked ? 'true' : 'false');
    } else if (el.matches('select') || el.type === 'radio') {
      send(el, el.value);
    }
  });
  root.addEventListener('toggle', (ev) => {
    const d = ev.target;
    if (d.dataset?.action && d.matches('details')) send(d, d.open ? 'true' : 'false');
  }, true);
  root.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (ev.target.dataset?.action) send(ev.target, '');
  });
  root.addEventListener('dragover', (ev) => {
    const zone = ev.target.closest?.('[data-drop]');
    if (!zone) return;
    ev.preventDefault();
    zone.classList.add('over');
  });
  root.addEventListener('dragleave', (ev) => ev.target.closest?.('[data-drop]')?.classList.remove('over'));
  root.addEventListener('drop', (ev) => {
    const zone = ev.target.closest?.('[data-drop]');
    if (!zone) return;
    ev.preventDefault();
    zone.classList.remove('over');
    const file = ev.dataTransfer?.files?.[0];
    if (file) sendFile(zone.dataset.drop, zone.dataset.arg, file);
  });
}

/** Applies a rendered frame: the tree, the title, the body's automation hooks, focus. */
export function applyFrame(root, frame, previousHooks) {
  patchChildren(root, [frame.root]);
  if (frame.title && document.title !== frame.title) document.title = frame.title;
  const hooks = frame.hooks || {};
  for (const k of Object.keys(previousHooks)) if (!(k in hooks)) delete document.body.dataset[k];
  for (const [k, v] of Object.entries(hooks)) if (previousHooks[k] !== v) document.body.dataset[k] = v;
  if (frame.focus) {
    const target = document.getElementById(frame.focus);
    if (target) target.focus({ preventScroll: false });
  }
  return hooks;
}
