import { loadClientConfig } from '@svc/client';
import { Type } from '@sinclair/typebox';
import { defineResource, Manager } from '@svc/runtime';
import { ApiClient } from './support/api-client';
import { eventually, expectFailure, expectStatus, MERGE_PATCH } from './support/api-fixtures';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { kubectl, runKubectl, spawnKubectl } from './support/kubectl-run';
import { writeFile } from 'node:fs/promises';

// A resource type defined in code at two versions, stored at v2, whose conversion functions the
// operator's manager serves as the CRD's conversion webhook (loopback HTTPS, a certificate it makes):
// the real API server converts every read, write and watch event through it, kubectl sees both versions.

const widgets = defineResource({
  group: 'conv.example.com',
  kind: 'Widget',
  storage: 'v2',
  versions: {
    v1: { spec: Type.Object({ color: Type.String(), size: Type.Integer() }) },
    v2: { spec: Type.Object({ paint: Type.Object({ color: Type.String() }), dimensions: Type.Object({ size: Type.Integer() }) }) },
  },
  conversion: {
    v1: {
      toStorage: (o) => ({ ...o, spec: { paint: { color: o.spec.color }, dimensions: { size: o.spec.size } } }),
      fromStorage: (o) => ({ ...o, spec: { color: o.spec.paint.color, size: o.spec.dimensions.size } }),
    },
  },
});

const V1 = '/apis/conv.example.com/v1/namespaces/default/widgets';
const V2 = '/apis/conv.example.com/v2/namespaces/default/widgets';

interface Widget {
  apiVersion: string;
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
}

