import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { Type } from '@sinclair/typebox';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { BUILTIN_RESOURCES } from '@svc/client';
import { generate } from 'selfsigned';
import { defineResource } from '../resources/define-resource';
import { eventually } from '../testing';
import { Validate } from './admission-decorators';
import { certificateEnd } from './serving-certificate';
import { WebhookServer } from './webhook-server';

const gadgets = defineResource({
  group: 'certs.example.com',
  kind: 'Gadget',
  storage: 'v1',
  versions: { v1: { spec: Type.Object({ size: Type.Integer() }) } },
}).resource;

class GadgetWebhooks {
  @Validate(gadgets)
  sized(): void {}
}

const service = { namespace: 'default', name: 'gadget-webhooks' };
const serverName = 'gadget-webhooks.default.svc';

/** The certificate a server presents, and whether `ca` verifies it for the Service's name. */
function presented(port: number, ca: string): Promise<{ fingerprint: string; authorized: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: serverName, rejectUnauthorized: false }, () => {
      resolve({ fingerprint: socket.getPeerCertificate().fingerprint256, authorized: socket.authorized });
      socket.end();
    });
    socket.on('error', reject);
  });
}

let env: TestEnvironment;
const servers: WebhookServer[] = [];
let work: string;
beforeAll(async () => {
  env = await startTestEnvironment();
  work = mkdtempSync(join(tmpdir(), 'svc-operator-certs-'));
});
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await env?.stop();
  rmSync(work, { recursive: true, force: true });
});

function replica(options: Partial<ConstructorParameters<typeof WebhookServer>[1]>): WebhookServer {
  const server = new WebhookServer(env.client, { name: 'gadget-operator', handlers: [new GadgetWebhooks()], service, ...options });
  servers.push(server);
  return server;
}

async function secretData(name: string): Promise<Record<string, string>> {
  const data = (await env.client.secrets.inNamespace('default').get(name)).data ?? {};
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

describe('the webhook serving certificate', () => {
  it('is signed by an authority kept in the Secret, renewed before its end by one replica, taken up by all without a new caBundle', async () => {
    // A four-second certificate renewed in its last three: the renewal comes about a second after it was made.
    const rotation = { checkIntervalMs: 150, validityMs: 4_000, renewBeforeMs: 3_000 };
    const a = replica({ rotation, certificate: { secret: { namespace: 'default', name: 'rotating' } } });
    const b = replica({ rotation, certificate: { secret: { namespace: 'default', name: 'rotating' } } });
    const [portA, portB] = [await a.start(), await b.start()];
    const first = await secretData('rotating');
    expect(Object.keys(first).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    const ca = first['ca.crt'];
    const before = await presented(portA, ca);
    expect(before.authorized).toBe(true);
    expect((await presented(portB, ca)).fingerprint).toBe(before.fingerprint);

    await eventually(async () => expect((await presented(portA, ca)).fingerprint).not.toBe(before.fingerprint), 10_000, 100);
    const renewed = await secretData('rotating');
    expect(renewed['ca.crt']).toBe(ca);
    expect(certificateEnd(renewed['tls.crt'])).toBeGreaterThan(certificateEnd(first['tls.crt']));
    // Both replicas serve a certificate the unchanged caBundle verifies, the one in the Secret.
    await eventually(
      async () => {
        const [fromA, fromB] = [await presented(portA, ca), await presented(portB, ca)];
        expect([fromA.authorized, fromB.authorized]).toEqual([true, true]);
        expect(fromA.fingerprint).toBe(fromB.fingerprint);
      },
      10_000,
      100,
    );
  });

  it('is reloaded from mounted files when they change, and a new CA is installed as the caBundle', async () => {
    const files = { certFile: join(work, 'tls.crt'), keyFile: join(work, 'tls.key'), caFile: join(work, 'ca.crt') };
    const mount = async () => {
      const ca = await generate([{ name: 'commonName', value: 'mounted-ca' }], {
        keyType: 'ec',
        algorithm: 'sha256',
        extensions: [
          { name: 'basicConstraints', cA: true },
          { name: 'keyUsage', keyCertSign: true, digitalSignature: true },
        ],
      });
      const leaf = await generate([{ name: 'commonName', value: serverName }], {
        keyType: 'ec',
        algorithm: 'sha256',
        ca: { key: ca.private, cert: ca.cert },
        extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: serverName }] }],
      });
      writeFileSync(files.keyFile, leaf.private);
      writeFileSync(files.certFile, leaf.cert);
      writeFileSync(files.caFile, ca.cert);
      return ca.cert;
    };
    const firstCa = await mount();
    const server = replica({ name: 'mounted-operator', certificate: files, rotation: { checkIntervalMs: 100 } });
    const port = await server.start();
    await server.install();
    const configs = env.client.resource(BUILTIN_RESOURCES.validatingWebhookConfigurations);
    const caBundle = async () =>
      Buffer.from((await configs.get('mounted-operator-validating')).webhooks?.[0]?.clientConfig.caBundle ?? '', 'base64').toString('utf8');
    expect(await caBundle()).toBe(firstCa);
    expect((await presented(port, firstCa)).authorized).toBe(true);

    const secondCa = await mount();
    await eventually(async () => expect((await presented(port, secondCa)).authorized).toBe(true), 10_000, 100);
    await eventually(async () => expect(await caBundle()).toBe(secondCa), 10_000, 100);
  });
});
