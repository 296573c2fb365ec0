// Run persistence in IndexedDB: one `runs` record per run (settings without the key)
// and one `records` row per finished task (the runner's checkpoint line), written as
// each task finishes, so a reload can resume where the run stopped.
const DB_NAME = 'wildtool';
const DB_VERSION = 1;

function req(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function txDone(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error('transaction aborted'));
  });
}

export class RunStore {
  static async open() {
    if (!('indexedDB' in globalThis)) return new RunStore(null);
    try {
      const open = indexedDB.open(DB_NAME, DB_VERSION);
      open.onupgradeneeded = () => {
        const db = open.result;
        if (!db.objectStoreNames.contains('runs')) db.createObjectStore('runs', { keyPath: 'id' });
        if (!db.objectStoreNames.contains('records')) {
          const s = db.createObjectStore('records', { autoIncrement: true });
          s.createIndex('run', 'run');
        }
      };
      return new RunStore(await req(open));
    } catch {
      return new RunStore(null);
    }
  }

  constructor(db) { this.db = db; }

  get available() { return this.db !== null; }

  async putRun(run) {
    if (!this.db) return;
    const tx = this.db.transaction('runs', 'readwrite');
    tx.objectStore('runs').put(run);
    await txDone(tx);
  }

  async appendRecord(runId, line) {
    if (!this.db) return;
    const tx = this.db.transaction('records', 'readwrite');
    tx.objectStore('records').add({ run: runId, line });
    await txDone(tx);
  }

  async records(runId) {
    if (!this.db) return [];
    const tx = this.db.transaction('records', 'readonly');
    const rows = await req(tx.objectStore('records').index('run').getAll(runId));
    return rows.map((r) => r.line);
  }

  async runs() {
    if (!this.db) return [];
    const tx = this.db.transaction('runs', 'readonly');
    const all = await req(tx.objectStore('runs').getAll());
    return all.sort((a, b) => (b.updated || 0) - (a.updated || 0));
  }

  async deleteRun(runId) {
    if (!this.db) return;
    const tx = this.db.transaction(['runs', 'records'], 'readwrite');
    tx.objectStore('runs').delete(runId);
    const idx = tx.objectStore('records').index('run');
    const keys = await req(idx.getAllKeys(runId));
    for (const k of keys) tx.objectStore('records').delete(k);
    await txDone(tx);
  }

  /** Deletes all but the `keep` most recently updated runs (records included). */
  async prune(keep = 8) {
    const all = await this.runs();
    for (const r of all.slice(keep)) await this.deleteRun(r.id);
  }
}
