import { createServer, type Server } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kindFromCrd, type ApiObject, type CustomResourceDefinition } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import { ensureServingCertificates } from '../serving/serving-certificates';
import { conversionWebhook, type ObjectConverter } from './conversion-webhook';

interface Review {
  apiVersion: string;
  request: { uid: string; desiredAPIVersion: string; objects: ApiObject[] };
}
type Handler = (review: Review, respond: (body: unknown) => void) => void;

function crd(url: string, caBundle: string, reviewVersions = ['v1']): CustomResourceDefinition {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-svc-preserve-unknown-fields': true } } } };
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.conv.example.com' },
    spec: {
      group: 'conv.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        { name: 'v1', served: true, storage: false, schema },
        { name: 'v2', served: true, storage: true, schema },
      ],
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: reviewVersions } },
    },
  };
}

function widget(name: string, spec: Record<string, unknown>, apiVersion = 'conv.example.com/v1'): ApiObject {
  return { apiVersion, kind: 'Widget', metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { a: '1' } }, spec };
}

async function failure(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isStatusError(error)) return { code: error.code, message: error.status.message ?? '' };
    throw error;
  }
  throw new Error('expected a failure');
}

/** What a well-behaved webhook answers: `spec.size` <-> `spec.dimensions.size`. */
const converting: Handler = (review, respond) => {
  const { uid, desiredAPIVersion, objects } = review.request;
  const convertedObjects = objects.map((o) => {
    const spec = o.spec as Record<string, unknown>;
    const next = desiredAPIVersion.endsWith('/v2') ? { dimensions: { size: spec.size } } : { size: (spec.dimensions as Record<string, unknown>).size };
    return { ...o, apiVersion: desiredAPIVersion, spec: next };
  });
  respond({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid, convertedObjects, result: { status: 'Success' } } });
};

