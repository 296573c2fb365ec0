// The IO adapters Rust calls (crates/web/src/app/io.rs): a key-value store in IndexedDB,
// downloads, the clipboard, history (URLs), the remembered key in localStorage, and the
// lazily loaded jieba segmenter and lab module. They make no decisions: what is stored
// under which key, and when, is Rust's.

const DB = 'wildtool-kv';
const STORE = 'kv';

function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error('IndexedDB transaction aborted'));
  });
}

async function openDb() {
  if (!('indexedDB' in globalThis)) return null;
  try {
    const open = indexedDB.open(DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(STORE);
    return await request(open);
  } catch {
    return null;
  }
}

const range = (prefix) => IDBKeyRange.bound(prefix, `${prefix}\uffff`);

/** Saves a Blob under `name` through a temporary link. */
function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 2000);
}

let segmenter = null;
let lab = null;

// Heavy work runs in Web Workers, driven by js/workers/client.js (imported on first use).
// One import promise, so calls reach the (in-order) worker in the order they were made.
const workerAvailable = typeof Worker === 'function' && location.protocol !== 'file:';
let client = null;
const workers = () => client || (client = import('./workers/client.js').catch((e) => { client = null; throw e; }));

export async function makeIo(requestRender) {
  const db = await openDb();
  const tx = (mode) => db.transaction(STORE, mode);
  return {
    storeAvailable: db !== null,
    async kvGet(key) {
      if (!db) return undefined;
      return request(tx('readonly').objectStore(STORE).get(key));
    },
    /** entries: [[key, value], …] written in one transaction. */
    async kvPut(entries) {
      if (!db) return;
      const t = tx('readwrite');
      for (const [k, v] of entries) t.objectStore(STORE).put(v, k);
      await done(t);
    },
    async kvDelete(keys) {
      if (!db) return;
      const t = tx('readwrite');
      for (const k of keys) t.objectStore(STORE).delete(k);
      await done(t);
    },
    async kvDeletePrefix(prefix) {
      if (!db) return;
      const t = tx('readwrite');
      t.objectStore(STORE).delete(range(prefix));
      await done(t);
    },
    /** [[key, value], …] of every key starting with `prefix`, in key order. */
    async kvList(prefix) {
      if (!db) return [];
      const t = tx('readonly').objectStore(STORE);
      const [keys, values] = await Promise.all([request(t.getAllKeys(range(prefix))), request(t.getAll(range(prefix)))]);
      return keys.map((k, i) => [k, values[i]]);
    },
    download(name, mime, data) {
      save(new Blob([data], { type: mime }), name);
    },
    downloadPng(svg, name, width, height) {
      const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
      const img = new Image();
      img.onload = () => {
        const canvas = document.createElement('canvas');
        canvas.width = width * 2;
        canvas.height = height * 2;
        const ctx = canvas.getContext('2d');
        ctx.fillStyle = '#fff';
        ctx.fillRect(0, 0, canvas.width, canvas.height);
        ctx.scale(2, 2);
        ctx.drawImage(img, 0, 0, width, height);
        URL.revokeObjectURL(url);
        canvas.toBlob((blob) => blob && save(blob, name), 'image/png');
      };
      img.onerror = () => URL.revokeObjectURL(url);
      img.src = url;
    },
    async copy(text) {
      try {
        await navigator.clipboard.writeText(text);
        return true;
      } catch {
        return false;
      }
    },
    pushUrl(url) { history.pushState(null, '', url); },
    replaceUrl(url) { history.replaceState(null, '', url); },
    location() { return location.href; },
    // localStorage entries wildtool.<name>: the remembered key, the user's prices.
    keyGet(name) {
      try { return localStorage.getItem('wildtool.' + name); } catch { return null; }
    },
    keySet(name, value) { localStorage.setItem('wildtool.' + name, value); },
    keyRemove(name) {
      try {
        localStorage.removeItem('wildtool.' + name);
        if (name === 'rememberedKey') localStorage.removeItem('wildtool.apiKey');
      } catch { /* storage disabled */ }
    },
    /** jieba's module and dictionary, fetched once: resolves to cut(text) -> string[]. */
    loadJieba() {
      if (!segmenter) {
        segmenter = (async () => {
          const [mod, res] = await Promise.all([import('../pkg/jieba/wildtool_jieba.js'), fetch('./data/jieba-dict.txt')]);
          if (!res.ok) throw new Error(`cannot load the Chinese dictionary (HTTP ${res.status})`);
          await mod.default();
          const seg = new mod.Segmenter(new Uint8Array(await res.arrayBuffer()));
          return (text) => seg.cut(text);
        })();
        segmenter.catch(() => { segmenter = null; });
      }
      return segmenter;
    },
    workerAvailable,
    /** Scores `file` in a worker: resolves to [summary, score lines or their kept id, result text or null]. */
    scoreInWorker(file, dataset, lang, keep, progress) {
      return workers().then((w) => w.scoreFile({ file, dataset, lang, keep }, progress));
    },
    downloadKept(id, name) {
      workers().then((w) => { const blob = w.kept(id); if (blob) save(blob, name); });
    },
    /**
     * The lab module (crates/lab): in the worker, run(call, input) -> Promise of the output;
     * on this thread (`local`, or without a worker) loaded once, run(call, input) -> output.
     */
    loadLab(local) {
      if (workerAvailable && !local) return workers().then((w) => (call, input) => w.ask({ call, input }));
      if (!lab) {
        lab = (async () => {
          const mod = await import('../pkg/lab/wildtool_lab.js');
          await mod.default();
          return (call, input) => mod[call](input);
        })();
        lab.catch(() => { lab = null; });
      }
      return lab;
    },
    requestRender,
  };
}
