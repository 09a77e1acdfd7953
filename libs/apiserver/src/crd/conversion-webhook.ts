import { randomUUID } from 'node:crypto';
import type { ApiObject, KindConversion, KindDefinition } from '@svc/api';
import { newInternalError, type StatusError, isRecord } from '@svc/machinery';
import { callWebhook } from '../admission/webhook-call';
import type { ServiceResolver } from '../admission/service-resolver';

/** Kubernetes gives a conversion webhook 30 s, which no CRD field changes. */
export const DEFAULT_CONVERSION_TIMEOUT_MS = 30_000;

/** The ConversionReview versions this server sends, preferred first (their shapes are the same). */
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** Converts objects of one custom resource between its versions. */
export interface ObjectConverter {
  /** The apiVersion objects are stored with. */
  readonly storageApiVersion: string;
  /**
   * `objects` in `apiVersion`, in order; those already there are returned as they are. A failed
   * conversion is a 500 StatusError, as Kubernetes answers it.
   */
  convert(objects: readonly ApiObject[], apiVersion: string): Promise<ApiObject[]>;
}

export interface ConversionWebhookOptions {
  resolveService?: ServiceResolver;
  timeoutMs?: number;
}

interface ConversionResponse {
  uid?: unknown;
  convertedObjects?: unknown;
  result?: { status?: unknown; message?: unknown };
}

/**
 * The converter of a CRD version whose definition carries a webhook conversion: a ConversionReview
 * (`apiextensions.k8s.io/v1`) POSTed over HTTPS with the CRD's caBundle, one per call however many
 * objects it carries. As Kubernetes, the answer must carry the request's uid, `Success`, as many
 * objects as were sent, each of the desired apiVersion and the same kind; a webhook changes at most
 * labels and annotations of metadata (everything else is taken from the object sent).
 */
export function conversionWebhook(definition: KindDefinition, options: ConversionWebhookOptions = {}): ObjectConverter | undefined {
  const conversion = definition.conversion;
  if (conversion === undefined) return undefined;
  const storageApiVersion = `${definition.group}/${conversion.storageVersion}`;
  return {
    storageApiVersion,
    convert: (objects, apiVersion) => convertObjects(definition, conversion, objects, apiVersion, options),
  };
}

async function convertObjects(
  definition: KindDefinition,
  conversion: KindConversion,
  objects: readonly ApiObject[],
  apiVersion: string,
  options: ConversionWebhookOptions,
): Promise<ApiObject[]> {
  const pending = objects.map((o, i) => [o, i] as const).filter(([o]) => o.apiVersion !== apiVersion);
  if (pending.length === 0) return [...objects];
  const from = pending[0][0].apiVersion ?? '';
  const gvk = `${from}, Kind=${definition.kind}`;
  const failed = (message: string): StatusError => newInternalError(new Error(`conversion webhook for ${gvk} failed: ${message}`));
  const reviewVersion = REVIEW_VERSIONS.find((v) => conversion.conversionReviewVersions.includes(v));
  if (reviewVersion === undefined) {
    throw failed(
      `no supported conversionReviewVersions: ${JSON.stringify(conversion.conversionReviewVersions)}, this server sends ${REVIEW_VERSIONS.join(', ')}`,
    );
  }
  const uid = randomUUID();
  const review = {
    apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion: apiVersion, objects: pending.map(([o]) => o) },
  };
  let answer: unknown;
  try {
    answer = await callWebhook(conversion.clientConfig, review, options.timeoutMs ?? DEFAULT_CONVERSION_TIMEOUT_MS, options.resolveService);
  } catch (error) {
    throw failed((error as Error).message);
  }
  const response: ConversionResponse | undefined = isRecord(answer) && isRecord(answer.response) ? answer.response : undefined;
  if (response === undefined) throw failed('the answer is not a ConversionReview with a response');
  if (response.uid !== uid) throw failed(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid)}`);
  const status = isRecord(response.result) ? response.result.status : undefined;
  if (status !== 'Success') {
    const message = isRecord(response.result) && typeof response.result.message === 'string' ? response.result.message : '';
    throw newInternalError(new Error(`conversion webhook for ${gvk} returned failure: ${message}`));
  }
  const converted = Array.isArray(response.convertedObjects) ? response.convertedObjects : undefined;
  if (converted === undefined || converted.length !== pending.length) {
    throw failed(`returned ${converted?.length ?? 0} objects, expected ${pending.length}`);
  }
  const out = [...objects];
  converted.forEach((object: unknown, i) => {
    const [sent, index] = pending[i];
    if (!isRecord(object)) throw failed(`invalid converted object at index ${i}: not an object`);
    if (object.apiVersion !== apiVersion) {
      throw failed(`invalid converted object at index ${i}: invalid apiVersion ${JSON.stringify(object.apiVersion)}, expected ${JSON.stringify(apiVersion)}`);
    }
    if (object.kind !== sent.kind) {
      throw failed(`invalid converted object at index ${i}: invalid kind ${JSON.stringify(object.kind)}, expected ${JSON.stringify(sent.kind)}`);
    }
    out[index] = { ...(object as ApiObject), metadata: restoredMetadata(sent.metadata, object.metadata, i, failed) };
  });
  return out;
}

/** The sent metadata with the webhook's labels and annotations, when they are string maps (Kubernetes' restoreObjectMeta). */
function restoredMetadata(sent: ApiObject['metadata'], returned: unknown, index: number, failed: (message: string) => StatusError): ApiObject['metadata'] {
  if (returned === undefined) return sent;
  if (!isRecord(returned)) throw failed(`invalid converted object at index ${index}: invalid metadata`);
  const out = { ...sent };
  for (const field of ['labels', 'annotations'] as const) {
    const value = returned[field];
    if (value === undefined || value === null) {
      delete out[field];
      continue;
    }
    if (!isRecord(value) || !Object.values(value).every((v) => typeof v === 'string')) {
      throw failed(`invalid converted object at index ${index}: invalid metadata.${field}`);
    }
    out[field] = value as Record<string, string>;
  }
  return out;
}
