// End-to-end: the ledger environment in the page (an extension). A new user with no key
// runs the built-in agents in env mode with gold and own history, reads the dashboard's
// "Extension: ledger environment" section, opens a task with its ledger diff, downloads
// a ledger that bean-check accepts (when Beancount is installed: .venv-ledger, see
// scripts/ledger-oracle.sh), and opens the share link in a fresh browser with the same
// numbers; axe-clean at 390 and 1,400 px, light and dark, with screenshots.
//
// The default page carries the environment's page side (the environment itself is in the
// lab module).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, axeViolations, drawn, launchBrowser, openPage, screenshot, startServer } from './helpers.mjs';

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});

after(async () => {
  await browser?.close();
  server?.stop();
});

const hook = (page, name) => page.evaluate((n) => document.body.dataset[n], name);


/** bean-check, when Beancount is installed for the oracle. */
const BEAN_CHECK = [join(ROOT, '.venv-ledger/bin/bean-check'), '/work/main/.venv-ledger/bin/bean-check']
  .find((p) => existsSync(p));

/** Runs the agent in env mode with `history`, from the address, to its env dashboard. */
async function envRun(page, agent, history) {
  await page.goto(`${server.url}?provider=${agent}&env=ledger&history=${history}&autorun=1`);
  await page.waitForFunction(() => document.body.dataset.runState === 'done' && document.body.dataset.envView === 'ready', null, { timeout: 180_000 });
  await drawn(page);
  return JSON.parse(await hook(page, 'envHeadline'));
}

async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const path = await dl.path();
  return { name: dl.suggestedFilename(), text: await readFile(path, 'utf8') };
}

/** The shown env run's manifest.json: its kind, and the hashes of the files downloaded beside it. */
async function manifestHolds(page, kind, names) {
  const m = await download(page, '#env-exp-manifest');
  assert.equal(m.name, 'manifest.json');
  const manifest = JSON.parse(m.text);
  assert.equal(manifest.kind, kind);
  assert.equal(manifest.settings.history_mode, kind.startsWith('own') ? 'own' : 'gold');
  const ids = { 'env-result.jsonl': '#env-exp-result', 'own-result.jsonl': '#env-exp-result', 'env-report.json': '#env-exp-report' };
  for (const name of names) {
    const f = await download(page, ids[name]);
    assert.equal(f.name, name);
    assert.equal(manifest.outputs[0].files[name], createHash('sha256').update(f.text).digest('hex'), name);
  }
}

