// End-to-end: the ledger environment's sweeps and comparisons in the page (an extension).
// - A challenge sweep with the baseline agent runs every level in the environment and
//   gives the same sweep.json and sweep.html as `wildtool sweep --factor challenge=…`.
// - The baseline agent's gold-history and own-history env runs compared in the Compare
//   view: the env metrics, the paired test and the self-conditioning figure on
//   env_success, with the numbers of `wildtool compare` on the CLI's runs of the same agent.
//
// The page carries the ledger environment in every build (bash scripts/build-web.sh).
// (the default app shell does not carry it yet; docs/page-modules.md). Skipped otherwise.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, axeViolations, buildCli, drawn, launchBrowser, openPage, screenshot, suiteSetup } from './helpers.mjs';

const run = promisify(execFile);
const suite = suiteSetup(before, after);
let CLI;
let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'wildtool-e2e-envcmp-'));
  CLI = await buildCli();
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
    const { page, problems } = await openPage(suite.browser.context, `${suite.server.url}?view=setup&provider=baseline`);
    assert.ok(await hasEnv(page), 'the page carries the ledger environment');
    await page.goto(`${suite.server.url}?view=sweep&provider=baseline`);
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

  test('gold vs own history of the baseline agent in the Compare view equals wildtool compare', async (t) => {
    const fresh = await launchBrowser();
    try {
      const { page, problems } = await openPage(fresh.context, `${suite.server.url}?view=setup`);
      assert.ok(await hasEnv(page), 'the page carries the ledger environment');
      for (const history of ['gold', 'own']) {
        await page.goto(`${suite.server.url}?provider=baseline&env=ledger&history=${history}&autorun=1`);
        await page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.envView === 'ready', null, { timeout: 180_000 });
      }
      await page.goto(`${suite.server.url}?view=compare`);
      await page.waitForSelector('#compare-picker input[type="checkbox"]');
      const boxes = await page.$$('#compare-picker input[type="checkbox"]');
      assert.equal(boxes.length, 2);
      for (const b of boxes) await b.check();
      await page.waitForSelector('#env-sc-overall', { timeout: 60_000 });
      await drawn(page);
      assert.match(await page.textContent('#env-compare-note'), /extension: ledger environment \(not a WildToolBench metric\)/);
      // The CLI's runs of the same agent and their comparison.
      const dataset = join(ROOT, 'data/suite.jsonl');
      const gold = join(work, 'cmp-gold');
      const own = join(work, 'cmp-own');
      const out = join(work, 'cmp');
      await run(CLI, ['run', '--env', 'ledger', '--dataset', dataset, '--provider', 'baseline', '--out', gold]);
      await run(CLI, ['run', '--history', 'own', '--env', 'ledger', '--sessions', '0-15', '--dataset', dataset, '--provider', 'baseline', '--out', own]);
      await run(CLI, ['compare', gold, own, '--dataset', dataset, '--out', out], { maxBuffer: 1 << 24 });
      const fig = JSON.parse(await readFile(join(out, 'self-conditioning.json'), 'utf8'));
      const overall = await page.textContent('#env-sc-overall');
      assert.match(overall, new RegExp(`over ${fig.tasks} paired tasks; ${fig.own_only} succeeded in own history only, ${fig.gold_only} in gold history only`));
      const cmp = JSON.parse(await readFile(join(out, 'compare.json'), 'utf8'));
      const pair = await page.textContent('#env-pair-1');
      assert.ok(pair.includes(`${cmp.pairs[0].a_only} succeeded only here`) && pair.includes(`${cmp.pairs[0].b_only} succeeded only here`), pair);
      const rows = await page.$$eval('#env-sc-position tbody tr', (r) => r.map((x) => x.querySelector('td')?.textContent));
      assert.deepEqual(rows, fig.by_position.map((c) => String(c.tasks)));
      const report = [];
      for (const scheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const width of [390, 1400]) {
          await page.setViewportSize({ width, height: 900 });
          for (const v of await axeViolations(page)) report.push(`compare ${width}px ${scheme}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.join(', ')}`);
          await screenshot(page, `env-compare-${width}-${scheme}.png`);
          const scroll = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(scroll <= 1, `no sideways scrolling at ${width}px (${scroll}px)`);
        }
      }
      assert.deepEqual(report, [], report.join('\n'));
      assert.deepEqual(problems, []);
    } finally {
      await fresh.close();
    }
  });
});
