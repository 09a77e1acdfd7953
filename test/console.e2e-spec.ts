import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { Client, loadClientConfig } from '@svc/client';
import { localRuntimeUnavailable } from '@svc/cri/testing';
import { eventually } from '@svc/runtime/testing';
import { ROOT } from './support/apiserver-process';
import { chromiumUnavailable, launchChromium, type HeadlessChromium } from './support/chromium';
import { startControllerManagerProcess, type ControllerManagerProcess } from './support/controller-manager-process';
import { kubectl } from './support/kubectl-run';
import { startNodeCluster, type NodeCluster } from './support/node-cluster';
import { startSchedulerProcess, type SchedulerProcess } from './support/scheduler-process';

// The browser is Debian's Chromium (installed by this test as root when missing); the pods are real
// containers, so the test needs what the node agent's tests need too.
const browserMissing = chromiumUnavailable();
const runtimeMissing = browserMissing ? undefined : localRuntimeUnavailable();
const skipReason = browserMissing ? `Debian's chromium (${browserMissing})` : runtimeMissing ? `a local containerd (${runtimeMissing})` : undefined;
if (skipReason) console.warn(`Web console browser tests are skipped: they need ${skipReason}`);
const describeInBrowser = skipReason ? describe.skip : describe;

// What the page.evaluate callbacks below use runs in the browser; this program has no DOM types.
declare const window: any;
declare const document: any;
declare const PerformanceObserver: any;
declare const sessionStorage: { setItem(key: string, value: string): void };
declare const localStorage: { setItem(key: string, value: string): void };
declare function getComputedStyle(element: unknown): { visibility: string };
declare function requestAnimationFrame(callback: (time: number) => void): number;

const REPORTS = join(ROOT, 'reports', 'console');
const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-0123456789';

const DEPLOYMENT_YAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: busybox:1.36
          command: [sh, -c, 'i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 1; done']
`;

/**
 * Chromium aborts a navigation under way when the machine's network interfaces change, which they do
 * as containerd wires each new pod: such a navigation is tried again.
 */
async function despiteNetworkChanges<T>(navigate: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await navigate();
    } catch (error) {
      // Either as the error itself or as Chromium's error page taking the navigation's place.
      if (attempt >= 4 || !/ERR_NETWORK_CHANGED|interrupted by another navigation to "chrome-error:/.test(String(error))) throw error;
    }
  }
}

async function open(page: Page, url: string): Promise<void> {
  await despiteNetworkChanges(() => page.goto(url));
}

/**
 * The CPU time (thread time, which other processes' work on a busy machine does not stretch) of the
 * tasks of every renderer's main thread in a Chromium trace: how many, and the longest.
 */
function mainThreadTaskCpu(trace: Buffer): { mainThreadTasks: number; longestTaskCpuMs: number; longestTaskWallMs: number } {
  type TraceEvent = { ph: string; name: string; pid: number; tid: number; dur?: number; tdur?: number; args?: { name?: string } };
  const parsed = JSON.parse(trace.toString('utf8')) as TraceEvent[] | { traceEvents: TraceEvent[] };
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const mainThreads = new Set(
    events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  );
  const tasks = events.filter(
    (e) => e.ph === 'X' && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && mainThreads.has(`${e.pid}:${e.tid}`),
  );
  return {
    mainThreadTasks: tasks.length,
    longestTaskCpuMs: Math.round(tasks.reduce((m, t) => Math.max(m, t.tdur ?? 0), 0) / 100) / 10,
    longestTaskWallMs: Math.round(tasks.reduce((m, t) => Math.max(m, t.dur ?? 0), 0) / 100) / 10,
  };
}

/** The ids of axe-core's rules that failed with a serious or critical impact, with their targets. */
async function seriousAxeViolations(page: Page, axeSource: string): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (no inline scripts) does not apply to it.
  await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = window.axe as { run: (context: unknown, options: unknown) => Promise<any> };
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return (results.violations as Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }>)
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Tabs through the page from its start and says which enabled, visible controls were never focused;
 * a keyboard user could not reach those.
 */
async function unreachableByKeyboard(page: Page, maxPresses = 1500): Promise<string[]> {
  await page.evaluate(() => {
    document.activeElement?.blur();
    // A live view adds rows while it is tabbed through: only what was there at the start is judged.
    window.__initial = new Set(document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]'));
    window.__focused = new Set();
    window.__order = [];
    window.__cycled = false;
    // Views change within one document: its listener is added once.
    if (window.__listening) return;
    window.__listening = true;
    document.addEventListener(
      'focusin',
      (e: { target: unknown }) => {
        window.__focused.add(e.target);
        window.__order.push(e.target);
        if (window.__order.length > 2 && e.target === window.__order[0]) window.__cycled = true;
      },
      true,
    );
  });
  // Until focus comes round to where it began (or the presses run out).
  for (let i = 0; i < maxPresses; i++) {
    await page.keyboard.press('Tab');
    // Asked every few presses: a round trip to the page per press would double the test's time.
    if (i % 8 === 7 && (await page.evaluate(() => window.__cycled === true))) break;
  }
  return page.evaluate(() => {
    const focused: Set<unknown> = window.__focused;
    const controls: any[] = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])')].filter((el: any) => {
      if (!window.__initial.has(el) || el.disabled || el.getAttribute('tabindex') === '-1') return false;
      if (el.closest('dialog:not([open])') || el.closest('.xterm')) return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden';
    });
    return controls
      .filter((el) => !focused.has(el))
      .map((el): string => `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute('aria-label') || el.id).trim().slice(0, 40)}"`);
  });
}

