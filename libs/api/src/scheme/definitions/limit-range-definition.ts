import { LimitRangeSchema, LimitTypes, type LimitRange } from '../../kinds/core/limit-range';
import { quantityMilliValue, quantityNanoValue, quantityValue } from '../../meta/quantity';
import { isQualifiedName, isRecord } from '@svc/machinery';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { as, defineKind, records } from './define-kind';
import { shownQuantity, validateContainerResourceName, validateResourceName } from './resource-names';

/** Kubernetes' validateLimitRangeTypeName. */
function validateTypeName(type: string, path: string): FieldError[] {
  const errors = isQualifiedName(type).map((msg) => fieldErrors.invalid(path, type, msg));
  if (errors.length === 0 && !type.includes('/') && !(LimitTypes as readonly string[]).includes(type)) {
    errors.push(fieldErrors.invalid(path, type, 'must be a standard limit type or fully qualified'));
  }
  return errors;
}

/** Kubernetes' validateLimitRangeResourceName: container resources for pods and containers, any resource else. */
function validateName(type: string, name: string, path: string): FieldError[] {
  return type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, path) : validateResourceName(name, path);
}

/** Kubernetes' IsOvercommitAllowed. */
function overcommitAllowed(name: string): boolean {
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  return native && !name.startsWith('hugepages-');
}

const cmp = (a: unknown, b: unknown): number => {
  const x = quantityNanoValue(a) ?? 0n;
  const y = quantityNanoValue(b) ?? 0n;
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Go's %f: six decimals. */
const goFloat = (value: number): string => (Number.isFinite(value) ? value.toFixed(6) : value > 0 ? '+Inf' : 'NaN');

/** ValidateLimitRange: one item per type, qualified names, and bounds and defaults that agree with each other. */
function validateLimitRange(obj: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const types = new Set<string>();
  (as<LimitRange>(obj).spec?.limits ?? []).forEach((item, i) => {
    const at = `spec.limits[${i}]`;
    errors.push(...validateTypeName(item.type, `${at}.type`));
    if (types.has(item.type)) errors.push(fieldErrors.duplicate(`${at}.type`, item.type));
    types.add(item.type);
    const keys = new Set<string>();
    const named = (field: 'max' | 'min' | 'default' | 'defaultRequest' | 'maxLimitRequestRatio') => {
      for (const name of Object.keys(item[field] ?? {})) {
        errors.push(...validateName(item.type, name, `${at}.${field}[${name}]`));
        keys.add(name);
      }
    };
    named('max');
    named('min');
    if (item.type === 'Pod') {
      if (Object.keys(item.default ?? {}).length > 0) errors.push(fieldErrors.forbidden(`${at}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(item.defaultRequest ?? {}).length > 0)
        errors.push(fieldErrors.forbidden(`${at}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    } else {
      named('default');
      named('defaultRequest');
    }
    if (item.type === 'PersistentVolumeClaim' && item.min?.storage === undefined && item.max?.storage === undefined) {
      errors.push(fieldErrors.required(`${at}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
    }
    named('maxLimitRequestRatio');
    const defaults = item.type === 'Pod' ? {} : (item.default ?? {});
    const defaultRequests = item.type === 'Pod' ? {} : (item.defaultRequest ?? {});
    for (const k of keys) {
      const min = item.min?.[k];
      const max = item.max?.[k];
      const def = defaults[k];
      const defReq = defaultRequests[k];
      const ratio = item.maxLimitRequestRatio?.[k];
      const s = shownQuantity;
      if (min !== undefined && max !== undefined && cmp(min, max) > 0) {
        errors.push(fieldErrors.invalid(`${at}.min[${k}]`, s(min), `min value ${s(min)} is greater than max value ${s(max)}`));
      }
      if (defReq !== undefined && min !== undefined && cmp(min, defReq) > 0) {
        errors.push(fieldErrors.invalid(`${at}.defaultRequest[${k}]`, s(defReq), `min value ${s(min)} is greater than default request value ${s(defReq)}`));
      }
      if (defReq !== undefined && max !== undefined && cmp(defReq, max) > 0) {
        errors.push(fieldErrors.invalid(`${at}.defaultRequest[${k}]`, s(defReq), `default request value ${s(defReq)} is greater than max value ${s(max)}`));
      }
      if (defReq !== undefined && def !== undefined && cmp(defReq, def) > 0) {
        errors.push(
          fieldErrors.invalid(`${at}.defaultRequest[${k}]`, s(defReq), `default request value ${s(defReq)} is greater than default limit value ${s(def)}`),
        );
      }
      if (def !== undefined && min !== undefined && cmp(min, def) > 0) {
        errors.push(fieldErrors.invalid(`${at}.default[${k}]`, s(min), `min value ${s(min)} is greater than default value ${s(def)}`));
      }
      if (def !== undefined && max !== undefined && cmp(def, max) > 0) {
        errors.push(fieldErrors.invalid(`${at}.default[${k}]`, s(max), `default value ${s(def)} is greater than max value ${s(max)}`));
      }
      if (ratio !== undefined && cmp(ratio, 1) < 0) {
        errors.push(fieldErrors.invalid(`${at}.maxLimitRequestRatio[${k}]`, s(ratio), `ratio ${s(ratio)} is less than 1`));
      }
      if (ratio !== undefined && min !== undefined && max !== undefined) {
        const ratioValue = (quantityMilliValue(ratio) ?? 0) / 1000;
        const limit = (quantityMilliValue(max) ?? quantityValue(max) ?? 0) / (quantityMilliValue(min) ?? quantityValue(min) ?? 0);
        if (ratioValue > limit) {
          errors.push(fieldErrors.invalid(`${at}.maxLimitRequestRatio[${k}]`, s(ratio), `ratio ${s(ratio)} is greater than max/min = ${goFloat(limit)}`));
        }
      }
      if (!overcommitAllowed(k) && def !== undefined && defReq !== undefined && cmp(def, defReq) !== 0) {
        errors.push(
          fieldErrors.invalid(`${at}.defaultRequest[${k}]`, s(defReq), `default value ${s(def)} must equal to defaultRequest value ${s(defReq)} in ${k}`),
        );
      }
    }
  });
  return errors;
}

/**
 * SetDefaults_LimitRangeItem: a Container item's default limit is its max where unset, its default
 * request its default limit, else its min.
 */
function defaultLimitRange(obj: ApiObject): void {
  const spec = isRecord(obj.spec) ? obj.spec : {};
  for (const item of records(spec.limits)) {
    if (item.type !== 'Container') continue;
    const list = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
    const defaults = { ...list(item.default) };
    const requests = { ...list(item.defaultRequest) };
    for (const [k, v] of Object.entries(list(item.max))) if (!(k in defaults)) defaults[k] = v;
    for (const [k, v] of Object.entries(defaults)) if (!(k in requests)) requests[k] = v;
    for (const [k, v] of Object.entries(list(item.min))) if (!(k in requests)) requests[k] = v;
    if (Object.keys(defaults).length > 0) item.default = defaults;
    if (Object.keys(requests).length > 0) item.defaultRequest = requests;
  }
}

/** Kubernetes' LimitRange (v1): the LimitRanger admission plugin's bounds and defaults for a namespace. */
export const limitRangeDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'LimitRange',
  resource: 'limitranges',
  namespaced: true,
  shortNames: ['limits'],
  // A PUT of a missing LimitRange creates it, as Kubernetes' limitrange strategy allows.
  allowCreateOnUpdate: true,
  schema: LimitRangeSchema,
  defaultHooks: [defaultLimitRange],
  validationRules: [validateLimitRange],
});
