import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ClientConfig } from './client-config';

export interface LoadClientConfigOptions {
  /** Path of a kubeconfig-format connection file (`--svcconfig`). */
  svcconfig?: string;
  /** API server address (`--master`), or several separated by commas; overrides the file's server. */
  master?: string;
  /** Context to use instead of the file's `current-context`. */
  context?: string;
  /**
   * When no connection file is given, look for one as kubectl and controller-runtime do: the files
   * `KUBECONFIG` lists (merged), else `~/.kube/config`. True by default; false for a process that
   * is configured by its flags alone (the controller manager, as kube-controller-manager).
   */
  discover?: boolean;
  /** The environment `KUBECONFIG` is read from; `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The home directory of `~/.kube/config`; the user's by default. */
  homeDir?: string;
  /** Where a pod's service account token, CA and namespace are mounted; Kubernetes' path by default. */
  serviceAccountDir?: string;
}

/** Where Kubernetes mounts a pod's service account credentials. */
export const IN_CLUSTER_SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The connection flags of a process, as `@svc/options` names them. */
export interface ClientConnectionOptions {
  svcconfig?: string;
  master?: string;
  svcApiQps?: number;
  svcApiBurst?: number;
  svcApiContentType?: string;
}

/** A connection file that cannot be used; the message names the file and the entry. */
export class ClientConfigError extends Error {
  override readonly name = 'ClientConfigError';
}

type Entry = Record<string, unknown>;

