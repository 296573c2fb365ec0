#!/usr/bin/env node
// First load of the page from the bundled server, as a browser sees it: the bytes
// transferred (compressed, headers excluded) and uncompressed, per file and in all, and the
// time from navigation to a usable page (the WebAssembly app started and the first view
// drawn), on a throttled connection emulated by Chromium (default 10 Mbit/s down, 5 up,
// 40 ms latency), fresh cache, median of RUNS loads.
// Usage: bash scripts/build-web.sh && node scripts/first-load.mjs [--runs N] [--mbit 10] [--latency 40]
import { startServer, launchBrowser } from '../tests/e2e/helpers.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RUNS = arg('runs', 5);
const MBIT = arg('mbit', 10);
const LATENCY = arg('latency', 40);

const server = await startServer();
const browser = await launchBrowser();
const times = [];
let files = new Map();
try {
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.clearBrowserCache');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: LATENCY,
      downloadThroughput: (MBIT * 1e6) / 8,
      uploadThroughput: (5e6) / 8,
    });
    const urls = new Map();
    const seen = new Map();
    cdp.on('Network.responseReceived', (e) => urls.set(e.requestId, e.response.url));
    cdp.on('Network.dataReceived', (e) => {
      const f = seen.get(e.requestId) || { encoded: 0, decoded: 0 };
      f.decoded += e.dataLength;
      seen.set(e.requestId, f);
    });
    cdp.on('Network.loadingFinished', (e) => {
      const f = seen.get(e.requestId) || { encoded: 0, decoded: 0 };
      f.encoded = e.encodedDataLength;
      seen.set(e.requestId, f);
    });
    const start = Date.now();
    await page.goto(server.url);
    await page.waitForFunction(
      () => document.body.dataset.wasm && document.body.dataset.wasm !== 'loading' && document.querySelector('main'),
      null,
      { timeout: 60_000 },
    );
    times.push(Date.now() - start);
    files = new Map([...seen].map(([id, f]) => [urls.get(id) || id, f]));
    await page.close();
  }
} finally {
  await browser.close();
  server.stop();
}
// Headers are part of encodedDataLength; the sum below is the whole transfer.
let encoded = 0;
let decoded = 0;
for (const [url, f] of files) {
  encoded += f.encoded;
  decoded += f.decoded;
  console.log(`${new URL(url).pathname.padEnd(40)} ${String(f.encoded).padStart(9)} B sent  ${String(f.decoded).padStart(9)} B`);
}
times.sort((a, b) => a - b);
console.log(`first load: ${files.size} requests, ${(encoded / 1000).toFixed(1)} KB transferred (${(decoded / 1000).toFixed(1)} KB uncompressed)`);
console.log(`usable page at ${MBIT} Mbit/s, ${LATENCY} ms latency: median ${times[Math.floor(times.length / 2)]} ms (min ${times[0]}, max ${times[times.length - 1]}, ${RUNS} loads)`);
