import { randomUUID } from 'node:crypto';
import {
  WEBHOOK_CONDITION_ENVIRONMENT,
  type ApiObject,
  type MutatingWebhook,
  type MutatingWebhookConfiguration,
  type ValidatingWebhook,
  type ValidatingWebhookConfiguration,
} from '@svc/api';
import {
  failureStatus,
  isQualifiedName,
  isRecord,
  jsonPatch,
  newBadRequest,
  newInternalError,
  StatusError,
  type JsonObject,
  type StatusReason,
} from '@svc/machinery';
import { requestUser } from './request-user';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { AdmissionCelContext, matchConditionsHold, type AdmissionAuthorizer } from './admission-cel';
import { namespaceSelectorMatches, objectSelectorMatches, rulesMatch } from './admission-match';
import type { ConfigurationSource } from './configuration-source';
import type { NamespaceLookup } from './namespace-lifecycle';
import type { ServiceResolver } from './service-resolver';
import { callWebhook } from './webhook-call';

/** The largest JSON patch a mutating webhook may answer with, decoded. */
export const MAX_WEBHOOK_PATCH_BYTES = 3 * 1024 * 1024;
/** Warnings taken from one webhook answer, and the length each is cut to. */
const MAX_WARNINGS = 32;
const MAX_WARNING_LENGTH = 512;
// A webhook's audit annotations kept per call, and the length kept of each value (the audit truncating backend bounds whole events).
const MAX_AUDIT_ANNOTATIONS = 32;
const MAX_AUDIT_ANNOTATION_LENGTH = 4096;

/** Objects that configure admission are not sent to webhooks, so that a broken webhook can always be removed. */
function isAdmissionConfiguration(attributes: AdmissionAttributes): boolean {
  return /^admissionregistration\.(svc|k8s)\.io$/.test(attributes.definition.group);
}

type AnyWebhook = ValidatingWebhook | MutatingWebhook;

interface AdmissionResponse {
  uid?: string;
  allowed?: boolean;
  status?: { code?: number; message?: string; reason?: string };
  patch?: string;
  patchType?: string;
  warnings?: unknown[];
  auditAnnotations?: Record<string, string>;
}

const OPTIONS_KIND = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions', CONNECT: undefined } as const;

/** Kubernetes' AdmissionReview admission.k8s.io/v1 request for these attributes. */
export function admissionReview(attributes: AdmissionAttributes, uid: string): Record<string, unknown> {
  const { definition } = attributes;
  const kind = { group: definition.group, version: definition.version, kind: definition.kind };
  const resource = { group: definition.group, version: definition.version, resource: definition.resource };
  const optionsKind = OPTIONS_KIND[attributes.operation];
  const request: Record<string, unknown> = {
    uid,
    kind,
    resource,
    requestKind: kind,
    requestResource: resource,
    name: attributes.name,
    operation: attributes.operation,
    userInfo: requestUser(attributes),
    object: attributes.operation === 'DELETE' ? null : (attributes.object ?? null),
    oldObject: attributes.oldObject ?? null,
    dryRun: attributes.dryRun,
    options: optionsKind ? { apiVersion: 'meta.k8s.io/v1', kind: optionsKind } : null,
  };
  if (attributes.subresource) {
    request.subResource = attributes.subresource;
    request.requestSubResource = attributes.subresource;
  }
  if (attributes.namespace) request.namespace = attributes.namespace;
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
}

function deniedError(name: string, status: AdmissionResponse['status']): StatusError {
  const code = typeof status?.code === 'number' && status.code >= 400 && status.code < 600 ? status.code : 403;
  const deniedBy = `admission webhook "${name}" denied the request`;
  const message =
    typeof status?.message === 'string' && status.message !== '' ? `${deniedBy}: ${status.message.slice(0, 4096)}` : `${deniedBy} without explanation`;
  const reason = (typeof status?.reason === 'string' && status.reason !== '' ? status.reason : code === 403 ? 'Forbidden' : '') as StatusReason;
  return new StatusError(failureStatus(code, reason, message));
}

function callFailed(name: string, error: unknown): StatusError {
  return newInternalError(`failed calling webhook "${name}": ${error instanceof Error ? error.message : String(error)}`);
}