describe('ledger environment in the page', () => {
  test('gold and own history with the built-in agents, diff, download, link, axe', async (t) => {
    const { page, problems } = await openPage(browser.context, server.url);
    await page.waitForFunction(() => document.body.dataset.dataset);
    assert.ok(await page.evaluate(() => !!document.querySelector('#m-env')), 'the setup form offers the ledger environment');
    // Gold history, gold agent: 100% on the bundled suite's ledger sessions.
    const t0 = Date.now();
    const gold = await envRun(page, 'gold', 'gold');
    const goldMs = Date.now() - t0;
    const goldCost = await hook(page, 'envStepMs');
    assert.equal(gold.env_task_success, '100.0%');
    assert.equal(gold.env_session_success, '100.0%');
    assert.equal(await hook(page, 'headline'), undefined, 'no official headline for an env run');
    assert.equal(await hook(page, 'leaderboard'), 'hidden');
    assert.match(await page.textContent('#env-section'), /Extension: ledger environment/);
    assert.equal(await page.locator('#env-charts figure.chart').count(), 4);
    for (const id of ['env-challenge', 'env-agreement', 'env-excess', 'env-corrections']) {
      assert.equal(await page.locator(`figure[data-chart="${id}"] svg title`).count() > 0, true, id);
      assert.equal(await page.locator(`figure[data-chart="${id}"] table caption`).count(), 1, id);
    }
    const link = new URL(page.url()).hash;
    assert.match(link, /^#e1\./);
    const sectionText = await page.textContent('#env-section');

    // Axe and screenshots of the env dashboard and a task's trace.
    const report = [];
    const line = await page.getAttribute('#env-tasks button', 'data-arg');
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [390, 1400]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${server.url}?view=dashboard${link}`);
        await page.waitForFunction(() => document.body.dataset.envView === 'ready', null, { timeout: 60_000 });
        await drawn(page);
        for (const v of await axeViolations(page)) report.push(`dashboard ${width}px ${scheme}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.join(', ')}`);
        await screenshot(page, `env-dashboard-${width}-${scheme}.png`);
        const scroll = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(scroll <= 1, `no sideways scrolling at ${width}px (${scroll}px)`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1360, height: 900 });

    // A fresh browser opens the link with the same numbers.
    const fresh = await launchBrowser();
    try {
      const other = await openPage(fresh.context, `${server.url}${link}`);
      await other.page.waitForFunction(() => document.body.dataset.share === 'opened' && document.body.dataset.envView === 'ready', null, { timeout: 60_000 });
      await drawn(other.page);
      assert.deepEqual(JSON.parse(await hook(other.page, 'envHeadline')), gold);
      assert.equal(await other.page.textContent('#env-section'), sectionText);
      assert.deepEqual(other.problems, []);
    } finally {
      await fresh.close();
    }

    // Run again (the link view has no traces), open a task: its diff and downloads.
    await envRun(page, 'gold', 'gold');
    // The run's manifest names its files by their SHA-256 (extension kinds, never official).
    await manifestHolds(page, 'env:ledger', ['env-result.jsonl', 'env-report.json']);
    await page.click(`#env-tasks button[data-arg="${line}"]`);
    await page.waitForSelector('#env-task-title');
    await drawn(page);
    assert.match(await page.textContent('#env-diff-note'), /no line differs/);
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [390, 1400]) {
        await page.setViewportSize({ width, height: 900 });
        for (const v of await axeViolations(page)) report.push(`task ${width}px ${scheme}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.join(', ')}`);
        await screenshot(page, `env-task-${width}-${scheme}.png`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1360, height: 900 });
    const actual = await download(page, '#env-dl-actual');
    assert.match(actual.name, /_actual\.beancount$/);
    assert.match(actual.text, /generated by wildtool's ledger environment/);
    const diff = await download(page, '#env-dl-diff');
    assert.doesNotMatch(diff.text, /^\+[^+]/m);
    if (BEAN_CHECK) {
      const dir = await mkdtemp(join(tmpdir(), 'wildtool-env-'));
      const file = join(dir, 'actual.beancount');
      await writeFile(file, actual.text);
      execFileSync(BEAN_CHECK, [file], { stdio: 'pipe' });
      const expected = await download(page, '#env-dl-expected');
      await writeFile(join(dir, 'expected.beancount'), expected.text);
      execFileSync(BEAN_CHECK, [join(dir, 'expected.beancount')], { stdio: 'pipe' });
    } else {
      t.diagnostic('bean-check not installed (scripts/ledger-oracle.sh): downloads not checked by Beancount');
    }

    // Own history: the gold agent on its own ledger, and the baseline agent in both modes.
    const own = await envRun(page, 'gold', 'own');
    assert.equal(own.env_task_success, '100.0%');
    assert.equal(own.env_session_success, '100.0%');
    assert.match(await page.textContent('#env-meta'), /own history/);
    await manifestHolds(page, 'own:ledger', ['own-result.jsonl']);
    await screenshot(page, 'env-dashboard-own-1400-light.png');
    const t1 = Date.now();
    const baseline = await envRun(page, 'baseline', 'gold');
    const baselineMs = Date.now() - t1;
    assert.match(baseline.env_task_success, /%$/);
    const cost = await page.evaluate(() => document.body.dataset.envStepMs);
    t.diagnostic(`gold env run ${goldMs} ms (env step ${goldCost}), baseline env run ${baselineMs} ms (env step ${cost})`);
    assert.deepEqual(report, [], report.join('\n'));
    assert.deepEqual(problems, []);
  });
});