describe('CRD conversion webhook', () => {
  let server: Server;
  let dir: string;
  let caBundle: string;
  let base: string;
  let handler: Handler = converting;
  const reviews: Review[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conversion-spec-'));
    const certs = await ensureServingCertificates({ certDir: dir, bindAddress: '127.0.0.1' });
    caBundle = Buffer.from(certs.caPem!).toString('base64');
    server = createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
        reviews.push(review);
        handler(review, (body) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    handler = converting;
    reviews.length = 0;
  });

  function converter(options: { reviewVersions?: string[]; timeoutMs?: number } = {}): ObjectConverter {
    const definition = kindFromCrd(crd(`${base}/convert`, caBundle, options.reviewVersions), 'v1');
    return conversionWebhook(definition, { timeoutMs: options.timeoutMs })!;
  }

  it('is only made for a definition whose CRD converts by webhook', () => {
    const none = crd(base, caBundle);
    none.spec.conversion = { strategy: 'None' };
    expect(conversionWebhook(kindFromCrd(none, 'v1'))).toBeUndefined();
    expect(converter().storageApiVersion).toBe('conv.example.com/v2');
  });

  it('sends one ConversionReview v1 for all objects not yet at the version, and keeps their metadata', async () => {
    const at2 = widget('b', { dimensions: { size: 2 } }, 'conv.example.com/v2');
    const out = await converter().convert([widget('a', { size: 1 }), at2, widget('c', { size: 3 })], 'conv.example.com/v2');
    expect(reviews).toHaveLength(1);
    expect(reviews[0].apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(reviews[0].request.desiredAPIVersion).toBe('conv.example.com/v2');
    expect(reviews[0].request.objects.map((o) => o.metadata?.name)).toEqual(['a', 'c']);
    expect(out.map((o) => [o.apiVersion, o.spec])).toEqual([
      ['conv.example.com/v2', { dimensions: { size: 1 } }],
      ['conv.example.com/v2', { dimensions: { size: 2 } }],
      ['conv.example.com/v2', { dimensions: { size: 3 } }],
    ]);
    expect(out[1]).toBe(at2);
    expect(out[0].metadata).toEqual(widget('a', {}).metadata);
  });

  it('calls nothing when every object is at the version already', async () => {
    const object = widget('a', { size: 1 });
    expect(await converter().convert([object], 'conv.example.com/v1')).toEqual([object]);
    expect(reviews).toHaveLength(0);
  });

  it('takes labels and annotations from the webhook, and every other metadata field from the object sent', async () => {
    handler = (review, respond) =>
      converting(review, (body) => {
        const response = (body as { response: { convertedObjects: ApiObject[] } }).response;
        for (const o of response.convertedObjects) o.metadata = { ...o.metadata, name: 'renamed', uid: 'other', labels: { b: '2' }, annotations: { c: '3' } };
        respond(body);
      });
    const [out] = await converter().convert([widget('a', { size: 1 })], 'conv.example.com/v2');
    expect(out.metadata).toEqual({ name: 'a', namespace: 'default', uid: 'uid-a', labels: { b: '2' }, annotations: { c: '3' } });
  });

  it('sends v1beta1 reviews to a webhook that accepts only those', async () => {
    await converter({ reviewVersions: ['v1beta1'] }).convert([widget('a', { size: 1 })], 'conv.example.com/v2');
    expect(reviews[0].apiVersion).toBe('apiextensions.k8s.io/v1beta1');
  });

  it.each<[string, Handler, RegExp]>([
    [
      'a failure result',
      (review, respond) => respond({ response: { uid: review.request.uid, result: { status: 'Failure', message: 'size unknown' } } }),
      /conversion webhook for conv.example.com\/v1, Kind=Widget returned failure: size unknown/,
    ],
    ['another uid', (_review, respond) => respond({ response: { uid: 'x', convertedObjects: [], result: { status: 'Success' } } }), /expected response.uid=/],
    [
      'too few objects',
      (review, respond) => respond({ response: { uid: review.request.uid, convertedObjects: [], result: { status: 'Success' } } }),
      /returned 0 objects, expected 1/,
    ],
    [
      'the wrong apiVersion',
      (review, respond) => respond({ response: { uid: review.request.uid, convertedObjects: review.request.objects, result: { status: 'Success' } } }),
      /invalid apiVersion "conv.example.com\/v1", expected "conv.example.com\/v2"/,
    ],
    [
      'another kind',
      (review, respond) =>
        respond({
          response: {
            uid: review.request.uid,
            convertedObjects: review.request.objects.map((o) => ({ ...o, apiVersion: 'conv.example.com/v2', kind: 'Gadget' })),
            result: { status: 'Success' },
          },
        }),
      /invalid kind "Gadget", expected "Widget"/,
    ],
    ['no response', (_review, respond) => respond({ kind: 'ConversionReview' }), /not a ConversionReview with a response/],
  ])('answers %s with a 500 InternalError', async (_name, bad, message) => {
    handler = bad;
    const error = await failure(converter().convert([widget('a', { size: 1 })], 'conv.example.com/v2'));
    expect(error.code).toBe(500);
    expect(error.message).toMatch(/^Internal error occurred: conversion webhook for conv.example.com\/v1, Kind=Widget/);
    expect(error.message).toMatch(message);
  });

  it('gives up on a webhook that does not answer within the timeout', async () => {
    handler = () => undefined;
    const error = await failure(converter({ timeoutMs: 200 }).convert([widget('a', { size: 1 })], 'conv.example.com/v2'));
    expect(error.code).toBe(500);
    expect(error.message).toMatch(/conversion webhook for .* failed: failed to call webhook: Post ".*\/convert": context deadline exceeded/);
  });

  it('fails with 500 when the webhook is not reachable', async () => {
    const definition = kindFromCrd(crd('https://127.0.0.1:1/convert', caBundle), 'v1');
    const error = await failure(conversionWebhook(definition)!.convert([widget('a', { size: 1 })], 'conv.example.com/v2'));
    expect(error.code).toBe(500);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });
});
