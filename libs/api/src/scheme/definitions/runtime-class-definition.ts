import { isDNS1123Label, isRecord, validateLabels } from '@svc/machinery';
import { RuntimeClassSchema, type RuntimeClass } from '../../kinds/node/runtime-class';
import { canonicalQuantity, quantityNanoValue } from '../../meta/quantity';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

const TOLERATION_OPERATORS = ['Equal', 'Exists'] as const;
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

/** ValidateTolerations, then the uniqueness RuntimeClass adds (by key, operator, value and effect). */
function tolerationErrors(tolerations: NonNullable<RuntimeClass['scheduling']>['tolerations'], path: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (tolerations ?? []).forEach((t, i) => {
    const at = `${path}[${i}]`;
    const operator = t.operator ?? 'Equal';
    if (t.key) errors.push(...validateLabels({ [t.key]: '' }, `${at}.key`).filter((e) => e.badValue === t.key));
    if (!t.key && operator !== 'Exists')
      errors.push(fieldErrors.invalid(`${at}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute')
      errors.push(fieldErrors.invalid(`${at}.effect`, t.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (operator === 'Exists' && t.value) errors.push(fieldErrors.invalid(`${at}.operator`, t.value, "value must be empty when `operator` is 'Exists'"));
    if (!(TOLERATION_OPERATORS as readonly string[]).includes(operator))
      errors.push(fieldErrors.notSupported(`${at}.operator`, operator, TOLERATION_OPERATORS));
    if (t.effect && !(TAINT_EFFECTS as readonly string[]).includes(t.effect)) errors.push(fieldErrors.notSupported(`${at}.effect`, t.effect, TAINT_EFFECTS));
    const key = JSON.stringify([t.key ?? '', t.operator ?? '', t.value ?? '', t.effect ?? '']);
    if (seen.has(key)) errors.push(fieldErrors.duplicate(at, t));
    seen.add(key);
  });
  return errors;
}

/** ValidateRuntimeClass: the handler a DNS label, the overhead as a container's limits, the scheduling's labels and tolerations. */
function validateRuntimeClass(obj: ApiObject): FieldError[] {
  const rc = as<RuntimeClass>(obj);
  const errors: FieldError[] = [];
  const handler = typeof rc.handler === 'string' ? rc.handler : '';
  for (const msg of isDNS1123Label(handler)) errors.push(fieldErrors.invalid('handler', handler, msg));
  // Kubernetes checks the overhead as the limits of a container's resources, and names them so.
  const podFixed = isRecord(rc.overhead?.podFixed) ? rc.overhead.podFixed : {};
  for (const [name, value] of Object.entries(podFixed)) {
    if ((quantityNanoValue(value) ?? 0n) < 0n)
      errors.push(fieldErrors.invalid(`overhead.limits[${name}]`, canonicalQuantity(value) ?? String(value), 'must be greater than or equal to 0'));
  }
  if (rc.scheduling) {
    errors.push(...validateLabels(rc.scheduling.nodeSelector, 'scheduling.nodeSelector'));
    errors.push(...tolerationErrors(rc.scheduling.tolerations, 'scheduling.tolerations.tolerations'));
  }
  return errors;
}

/** ValidateRuntimeClassUpdate: the handler stays. */
function validateRuntimeClassUpdate(obj: ApiObject, current: ApiObject): FieldError[] {
  const handler = as<RuntimeClass>(obj).handler;
  return handler === as<RuntimeClass>(current).handler ? [] : [fieldErrors.invalid('handler', handler, 'field is immutable')];
}

/** Kubernetes' RuntimeClass (node.k8s.io/v1). */
export const runtimeClassDefinition = defineKind({
  group: 'node.svc.io',
  version: 'v1',
  kind: 'RuntimeClass',
  resource: 'runtimeclasses',
  namespaced: false,
  schema: RuntimeClassSchema,
  strategy: { validateUpdate: validateRuntimeClassUpdate },
  columns: [
    nameColumn(),
    column('Handler', 'string', (o) => as<RuntimeClass>(o).handler ?? '', {
      description:
        'handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class. The possible values are specific to the node & CRI configuration.  It is assumed that all handlers are available on every node, and handlers of the same name are equivalent on every node. For example, a handler called "runc" might specify that the runc OCI runtime (using native Linux containers) will be used to run the containers in a pod. The Handler must be lowercase, conform to the DNS Label (RFC 1123) requirements, and is immutable.',
    }),
    ageColumn(),
  ],
  validationRules: [validateRuntimeClass],
});
