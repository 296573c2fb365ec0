// Shared helpers for the end-to-end suite: start scripts/serve.mjs on a free port and
// launch the system Chromium through playwright-core with a fresh profile.
import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
export const ARTIFACTS = join(ROOT, 'test-artifacts');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROME_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Starts the static server on port 0; resolves to { url, stop }. */
export function startServer() {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error(`server did not start: ${out}`)); }, 10_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ url: m[0], stop: () => child.kill('SIGTERM') });
      }
    });
    child.stderr.on('data', (chunk) => { out += chunk; });
    child.on('exit', (code) => { clearTimeout(timer); if (code) reject(new Error(`server exited ${code}: ${out}`)); });
  });
}

/** Launches Chromium with a fresh user-data-dir; resolves to { context, close }. */
export async function launchBrowser() {
  const profile = await mkdtemp(join(tmpdir(), 'wildtool-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROME_ARGS,
    viewport: { width: 1360, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Opens a page that records console errors, page errors and dialogs. */
export async function openPage(context, url) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('dialog', async (d) => { problems.push(`dialog: ${d.message()}`); await d.dismiss(); });
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.wasm !== 'loading', null, { timeout: 20_000 });
  return { page, problems };
}

export async function screenshot(page, name, { fullPage = true } = {}) {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, name), fullPage });
}

/**
 * Waits until the field `selector` shows `value` and returns what it shows then (or at the
 * timeout). The page renders on the next animation frame, so a value read right after an
 * event can still be the previous one.
 */
/** Waits until no view is still waiting for the lab module (its loading notes gone). */
export async function drawn(page, timeout = 30_000) {
  await page.waitForFunction(() => !document.querySelector('[data-loading]'), null, { timeout });
}

export async function settledValue(page, selector, value, timeout = 5_000) {
  try {
    await page.waitForFunction(
      ([sel, want]) => document.querySelector(sel)?.value === want,
      [selector, value],
      { timeout },
    );
  } catch {
    // Fall through: the caller's assertion reports what the field shows.
  }
  return page.inputValue(selector);
}

/** A suite's shared server and browser with axe-core's source: `{ server, browser, axeSource }`, filled before the tests. */
export function suiteSetup(before, after) {
  const s = {};
  before(async () => {
    const { readFile } = await import('node:fs/promises');
    [s.server, s.browser, s.axeSource] = await Promise.all([
      startServer(), launchBrowser(), readFile(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'),
    ]);
  });
  after(async () => { await s.browser?.close(); s.server?.stop(); });
  return s;
}

/** Serious and critical axe violations on the page (evaluated through the devtools protocol). */
export async function axeSerious(page, axeSource) {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] }))
    .violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) })));
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

let axeSource;

/** Serious and critical axe-core violations on the current page (axe is evaluated through
 * the devtools protocol, so the page's CSP does not apply to it). */
export async function axeViolations(page) {
  axeSource ??= await readFile(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Builds the CLI (`target/debug/wildtool`) once for a suite that compares with it; resolves to its path. */
export async function buildCli() {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  try {
    await promisify(execFile)('cargo', ['build', '--quiet', '--bin', 'wildtool'], { cwd: ROOT, maxBuffer: 1 << 24 });
  } catch (err) {
    throw new Error(`cannot build the CLI: ${err.stderr || err.message}`);
  }
  return join(ROOT, 'target/debug/wildtool');
}
