import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { generatedFiles, ROOT, sampleFiles } from '../scripts/docs-tables';
import { sample as api } from '../docs/samples/api';
import { sample as apiserver } from '../docs/samples/apiserver';
import { sample as client } from '../docs/samples/client';
import { sample as controllers } from '../docs/samples/controllers';
import { sample as informers } from '../docs/samples/informers';
import { sample as machinery } from '../docs/samples/machinery';
import { sample as options } from '../docs/samples/options';
import { sample as runtime } from '../docs/samples/runtime';
import { sample as runtimeReference, testingSample as runtimeTesting } from '../docs/samples/runtime-reference';
import { sample as storage } from '../docs/samples/storage';
import { sample as upgrades } from '../docs/samples/upgrades';

/** The code samples the docs show are these files' regions: each runs here against a real API server. */
describe('the docs code samples', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await startTestEnvironment();
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('are each shown by a page', () => {
    const pages = generatedFiles().map((file) => readFileSync(join(ROOT, file), 'utf8'));
    for (const file of sampleFiles()) expect(pages.some((text) => text.includes(`<!-- generated:sample:${file}`))).toBe(true);
  });

  it('the kinds and the scheme', () => {
    expect(api()).toEqual(['cfg', 'deployments']);
  });

  it('the test environment', async () => {
    expect((await apiserver())[0]).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('the client', async () => {
    expect(await client(env)).toEqual([
      'MODIFIED cfg',
      'pod web-0',
      'widgets widgets',
      'deployment web',
      'resources true',
      'secrets PartialObjectMetadataList',
    ]);
    expect((await env.client.deployments.get('web', { namespace: 'default' })).spec.replicas).toBe(3);
    expect((await env.client.pods.get('web-0', { namespace: 'default' })).status?.phase).toBe('Running');
  });

  it('the built-in controllers beside the test environment', async () => {
    expect(await controllers()).toEqual(['ReplicaSet', 'ReplicaSet']);
  }, 60_000);

  it('the informers and the work queue', async () => {
    expect(await informers(env)).toEqual(expect.arrayContaining(['web-1']));
  });

  it('the operator of the tutorial', async () => {
    expect(await runtime(env)).toEqual([
      'ready at generation 1',
      '<h1>Home</h1>',
      'the title of a website is set once',
      'Website.tutorial.example.com "latest" is invalid: spec.image: Invalid value: "object": pin the image',
      '10 manifests',
    ]);
  }, 60_000);

  it("the operator framework's reference (its README)", async () => {
    expect(await runtimeReference(env)).toEqual([
      'leading true',
      'deployment reconciled',
      'stray swept',
      'copies 1',
      'not that one',
      'ready True',
      'color blue',
      'a widget never shrinks',
      'service widget-operator-webhooks',
      'nest true',
    ]);
    expect(await runtimeTesting()).toEqual(['https:', 'namespace gone']);
  }, 90_000);

  it('a new version of a resource type, and its stored objects migrated', async () => {
    expect(await upgrades(env)).toEqual(['v2 paint red', 'stored v1,v2', 'migrated 1', 'stored v2', 'after stop red']);
  }, 60_000);

  it('the machinery', async () => {
    expect(await machinery(env)).toEqual(['not found', '2 requirements']);
  });

  it('the options', () => {
    const [server, greeter] = options() as [string[], { action: string; options: Record<string, unknown> }];
    expect(server).toEqual(['16443', expect.stringMatching(/^\d+$/)]);
    expect(greeter.action).toBe('run');
    expect(greeter.options).toMatchObject({ greeting: 'hi', times: 2, maxTimes: undefined });
  });

  it('the storage', async () => {
    expect(await storage()).toEqual(['opened']);
  });
});