async function webhookApplies(
  webhook: AnyWebhook,
  attributes: AdmissionAttributes,
  namespaces: NamespaceLookup,
  authorizer?: AdmissionAuthorizer,
): Promise<boolean> {
  if (!rulesMatch(webhook.rules, attributes, webhook.matchPolicy)) return false;
  if (!objectSelectorMatches(webhook.objectSelector, attributes)) return false;
  if (!(await namespaceSelectorMatches(webhook.namespaceSelector, attributes, namespaces))) return false;
  if (webhook.matchConditions === undefined || webhook.matchConditions.length === 0) return true;
  const held = await matchConditionsHold(
    await AdmissionCelContext.of(attributes, namespaces, authorizer),
    webhook.matchConditions,
    WEBHOOK_CONDITION_ENVIRONMENT,
  );
  if (typeof held === 'string') {
    if ((webhook.failurePolicy ?? 'Fail') === 'Ignore') return false;
    throw callFailed(webhook.name, new Error(held));
  }
  return held;
}

/** A dry run may reach only webhooks that declare they have no side effects on it. */
function checkDryRun(webhook: AnyWebhook, attributes: AdmissionAttributes): void {
  if (attributes.dryRun && webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') {
    throw newBadRequest(`admission webhook "${webhook.name}" does not support dry run`);
  }
}