function isEntry(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function named(doc: Entry, listKey: string, itemKey: string, name: string, file: string): Entry {
  const list = doc[listKey];
  const found = Array.isArray(list) ? (list as unknown[]).find((e) => isEntry(e) && e.name === name) : undefined;
  if (!isEntry(found)) throw new ClientConfigError(`${file}: no ${itemKey} named ${JSON.stringify(name)} in ${listKey}`);
  const body = found[itemKey];
  if (body !== undefined && body !== null && !isEntry(body))
    throw new ClientConfigError(`${file}: ${listKey} entry ${JSON.stringify(name)} has no ${itemKey} map`);
  return (body as Entry | undefined) ?? {};
}

function str(entry: Entry, key: string, where: string): string | undefined {
  const value = entry[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ClientConfigError(`${where}: ${key} must be a string`);
  return value;
}

/**
 * Reads PEM material given either inline (`<key>-data`, base64) or as a file path relative to
 * the connection file's directory; both at once is an error, as in kubectl.
 */
async function material(entry: Entry, key: string, base: string, where: string): Promise<string | undefined> {
  const data = str(entry, `${key}-data`, where);
  const path = str(entry, key, where);
  if (data && path) throw new ClientConfigError(`${where}: ${key}-data and ${key} are both specified`);
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  if (!path) return undefined;
  const full = isAbsolute(path) ? path : resolve(base, path);
  try {
    return await readFile(full, 'utf8');
  } catch (err) {
    throw new ClientConfigError(`${where}: cannot read ${key} ${full}: ${(err as Error).message}`);
  }
}

function parseDocument(text: string, file: string): Entry {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ClientConfigError(`${file}: not valid YAML: ${(err as Error).message}`);
  }
  if (!isEntry(doc)) throw new ClientConfigError(`${file}: not a connection file (expected a map)`);
  return doc;
}

/** Reads a kubeconfig-format document into a ClientConfig. `file` names it in errors and anchors relative paths. */
export async function parseConnectionFile(text: string, file: string, contextName?: string): Promise<ClientConfig> {
  return configFromDocument(parseDocument(text, file), file, contextName);
}

async function configFromDocument(doc: Entry, file: string, contextName: string | undefined): Promise<ClientConfig> {
  const base = dirname(resolve(file));
  const chosen = contextName || str(doc, 'current-context', file);
  if (!chosen) throw new ClientConfigError(`${file}: no context given and no current-context set`);
  const context = named(doc, 'contexts', 'context', chosen, file);
  const clusterName = str(context, 'cluster', `${file} context ${chosen}`);
  if (!clusterName) throw new ClientConfigError(`${file}: context ${JSON.stringify(chosen)} names no cluster`);
  const cluster = named(doc, 'clusters', 'cluster', clusterName, file);
  const userName = str(context, 'user', `${file} context ${chosen}`);
  const user = userName ? named(doc, 'users', 'user', userName, file) : {};

  const clusterWhere = `${file} cluster ${clusterName}`;
  const userWhere = `${file} user ${userName ?? ''}`;
  for (const unsupported of ['exec', 'auth-provider']) {
    if (user[unsupported] !== undefined && user[unsupported] !== null) {
      throw new ClientConfigError(`${userWhere}: ${unsupported} credentials are not supported; use a token, a token file or a client certificate`);
    }
  }
  const server = str(cluster, 'server', clusterWhere);
  const insecure = cluster['insecure-skip-tls-verify'];
  if (insecure !== undefined && typeof insecure !== 'boolean') throw new ClientConfigError(`${clusterWhere}: insecure-skip-tls-verify must be a boolean`);
  const config: ClientConfig = { server: server ?? '' };
  const ca = await material(cluster, 'certificate-authority', base, clusterWhere);
  if (ca) config.ca = ca;
  if (insecure) config.insecureSkipTlsVerify = true;
  const tlsServerName = str(cluster, 'tls-server-name', clusterWhere);
  if (tlsServerName) config.tlsServerName = tlsServerName;

  const clientCert = await material(user, 'client-certificate', base, userWhere);
  const clientKey = await material(user, 'client-key', base, userWhere);
  if (Boolean(clientCert) !== Boolean(clientKey)) {
    throw new ClientConfigError(`${userWhere}: client-certificate and client-key must be given together`);
  }
  if (clientCert && clientKey) Object.assign(config, { clientCert, clientKey });
  const token = str(user, 'token', userWhere);
  if (token) config.token = token;
  const tokenFile = str(user, 'tokenFile', userWhere);
  if (tokenFile && !token) config.tokenFile = isAbsolute(tokenFile) ? tokenFile : resolve(base, tokenFile);
  const username = str(user, 'username', userWhere);
  const password = str(user, 'password', userWhere);
  if (username) config.username = username;
  if (password) config.password = password;
  const namespace = str(context, 'namespace', `${file} context ${chosen}`);
  if (namespace) config.namespace = namespace;
  return config;
}

/** Entries that name files, resolved against the directory of the file that holds them. */
const PATH_KEYS: Record<string, readonly string[]> = {
  clusters: ['certificate-authority'],
  users: ['client-certificate', 'client-key', 'tokenFile'],
};

/** `doc` with the relative file paths of its clusters and users made absolute against `base`. */
function withAbsolutePaths(doc: Entry, base: string): Entry {
  const out: Entry = { ...doc };
  for (const [listKey, pathKeys] of Object.entries(PATH_KEYS)) {
    const itemKey = listKey.slice(0, -1);
    const list: unknown = doc[listKey];
    if (!Array.isArray(list)) continue;
    out[listKey] = (list as unknown[]).map((entry) => {
      if (!isEntry(entry) || !isEntry(entry[itemKey])) return entry;
      const body: Entry = { ...entry[itemKey] };
      for (const key of pathKeys) {
        const path = body[key];
        if (typeof path === 'string' && path !== '' && !isAbsolute(path)) body[key] = resolve(base, path);
      }
      return { ...entry, [itemKey]: body };
    });
  }
  return out;
}

/**
 * Several connection files as one, as kubectl merges the files `KUBECONFIG` lists: a cluster, user
 * or context comes whole from the first file that names it, `current-context` from the first file
 * that sets one; paths are resolved against the file they were written in.
 */
function mergeDocuments(docs: ReadonlyArray<{ doc: Entry; file: string }>): Entry {
  const resolved = docs.map(({ doc, file }) => withAbsolutePaths(doc, dirname(resolve(file))));
  const merged: Entry = {};
  for (const listKey of ['clusters', 'users', 'contexts']) {
    const byName = new Map<unknown, unknown>();
    for (const doc of resolved) {
      const list: unknown = doc[listKey];
      if (!Array.isArray(list)) continue;
      for (const entry of list as unknown[]) if (isEntry(entry) && !byName.has(entry.name)) byName.set(entry.name, entry);
    }
    merged[listKey] = [...byName.values()];
  }
  merged['current-context'] = resolved.map((doc) => doc['current-context']).find((name) => typeof name === 'string' && name !== '');
  return merged;
}

function isMissingFile(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * The connection files a program given none reads: those `KUBECONFIG` lists (when it is set, and
 * only those, as in kubectl), else `~/.kube/config`. Files that do not exist are skipped; none
 * found is `undefined`.
 */
async function discoverConnection(options: LoadClientConfigOptions, files: readonly string[]): Promise<{ doc: Entry; file: string } | undefined> {
  const found: Array<{ doc: Entry; file: string }> = [];
  for (const file of [...new Set(files)]) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if (isMissingFile(err)) continue;
      throw new ClientConfigError(`cannot read connection file ${file}: ${(err as Error).message}`);
    }
    found.push({ doc: parseDocument(text, file), file });
  }
  if (found.length <= 1) return found[0];
  return { doc: mergeDocuments(found), file: `KUBECONFIG (${found.map(({ file }) => file).join(delimiter)})` };
}

