// The lab module (crates/lab) in a dedicated Web Worker: the page's heavy calls run here,
// so the page's main thread only renders. Messages are answered in the order they arrive:
// {id, call, input} -> {id, ok} or {id, err}. (Uploads are scored in js/workers/score-worker.js.)
import init, * as lab from '../../pkg/lab/wildtool_lab.js';

const ready = init();
self.onmessage = async (e) => {
  const m = e.data;
  try {
    await ready;
    const ok = lab[m.call](m.input);
    postMessage({ id: m.id, ok });
  } catch (err) {
    postMessage({ id: m.id, err: String(err && err.message ? err.message : err) });
  }
};