describe('CRD conversion webhook served by the manager', () => {
  let server: ApiServerProcess;
  let client: ApiClient;
  let manager: Manager | undefined;

  beforeAll(async () => {
    server = await startApiServerProcess();
    client = new ApiClient(server.url, server.ca);
    manager = new Manager({ clientConfig: await loadClientConfig({ svcconfig: server.kubeconfig }), resources: [widgets] });
    await manager.start();
  });

  afterAll(async () => {
    await manager?.stop();
    client?.close();
    await server?.stop();
  });

  it('installs the CRD with a Webhook conversion pointing at the manager', async () => {
    const crd = (
      await client.get<{ spec: { conversion: { strategy: string; webhook: { clientConfig: { url: string; caBundle: string } } } } }>(
        `/apis/apiextensions.svc.io/v1/customresourcedefinitions/${widgets.name}`,
      )
    ).body;
    expect(crd.spec.conversion.strategy).toBe('Webhook');
    expect(crd.spec.conversion.webhook.clientConfig.url).toBe(`https://127.0.0.1:${manager!.webhookPort}/convert/${widgets.name}`);
    expect(crd.spec.conversion.webhook.clientConfig.caBundle).not.toBe('');
  });

  it('serves an object created at v1 at both versions, through kubectl', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'conv.example.com/v1',
      kind: 'Widget',
      metadata: { name: 'round', labels: { app: 'w' } },
      spec: { color: 'red', size: 3 },
    });
    const file = `${server.kubeconfig}-round.json`;
    await writeFile(file, manifest);
    await kubectl(['apply', '-f', file, '-n', 'default'], server.kubectlEnv);

    const atV1 = JSON.parse(
      (await kubectl(['get', 'widgets.v1.conv.example.com', 'round', '-n', 'default', '-o', 'json'], server.kubectlEnv)).stdout,
    ) as Widget;
    const atV2 = JSON.parse(
      (await kubectl(['get', 'widgets.v2.conv.example.com', 'round', '-n', 'default', '-o', 'json'], server.kubectlEnv)).stdout,
    ) as Widget;
    expect(atV1.apiVersion).toBe('conv.example.com/v1');
    expect(atV1.spec).toEqual({ color: 'red', size: 3 });
    expect(atV2.apiVersion).toBe('conv.example.com/v2');
    expect(atV2.spec).toEqual({ paint: { color: 'red' }, dimensions: { size: 3 } });
    expect(atV2.metadata.labels).toEqual({ app: 'w' });
    expect(atV2.metadata.resourceVersion).toBe(atV1.metadata.resourceVersion);

    const table = await kubectl(['get', 'widgets.v1.conv.example.com', '-n', 'default'], server.kubectlEnv);
    expect(table.stdout).toMatch(/^round\s/m);
  });

  it('converts lists, patches and updates at the version the request names', async () => {
    expectStatus(
      await client.post(V2, {
        apiVersion: 'conv.example.com/v2',
        kind: 'Widget',
        metadata: { name: 'second' },
        spec: { paint: { color: 'blue' }, dimensions: { size: 1 } },
      }),
      201,
    );
    const list = (await client.get<{ apiVersion: string; items: Widget[] }>(V1)).body;
    expect(list.items.map((w) => [w.metadata.name, w.apiVersion, w.spec])).toEqual([
      ['round', 'conv.example.com/v1', { color: 'red', size: 3 }],
      ['second', 'conv.example.com/v1', { color: 'blue', size: 1 }],
    ]);

    // A merge patch of the v1 shape applies to the v1 form of the stored v2 object.
    const patched = await client.patch<Widget>(`${V1}/second`, MERGE_PATCH, { spec: { size: 7 } });
    expectStatus(patched, 200);
    expect(patched.body.spec).toEqual({ color: 'blue', size: 7 });
    expect((await client.get<Widget>(`${V2}/second`)).body.spec).toEqual({ paint: { color: 'blue' }, dimensions: { size: 7 } });

    const current = (await client.get<Widget>(`${V1}/second`)).body;
    const put = await client.put<Widget>(`${V1}/second`, { ...current, spec: { color: 'green', size: 7 } });
    expectStatus(put, 200);
    expect((await client.get<Widget>(`${V2}/second`)).body.spec).toEqual({ paint: { color: 'green' }, dimensions: { size: 7 } });
  });

  it('converts watch events to the watched version', async () => {
    const session = spawnKubectl(['get', 'widgets.v1.conv.example.com', '-n', 'default', '-w', '--output-watch-events', '-o', 'json'], server.kubectlEnv);
    try {
      await session.waitForOutput(/"name":"second"/);
      expectStatus(await client.patch(`${V2}/second`, MERGE_PATCH, { spec: { dimensions: { size: 9 } } }), 200);
      await session.waitForOutput(/"spec":\{"color":"green","size":9\}/);
      const objects = session
        .output()
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { object: Widget }).object);
      expect(objects.every((o) => o.apiVersion === 'conv.example.com/v1' && 'size' in o.spec)).toBe(true);
    } finally {
      await session.stop();
    }
  });

  it('answers 500 InternalError when the conversion webhook is down, and serves the storage version unconverted', async () => {
    await manager!.stop();
    manager = undefined;
    await eventually(async () => {
      const res = await client.get(`${V1}/round`);
      const status = expectFailure(res, 500, 'InternalError');
      expect(status.message).toMatch(
        /^Internal error occurred: conversion webhook for conv.example.com\/v2, Kind=Widget failed: failed to call webhook: Post "https:\/\/127.0.0.1:\d+\/convert\/widgets.conv.example.com"/,
      );
    });
    // Objects are stored at v2: reading them there needs no webhook.
    expect((await client.get<Widget>(`${V2}/round`)).body.spec).toEqual({ paint: { color: 'red' }, dimensions: { size: 3 } });
    const failed = await runKubectl(['get', 'widgets.v1.conv.example.com', 'round', '-n', 'default'], server.kubectlEnv);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain('conversion webhook for conv.example.com/v2, Kind=Widget failed');
    // Writes at v1 cannot be stored either.
    const res = await client.post(V1, { apiVersion: 'conv.example.com/v1', kind: 'Widget', metadata: { name: 'third' }, spec: { color: 'x', size: 1 } });
    expectFailure(res, 500, 'InternalError');
  });
});
