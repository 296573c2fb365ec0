// End-to-end: the Verify drop zone shows, for the files of a run made by the CLI, the
// same ✓/✗ lines `wildtool verify` prints for them — for the genuine run and after one
// claimed number is changed — verified against the bundled dataset the page loaded.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, launchBrowser, openPage, startServer } from './helpers.mjs';

const BIN = process.env.WILDTOOL_BIN || join(ROOT, 'target/debug/wildtool');
const SUITE = join(ROOT, 'data/suite.jsonl');
const FILES = ['manifest.json', 'result.jsonl', 'score.jsonl', 'metric.json', 'report.json'];

let server;
let browser;
let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-e2e-verify-'));
  execFileSync(BIN, ['run', '--provider', 'baseline', '--dataset', SUITE, '--sessions', '0-63', '--out', join(work, 'run')]);
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const cli = () => spawnSync(BIN, ['verify', ...FILES.map((f) => join(work, 'run', f)), '--dataset', SUITE], { encoding: 'utf8' });

async function dropAll(page) {
  await page.click('#verify button[data-action="verify-clear"]').catch(() => {});
  for (const f of FILES) {
    await page.setInputFiles('#verify-input', join(work, 'run', f));
    await page.waitForFunction((name) => {
      const r = document.querySelector('#verify-result');
      return r && r.textContent.includes(name) && !document.querySelector('#verify-area[aria-busy]');
    }, f, { timeout: 60_000 });
  }
  return page.$$eval('#verify-claims li', (lis) => lis.map((li) => li.textContent));
}

test('the page shows the verdicts wildtool verify prints for the same files', async () => {
  const { page, problems } = await openPage(browser.context, server.url);
  await page.waitForFunction(() => document.body.dataset.dataset);
  await page.click('nav [data-view="offline"]');
  const genuine = cli();
  assert.equal(genuine.status, 0, genuine.stdout + genuine.stderr);
  const shown = await dropAll(page);
  assert.deepEqual(shown, genuine.stdout.trimEnd().split('\n'));
  assert.match(await page.textContent('#verify-verdict'), /Every claim holds/);

  const metric = join(work, 'run', 'metric.json');
  const text = await readFile(metric, 'utf8');
  await writeFile(metric, text.replace('"correct_count": ', '"correct_count": 1'));
  const tampered = cli();
  assert.equal(tampered.status, 1, tampered.stdout);
  const shownTampered = await dropAll(page);
  assert.deepEqual(shownTampered, tampered.stdout.trimEnd().split('\n'));
  assert.ok(shownTampered.some((l) => l.startsWith('✗')));
  assert.deepEqual(problems, []);
  await page.close();
});
