// The bundled server sends the page's text and WebAssembly compressed, by content
// negotiation: brotli or gzip as the request allows, identity otherwise, with
// Vary: Accept-Encoding and the compressed length; bodies decode to the files' bytes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { startServer } from './helpers.mjs';

const WWW = fileURLToPath(new URL('../../www/', import.meta.url));
let server;

before(async () => { server = await startServer(); });
after(() => server?.stop());

/** GET `path` with `headers`; resolves to { status, headers, body } (body as sent). */
function get(path, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function shellAssets() {
  const wasm = (await readdir(join(WWW, 'pkg'))).filter((f) => f.endsWith('.wasm')).map((f) => `pkg/${f}`);
  assert.ok(wasm.length > 0, 'the page is built (bash scripts/build-web.sh)');
  return ['index.html', 'app.js', 'style.css', ...wasm];
}

test('assets are sent with brotli when the browser accepts it, and decode to the file', async () => {
  for (const asset of await shellAssets()) {
    const file = await readFile(join(WWW, asset));
    const res = await get(`/${asset}`, { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    assert.equal(res.status, 200, asset);
    assert.equal(res.headers['content-encoding'], 'br', asset);
    assert.equal(res.headers['vary'], 'Accept-Encoding', asset);
    assert.equal(Number(res.headers['content-length']), res.body.length, asset);
    assert.ok(res.body.length < file.length, `${asset}: ${res.body.length} of ${file.length} bytes`);
    assert.deepEqual(brotliDecompressSync(res.body), file, asset);
  }
});

test('gzip when only gzip is accepted, identity when nothing or q=0 is', async () => {
  const file = await readFile(join(WWW, 'app.js'));
  const gz = await get('/app.js', { 'Accept-Encoding': 'gzip' });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.deepEqual(gunzipSync(gz.body), file);
  for (const header of [undefined, 'identity', 'br;q=0, gzip;q=0']) {
    const plain = await get('/app.js', header ? { 'Accept-Encoding': header } : {});
    assert.equal(plain.headers['content-encoding'], undefined, String(header));
    assert.equal(plain.headers['vary'], 'Accept-Encoding');
    assert.equal(Number(plain.headers['content-length']), file.length);
    assert.deepEqual(plain.body, file);
  }
});
