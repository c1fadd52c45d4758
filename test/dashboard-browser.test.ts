/**
 * The dashboard in a real browser: Debian's chromium (scripts/install-chromium.sh) driven by
 * playwright-core, which never downloads a browser of its own. A Manager serves the page in dev mode;
 * the test creates a Deployment, sees the reconciles of its controller appear as bars on the timeline,
 * clicks one and reads its causes. Skipped with a message when /usr/bin/chromium is missing, unless
 * KUBELOOM_REQUIRE_CHROMIUM=1. With KUBELOOM_DASHBOARD_SCREENSHOT=<path> it also saves a screenshot.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PatchType } from '../src/apimachinery/options.ts';
import { startApiServer } from '../src/apiserver/index.ts';
import { controllerManagedBy } from '../src/builder/index.ts';
import { kinds } from '../src/client/index.ts';
import { newManager } from '../src/manager/index.ts';

const chromiumPath = '/usr/bin/chromium';
const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

test('The dashboard shows a Deployment, its controller and its reconciles; clicking a bar shows why it ran', async (t) => {
  if (!existsSync(chromiumPath)) {
    if (process.env['KUBELOOM_REQUIRE_CHROMIUM'] === '1') assert.fail(`${chromiumPath} is missing and KUBELOOM_REQUIRE_CHROMIUM=1: run scripts/install-chromium.sh`);
    t.skip(`${chromiumPath} is not installed (scripts/install-chromium.sh installs Debian's chromium); set KUBELOOM_REQUIRE_CHROMIUM=1 to make this a failure`);
    return;
  }
  const { chromium } = await import('playwright-core');
  const server = await startApiServer();
  t.after(() => server.stop());
  const mgr = newManager({ host: server.url, qps: -1 }, { logger: { debug() {}, info() {}, error() {} }, dashboardBindAddress: '127.0.0.1:0' });
  const client = mgr.getClient();
  controllerManagedBy(mgr)
    .for(kinds.appsV1.deployments)
    .owns(kinds.appsV1.replicaSets)
    .named('deployment-annotator')
    .withOptions({ needLeaderElection: false })
    .complete(async (req, ctx) => {
      const d = await ctx.client.get(kinds.appsV1.deployments, req);
      if (d.metadata?.annotations?.['example.com/seen'] !== undefined) return;
      ctx.recorder.eventf(d, undefined, 'Normal', 'Annotated', 'Annotate', `deployment ${req.name} seen by the annotator`);
      await ctx.client.patch(kinds.appsV1.deployments, req, PatchType.Merge, { metadata: { annotations: { 'example.com/seen': 'yes' } } });
    });
  controllerManagedBy(mgr)
    .for(kinds.coreV1.configMaps)
    .named('configmap-checker')
    .withOptions({ needLeaderElection: false })
    .complete((req) => {
      if (req.name === 'broken') throw new Error('configmap broken is not valid');
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  t.after(async () => {
    stop.abort();
    await running;
  });
  await mgr.elected();
  await client.create(kinds.coreV1.configMaps, { metadata: { namespace: 'default', name: 'broken' } });
  await client.create(kinds.appsV1.deployments, {
    metadata: { namespace: 'default', name: 'web' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  });

  const userDataDir = await mkdtemp(path.join(tmpdir(), 'kubeloom-chromium-'));
  t.after(() => rm(userDataDir, { recursive: true, force: true }));
  const browser = await chromium.launchPersistentContext(userDataDir, { executablePath: chromiumPath, headless: true, args: chromiumArgs, viewport: { width: 1400, height: 1000 } });
  t.after(() => browser.close());
  const page = browser.pages()[0] ?? (await browser.newPage());
  await page.goto(`http://${mgr.addresses().dashboard}/`);
  // The Deployment's reconciles appear on the timeline, in the controller's lane.
  const bars = page.locator('.bar[data-key="default/web"]');
  await bars.first().waitFor({ timeout: 20_000 });
  await page.locator('#controllers td', { hasText: 'deployment-annotator' }).waitFor({ timeout: 20_000 });
  await page.locator('#objects td', { hasText: 'web' }).first().waitFor({ timeout: 20_000 });
  await page.locator('.bar.error[data-key="default/broken"]').first().waitFor({ timeout: 20_000 });
  await page.locator('#events td', { hasText: 'Annotated' }).first().waitFor({ timeout: 20_000 });
  assert.ok((await bars.count()) >= 1);
  // Bars of quick successive reconciles may overlap: the click goes to the element itself.
  await bars.first().dispatchEvent('click');
  const causes = await page.locator('#causes li').allTextContents();
  assert.ok(
    causes.some((c) => /^create( \(initial list\))? Deployment default\/web rv=\d+ by EnqueueRequestForObject$/.test(c)),
    `causes shown: ${JSON.stringify(causes)}`,
  );
  assert.equal(await page.locator('#trace-id').textContent(), '(tracing off)');
  const shot = process.env['KUBELOOM_DASHBOARD_SCREENSHOT'];
  if (shot !== undefined && shot !== '') {
    await page.waitForTimeout(1500);
    await page.locator('.bar[data-key="default/web"]').last().dispatchEvent('click');
    await page.screenshot({ path: shot, fullPage: false });
  }
});
