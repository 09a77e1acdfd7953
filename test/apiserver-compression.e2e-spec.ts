import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { gunzipSync } from 'node:zlib';
import { ApiClient } from './support/api-client';
import { configMap, create, createNamespace, paths } from './support/api-fixtures';
import { type ApiServerProcess, startApiServerProcess } from './support/apiserver-process';
import { runKubectl } from './support/kubectl-run';

// Kubernetes' APIResponseCompression: a response body over 128 KiB goes gzipped to a client that
// sends `Accept-Encoding: gzip`; smaller bodies and watch streams go as they are.

let server: ApiServerProcess;
let client: ApiClient;
const ns = 'gzip-e2e';

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function raw(path: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${server.url}${path}`, { headers, ca: server.ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  server = await startApiServerProcess();
  client = new ApiClient(server.url, server.ca);
  await createNamespace(client, ns);
  // 200 ConfigMaps of about 1 KiB each: a list of about 250 KiB.
  const value = 'x'.repeat(1024);
  for (let i = 0; i < 200; i += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, j) => create(client, paths.configMaps(ns), configMap(`cm-${i + j}`, { value }))));
  }
}, 120_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
});

describe('response compression', () => {
  it('gzips a list over 128 KiB for a client that accepts gzip, and it decompresses to the same list', async () => {
    const plain = await raw(paths.configMaps(ns), { Accept: 'application/json' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(128 * 1024);

    const zipped = await raw(paths.configMaps(ns), { Accept: 'application/json', 'Accept-Encoding': 'gzip' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toContain('Accept-Encoding');
    expect(zipped.headers['content-type']).toBe('application/json');
    expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
  });

  it('reads the tokens of Accept-Encoding as Kubernetes does', async () => {
    const listed = await raw(paths.configMaps(ns), { 'Accept-Encoding': 'deflate, gzip' });
    expect(listed.headers['content-encoding']).toBe('gzip');
    const other = await raw(paths.configMaps(ns), { 'Accept-Encoding': 'br, deflate' });
    expect(other.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(other.body.toString('utf8')).items).toHaveLength(200);
  });

  it('sends a small body plain, with its length and no Vary', async () => {
    const small = await raw(paths.configMap(ns, 'cm-1'), { Accept: 'application/json', 'Accept-Encoding': 'gzip' });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBeUndefined();
    expect(Number(small.headers['content-length'])).toBe(small.body.length);
    expect(JSON.parse(small.body.toString('utf8')).metadata.name).toBe('cm-1');
  });

  it('never gzips a watch stream, however large its initial events', async () => {
    const watch = await raw(`${paths.configMaps(ns)}?watch=1&timeoutSeconds=1`, { Accept: 'application/json', 'Accept-Encoding': 'gzip' });
    expect(watch.status).toBe(200);
    expect(watch.headers['content-encoding']).toBeUndefined();
    const lines = watch.body.toString('utf8').trim().split('\n');
    expect(lines).toHaveLength(200);
    expect(JSON.parse(lines[0]).type).toBe('ADDED');
  });

  it('serves kubectl, which asks for gzip, the large list', async () => {
    const res = await runKubectl(['get', 'configmaps', '-n', ns, '-o', 'name'], server.kubectlEnv);
    expect(res.stderr).toBe('');
    expect(res.stdout.trim().split('\n')).toHaveLength(200);
  });
});