describeInBrowser('the web console in headless Chromium', () => {
  let dir: string;
  let cluster: NodeCluster;
  let controllers: ControllerManagerProcess;
  let scheduler: SchedulerProcess;
  let chromium: HeadlessChromium;
  let admin: Client;
  let axeSource: string;
  const contexts: BrowserContext[] = [];
  const pageProblems: string[] = [];
  const measured: Record<string, unknown> = {};
  let consoleUrl: string;

  /** A page signed in with `token` (kept in the tab's session storage as the console keeps it), on `hash`. */
  async function signedIn(token: string, hash = '', namespace = 'default'): Promise<Page> {
    const context = await chromium.context();
    contexts.push(context);
    await context.addInitScript(
      ([t, ns]) => {
        // Pages without storage (an error page) have nothing to set.
        try {
          sessionStorage.setItem('svc-console-token', t);
          localStorage.setItem('svc-console-namespace', ns);
        } catch {
          // nothing to sign in there
        }
      },
      [token, namespace],
    );
    const page = await context.newPage();
    page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/.test(message.text())) pageProblems.push(`CSP: ${message.text()}`);
    });
    await open(page, `${consoleUrl}${hash}`);
    await page.getByTestId('username').waitFor();
    return page;
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(REPORTS, `${name}.png`), fullPage: false });
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-console-e2e-'));
    await mkdir(REPORTS, { recursive: true });
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, `${ALICE},alice,alice-uid,"team"\n${BOB},bob,bob-uid\n`);
    cluster = await startNodeCluster({ apiserverArgs: ['--authorization-mode=Node,RBAC', `--token-auth-file=${tokens}`] });
    consoleUrl = `${cluster.apiserver.url}/console/`;
    const env = cluster.env();
    await kubectl(['create', 'clusterrolebinding', 'alice-admin', '--clusterrole=cluster-admin', '--user=alice'], env);
    await kubectl(['create', 'rolebinding', 'bob-view', '--clusterrole=view', '--user=bob', '--namespace=default'], env);
    [controllers, scheduler, chromium] = await Promise.all([
      startControllerManagerProcess(cluster.apiserver),
      startSchedulerProcess(cluster.apiserver),
      launchChromium(),
    ]);
    admin = new Client({ ...(await loadClientConfig({ svcconfig: cluster.apiserver.kubeconfig })), qps: -1 });
    axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  }, 180_000);

  afterAll(async () => {
    await writeFile(join(REPORTS, 'budgets.json'), `${JSON.stringify(measured, null, 2)}\n`).catch(() => undefined);
    console.log(`web console measurements: ${JSON.stringify(measured)}`);
    for (const context of contexts) await context.close().catch(() => undefined);
    await chromium?.close();
    await scheduler?.stop();
    await controllers?.stop();
    await cluster?.stop();
    await rm(dir, { recursive: true, force: true });
  }, 90_000);

  afterEach(() => {
    // No page may break, and the Content-Security-Policy must never have to refuse anything the console does.
    expect(pageProblems.splice(0)).toEqual([]);
  });

  it('serves its files at /console/ to anyone, with a strict Content-Security-Policy, and signs in with a token', async () => {
    const context = await chromium.context();
    contexts.push(context);
    const page = await context.newPage();
    const response = await despiteNetworkChanges(() => page.goto(consoleUrl));
    const headers = response!.headers();
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.toContain('unsafe');
    await page.getByLabel('Bearer token').waitFor();
    await shot(page, 'sign-in');
    expect(await seriousAxeViolations(page, axeSource)).toEqual([]);
    await page.getByLabel('Bearer token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in with token' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /Unauthorized/i })
      .waitFor();
    await page.getByLabel('Bearer token').fill(ALICE);
    await page.getByRole('button', { name: 'Sign in with token' }).click();
    await page.getByTestId('username').filter({ hasText: 'alice' }).waitFor();
    await page.getByRole('heading', { name: 'Control plane' }).waitFor();
    await page
      .getByTestId('leaders')
      .getByText(/controller-manager|scheduler/)
      .first()
      .waitFor({ timeout: 20_000 });
    await page
      .getByTestId('components')
      .getByText(/etcd-0|scheduler|controller-manager/)
      .first()
      .waitFor();
    await shot(page, 'control-plane');
  }, 60_000);

  it('shows its first view, live, in under a second (navigation to a rendered table of the server)', async () => {
    const page = await signedIn(ALICE);
    const hash = '#/list/core/v1/namespaces';
    // From the start of the navigation to the table of the server's rows on screen, its links live.
    const firstView = async (view: Page, load: () => Promise<unknown>): Promise<{ rendered: number; clickable: number }> => {
      const started = Date.now();
      await load();
      const row = view.getByTestId('resource-table').getByRole('link', { name: 'default', exact: true });
      await row.waitFor();
      await row.click({ trial: true });
      const clickable = Date.now() - started;
      const rendered = await view.evaluate(() => performance.getEntriesByName('console-first-view')[0]?.startTime ?? -1);
      return { rendered: Math.round(rendered), clickable };
    };
    // Cold: a browser that never loaded the console. Warm: reloads, its hashed files cached.
    // A navigation aborted by a change of the machine's network is measured again, cold in a new context.
    const { coldPage, cold } = await despiteNetworkChanges(async () => {
      const coldContext = await chromium.context();
      contexts.push(coldContext);
      await coldContext.addInitScript((t) => {
        try {
          sessionStorage.setItem('svc-console-token', t);
        } catch {
          // an error page
        }
      }, ALICE);
      const coldPage = await coldContext.newPage();
      return { coldPage, cold: await firstView(coldPage, () => coldPage.goto(`${consoleUrl}${hash}`, { waitUntil: 'commit' })) };
    });
    // Where a cold first view's time goes: each request's start and end since the navigation began.
    const coldRequests = await coldPage.evaluate(() =>
      [...window.performance.getEntriesByType('navigation'), ...window.performance.getEntriesByType('resource')].map(
        (e: any) => `${e.name.replace(/^https:\/\/[^/]+/, '')} ${Math.round(e.startTime)}-${Math.round(e.responseEnd)}`,
      ),
    );
    await open(page, `${consoleUrl}${hash}`);
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await despiteNetworkChanges(() => firstView(page, () => page.reload({ waitUntil: 'commit' }))));
    const rendered = runs.map((r) => r.rendered).sort((a, b) => a - b);
    // A fresh profile's first connection (a TLS handshake in which the server asks for a client
    // certificate) is counted apart: from the navigation's start to the page's arrival; the budget is
    // judged on what follows, the console's own work, and on every warm load whole.
    const pageArrivedMs = await coldPage.evaluate(() => Math.round(window.performance.getEntriesByType('navigation')[0].responseEnd));
    measured.firstView = {
      cold,
      coldPageArrivedMs: pageArrivedMs,
      coldAfterArrivalMs: cold.rendered - pageArrivedMs,
      coldRequests,
      warmRunsMs: runs,
      warmMedianRenderedMs: rendered[2],
      warmMaxRenderedMs: rendered[4],
    };
    await shot(page, 'namespaces');
    expect(cold.rendered).toBeGreaterThan(0);
    expect(cold.rendered - pageArrivedMs).toBeLessThan(1_000);
    expect(rendered[2]).toBeGreaterThan(0);
    expect(rendered[2]).toBeLessThan(1_000);
  }, 60_000);

  it('creates a Deployment from YAML and shows its rollout live: pods appear, become ready, and kubectl rollout status says done', async () => {
    const page = await signedIn(ALICE, '#/list/apps/v1/deployments');
    await page.getByRole('button', { name: 'Create from YAML' }).click();
    await page.getByLabel('YAML, applied server-side').fill(DEPLOYMENT_YAML);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('heading', { name: /Deployment web/ }).waitFor();
    await page.getByRole('tab', { name: 'Rollout' }).click();
    await page
      .getByTestId('rollout-status')
      .filter({ hasText: 'Waiting for deployment' })
      .or(page.getByTestId('rollout-status').filter({ hasText: 'successfully' }))
      .waitFor();
    await shot(page, 'rollout-starting');
    await page.getByTestId('rollout-status').filter({ hasText: 'deployment "web" successfully rolled out' }).waitFor({ timeout: 90_000 });
    await expect(page.getByTestId('revision-1-pods').locator('li.ready').count()).resolves.toBe(2);
    await shot(page, 'rollout-done');
    // The same, as a live list of pods by label selector.
    await open(page, `${consoleUrl}#/list/core/v1/pods?l=app%3Dweb`);
    await page.getByTestId('list-count').filter({ hasText: '2 items' }).waitFor();
    await page.getByTestId('resource-table').getByText('Running').first().waitFor();
    await shot(page, 'pods');
  }, 150_000);

  it("follows a pod's log and runs a command in its terminal (exec over WebSocket with the token as subprotocol)", async () => {
    const pod = (await admin.pods.list({ namespace: 'default', labelSelector: 'app=web' })).items[0].metadata!.name!;
    const page = await signedIn(ALICE, `#/object/core/v1/pods/default/${pod}/logs`);
    await page.getByTestId('log-state').filter({ hasText: 'following' }).waitFor();
    await page
      .getByTestId('log')
      .filter({ hasText: /tick \d+/ })
      .waitFor({ timeout: 20_000 });
    const ticks = async () => Number(/tick (\d+)\s*$/.exec((await page.getByTestId('log').textContent()) ?? '')?.[1] ?? -1);
    const before = await ticks();
    await eventually(async () => expect(await ticks()).toBeGreaterThan(before), 10_000, 250);
    await shot(page, 'pod-logs');

    await page.getByRole('tab', { name: 'Terminal' }).click();
    // The node's containerd is held still while the user connects and types, so the exec socket is
    // still opening (the node agent asks the runtime before it answers the upgrade): what is typed
    // meanwhile must reach the shell once the socket opens.
    const runtime = Number(await readFile(join(cluster.containerd.dir, 'containerd.pid'), 'utf8'));
    process.kill(runtime, 'SIGSTOP');
    try {
      await page.getByRole('button', { name: 'Connect' }).click();
      await page.locator('.xterm-helper-textarea').focus();
      await page.keyboard.type('echo "hello-$((6*7))"');
      await page.keyboard.press('Enter');
      await page
        .getByTestId('terminal-state')
        .filter({ hasText: /^connecting$/ })
        .waitFor();
    } finally {
      process.kill(runtime, 'SIGCONT');
    }
    await page.locator('.xterm-rows').filter({ hasText: 'hello-42' }).waitFor({ timeout: 20_000 });
    // Exactly "connected" ("not connected", the state before, contains the word too).
    await page
      .getByTestId('terminal-state')
      .filter({ hasText: /^connected$/ })
      .waitFor();
    await shot(page, 'pod-terminal');
    await page.keyboard.type('exit');
    await page.keyboard.press('Enter');
    await page
      .getByTestId('terminal-state')
      .filter({ hasText: /exited|closed/ })
      .waitFor({ timeout: 15_000 });
  }, 90_000);

  it('scales the Deployment as the user, and shows the reconcile the change caused, with its trigger and writes', async () => {
    const page = await signedIn(ALICE, '#/object/apps/v1/deployments/default/web/rollout');
    await page.getByRole('button', { name: 'Scale' }).click();
    await page.getByLabel('Replicas').fill('3');
    await page.getByRole('dialog').getByRole('button', { name: 'Scale' }).click();
    await page.getByTestId('notice').filter({ hasText: 'scaled to 3' }).waitFor();
    await page.getByTestId('revision-1-pods').locator('li.ready').nth(2).waitFor({ timeout: 60_000 });
    await page.getByTestId('rollout-status').filter({ hasText: 'successfully rolled out' }).waitFor({ timeout: 30_000 });
    await shot(page, 'scaled');

    // The deployment controller's reconcile of the change: triggered by the update of Deployment web, writing its ReplicaSet.
    await page.getByRole('tab', { name: 'Reconciles' }).click();
    const row = page
      .getByTestId('reconcile-table')
      .first()
      .locator('tr', { hasText: /updated Deployment default\/web/ })
      .filter({ hasText: /ReplicaSet default\/web-/ })
      .first();
    await row.waitFor({ timeout: 30_000 });
    await shot(page, 'object-reconciles');
    await open(page, `${consoleUrl}#/reconciles`);
    await page
      .getByTestId('reconcile-table')
      .getByText(/updated Deployment default\/web/)
      .first()
      .waitFor();
    await shot(page, 'reconciles');
  }, 120_000);

  it('shows the YAML, events, owners, conditions and managed fields of an object, and applies an edit server-side', async () => {
    const pod = (await admin.pods.list({ namespace: 'default', labelSelector: 'app=web' })).items[0].metadata!.name!;
    const page = await signedIn(ALICE, `#/object/core/v1/pods/default/${pod}/events`);
    await page
      .getByTestId('events-table')
      .getByText(/Scheduled|Started|Pulled|Created/)
      .first()
      .waitFor({ timeout: 20_000 });
    await shot(page, 'pod-events');
    await page.getByRole('tab', { name: 'Owners' }).click();
    await page
      .getByTestId('owners')
      .getByText(/ReplicaSet\/web-/)
      .waitFor();
    await page.getByTestId('owners').getByText('Deployment/web').waitFor();
    await shot(page, 'pod-owners');
    await page.getByRole('tab', { name: 'Conditions' }).click();
    await page.getByTestId('condition-transitions').getByText('Ready').first().waitFor();
    await shot(page, 'pod-conditions');
    await page.getByRole('tab', { name: 'Managed fields' }).click();
    await page
      .getByTestId('managed-fields')
      .getByText(/\.spec\.containers\[name=main\]/)
      .first()
      .waitFor();
    await shot(page, 'pod-managed-fields');

    // An edit of the Deployment's YAML, applied server-side: the console becomes a field manager of it.
    await open(page, `${consoleUrl}#/object/apps/v1/deployments/default/web/yaml`);
    const editor = page.getByLabel(/YAML \(applied server-side/);
    await editor.waitFor();
    const text = await editor.inputValue();
    expect(text).toMatch(/^kind: Deployment$/m);
    expect(text).not.toMatch(/^ {2}labels:/m);
    await editor.fill(text.replace('metadata:\n', 'metadata:\n  labels:\n    edited: by-console\n'));
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByTestId('notice').filter({ hasText: 'applied' }).waitFor();
    const deployment = await admin.deployments.get('web', { namespace: 'default' });
    expect(deployment.metadata?.labels?.edited).toBe('by-console');
    expect(deployment.metadata?.managedFields?.map((m) => m.manager)).toContain('svc-console');
    await shot(page, 'deployment-yaml');
  }, 60_000);

  it("shows a denial as the server's message to a user without the right", async () => {
    const page = await signedIn(BOB, '#/object/apps/v1/deployments/default/web/rollout');
    await page.getByTestId('username').filter({ hasText: 'bob' }).waitFor();
    await page.getByTestId('rollout-status').waitFor();
    await page.getByRole('button', { name: 'Scale' }).click();
    await page.getByLabel('Replicas').fill('5');
    await page.getByRole('dialog').getByRole('button', { name: 'Scale' }).click();
    const notice = page.getByTestId('notice');
    await notice.filter({ hasText: 'forbidden' }).waitFor();
    expect(await notice.textContent()).toMatch(
      /^deployments\.apps "web" is forbidden: User "bob" cannot patch resource "deployments\/scale" in API group "apps" in the namespace "default"/,
    );
    await shot(page, 'denied-scale');
    // A list bob may not read says so, as the server says it.
    await open(page, `${consoleUrl}#/list/core/v1/secrets`);
    await page.getByTestId('list-error').filter({ hasText: 'secrets is forbidden: User "bob" cannot list resource "secrets"' }).waitFor();
    await shot(page, 'denied-list');
    expect((await admin.deployments.get('web', { namespace: 'default' })).spec?.replicas).toBe(3);
  }, 60_000);

  it('shows HTML and script in object fields as text, never as markup', async () => {
    const html = '<img src=x onerror="window.__xss=1">';
    // Labels cannot hold it: the server refuses, and the console shows the refusal as text.
    const page = await signedIn(ALICE, '#/list/core/v1/configmaps');
    await page.getByRole('button', { name: 'Create from YAML' }).click();
    await page
      .getByLabel('YAML, applied server-side')
      .fill(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hostile\n  labels:\n    note: '${html}'\ndata: {}\n`);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page
      .getByTestId('create-error')
      .filter({ hasText: /metadata\.labels: Invalid value: "<img src=x onerror=/ })
      .waitFor();
    await page.keyboard.press('Escape');
    // Annotations, data and an event's message hold anything: they show as the text they are.
    await admin.configMaps.create({
      metadata: { name: 'hostile', namespace: 'default', annotations: { note: html, [`x.example.com/${'a'.repeat(3)}`]: `<script>window.__xss=2</script>` } },
      data: { page: html },
    });
    const cm = await admin.configMaps.get('hostile', { namespace: 'default' });
    await admin.events.create({
      metadata: { name: 'hostile.1', namespace: 'default' },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'hostile', namespace: 'default', uid: cm.metadata!.uid },
      reason: '<b>Bold</b>',
      message: html,
      type: 'Normal',
      source: { component: '<i>x</i>' },
      firstTimestamp: new Date().toISOString(),
      lastTimestamp: new Date().toISOString(),
      count: 1,
    });
    await open(page, `${consoleUrl}#/object/core/v1/configmaps/default/hostile/summary`);
    await page.getByTestId('annotations').getByText(html, { exact: true }).waitFor();
    await page.getByTestId('annotations').getByText('<script>window.__xss=2</script>', { exact: true }).waitFor();
    await page.getByRole('tab', { name: 'YAML' }).click();
    expect(await page.getByLabel(/YAML \(applied server-side/).inputValue()).toContain(html);
    await page.getByRole('tab', { name: 'Events' }).click();
    await page.getByTestId('events-table').getByText(html, { exact: true }).waitFor();
    await shot(page, 'hostile-fields');
    expect(await page.locator('img[src="x"], main script, main b, main i').count()).toBe(0);
    expect(await page.evaluate(() => window.__xss as number | undefined)).toBeUndefined();
    // Deleted as the user, after a confirmation; the console goes back to the list.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByTestId('notice').filter({ hasText: 'ConfigMap hostile deleted' }).waitFor();
    await page.getByRole('heading', { name: /^ConfigMap/ }).waitFor();
    await expect(admin.configMaps.get('hostile', { namespace: 'default' })).rejects.toThrow(/not found/);
  }, 60_000);

  it('is usable by keyboard alone and axe-core finds no serious violation in any view', async () => {
    const pod = (await admin.pods.list({ namespace: 'default', labelSelector: 'app=web' })).items[0].metadata!.name!;
    const page = await signedIn(ALICE);
    const views: Array<[string, string, string]> = [
      ['control plane', '#/', 'Control plane'],
      ['deployments', '#/list/apps/v1/deployments', 'Deployment'],
      ['pods', '#/list/core/v1/pods', 'Pod'],
      ['deployment', '#/object/apps/v1/deployments/default/web/summary', 'Deployment web'],
      ['rollout', '#/object/apps/v1/deployments/default/web/rollout', 'Deployment web'],
      ['yaml', '#/object/apps/v1/deployments/default/web/yaml', 'Deployment web'],
      ['owners', `#/object/core/v1/pods/default/${pod}/owners`, `Pod ${pod}`],
      ['conditions', `#/object/core/v1/pods/default/${pod}/conditions`, `Pod ${pod}`],
      ['managed fields', `#/object/core/v1/pods/default/${pod}/managed`, `Pod ${pod}`],
      ['logs', `#/object/core/v1/pods/default/${pod}/logs`, `Pod ${pod}`],
      ['terminal', `#/object/core/v1/pods/default/${pod}/terminal`, `Pod ${pod}`],
      ['node', `#/object/core/v1/nodes/_/${cluster.agent.nodeName}/node`, `Node ${cluster.agent.nodeName}`],
      ['reconciles', '#/reconciles', 'Reconciles'],
    ];
    const findings: Record<string, { axe: string[]; unreachable: string[] }> = {};
    for (const [name, hash, heading] of views) {
      await open(page, `${consoleUrl}${hash}`);
      await page
        .getByRole('heading', { name: new RegExp(heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) })
        .first()
        .waitFor();
      await page.waitForLoadState('networkidle').catch(() => undefined);
      findings[name] = { axe: await seriousAxeViolations(page, axeSource), unreachable: await unreachableByKeyboard(page) };
    }
    await open(page, `${consoleUrl}#/list/core/v1/pods`);
    await page.getByRole('heading', { name: /Pod/ }).first().waitFor();
    await shot(page, 'keyboard-focus');
    measured.accessibility = Object.fromEntries(Object.entries(findings).map(([k, v]) => [k, v.axe.length + v.unreachable.length]));
    expect(findings).toEqual(Object.fromEntries(views.map(([name]) => [name, { axe: [], unreachable: [] }])));
    // Tabs also move by arrow keys, as a tab list does.
    await open(page, `${consoleUrl}#/object/apps/v1/deployments/default/web/summary`);
    await page.getByRole('tab', { name: 'Summary' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.getByRole('tab', { name: 'Rollout', selected: true }).waitFor();
  }, 180_000);

  it('cordons and uncordons a node as the user, its capacity and pods shown', async () => {
    const node = cluster.agent.nodeName;
    const page = await signedIn(ALICE, `#/object/core/v1/nodes/_/${node}/node`);
    await page.getByTestId('node-capacity').getByText('cpu', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Cordon' }).click();
    await page.getByText('Cordoned: no new pods are scheduled here.').waitFor();
    expect((await admin.nodes.get(node)).spec?.unschedulable).toBe(true);
    await shot(page, 'node-cordoned');
    await page.getByRole('button', { name: 'Uncordon' }).click();
    await page.getByText(/^Schedulable\./).waitFor();
    expect((await admin.nodes.get(node)).spec?.unschedulable).toBeFalsy();
  }, 60_000);

  it('lists 1,000 pods and keeps every frame of 50 changes a second under the budget', async () => {
    // Only this test's page runs in the browser while it measures.
    for (const context of contexts.splice(0)) await context.close();
    const namespace = 'perf';
    await admin.namespaces.create({ metadata: { name: namespace } });
    await eventually(async () => expect(await admin.serviceAccounts.get('default', { namespace })).toBeDefined(), 30_000, 200);
    const names = Array.from({ length: 1000 }, (_, i) => `load-${String(i).padStart(4, '0')}`);
    // Unscheduled (no scheduler has this name) so that nothing but the test changes them.
    for (let i = 0; i < names.length; i += 25) {
      await Promise.all(
        names.slice(i, i + 25).map((name) =>
          admin.pods.create({
            metadata: { name, namespace, labels: { app: 'load' } },
            spec: { schedulerName: 'nobody', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'busybox:1.36' }] },
          }),
        ),
      );
    }
    const page = await signedIn(ALICE, '#/list/core/v1/pods', namespace);
    await page.getByTestId('list-count').filter({ hasText: '1000 items' }).waitFor({ timeout: 30_000 });
    await shot(page, 'thousand-pods');

    // Every frame's length (requestAnimationFrame to the next) and Chromium's long animation frames.
    const startMonitor = async () => {
      await chromium.browser.startTracing(page, { categories: ['disabled-by-default-devtools.timeline', 'toplevel'] });
      await page.evaluate(() => {
        const w = window as { __frames: number[]; __long: number[]; __monitoring: boolean };
        w.__frames = [];
        w.__long = [];
        w.__monitoring = true;
        let last = performance.now();
        const tick = (t: number) => {
          w.__frames.push(t - last);
          last = t;
          if (w.__monitoring) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
        new PerformanceObserver((list: { getEntries(): Array<{ duration: number }> }) => {
          for (const entry of list.getEntries()) w.__long.push(entry.duration);
        }).observe({ type: 'long-animation-frame' });
      });
    };
    const stopMonitor = async () => {
      const mainThreadCpu = mainThreadTaskCpu(await chromium.browser.stopTracing());
      const { frames, long } = await page.evaluate(() => {
        const w = window as { __frames: number[]; __long: number[]; __monitoring: boolean };
        w.__monitoring = false;
        return { frames: w.__frames.slice(1), long: w.__long };
      });
      const sorted = [...frames].sort((a, b) => a - b);
      const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 10) / 10;
      return {
        frames: frames.length,
        p50Ms: at(0.5),
        p99Ms: at(0.99),
        maxMs: Math.round((sorted[sorted.length - 1] ?? 0) * 10) / 10,
        over50Ms: frames.filter((f) => f > 50).length,
        longAnimationFrames: long.length,
        longestAnimationFrameMs: Math.round(Math.max(0, ...long)),
        ...mainThreadCpu,
      };
    };
    // 50 status changes a second for 10 seconds, each visible in the Status column of the pods' table.
    let round = 0;
    const changeFor = async (ms: number) => {
      // The server closes keep-alive connections idle for 5 s, as while the page loads: reads, which
      // the client sends again on a reset connection, clear such connections out before the writes.
      await Promise.all(Array.from({ length: 32 }, () => admin.pods.get(names[0], { namespace })));
      const started = Date.now();
      let sent = 0;
      const failures: string[] = [];
      const inFlight = new Set<Promise<unknown>>();
      round++;
      while (Date.now() - started < ms) {
        const due = Math.floor(((Date.now() - started) / 1000) * 50);
        while (sent < due) {
          const name = names[(sent * 37) % names.length];
          const reason = sent % 2 === 0 ? 'Tick' : 'Tock';
          const p = admin.pods
            .patchStatus(name, { status: { reason, message: `round ${round} change ${sent}` } }, 'merge', { namespace })
            .catch((e: unknown) => failures.push(String(e)));
          inFlight.add(p);
          void p.finally(() => inFlight.delete(p));
          sent++;
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const sendingMs = Date.now() - started;
      await Promise.all(inFlight);
      return { sent, failures, perSecond: Math.round((sent / sendingMs) * 1000 * 10) / 10 };
    };
    const changesShown = async () => Number(/(\d+) live changes/.exec((await page.getByTestId('list-count').textContent()) ?? '')?.[1] ?? 0);

    // The floor, in the same run: the console doing nothing, then the same changes made while it shows
    // no pods (the machine as loaded by the server, the writer and the browser, without the table's work).
    await startMonitor();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const idle = await stopMonitor();
    await open(page, `${consoleUrl}#/list/core/v1/namespaces`);
    await page.getByTestId('resource-table').getByRole('link', { name: namespace, exact: true }).waitFor();
    await startMonitor();
    const unseen = await changeFor(10_000);
    const floor = await stopMonitor();

    await open(page, `${consoleUrl}#/list/core/v1/pods`);
    await page.getByTestId('list-count').filter({ hasText: '1000 items' }).waitFor({ timeout: 30_000 });
    const baseline = await changesShown();
    await startMonitor();
    const shown = await changeFor(10_000);
    await eventually(async () => expect((await changesShown()) - baseline).toBe(shown.sent - shown.failures.length), 15_000, 200);
    const busy = await stopMonitor();
    await shot(page, 'thousand-pods-updating');
    measured.thousandPods = {
      changesPerSecond: shown.perSecond,
      changesSent: shown.sent,
      changesFailed: shown.failures.length,
      failures: shown.failures.slice(0, 3),
      idle,
      floorWithoutTable: { changesPerSecond: unseen.perSecond, ...floor },
      busy,
    };
    expect(shown.failures.length).toBeLessThan(shown.sent / 100);
    // Every change reached the table, and no task of the page's main thread (an animation frame's
    // callbacks, style, layout and paint run in one) took 50 ms of its CPU: the console's own work kept
    // the budget. Frames by the wall clock are reported beside the floor measured above and judged by
    // their median: on two cores shared with other work the machine, not the table, sets their tail.
    expect(busy.mainThreadTasks).toBeGreaterThan(busy.frames);
    expect(busy.longestTaskCpuMs).toBeLessThan(50);
    expect(busy.p50Ms).toBeLessThan(50);
  }, 240_000);
});
