#!/usr/bin/env node
// Static file server for www/ on 127.0.0.1 (no dependencies).
// Usage: node scripts/serve.mjs [port]   (or PORT=…; default 8080; 0 = any free port)
// Prints "wildtool page: http://127.0.0.1:PORT/" once listening.
// Text and WebAssembly files are sent compressed (brotli or gzip, as the request's
// Accept-Encoding allows, with Vary: Accept-Encoding), as static hosts do; each compressed
// body is made once per file version and kept in memory.
import { createServer } from 'node:http';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../www/', import.meta.url)));
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.jsonl': 'application/x-ndjson; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** File types worth compressing (the others are compressed already or tiny). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.jsonl', '.wasm', '.svg', '.txt']);

/** The encoding to send for an Accept-Encoding header: 'br', 'gzip' or null (identity). */
export function chooseEncoding(header) {
  const accepted = new Map();
  for (const part of String(header || '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name, q ? Number(q.slice(2)) : 1);
  }
  const ok = (name) => {
    const q = accepted.has(name) ? accepted.get(name) : accepted.get('*');
    return q !== undefined && q > 0;
  };
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return null;
}

const compressed = new Map();

/** The body of `file` (version `mtimeMs`, bytes `body`) in `encoding`, made once. */
function encodedBody(file, mtimeMs, body, encoding) {
  const key = `${encoding}:${file}`;
  const hit = compressed.get(key);
  if (hit && hit.mtimeMs === mtimeMs && hit.size === body.length) return hit.bytes;
  const bytes =
    encoding === 'br'
      ? brotliCompressSync(body, {
          params: {
            [zlib.BROTLI_PARAM_QUALITY]: 11,
            [zlib.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        })
      : gzipSync(body, { level: 9 });
  compressed.set(key, { mtimeMs, size: body.length, bytes });
  return bytes;
}

function send(res, status, body, type = 'text/plain; charset=utf-8') {
  res.writeHead(status, {
    'Content-Type': type,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}

/** Maps a URL path to a file under ROOT, or null when it escapes ROOT. */
export function resolvePath(urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0].split('#')[0]);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const rel = normalize(decoded).replace(/^([/\\])+/, '');
  const full = resolve(join(ROOT, rel));
  if (full !== ROOT && !full.startsWith(ROOT + sep)) return null;
  return full;
}

const server = createServer(async (req, res) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
  let file = resolvePath(req.url || '/');
  if (!file) return send(res, 403, 'forbidden');
  try {
    let info = await stat(file);
    if (info.isDirectory()) {
      file = join(file, 'index.html');
      info = await stat(file);
    }
    let body = await readFile(file);
    const ext = extname(file).toLowerCase();
    const type = MIME[ext] || 'application/octet-stream';
    const headers = {
      'Content-Type': type,
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    };
    if (COMPRESSIBLE.has(ext)) {
      headers['Vary'] = 'Accept-Encoding';
      const encoding = body.length > 256 ? chooseEncoding(req.headers['accept-encoding']) : null;
      if (encoding) {
        body = encodedBody(file, info.mtimeMs, body, encoding);
        headers['Content-Encoding'] = encoding;
      }
    }
    headers['Content-Length'] = body.length;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch {
    send(res, 404, 'not found');
  }
});

const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid port: ${process.argv[2] ?? process.env.PORT}`);
  process.exit(2);
}
server.listen(port, '127.0.0.1', () => {
  const { port: actual } = server.address();
  console.log(`wildtool page: http://127.0.0.1:${actual}/`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
