// End-to-end: the ledger environment's sweeps and comparisons in the page (an extension).
// - A challenge sweep with the baseline agent runs every level in the environment and
//   gives the same sweep.json and sweep.html as `wildtool sweep --factor challenge=…`.
//
// Needs a page built with the environment: WEB_FEATURES=env-page bash scripts/build-web.sh
// (the default app shell does not carry it yet; docs/page-modules.md). Skipped otherwise.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, axeViolations, drawn, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';

const run = promisify(execFile);
const CLI = join(ROOT, 'target/debug/wildtool');

let server;
let browser;
let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-e2e-envcmp-'));
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

async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFile(await dl.path(), 'utf8');
}

/** Whether this page carries the ledger environment. */
async function hasEnv(page) {
  await page.waitForFunction(() => document.body.dataset.dataset);
  return page.evaluate(() => !!document.querySelector('#m-env'));
}

describe('ledger environment: sweeps and comparisons in the page', () => {
  test('a challenge sweep with the baseline agent equals wildtool sweep', async (t) => {
    const { page, problems } = await openPage(browser.context, `${server.url}?view=setup&provider=baseline`);
    if (!(await hasEnv(page))) {
      t.skip('this page was built without the ledger environment (WEB_FEATURES=env-page)');
      return;
    }
    await page.goto(`${server.url}?view=sweep&provider=baseline`);
    await page.waitForSelector('#sweep-factor');
    await page.fill('#sweep-factor', 'challenge');
    await page.fill('#sweep-levels', 'compositional,question,clarify');
    await page.fill('#sweep-per-level', '6');
    await page.fill('#sweep-seed', '3');
    await page.fill('#sweep-hold', '');
    await page.click('#sweep-start');
    await page.waitForFunction(() => ['done', 'failed', 'stopped'].includes(document.body.dataset.sweep), null, { timeout: 300_000 });
    assert.equal(await hook(page, 'sweep'), 'done', await page.textContent('#status'));
    assert.equal(await hook(page, 'view'), 'sweep', 'the page stays on the Sweep view');
    const pageJson = await download(page, '#sweep-json');
    const pageHtml = await download(page, '#sweep-html');
    const out = join(work, 'sweep');
    await run(CLI, ['sweep', '--factor', 'challenge=compositional,question,clarify', '--per-level', '6', '--seed', '3', '--provider', 'baseline', '--out', out], { maxBuffer: 1 << 24 });
    assert.equal(pageJson, await readFile(join(out, 'sweep.json'), 'utf8'), 'sweep.json: page and CLI agree');
    assert.equal(pageHtml, await readFile(join(out, 'sweep.html'), 'utf8'), 'sweep.html: page and CLI agree');
    assert.match(pageJson, /"mode": "ledger-env"/);
    await drawn(page);
    const report = [];
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [390, 1400]) {
        await page.setViewportSize({ width, height: 900 });
        for (const v of await axeViolations(page)) report.push(`sweep ${width}px ${scheme}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.join(', ')}`);
        await screenshot(page, `env-sweep-${width}-${scheme}.png`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(report, [], report.join('\n'));
    assert.deepEqual(problems, []);
  });
});
