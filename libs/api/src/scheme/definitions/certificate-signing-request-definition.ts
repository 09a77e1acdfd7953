import { isDNS1123Label, isDNS1123Subdomain, jsonEqual, RenderedValue, type UserInfo } from '@svc/machinery';
import { certificateChainProblem, parseCertificateRequest } from '../../kinds/certificates/certificate-request-pem';
import {
  CertificateSigningRequestSchema,
  CSR_APPROVED,
  CSR_DENIED,
  CSR_FAILED,
  KEY_USAGES,
  LEGACY_UNKNOWN_SIGNER,
  type CertificateSigningRequest,
  type CertificateSigningRequestCondition,
} from '../../kinds/certificates/certificate-signing-request';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import { humanDuration } from '../human-duration';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

/** The group of CertificateSigningRequests, served as certificates.k8s.io too. */
const GROUP = 'certificates.svc.io';

const DNS1123_SUBDOMAIN_MAX = 253;
const DNS1123_LABEL_MAX = 63;
const MIN_EXPIRATION_SECONDS = 600;
const TRUE_ONLY_CONDITIONS: ReadonlySet<string> = new Set([CSR_APPROVED, CSR_DENIED, CSR_FAILED]);

/** Go's `%#v` of a []byte, as Kubernetes prints a bad `spec.request` in a field error. */
export function goByteSliceValue(bytes: Buffer): RenderedValue {
  return new RenderedValue(`[]byte{${[...bytes].map((b) => `0x${b.toString(16)}`).join(', ')}}`);
}

/** The bytes of a `[]byte` field as JSON carries it (base64); undefined when it is not base64. */
function bytesOf(value: unknown): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
}

