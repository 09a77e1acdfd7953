import type { IncomingMessage, ServerResponse } from 'node:http';
import { EnvelopeError, failureStatus, isStatusError, newBadRequest, newConflict, newInvalid, newNotFound } from '@svc/machinery';
import { decodeObjectBody } from '../resources/body-decoder';
import { mediaTypeOf, PROTOBUF_MEDIA_TYPES } from '../resources/media-types';
import type { ResourceRegistries } from '../resources/registries';
import { readBody } from '../request/read-body';
import { auditAnnotationsOf, requestContext } from '../request/request-context';
import { internalErrorStatus, methodNotAllowedStatus } from '../status/status';
import { writeStatus } from '../status/write-status';
import { decodeReviewProtobuf } from './review-protobuf';
import { MIN_TOKEN_SECONDS, type BoundObject, type ServiceAccountTokens } from './service-account-tokens';

type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

const MAX_EXPIRATION_SECONDS = 2 ** 32;

function writeJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = code;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * The service account issuer's discovery documents (`/.well-known/openid-configuration` and the key
 * set at `/openid/v1/jwks`), and TokenRequest: a POST to `serviceaccounts/<name>/token` answers a
 * token for the account, bound to a pod or secret when asked. Both run behind authorization.
 */
export function withServiceAccountTokens(tokens: ServiceAccountTokens, registries: ResourceRegistries, maxRequestBodyBytes: number): Handler {
  return (req, res, next) => {
    const { info } = requestContext(req);
    if (!info.isResourceRequest) {
      if (info.path === '/.well-known/openid-configuration') {
        if (req.method !== 'GET') return writeStatus(res, methodNotAllowedStatus());
        return writeJson(res, 200, tokens.discoveryDocument());
      }
      if (info.path === '/openid/v1/jwks') {
        if (req.method !== 'GET') return writeStatus(res, methodNotAllowedStatus());
        void tokens.keySet().then((set) => {
          res.setHeader('Content-Type', 'application/jwk-set+json');
          const text = JSON.stringify(set);
          res.setHeader('Content-Length', Buffer.byteLength(text));
          res.end(text);
        });
        return;
      }
      return next();
    }
    if (info.group !== '' || info.resource !== 'serviceaccounts' || info.subresource !== 'token' || info.parts.length !== 3) return next();
    if (req.method !== 'POST') return writeStatus(res, methodNotAllowedStatus());
    void tokenRequest(req, res, tokens, registries, maxRequestBodyBytes, info.namespace, info.name);
  };
}

async function tokenRequest(
  req: IncomingMessage,
  res: ServerResponse,
  tokens: ServiceAccountTokens,
  registries: ResourceRegistries,
  maxRequestBodyBytes: number,
  namespace: string,
  name: string,
): Promise<void> {
  try {
    const raw = await readBody(req, maxRequestBodyBytes);
    const contentType = req.headers['content-type'];
    const body =
      contentType !== undefined && PROTOBUF_MEDIA_TYPES.includes(mediaTypeOf(contentType))
        ? decodeReviewProtobuf(raw)
        : (await decodeObjectBody(raw, contentType)).value;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw newBadRequest('the request body must be a TokenRequest object');
    const object = body as Record<string, unknown>;
    const spec = (typeof object.spec === 'object' && object.spec !== null ? object.spec : {}) as Record<string, unknown>;
    const requested = spec.expirationSeconds === undefined || spec.expirationSeconds === null ? undefined : Number(spec.expirationSeconds);
    if (requested !== undefined && (!Number.isInteger(requested) || requested < MIN_TOKEN_SECONDS || requested > MAX_EXPIRATION_SECONDS)) {
      throw invalid(
        'spec.expirationSeconds',
        requested,
        requested !== undefined && requested > MAX_EXPIRATION_SECONDS
          ? 'may not specify a duration larger than 2^32 seconds'
          : 'may not specify a duration less than 10 minutes',
      );
    }
    const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
    if (audiences.length > 100) throw invalid('spec.audiences', audiences.length, 'may not name more than 100 audiences');
    const accounts = registry(registries, 'serviceaccounts');
    // Admission sees the TokenRequest as Kubernetes' does (NodeRestriction holds a node to its pods' tokens).
    const admitted = {
      operation: 'CREATE' as const,
      definition: accounts.definition,
      namespace,
      name,
      subresource: 'token',
      object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name, namespace }, spec },
      dryRun: false,
      user: requestContext(req).user,
      auditAnnotations: auditAnnotationsOf(requestContext(req)),
    };
    await registries.context.admission.admit(admitted);
    await registries.context.admission.validate(admitted);
    const account = await accounts.get(namespace, name);
    let bound: BoundObject | undefined;
    const ref = spec.boundObjectRef as { kind?: unknown; name?: unknown; uid?: unknown } | undefined;
    if (ref !== undefined && ref !== null) {
      if (ref.kind !== 'Pod' && ref.kind !== 'Secret') throw invalid('spec.boundObjectRef.kind', ref.kind, 'supported values: "Pod", "Secret"');
      const boundName = typeof ref.name === 'string' ? ref.name : '';
      const target = await registry(registries, ref.kind === 'Pod' ? 'pods' : 'secrets').get(namespace, boundName);
      const uid = target.metadata?.uid ?? '';
      if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== uid) {
        throw newConflict(
          { group: '', resource: ref.kind === 'Pod' ? 'pods' : 'secrets' },
          boundName,
          `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        );
      }
      bound = { kind: ref.kind, name: boundName, uid };
    }
    const expirationSeconds = tokens.expirationFor(requested);
    const issued = await tokens.issue({
      namespace,
      serviceAccount: { name, uid: account.metadata?.uid ?? '' },
      audiences,
      expirationSeconds,
      bound,
    });
    writeJson(res, 201, {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name, namespace, creationTimestamp: null },
      spec: {
        audiences: audiences.length > 0 ? audiences : [...tokens.audiences],
        expirationSeconds,
        boundObjectRef: bound ? { kind: bound.kind, apiVersion: 'v1', name: bound.name, uid: bound.uid } : null,
      },
      status: { token: issued.token, expirationTimestamp: issued.expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    });
  } catch (error) {
    if (isStatusError(error)) return writeStatus(res, error.status);
    if (error instanceof EnvelopeError) return writeStatus(res, failureStatus(error.kind === 'UnsupportedMediaType' ? 415 : 400, error.kind, error.message));
    writeStatus(res, internalErrorStatus('the token could not be issued'));
  }
}

function registry(registries: ResourceRegistries, resource: string) {
  const found = registries.forResource('', 'v1', resource);
  if (found === undefined) throw newNotFound({ group: '', resource }, '');
  return found;
}

function invalid(field: string, value: unknown, detail: string) {
  return newInvalid({ group: 'authentication.k8s.io', kind: 'TokenRequest' }, '', [{ type: 'FieldValueInvalid', field, badValue: value, detail }]);
}
