// `bash scripts/serve.sh` (the README's first command) says what it does in one line per
// step, keeps the build's own output in a log file, and serves the page; a built page
// whose modules have not changed is kept, not rebuilt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from './helpers.mjs';

test('serve.sh prints one line per step, logs the build to a file and serves the page', async () => {
  const child = spawn('bash', [join(ROOT, 'scripts/serve.sh'), '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    // The test command builds the page first, so this is the unchanged-modules path (a
    // few seconds); a fresh build takes minutes.
    const timer = setTimeout(() => { child.kill(); reject(new Error(`serve.sh did not start: ${out}`)); }, 600_000);
    const onData = (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) { clearTimeout(timer); resolve(m[0]); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`serve.sh exited ${code}: ${out}`)); });
  });
  try {
    const lines = out.trim().split('\n');
    const before = lines.slice(0, -1);
    assert.ok(before.length <= 12, `at most a dozen lines before the address, got ${before.length}:\n${out}`);
    for (const line of before) {
      assert.match(line, /^\[(setup|build-web|serve)\] /, `a step line, not tool output: ${line}`);
    }
    assert.ok(out.includes('[serve] build log: target/serve-build.log'), out);
    const log = await readFile(join(ROOT, 'target/serve-build.log'), 'utf8');
    assert.match(log, /Finished `wasm-release` profile/, 'cargo\'s output is in the log');
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<html/i);
  } finally {
    child.kill('SIGTERM');
  }
});