/**
 * A pod's connection to the API server that runs it, as client-go's InClusterConfig: the address
 * from `KUBERNETES_SERVICE_HOST`/`_PORT`, the service account's token (a file, re-read as it
 * rotates), CA and namespace from `dir`. Undefined outside a pod (no address, or no token file).
 */
export async function inClusterConfig(
  env: Readonly<Record<string, string | undefined>>,
  dir = IN_CLUSTER_SERVICE_ACCOUNT_DIR,
): Promise<ClientConfig | undefined> {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) return undefined;
  const tokenFile = join(dir, 'token');
  try {
    await readFile(tokenFile, 'utf8');
  } catch (err) {
    if (isMissingFile(err)) return undefined;
    throw new ClientConfigError(`in-cluster configuration: cannot read ${tokenFile}: ${(err as Error).message}`);
  }
  const config: ClientConfig = { server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`, tokenFile };
  const ca = await readOptional(join(dir, 'ca.crt'));
  if (ca) config.ca = ca;
  const namespace = (await readOptional(join(dir, 'namespace')))?.trim();
  if (namespace) config.namespace = namespace;
  return config;
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if (isMissingFile(err)) return undefined;
    throw new ClientConfigError(`in-cluster configuration: cannot read ${file}: ${(err as Error).message}`);
  }
}

/**
 * Connection settings: the file supplies server, CA and credentials; `master` (`--master`) replaces
 * the server. The file is `svcconfig` when given, else (unless `discover` is false) the files
 * `KUBECONFIG` lists, else the pod's service account (in-cluster), else `~/.kube/config`.
 */
export async function loadClientConfig(options: LoadClientConfigOptions): Promise<ClientConfig> {
  let config: ClientConfig | undefined;
  let source = options.svcconfig;
  if (options.svcconfig) {
    let text: string;
    try {
      text = await readFile(options.svcconfig, 'utf8');
    } catch (err) {
      throw new ClientConfigError(`cannot read connection file ${options.svcconfig}: ${(err as Error).message}`);
    }
    config = await parseConnectionFile(text, options.svcconfig, options.context);
  } else if (options.discover !== false) {
    // controller-runtime's order: the files KUBECONFIG lists (and only those when it is set), else
    // the pod's own service account, else the home directory's file.
    const env = options.env ?? process.env;
    const listed = env.KUBECONFIG?.split(delimiter).filter((file) => file !== '');
    if (!listed) {
      config = await inClusterConfig(env, options.serviceAccountDir ?? IN_CLUSTER_SERVICE_ACCOUNT_DIR);
      source = 'in-cluster configuration';
    }
    if (!config) {
      const found = await discoverConnection(options, listed ?? [join(options.homeDir ?? homedir(), '.kube', 'config')]);
      if (found) {
        source = found.file;
        config = await configFromDocument(found.doc, found.file, options.context);
      }
    }
  }
  if (options.master) {
    // Several API servers on one store: `--master=https://a:6443,https://b:6443`, tried in turn.
    const [server, ...servers] = options.master
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    config = { ...(config ?? {}), server, ...(servers.length > 0 ? { servers } : {}) };
  }
  if (!config) {
    throw new ClientConfigError(
      options.discover === false
        ? 'no API server: give --svcconfig or --master'
        : 'no API server: give --svcconfig or --master, or a connection file in KUBECONFIG or ~/.kube/config, or run in a pod with a service account',
    );
  }
  if (!config.server) throw new ClientConfigError(`${source}: the cluster has no server address; give --master`);
  return config;
}

/**
 * The ClientConfig a process's flags describe: connection file and master, rate and content type.
 * Only the flags: like Kubernetes' components, a process does not look for KUBECONFIG or a home file.
 */
export async function clientConfigFromOptions(options: ClientConnectionOptions): Promise<ClientConfig> {
  const config = await loadClientConfig({ svcconfig: options.svcconfig, master: options.master, discover: false });
  if (options.svcApiQps !== undefined) config.qps = options.svcApiQps;
  if (options.svcApiBurst !== undefined) config.burst = options.svcApiBurst;
  if (options.svcApiContentType !== undefined) config.contentType = options.svcApiContentType;
  return config;
}
