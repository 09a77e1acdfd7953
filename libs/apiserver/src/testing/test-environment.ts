import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinScheme, type Scheme } from '@svc/api';
import { Client, loadClientConfig, type ClientConfig } from '@svc/client';
import type { ControllerDescriptor } from '@svc/controllers';
import { createStorage, type Storage } from '@svc/storage';
import { createApiServer } from '../create-api-server';
import type { AuthenticationOptions, AuthorizationOptions } from '../auth/security';
import type { ApiServerHandle } from '../start-api-server';

let certDir: Promise<string> | undefined;

/**
 * Generating a self-signed CA and serving pair costs most of a start (RSA key generation), so every
 * environment of one process serves with the same pair, made on first use and removed at exit.
 */
function sharedCertDir(): Promise<string> {
  certDir ??= mkdtemp(join(tmpdir(), 'svc-runtime-certs-')).then((path) => {
    process.once('exit', () => rmSync(path, { recursive: true, force: true }));
    return path;
  });
  return certDir;
}

export interface TestEnvironmentOptions {
  /** Keep the temporary directory after stop (to inspect the store). */
  keepData?: boolean;
  /** The kinds served (the built-in scheme by default); register kinds of your own into it. */
  scheme?: Scheme;
  /**
   * Who may call besides the administrator {@link TestEnvironment.clientConfig} authenticates as
   * (a client certificate in `system:masters`); anonymous requests are allowed by default.
   */
  authentication?: Omit<AuthenticationOptions, 'selfIssuedClients'>;
  /** `{ modes: ['RBAC'] }` enforces RBAC as a secured cluster does; AlwaysAllow by default. */
  authorization?: AuthorizationOptions;
  /**
   * Built-in controllers to run in this process against the server, by their `--controllers` names
   * (`['garbagecollector', 'namespace', 'deployment', 'replicaset']`): owner references are then
   * honoured, namespaces finish deleting, Deployments make ReplicaSets and those make Pods (nothing
   * runs the Pods). None by default, as envtest.
   */
  controllers?: readonly string[];
  /** controller-manager flags for those controllers (`--concurrent-replicaset-syncs=2`). */
  controllerFlags?: readonly string[];
}

/** An API server running in this process on a temporary embedded store. */
export interface TestEnvironment {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** Connection to the server as an administrator (client certificate, `system:masters`), with client-side rate limiting off (tests write in bursts). */
  clientConfig: ClientConfig;
  /** A client over {@link clientConfig}, closed by {@link stop}. */
  client: Client;
  /** Path of the written connection file (kubeconfig format). */
  svcconfig: string;
  /** How long start took, in ms. */
  startupMs: number;
  /** Stops the server at once, closes the store and removes the temporary directory. */
  stop(): Promise<void>;
}

/**
 * Starts the API server in-process through the same createApiServer the svc-apiserver process calls
 * (embedded store, one scheme, resources, discovery, OpenAPI and CRDs), on a free loopback port. Nothing is downloaded or
 * spawned, so a test can start one per file.
 */
export async function startTestEnvironment(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  const started = performance.now();
  // Loaded only when asked for: an environment without controllers does not load Nest and the
  // reconcilers. Unknown names are refused before anything starts.
  let wanted: WantedControllers | undefined;
  if (options.controllers?.length) {
    const kit = await import('@svc/controllers/testing');
    wanted = { kit, controllers: kit.builtInControllers(options.controllers) };
  }
  const dir = await mkdtemp(join(tmpdir(), 'svc-runtime-env-'));
  const storage = await createStorage({ backend: 'embedded', dataDir: join(dir, 'data'), compactionIntervalMs: 0 });
  const svcconfig = join(dir, 'svcconfig');
  const removeAll = async (): Promise<void> => {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  };
  const server = await startServer(storage, svcconfig, options).catch(async (error: unknown) => {
    await removeAll();
    throw error;
  });
  const clientConfig: ClientConfig = { ...(await loadClientConfig({ svcconfig })), qps: -1 };
  const client = new Client(clientConfig);
  const controllers = await wanted?.kit.startControllers({ clientConfig }, wanted.controllers, options.controllerFlags).catch(async (error: unknown) => {
    client.close();
    await server.close();
    await removeAll();
    throw error;
  });
  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    await controllers?.stop();
    client.close();
    await server.close();
    await storage.close();
    if (!options.keepData) await rm(dir, { recursive: true, force: true });
  };
  return { url: server.url, clientConfig, client, svcconfig, startupMs: performance.now() - started, stop: () => (stopping ??= stop()) };
}

interface WantedControllers {
  kit: typeof import('@svc/controllers/testing');
  controllers: ControllerDescriptor[];
}

/** The server on a free loopback port, ready as /readyz says it: the bootstrap RBAC policy and other post-start work in place. */
async function startServer(storage: Storage, svcconfig: string, options: TestEnvironmentOptions): Promise<ApiServerHandle> {
  const server = await createApiServer({
    storage,
    scheme: options.scheme ?? builtinScheme(),
    options: {
      serving: { bindAddress: '127.0.0.1', securePort: 0, certDir: await sharedCertDir(), svcconfigOut: svcconfig },
      resources: { storeCountMetricPollPeriodMs: 0 },
      authentication: { ...options.authentication, selfIssuedClients: true },
      authorization: options.authorization,
    },
    logger: false,
    stdout: () => undefined,
  });
  await server.health.postStartHooksSettled();
  return server;
}
