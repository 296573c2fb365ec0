// End-to-end: generated suites and sweeps in the page, compared with the CLI.
// - Generate: the page's suite (WebAssembly, lab module) is byte-identical to
//   `wildtool generate`'s file, its fingerprint is the one `wildtool stats` prints, and it
//   runs at once with the gold agent to 100%.
// - `dataset=generate:…` generates and runs from the address.
// - A small sweep with the baseline agent gives the same sweep.json and sweep.html as
//   `wildtool sweep` on the same settings.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';

const run = promisify(execFile);
const CLI = join(ROOT, 'target/debug/wildtool');

let server;
let browser;
let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-e2e-gen-'));
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  try {
    await run('cargo', ['build', '--quiet', '--bin', 'wildtool'], { cwd: ROOT, maxBuffer: 1 << 24 });
  } catch (err) {
    throw new Error(`cannot build the CLI: ${err.stderr || err.message}`);
  }
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const hook = (page, name) => page.evaluate((n) => document.body.dataset[n], name);
const headline = (page) => page.$$eval('#headline .metric-value', (v) => v.map((x) => x.textContent));

async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFile(await dl.path(), 'utf8');
}

/** `wildtool generate` with `args`; resolves to { text, fingerprint } (from `wildtool stats`). */
async function cliSuite(name, args) {
  const file = join(work, name);
  await run(CLI, ['generate', ...args, '--out', file]);
  const { stdout } = await run(CLI, ['stats', file], { maxBuffer: 1 << 24 });
  const fingerprint = stdout.match(/^fingerprint\s+([0-9a-f]{16})$/m)?.[1];
  return { text: await readFile(file, 'utf8'), fingerprint };
}

describe('generated suites and sweeps', () => {
  test('Generate: the same bytes and fingerprint as the CLI, then a gold run scores 100%', async () => {
    const { page, problems } = await openPage(browser.context, `${server.url}?view=generate&provider=gold`);
    await page.waitForFunction(() => document.body.dataset.dataset);
    await page.fill('#gen-seed', '7');
    await page.fill('#gen-sessions', '48');
    await page.fill('#gen-factors', 'transitions=2,distractors=1,domains=weather,finance-ledger,maps,music');
    await page.click('#generate');
    await page.waitForFunction(() => document.body.dataset.generate === 'done', null, { timeout: 60_000 });
    const cli = await cliSuite('t2.jsonl', ['--seed', '7', '--sessions', '48', '--transitions', '2', '--distractors', '1', '--domains', 'weather,finance-ledger,maps,music']);
    assert.match(cli.fingerprint, /^[0-9a-f]{16}$/);
    assert.equal(await page.textContent('#generated-fingerprint'), cli.fingerprint);
    assert.equal(await hook(page, 'dataset'), cli.fingerprint);
    const bytes = await download(page, '#generated-download');
    assert.ok(bytes === cli.text, 'the page generates the same bytes as wildtool generate');
    assert.match(await page.textContent('#generated-card'), new RegExp(`fingerprint\\s+${cli.fingerprint}`));
    await screenshot(page, 'generate-1400.png');
    // Generation speed in the page (packs and the lab module already loaded).
    await page.fill('#gen-sessions', '256');
    await page.fill('#gen-factors', 'distractors=1');
    const big = await cliSuite('big.jsonl', ['--seed', '7', '--sessions', '256', '--distractors', '1']);
    const t0 = Date.now();
    await page.click('#generate');
    await page.waitForFunction((fp) => document.getElementById('generated-fingerprint')?.textContent === fp, big.fingerprint, { timeout: 120_000 });
    const seconds = (Date.now() - t0) / 1000;
    console.log(`page generation: 256 sessions in ${seconds.toFixed(2)} s (${Math.round(256 / seconds)} sessions/s, click to shown)`);
    assert.equal(await hook(page, 'dataset'), big.fingerprint);
    // Run it at once with the gold agent.
    await page.click('#generated-run');
    await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 300_000 });
    assert.equal(await hook(page, 'runOutcome'), 'done');
    assert.deepEqual((await headline(page)).slice(0, 2), ['100.0%', '100.0%']);
    assert.equal(JSON.parse(await hook(page, 'headline')).tasks_total, 1024);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('dataset=generate: in the address generates the suite and runs it', async () => {
    const spec = 'seed=11,sessions=16,transitions=1,width=3';
    const { page, problems } = await openPage(browser.context, `${server.url}?dataset=generate:${spec}&provider=gold&autorun=1`);
    await page.waitForFunction(() => document.body.dataset.runState === 'done', null, { timeout: 120_000 });
    const cli = await cliSuite('auto.jsonl', ['--seed', '11', '--sessions', '16', '--transitions', '1', '--width', '3']);
    assert.equal(await hook(page, 'dataset'), cli.fingerprint);
    assert.equal(await hook(page, 'runOutcome'), 'done');
    const h = JSON.parse(await hook(page, 'headline'));
    assert.deepEqual([h.tasks_scored, h.tasks_total, h.task_accuracy, h.session_accuracy], [64, 64, '100.0%', '100.0%']);
    assert.ok(page.url().includes('dataset=generate'), page.url());
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a small sweep with the baseline agent equals wildtool sweep', async () => {
    const { page, problems } = await openPage(browser.context, `${server.url}?view=sweep&provider=baseline`);
    await page.waitForFunction(() => document.body.dataset.dataset);
    await page.fill('#sweep-factor', 'transitions');
    await page.fill('#sweep-levels', '0,1,3');
    await page.fill('#sweep-per-level', '12');
    await page.fill('#sweep-seed', '3');
    await page.fill('#sweep-hold', 'distractors=1');
    await page.click('#sweep-start');
    await page.waitForFunction(() => document.body.dataset.sweep === 'done', null, { timeout: 300_000 });
    assert.equal(await hook(page, 'view'), 'sweep', 'the page stays on the Sweep view');
    const pageJson = await download(page, '#sweep-json');
    const pageHtml = await download(page, '#sweep-html');
    const out = join(work, 'sweep');
    const { stdout } = await run(CLI, ['sweep', '--factor', 'transitions=0,1,3', '--per-level', '12', '--seed', '3', '--hold', 'distractors=1', '--provider', 'baseline', '--out', out], { maxBuffer: 1 << 24 });
    const cliJson = await readFile(join(out, 'sweep.json'), 'utf8');
    assert.equal(pageJson, cliJson, 'sweep.json: page and CLI agree');
    assert.equal(pageHtml, await readFile(join(out, 'sweep.html'), 'utf8'));
    const doc = JSON.parse(cliJson);
    assert.equal(doc.levels.length, 3);
    assert.ok(doc.trend, 'a trend test');
    // The view shows the document's numbers (the CLI's table lines too).
    await page.waitForSelector('#sweep-slope', { timeout: 20_000 });
    const slope = await page.textContent('#sweep-slope');
    assert.ok(stdout.includes(slope), `${slope} in the CLI's table:\n${stdout}`);
    // Every level's run is in the history, named after its level.
    await page.click('nav [data-view="history"]');
    for (const v of ['0', '1', '3']) {
      await page.waitForSelector(`text=baseline · transitions = ${v}`, { timeout: 20_000 });
    }
    await page.click('nav [data-view="sweep"]');
    await page.waitForFunction(() => document.body.dataset.view === 'sweep' && document.getElementById('sweep-slope'), null, { timeout: 20_000 });
    for (const width of [390, 1400]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(200);
      await screenshot(page, `sweep-${width}.png`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
});