/** ValidateSignerName: `<domain with a dot>/<path of DNS-1123 subdomains>`, at most 571 characters. */
export function signerNameErrors(field: string, signerName: unknown): FieldError[] {
  if (typeof signerName !== 'string' || signerName === '') return [fieldErrors.required(field, '')];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fieldErrors.invalid(field, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errors: FieldError[] = [];
  const [domain, path] = segments;
  if (domain.length > DNS1123_SUBDOMAIN_MAX) errors.push(fieldErrors.tooLong(field, '', DNS1123_SUBDOMAIN_MAX));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const problems = isDNS1123Label(label);
    if (problems.length === 0) continue;
    for (const problem of problems) errors.push(fieldErrors.invalid(field, domain, `validating label ${JSON.stringify(label)}: ${problem}`));
    break;
  }
  if (domainLabels.length < 2) errors.push(fieldErrors.invalid(field, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of path.split('.')) {
    const problems = isDNS1123Subdomain(label);
    if (problems.length === 0) continue;
    for (const problem of problems) errors.push(fieldErrors.invalid(field, path, `validating label ${JSON.stringify(label)}: ${problem}`));
    break;
  }
  const max = DNS1123_SUBDOMAIN_MAX + (DNS1123_SUBDOMAIN_MAX + DNS1123_LABEL_MAX + 1) + 1;
  if (signerName.length > max) errors.push(fieldErrors.tooLong(field, '', max));
  return errors;
}

function conditionsOf(obj: ApiObject | undefined): CertificateSigningRequestCondition[] {
  const conditions = obj === undefined ? undefined : as<CertificateSigningRequest>(obj).status?.conditions;
  return Array.isArray(conditions) ? conditions : [];
}

const ofType = (obj: ApiObject | undefined, type: string) => conditionsOf(obj).filter((c) => c?.type === type);

/**
 * What Kubernetes tolerates in an update because the stored object already has it (getValidationOptions):
 * data written by older versions stays writable.
 */
interface Tolerated {
  legacySigner: boolean;
  bothApprovedAndDenied: boolean;
  duplicateConditionTypes: boolean;
  emptyConditionType: boolean;
  arbitraryCertificate: boolean;
  unknownUsages: boolean;
  duplicateUsages: boolean;
}

function tolerated(obj: ApiObject, current: ApiObject | undefined): Tolerated {
  if (current === undefined) {
    return {
      legacySigner: false,
      bothApprovedAndDenied: false,
      duplicateConditionTypes: false,
      emptyConditionType: false,
      arbitraryCertificate: false,
      unknownUsages: false,
      duplicateUsages: false,
    };
  }
  const old = as<CertificateSigningRequest>(current);
  const types = conditionsOf(current).map((c) => c.type);
  const usages = Array.isArray(old.spec?.usages) ? old.spec.usages : [];
  const oldCertificate = bytesOf(old.status?.certificate);
  return {
    legacySigner: old.spec?.signerName === LEGACY_UNKNOWN_SIGNER,
    bothApprovedAndDenied: types.includes(CSR_APPROVED) && types.includes(CSR_DENIED),
    duplicateConditionTypes: new Set(types).size !== types.length,
    emptyConditionType: types.some((t) => !t),
    arbitraryCertificate:
      bytesOf(as<CertificateSigningRequest>(obj).status?.certificate).equals(oldCertificate) || certificateChainProblem(oldCertificate) !== undefined,
    unknownUsages: usages.some((u) => !(KEY_USAGES as readonly string[]).includes(u)),
    duplicateUsages: new Set(usages).size !== usages.length,
  };
}

/** validateCertificateSigningRequest (certificates/validation): the request, usages, signer, lifetime, conditions and certificate. */
function validateCertificateSigningRequest(obj: ApiObject, current?: ApiObject): FieldError[] {
  const csr = as<CertificateSigningRequest>(obj);
  const spec = csr.spec ?? ({} as CertificateSigningRequest['spec']);
  const allow = tolerated(obj, current);
  const errors: FieldError[] = [];
  const request = bytesOf(spec.request);
  try {
    parseCertificateRequest(request);
  } catch (error) {
    errors.push(fieldErrors.invalid('spec.request', goByteSliceValue(request), (error as Error).message));
  }
  const usages = Array.isArray(spec.usages) ? spec.usages : [];
  if (usages.length === 0) errors.push(fieldErrors.required('spec.usages', ''));
  if (!allow.unknownUsages) {
    usages.forEach((usage, i) => {
      if (!(KEY_USAGES as readonly string[]).includes(usage)) errors.push(fieldErrors.notSupported(`spec.usages[${i}]`, usage, KEY_USAGES));
    });
  }
  if (!allow.duplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((usage, i) => {
      if (seen.has(usage)) errors.push(fieldErrors.duplicate(`spec.usages[${i}]`, usage));
      seen.add(usage);
    });
  }
  if (!allow.legacySigner && spec.signerName === LEGACY_UNKNOWN_SIGNER) {
    errors.push(fieldErrors.invalid('spec.signerName', spec.signerName, 'the legacy signerName is not allowed via this API version'));
  } else errors.push(...signerNameErrors('spec.signerName', spec.signerName));
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < MIN_EXPIRATION_SECONDS) {
    errors.push(fieldErrors.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errors.push(...conditionErrors(obj, allow));
  if (!allow.arbitraryCertificate) {
    const problem = certificateChainProblem(bytesOf(csr.status?.certificate));
    if (problem !== undefined) errors.push(fieldErrors.invalid('status.certificate', '<certificate data>', problem));
  }
  if (current !== undefined) errors.push(...conditionRemovalErrors(obj, current));
  return errors;
}

function conditionErrors(obj: ApiObject, allow: Tolerated): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(obj).forEach((c, i) => {
    const at = `status.conditions[${i}]`;
    if (!allow.emptyConditionType && !c.type) errors.push(fieldErrors.required(`${at}.type`, ''));
    const allowed = TRUE_ONLY_CONDITIONS.has(c.type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (!c.status) errors.push(fieldErrors.required(`${at}.status`, ''));
    else if (!allowed.includes(c.status)) errors.push(fieldErrors.notSupported(`${at}.status`, c.status, allowed));
    if (!allow.bothApprovedAndDenied) {
      if (c.type === CSR_APPROVED) {
        approved = true;
        if (denied) errors.push(fieldErrors.invalid(`${at}.type`, c.type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (c.type === CSR_DENIED) {
        denied = true;
        if (approved) errors.push(fieldErrors.invalid(`${at}.type`, c.type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!allow.duplicateConditionTypes) {
      if (seen.has(c.type)) errors.push(fieldErrors.duplicate(`${at}.type`, c.type));
      seen.add(c.type);
    }
  });
  return errors;
}

/** No update may remove an Approved, Denied or Failed condition. */
function conditionRemovalErrors(obj: ApiObject, current: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  for (const type of [CSR_APPROVED, CSR_DENIED, CSR_FAILED]) {
    if (ofType(obj, type).length < ofType(current, type).length) {
      errors.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
    }
  }
  return errors;
}

/** A status write may not approve or deny (that is the approval subresource's), nor change an issued certificate. */
function validateStatusUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  for (const type of [CSR_APPROVED, CSR_DENIED]) {
    const before = ofType(current, type);
    const after = ofType(obj, type);
    if (after.length > before.length)
      errors.push(fieldErrors.forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(type)}`));
    else if (after.length === before.length && !jsonEqual(after, before)) {
      errors.push(fieldErrors.forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(type)}`));
    }
  }
  const oldCertificate = bytesOf(as<CertificateSigningRequest>(current).status?.certificate);
  if (oldCertificate.length > 0 && !bytesOf(as<CertificateSigningRequest>(obj).status?.certificate).equals(oldCertificate)) {
    errors.push(fieldErrors.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errors;
}

/**
 * populateConditionTimestamps: a new condition, or one whose status changed, gets the time of the
 * write as its transition time; every condition without an update time gets one.
 */
function stampConditions(obj: ApiObject, current: ApiObject | undefined): void {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (const c of conditionsOf(obj)) {
    if (!c || typeof c !== 'object') continue;
    c.lastUpdateTime ??= now;
    if (c.lastTransitionTime) continue;
    const before = ofType(current, c.type)[0];
    c.lastTransitionTime = before !== undefined && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : now;
  }
}

/** Who asked: the request's user, written into the spec whatever the body said. */
function requesterOf(user: UserInfo | undefined): Partial<CertificateSigningRequest['spec']> {
  if (user === undefined) return {};
  const out: Partial<CertificateSigningRequest['spec']> = { username: user.name };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

/** The CONDITION column (kubectl's extractCSRStatus): Denied, Approved or Pending, then Failed and Issued. */
export function csrConditionSummary(obj: ApiObject): string {
  const types = new Set(conditionsOf(obj).map((c) => c.type));
  let status = types.has(CSR_DENIED) ? 'Denied' : types.has(CSR_APPROVED) ? 'Approved' : 'Pending';
  if (types.has(CSR_FAILED)) status += ',Failed';
  if (bytesOf(as<CertificateSigningRequest>(obj).status?.certificate).length > 0) status += ',Issued';
  return status;
}

/** Kubernetes' CertificateSigningRequest (certificates.k8s.io/v1): approval through `approval`, the certificate through `status`. */
export const certificateSigningRequestDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'CertificateSigningRequest',
  resource: 'certificatesigningrequests',
  namespaced: false,
  shortNames: ['csr'],
  subresources: { status: true },
  schema: CertificateSigningRequestSchema,
  fieldSelectors: { 'spec.signerName': (o) => as<CertificateSigningRequest>(o).spec?.signerName ?? '' },
  strategy: {
    // csrStrategy.PrepareForCreate: the requester is the caller, and nothing is approved or issued yet.
    prepareForCreate(csr, requester) {
      const spec = (as<CertificateSigningRequest>(csr).spec ??= {} as CertificateSigningRequest['spec']);
      delete spec.username;
      delete spec.uid;
      delete spec.groups;
      delete spec.extra;
      Object.assign(spec, requesterOf(requester));
      csr.status = {};
    },
    // A write of the object itself changes only its metadata: the spec is immutable, the status is the subresources'.
    prepareForUpdate(csr, current) {
      csr.spec = current.spec;
      if (current.status === undefined) delete csr.status;
      else csr.status = current.status;
    },
    tracksGeneration: false,
    status: {
      prepareForUpdate(csr, current) {
        csr.spec = current.spec;
        stampConditions(csr, current);
      },
      validateUpdate: validateStatusUpdate,
    },
    subresources: {
      // The approval subresource takes only the conditions: whoever may approve cannot issue.
      approval: {
        updateOf(incoming, current) {
          const next: ApiObject = { ...structuredClone(current), metadata: { ...current.metadata, resourceVersion: incoming.metadata?.resourceVersion } };
          if (next.metadata!.resourceVersion === undefined) delete next.metadata!.resourceVersion;
          const status = { ...(as<CertificateSigningRequest>(current).status ?? {}) };
          const conditions = as<CertificateSigningRequest>(incoming).status?.conditions;
          if (conditions === undefined) delete status.conditions;
          else status.conditions = structuredClone(conditions);
          next.status = status;
          stampConditions(next, current);
          return next;
        },
        resetFields: [['spec'], ['status', 'certificate']],
      },
    },
  },
  columns: [
    nameColumn(),
    ageColumn(),
    column('SignerName', 'string', (o) => as<CertificateSigningRequest>(o).spec?.signerName || '<none>', {
      description: 'Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`.',
    }),
    column('Requestor', 'string', (o) => as<CertificateSigningRequest>(o).spec?.username ?? '', {
      description: 'Base64-encoded PKCS#10 CSR data',
    }),
    column(
      'RequestedDuration',
      'string',
      (o) => {
        const seconds = as<CertificateSigningRequest>(o).spec?.expirationSeconds;
        return typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>';
      },
      { description: 'expirationSeconds is the requested duration of validity of the issued certificate.' },
    ),
    column('Condition', 'string', csrConditionSummary, {
      description: 'Conditions applied to the request, such as approval or denial.',
    }),
  ],
  validationRules: [validateCertificateSigningRequest],
});
