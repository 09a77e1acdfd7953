import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiObject } from '@svc/api';
import { eventually } from '@svc/runtime/testing';
import { registryFixture, type RegistryFixture } from '../../registry/testing/registry-fixture';
import { ensureClientCa } from '../client-certificates';
import { AuthenticationInfoController } from './authentication-info-controller';
import { AUTHENTICATION_INFO_CONFIGMAP, AUTHENTICATION_INFO_NAMESPACE } from '@svc/machinery';
import { combineAuthenticationInfo, parseAuthenticationInfoData, type ClusterAuthenticationInfo } from './cluster-authentication-info';

const NS = AUTHENTICATION_INFO_NAMESPACE;
const NAME = AUTHENTICATION_INFO_CONFIGMAP;

let dir: string;
let caA: string;
let caB: string;
let fixture: RegistryFixture;
const controllers: AuthenticationInfoController[] = [];

function controller(required: ClusterAuthenticationInfo, resyncPeriodMs?: number): AuthenticationInfoController {
  const made = new AuthenticationInfoController({
    configMaps: fixture.registry('configmaps'),
    namespaces: fixture.registry('namespaces'),
    required,
    resyncPeriodMs,
  });
  controllers.push(made);
  return made;
}

function read(): Promise<ApiObject> {
  return fixture.registry('configmaps').get(NS, NAME);
}

const required = (): ClusterAuthenticationInfo => ({
  clientCaPem: caA,
  requestHeader: { caPem: caB, allowedNames: [], usernameHeaders: ['X-Remote-User'], groupHeaders: [], extraHeadersPrefix: [] },
});

/** What is published for `required()` alone (its certificates in PEM as the controller writes them). */
const published = (): ClusterAuthenticationInfo => combineAuthenticationInfo({}, required());

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-authinfo-controller-'));
  caA = (await ensureClientCa(join(dir, 'a'))).certPem;
  caB = (await ensureClientCa(join(dir, 'b'))).certPem;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  fixture = registryFixture();
});

afterEach(async () => {
  for (const c of controllers.splice(0)) c.stop();
  await fixture.close();
});

describe('the authentication info controller', () => {
  it('creates the ConfigMap (and its namespace) on start, then writes nothing while nothing changes', async () => {
    const c = controller(required());
    await c.start();
    const configMap = await read();
    expect(Object.keys(configMap.data as object).sort()).toEqual([
      'client-ca-file',
      'requestheader-allowed-names',
      'requestheader-client-ca-file',
      'requestheader-extra-headers-prefix',
      'requestheader-group-headers',
      'requestheader-username-headers',
    ]);
    expect(configMap.data).toMatchObject({ 'requestheader-username-headers': '["X-Remote-User"]', 'requestheader-allowed-names': '[]' });
    expect(c.writeCount).toBe(1);
    expect(await c.sync()).toBe(false);
    expect((await read()).metadata?.resourceVersion).toBe(configMap.metadata?.resourceVersion);
  });

  it('puts it back at once when it is deleted or its content is changed', async () => {
    const c = controller(required());
    await c.start();
    await fixture.registry('configmaps').delete(NS, NAME);
    await eventually(async () => expect(parseAuthenticationInfoData((await read()).data as Record<string, string>)).toEqual(published()), 10_000);

    const current = await read();
    const edited = { ...structuredClone(current), data: { 'client-ca-file': 'garbage', note: 'mine' } };
    await fixture.registry('configmaps').update(NS, NAME, { value: edited });
    await eventually(async () => {
      const data = (await read()).data as Record<string, string>;
      expect(data.note).toBeUndefined();
      expect(parseAuthenticationInfoData(data)).toEqual(published());
    }, 10_000);
  });

  it('checks again every period even without an event, and writes only what changed', async () => {
    const c = controller(required(), 50);
    await c.start();
    const checks = jest.spyOn(c, 'sync');
    await eventually(() => expect(checks.mock.calls.length).toBeGreaterThanOrEqual(3), 10_000);
    expect(c.writeCount).toBe(1);
  });

  it('adds to what another server published instead of writing over it, and both settle', async () => {
    const one = controller({ clientCaPem: caA });
    const two = controller({ clientCaPem: caB });
    await one.start();
    await two.start();
    await eventually(async () => {
      const published = parseAuthenticationInfoData((await read()).data as Record<string, string>).clientCaPem ?? '';
      expect(published.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
      expect(await one.sync()).toBe(false);
      expect(await two.sync()).toBe(false);
    }, 10_000);
  });

  it('stops following on stop', async () => {
    const c = controller(required());
    await c.start();
    c.stop();
    await fixture.registry('configmaps').delete(NS, NAME);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await expect(read()).rejects.toMatchObject({ code: 404 });
  });
});