/** Calls one webhook; undefined when it failed and its failurePolicy is Ignore. */
async function invoke(webhook: AnyWebhook, attributes: AdmissionAttributes, resolveService?: ServiceResolver): Promise<AdmissionResponse | undefined> {
  const uid = randomUUID();
  const timeoutMs = (webhook.timeoutSeconds ?? 10) * 1000;
  try {
    const answer = await callWebhook(webhook.clientConfig, admissionReview(attributes, uid), timeoutMs, resolveService);
    if (!isRecord(answer) || !isRecord(answer.response)) throw new Error('webhook response has no response object');
    const review = answer as { apiVersion?: unknown; kind?: unknown; response: AdmissionResponse };
    if (review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview') {
      throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(review.apiVersion)}, Kind=${String(review.kind)}`);
    }
    if (review.response.uid !== uid) throw new Error(`expected response.uid="${uid}", got "${String(review.response.uid)}"`);
    if (typeof review.response.allowed !== 'boolean') throw new Error('webhook response has no allowed field');
    return review.response;
  } catch (error) {
    if ((webhook.failurePolicy ?? 'Fail') === 'Ignore') {
      attributes.warnings?.push(`failed calling webhook "${webhook.name}" (failurePolicy Ignore): ${(error as Error).message}`.slice(0, MAX_WARNING_LENGTH));
      return undefined;
    }
    throw callFailed(webhook.name, error);
  }
}

function takeWarnings(response: AdmissionResponse, attributes: AdmissionAttributes): void {
  if (!Array.isArray(response.warnings) || attributes.warnings === undefined) return;
  for (const warning of response.warnings.slice(0, MAX_WARNINGS)) {
    if (typeof warning === 'string' && warning.trim() !== '') attributes.warnings.push(warning.replace(/[\r\n]+/g, ' ').slice(0, MAX_WARNING_LENGTH));
  }
}

/**
 * A webhook's audit annotations go into the request's audit events under `<webhook name>/<key>`, as
 * Kubernetes records them; a key that does not make a qualified name that way, or a value that is not
 * a string, is left out.
 */
function takeAuditAnnotations(webhookName: string, response: AdmissionResponse, attributes: AdmissionAttributes): void {
  const given = response.auditAnnotations;
  if (attributes.auditAnnotations === undefined || given === null || typeof given !== 'object') return;
  for (const [key, value] of Object.entries(given).slice(0, MAX_AUDIT_ANNOTATIONS)) {
    const name = `${webhookName}/${key}`;
    if (typeof value === 'string' && isQualifiedName(name).length === 0) attributes.auditAnnotations[name] = value.slice(0, MAX_AUDIT_ANNOTATION_LENGTH);
  }
}

/** Replaces the content of `target` with `source`, keeping the object the registry holds. */
function replaceContent(target: ApiObject, source: ApiObject): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, source);
}

function applyPatch(webhook: MutatingWebhook, response: AdmissionResponse, attributes: AdmissionAttributes): void {
  if (response.patch === undefined || attributes.object === undefined) return;
  if (response.patchType !== 'JSONPatch') throw callFailed(webhook.name, new Error(`unsupported patch type "${String(response.patchType)}"`));
  if (typeof response.patch !== 'string' || (response.patch.length * 3) / 4 > MAX_WEBHOOK_PATCH_BYTES) {
    throw callFailed(webhook.name, new Error(`patch larger than ${MAX_WEBHOOK_PATCH_BYTES} bytes`));
  }
  let operations: unknown;
  try {
    operations = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
  } catch {
    throw callFailed(webhook.name, new Error('patch is not base64 JSON'));
  }
  const object = attributes.object;
  let patched: JsonObject;
  try {
    patched = jsonPatch(object as JsonObject, operations);
  } catch (error) {
    throw callFailed(webhook.name, new Error(`JSON patch failed: ${(error as Error).message}`));
  }
  const before = object.metadata ?? {};
  const after = (patched.metadata ?? {}) as ApiObject['metadata'] & object;
  if (after.name !== before.name || after.namespace !== before.namespace || after.uid !== before.uid) {
    throw callFailed(webhook.name, new Error('a mutating webhook may not change the name, namespace or uid of the object'));
  }
  replaceContent(object, patched);
}

export interface WebhookDependencies {
  namespaces: NamespaceLookup;
  mutating: ConfigurationSource<MutatingWebhookConfiguration>;
  validating: ConfigurationSource<ValidatingWebhookConfiguration>;
  /** Resolves webhooks' service references; without it they fail to be called. */
  services?: ServiceResolver;
  /** Answers the `authorizer` of matchConditions for the request's user. */
  authorizer?: AdmissionAuthorizer;
}

function webhooksOf<W>(configurations: readonly { webhooks?: W[] }[]): W[] {
  const out: W[] = [];
  for (const c of configurations) for (const w of c.webhooks ?? []) out.push(w);
  return out;
}

/**
 * Kubernetes' MutatingAdmissionWebhook: the matching webhooks of every MutatingWebhookConfiguration
 * (in name order) are called one after another, each answer's JSON patch applied; a webhook with
 * reinvocationPolicy IfNeeded is called once more when a later webhook changed the object.
 */
export function mutatingAdmissionWebhook(deps: WebhookDependencies): AdmissionPlugin {
  return {
    name: 'MutatingAdmissionWebhook',
    async admit(attributes) {
      if (isAdmissionConfiguration(attributes) || attributes.object === undefined) return;
      const webhooks = webhooksOf(await deps.mutating());
      if (webhooks.length === 0) return;
      const ranAt = new Map<MutatingWebhook, string>();
      const call = async (webhook: MutatingWebhook) => {
        checkDryRun(webhook, attributes);
        const response = await invoke(webhook, attributes, deps.services);
        if (response === undefined) return;
        takeWarnings(response, attributes);
        takeAuditAnnotations(webhook.name, response, attributes);
        if (!response.allowed) throw deniedError(webhook.name, response.status);
        applyPatch(webhook, response, attributes);
      };
      for (const webhook of webhooks) {
        if (!(await webhookApplies(webhook, attributes, deps.namespaces, deps.authorizer))) continue;
        await call(webhook);
        ranAt.set(webhook, JSON.stringify(attributes.object));
      }
      const final = JSON.stringify(attributes.object);
      for (const [webhook, seen] of ranAt) {
        if (webhook.reinvocationPolicy === 'IfNeeded' && seen !== final) await call(webhook);
      }
    },
  };
}

/**
 * Kubernetes' ValidatingAdmissionWebhook: the matching webhooks of every ValidatingWebhookConfiguration
 * are called in parallel with the object as it will be stored; any denial refuses the request.
 */
export function validatingAdmissionWebhook(deps: WebhookDependencies): AdmissionPlugin {
  return {
    name: 'ValidatingAdmissionWebhook',
    async validate(attributes) {
      if (isAdmissionConfiguration(attributes)) return;
      const webhooks = webhooksOf(await deps.validating());
      const matching: ValidatingWebhook[] = [];
      for (const webhook of webhooks) if (await webhookApplies(webhook, attributes, deps.namespaces, deps.authorizer)) matching.push(webhook);
      for (const webhook of matching) checkDryRun(webhook, attributes);
      const outcomes = await Promise.allSettled(matching.map((w) => invoke(w, attributes, deps.services)));
      for (let i = 0; i < outcomes.length; i++) {
        const outcome = outcomes[i];
        if (outcome.status === 'rejected') throw outcome.reason;
        const response = outcome.value;
        if (response === undefined) continue;
        takeWarnings(response, attributes);
        takeAuditAnnotations(matching[i].name, response, attributes);
        if (!response.allowed) throw deniedError(matching[i].name, response.status);
      }
    },
  };
}
