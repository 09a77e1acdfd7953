import 'reflect-metadata';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { loadRootCaBundle, rootCaCertPublisherController, ROOT_CA_CONFIG_MAP } from '.';

let env: TestEnvironment;
let running: RunningControllers;
let dir: string;
let bundle: string;

beforeAll(async () => {
  env = await startTestEnvironment();
  dir = await mkdtemp(join(tmpdir(), 'svc-root-ca-'));
  // Any CA will do: the one the test server's clients trust, with a comment line as a bundle may have.
  bundle = `# cluster CA\n${env.clientConfig.ca ?? ''}`;
  await writeFile(join(dir, 'ca.crt'), bundle);
  running = await startControllers(env, [rootCaCertPublisherController], [`--root-ca-file=${join(dir, 'ca.crt')}`]);
}, 60_000);

afterAll(async () => {
  await running?.stop();
  await env?.stop();
  await rm(dir, { recursive: true, force: true });
});

const published = (namespace: string) => env.client.configMaps.get(ROOT_CA_CONFIG_MAP, { namespace });

describe('the root CA certificate publisher', () => {
  it('publishes --root-ca-file as written in every namespace, and puts it back when changed or deleted', async () => {
    await env.client.namespaces.create({ metadata: { name: 'published' } });
    await eventually(async () => expect((await published('published')).data).toEqual({ 'ca.crt': bundle }), 10_000);
    await eventually(async () => expect((await published('default')).data).toEqual({ 'ca.crt': bundle }), 10_000);

    await env.client.configMaps.patch(ROOT_CA_CONFIG_MAP, { data: { 'ca.crt': 'changed', extra: 'x' } }, 'merge', { namespace: 'published' });
    await eventually(async () => expect((await published('published')).data).toEqual({ 'ca.crt': bundle }), 10_000);

    const before = await published('published');
    await env.client.configMaps.delete(ROOT_CA_CONFIG_MAP, { namespace: 'published' });
    await eventually(async () => {
      const again = await published('published');
      expect(again.metadata?.uid).not.toBe(before.metadata?.uid);
      expect(again.data).toEqual({ 'ca.crt': bundle });
      expect(again.metadata?.annotations?.['kubernetes.io/description']).toContain('CA bundle');
    }, 10_000);
  }, 30_000);

  it('refuses a file that holds no certificate, and publishes nothing when there is no CA at all', async () => {
    await writeFile(join(dir, 'bad.crt'), 'not a certificate\n');
    await expect(loadRootCaBundle(join(dir, 'bad.crt'), undefined)).rejects.toThrow(/--root-ca-file .*bad\.crt: no PEM certificate/);
    await expect(loadRootCaBundle(join(dir, 'missing.crt'), undefined)).rejects.toThrow(/cannot read/);
    // Nothing to publish without the flag and without a CA in the connection: not an error.
    await expect(loadRootCaBundle(undefined, undefined)).resolves.toBe('');
  });
});
