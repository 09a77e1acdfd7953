import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ensureClientCa, issueClientCertificate } from '@svc/apiserver';
import { startEtcdCluster, type EtcdCluster } from '@svc/storage/testing';
import { httpsFetch } from './https-client';

// SVC_E2E_ROOT runs the executable of another checkout or build snapshot (with its own bin/ and dist/),
// so that a rebuild of this tree during a run cannot pull the files from under the server.
export const ROOT = process.env.SVC_E2E_ROOT || join(__dirname, '..', '..');
const EXECUTABLE = join(ROOT, 'bin', 'svc-apiserver.js');

export interface ApiServerProcess {
  /** `https://127.0.0.1:<port>`, as written in the client connection file. */
  url: string;
  port: number;
  /** The CA the serving certificate chains to, read from the client connection file. */
  ca: string;
  /** Path of the client connection file (kubeconfig format). */
  kubeconfig: string;
  /** Scratch directory of this server: data, certificates, kubectl's HOME. */
  dir: string;
  /** Environment for kubectl: the connection file and a private HOME (its discovery cache). */
  kubectlEnv: Record<string, string>;
  stdout(): string;
  stderr(): string;
  /** How the process ended, once it has; undefined while it runs. */
  exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** The process id (for a fault test's kill -9). */
  pid: number;
  /** Sends a signal and waits until the process is gone; the scratch directory stays (see stop). */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** SIGTERM, then SIGKILL if the process is still there after a few seconds; removes the scratch directory. */
  stop(): Promise<void>;
}

export interface StartApiServerProcessOptions {
  /** Extra flags after the serving ones, e.g. `--store-compaction-interval=2s`. */
  args?: string[];
  /** How long to wait for /readyz to answer 200. */
  readyTimeoutMs?: number;
  /**
   * Issue service account tokens as every Kubernetes API server does (a P-256 signing key made for
   * this server): TokenRequest is served and the ServiceAccount admission plugin mounts tokens into pods.
   */
  serviceAccountTokens?: boolean;
  /**
   * The etcd members to keep objects in (`--storage-backend=store3`). Unset: the embedded store,
   * unless SVC_E2E_STORE=store3 asks every test server to run on an etcd cluster the test file starts.
   */
  storeServers?: readonly string[];
  /** The address to listen and advertise on; default 127.0.0.1 (any 127.x.y.z works on Linux). */
  bindAddress?: string;
  /** The secure port; default a free one. */
  port?: number;
  /**
   * A certificate directory shared with other servers (their serving certificates then chain to one
   * CA and they trust the same client CA, so one connection file reaches them all); not removed by stop.
   */
  certDir?: string;
  /** Put before the node command, e.g. `unshare --uts` to run the server under a host name of its own. */
  wrap?: readonly string[];
}

let sharedEtcd: Promise<EtcdCluster> | undefined;

/** The CommonName of the front-proxy client certificate the helpers make (kubeadm's). */
export const FRONT_PROXY_CLIENT_NAME = 'front-proxy-client';

/**
 * A front-proxy CA and client certificate of the server's own, as kubeadm makes them, unless the
 * arguments configure the front proxy themselves: the server then aggregates APIs as a Kubernetes one
 * does (its requests to an extension server carry the certificate and the X-Remote-* headers), routing
 * to the endpoints of a service, which a test host reaches where it may not reach a cluster IP.
 */
async function frontProxyFlags(dir: string, args: readonly string[]): Promise<string[]> {
  const given = (flag: string): boolean => args.some((a) => a === flag || a.startsWith(`${flag}=`));
  if (given('--requestheader-client-ca-file') || given('--proxy-client-cert-file')) return [];
  const ca = await ensureClientCa(join(dir, 'front-proxy-ca'));
  const client = await issueClientCertificate(ca, FRONT_PROXY_CLIENT_NAME);
  const certFile = join(dir, 'front-proxy-client.crt');
  const keyFile = join(dir, 'front-proxy-client.key');
  await writeFile(certFile, client.certPem, { mode: 0o644 });
  await writeFile(keyFile, client.keyPem, { mode: 0o600 });
  return [
    `--requestheader-client-ca-file=${ca.certFile}`,
    `--requestheader-allowed-names=${FRONT_PROXY_CLIENT_NAME}`,
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${certFile}`,
    `--proxy-client-key-file=${keyFile}`,
    ...(given('--enable-aggregator-routing') ? [] : ['--enable-aggregator-routing=true']),
  ];
}

// Registered while the test file is loaded (Jest refuses hooks added once its tests run, and a file
// may start its first server inside a test), so the file's cluster is stopped whatever started it.
if (process.env.SVC_E2E_STORE === 'store3' && typeof afterAll === 'function') {
  afterAll(async () => {
    const cluster = sharedEtcd;
    sharedEtcd = undefined;
    await (await cluster?.catch(() => undefined))?.stop();
  }, 30_000);
}

/**
 * SVC_E2E_STORE=store3 runs the API end-to-end tests on store3: one three-member etcd cluster per
 * test file (stopped when the file's tests are done), every server of the file on it.
 */
async function defaultStoreServers(): Promise<readonly string[] | undefined> {
  if (process.env.SVC_E2E_STORE !== 'store3') return undefined;
  sharedEtcd ??= startEtcdCluster({ members: 3 });
  return (await sharedEtcd).endpoints;
}

/** A port the kernel just handed out on loopback; the server binds it right after. */
export function freeLoopbackPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

interface ClientConnectionFile {
  clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
}

/**
 * Runs the built `svc-apiserver` executable on the embedded store, on a free loopback port, with a
 * fresh data, certificate and client-connection directory, and resolves once /readyz answers 200.
 */
export async function startApiServerProcess(options: StartApiServerProcessOptions = {}): Promise<ApiServerProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-apiserver-e2e-'));
  let lastError: unknown;
  // The port is free when probed but may be taken before the server binds it: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(dir, options);
    } catch (error) {
      lastError = error;
      if (!/EADDRINUSE/.test(String(error))) break;
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}

async function startOnce(dir: string, options: StartApiServerProcessOptions): Promise<ApiServerProcess> {
  const host = options.bindAddress ?? '127.0.0.1';
  const port = options.port ?? (await freeLoopbackPort(host));
  const kubeconfig = join(dir, 'svcconfig');
  await rm(kubeconfig, { force: true });
  const storeServers = options.storeServers ?? (await defaultStoreServers());
  const args = [
    EXECUTABLE,
    `--bind-address=${host}`,
    ...(host === '127.0.0.1' ? [] : [`--advertise-address=${host}`]),
    `--secure-port=${port}`,
    ...(storeServers === undefined ? [] : ['--storage-backend=store3', `--store-servers=${storeServers.join(',')}`]),
    `--data-dir=${join(dir, 'data')}`,
    `--cert-dir=${options.certDir ?? join(dir, 'certs')}`,
    `--svcconfig-out=${kubeconfig}`,
    ...(options.serviceAccountTokens ? await serviceAccountKeyFlags(dir) : []),
    ...(await frontProxyFlags(dir, options.args ?? [])),
    ...(options.args ?? []),
  ];
  const command = options.wrap === undefined || options.wrap.length === 0 ? [process.execPath] : [...options.wrap, process.execPath];
  const child = spawn(command[0], [...command.slice(1), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    }),
  );

  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  let ca: string | undefined;
  let url = '';
  try {
    for (;;) {
      if (exited) throw new Error(`svc-apiserver exited (${exited.code ?? exited.signal}) before it was ready: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`svc-apiserver was not ready in time; stderr: ${stderr}`);
      if (ca === undefined && existsSync(kubeconfig)) {
        const doc = parseYaml(await readFile(kubeconfig, 'utf8')) as ClientConnectionFile;
        const cluster = doc.clusters[0].cluster;
        ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8');
        url = cluster.server;
      }
      if (ca !== undefined) {
        const ready = await httpsFetch(`${url}/readyz`, { ca }).catch(() => undefined);
        if (ready?.status === 200) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await stopChild(child, exit, () => exited !== undefined);
    throw error;
  }

  return {
    url,
    port,
    ca,
    kubeconfig,
    dir,
    kubectlEnv: { KUBECONFIG: kubeconfig, HOME: dir },
    stdout: () => stdout,
    stderr: () => stderr,
    exitStatus: () => exited,
    pid: child.pid ?? 0,
    kill: async (signal) => {
      if (exited !== undefined) return;
      child.kill(signal);
      await exit;
    },
    stop: async () => {
      await stopChild(child, exit, () => exited !== undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** SIGTERM, then SIGKILL after 5 s if the child is still there; resolves once it exited. */
export async function stopChild(child: ChildProcess, exit: Promise<void>, hasExited: () => boolean): Promise<void> {
  if (hasExited()) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exit;
  clearTimeout(timer);
}

async function serviceAccountKeyFlags(dir: string): Promise<string[]> {
  const key = join(dir, 'service-account.key');
  if (!existsSync(key))
    await writeFile(key, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  return [
    `--service-account-signing-key-file=${key}`,
    `--service-account-key-file=${key}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
  ];
}
