import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isRecord, jsonEqual, regexError } from '@svc/machinery';
import {
  JOB_CONTROLLER_UID_LABEL,
  JOB_NAME_LABEL,
  JobSchema,
  LEGACY_JOB_CONTROLLER_UID_LABEL,
  LEGACY_JOB_NAME_LABEL,
  PodFailurePolicyActions,
  PodFailurePolicyOnExitCodesOperators,
  PodReplacementPolicies,
  type Job,
} from '../../kinds/batch/job';
import { ConditionStatuses } from '../../meta/condition';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { timestampSince, humanDuration } from '../human-duration';
import { as, defineKind, records } from './define-kind';
import { defaultPodSpec, validatePodSpec } from './pod-spec-rules';
import { containerCells, selectorCell, selectorQuery, templateErrors } from './workload-rules';

/** Kubernetes' limits on a Job's spec (pkg/apis/batch/validation). */
const MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000;
const MAX_FAILED_INDEXES_FOR_INDEXED_JOB = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000;
const MAX_POD_FAILURE_POLICY_RULES = 20;
const MAX_ON_EXIT_CODES_VALUES = 255;
const MAX_ON_POD_CONDITIONS_PATTERNS = 20;
const MAX_MANAGED_BY_LENGTH = 63;
const MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024;
const MAX_SUCCESS_POLICY_RULES = 20;
const INT32_MAX = 2_147_483_647;

type Spec = Record<string, unknown>;

function specOf(obj: ApiObject): Spec {
  return isRecord(obj.spec) ? obj.spec : {};
}

function templateOf(spec: Spec): Record<string, unknown> {
  return isRecord(spec.template) ? spec.template : {};
}

function templateLabels(spec: Spec): Record<string, string> {
  const template = templateOf(spec);
  return isRecord(template.metadata) && isRecord(template.metadata.labels) ? (template.metadata.labels as Record<string, string>) : {};
}

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** `valid values: ["a" "b"]`, Go's %q of a list. */
function validValues(values: readonly string[]): string {
  return `valid values: [${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/**
 * SetDefaults_Job (pkg/apis/batch/v1/defaults.go). Kubernetes applies it to Jobs only: the job template
 * of a CronJob keeps what its author wrote, and each Job made from it is defaulted as it is created.
 */
function defaultJobSpec(spec: unknown): void {
  if (!isRecord(spec)) return;
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? INT32_MAX : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy !== undefined ? 'Failed' : 'TerminatingOrFailed';
  spec.manualSelector ??= false;
}

/** A Job takes its template's labels when it has none of its own. */
function defaultJobLabels(job: ApiObject): void {
  const labels = templateLabels(specOf(job));
  if (Object.keys(labels).length === 0) return;
  const meta = (job.metadata ??= {});
  if (!meta.labels || Object.keys(meta.labels).length === 0) meta.labels = { ...labels };
}

/**
 * The job strategy's generateSelector: unless manualSelector is true, the pods of the Job are labelled
 * with its name and uid (each label under its old and its prefixed name, a label the client set left
 * alone for validation to judge), and the selector picks the uid.
 */
function generateSelector(job: ApiObject): void {
  const spec = specOf(job);
  if (spec.manualSelector === true) return;
  const template = (spec.template = templateOf(spec));
  const meta = (template.metadata = isRecord(template.metadata) ? template.metadata : {});
  const labels = (meta.labels = isRecord(meta.labels) ? meta.labels : {});
  const name = job.metadata?.name ?? '';
  const uid = job.metadata?.uid ?? '';
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(key in labels)) labels[key] = name;
  for (const key of [LEGACY_JOB_CONTROLLER_UID_LABEL, JOB_CONTROLLER_UID_LABEL]) if (!(key in labels)) labels[key] = uid;
  const selector = (spec.selector = isRecord(spec.selector) ? spec.selector : {});
  const matchLabels = (selector.matchLabels = isRecord(selector.matchLabels) ? selector.matchLabels : {});
  if (!(JOB_CONTROLLER_UID_LABEL in matchLabels)) matchLabels[JOB_CONTROLLER_UID_LABEL] = uid;
}

/** ValidateHasLabel: the template carries `key` with `expected`. */
function hasLabel(labels: Record<string, string>, key: string, expected: string): FieldError[] {
  const field = `spec.template.metadata.labels[${key}]`;
  if (!(key in labels)) return [fieldErrors.required(field, `must be '${expected}'`)];
  return labels[key] === expected ? [] : [fieldErrors.invalid(field, labels, `must be '${expected}'`)];
}

/** validateGeneratedSelector: a selector the server made must still pick the pods it labels. */
function generatedSelectorErrors(job: ApiObject, requirePrefixedLabels: boolean): FieldError[] {
  const spec = specOf(job);
  if (spec.manualSelector === true || !isRecord(spec.selector)) return [];
  const errors: FieldError[] = [];
  const uid = job.metadata?.uid ?? '';
  const name = job.metadata?.name ?? '';
  if (uid === '') errors.push(fieldErrors.required('metadata.uid'));
  const labels = templateLabels(spec);
  errors.push(...hasLabel(labels, LEGACY_JOB_CONTROLLER_UID_LABEL, uid), ...hasLabel(labels, LEGACY_JOB_NAME_LABEL, name));
  const expected: Record<string, string> = {};
  if (requirePrefixedLabels) {
    errors.push(...hasLabel(labels, JOB_CONTROLLER_UID_LABEL, uid), ...hasLabel(labels, JOB_NAME_LABEL, name));
    expected[JOB_CONTROLLER_UID_LABEL] = uid;
    expected[JOB_NAME_LABEL] = name;
  }
  expected[LEGACY_JOB_CONTROLLER_UID_LABEL] = uid;
  expected[LEGACY_JOB_NAME_LABEL] = name;
  const query = selectorQuery(spec.selector);
  if (query && !query.matches(expected)) errors.push(fieldErrors.invalid('spec.selector', spec.selector, '`selector` not auto-generated'));
  return errors;
}

/** IsDomainPrefixedPath, for managedBy. */
function domainPrefixedPathErrors(field: string, value: string): FieldError[] {
  if (value === '') return [fieldErrors.required(field)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const path = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || path === '') return [fieldErrors.invalid(field, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errors = isDNS1123Subdomain(host).map((msg) => fieldErrors.invalid(field, host, msg));
  const pathFormat = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
  if (!new RegExp(`^${pathFormat}$`).test(path)) errors.push(fieldErrors.invalid(field, path, regexError('Invalid path', pathFormat)));
  return errors;
}

/** Kubernetes' parseIndexInterval: one `x` or `x-y` of a list of indexes below `completions`. */
function parseIndexInterval(interval: string, completions: number): [number, number] {
  const limits = interval.split('-');
  if (limits.length > 2)
    throw new Error(`the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`);
  const parse = (s: string) => {
    if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`cannot convert string to integer for index: ${JSON.stringify(s)}`);
    const n = Number(s);
    if (n >= completions) throw new Error(`too large index: ${JSON.stringify(s)}`);
    return n;
  };
  const x = parse(limits[0]);
  if (limits.length === 1) return [x, x];
  const y = parse(limits[1]);
  if (x >= y) throw new Error(`non-increasing order, previous: ${x}, current: ${y}`);
  return [x, y];
}

/** validateIndexesFormat: how many indexes an increasing list of indexes and ranges names; throws with Kubernetes' message. */
export function countIndexes(indexes: string, completions: number): number {
  if (indexes === '') return 0;
  let last: number | undefined;
  let total = 0;
  for (const interval of indexes.split(',')) {
    const [x, y] = parseIndexInterval(interval, completions);
    if (last !== undefined && last >= x) throw new Error(`non-increasing order, previous: ${last}, current: ${x}`);
    total += y - x + 1;
    last = y;
  }
  return total;
}

function indexesError(indexes: string, completions: number): string | undefined {
  try {
    countIndexes(indexes, completions);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** validateFailedIndexesNotOverlapCompleted: the first index both lists name, if any (unparsable intervals are skipped). */
function overlappingIndex(completed: string, failed: string, completions: number): number | undefined {
  if (completed === '' || failed === '') return undefined;
  const parsed = (list: string) =>
    list.split(',').flatMap((interval) => {
      try {
        return [parseIndexInterval(interval, completions)];
      } catch {
        return [];
      }
    });
  const cs = parsed(completed);
  const fs = parsed(failed);
  let i = 0;
  let j = 0;
  while (i < cs.length && j < fs.length) {
    const [cx, cy] = cs[i];
    const [fx, fy] = fs[j];
    if (cx <= fy && fx <= cy) return Math.max(cx, fx);
    if (cx <= fx) i++;
    else j++;
  }
  return undefined;
}

function podFailurePolicyErrors(spec: Spec, path: string): FieldError[] {
  const policy = spec.podFailurePolicy;
  if (!isRecord(policy)) return [];
  const errors: FieldError[] = [];
  const rules = records(policy.rules);
  const rulesPath = `${path}.rules`;
  if (Array.isArray(policy.rules) && policy.rules.length > MAX_POD_FAILURE_POLICY_RULES) {
    errors.push(fieldErrors.tooMany(rulesPath, policy.rules.length, MAX_POD_FAILURE_POLICY_RULES));
  }
  const podSpec = isRecord(templateOf(spec).spec) ? (templateOf(spec).spec as Record<string, unknown>) : {};
  const containerNames = new Set([...records(podSpec.containers), ...records(podSpec.initContainers)].map((c) => c.name));
  rules.forEach((rule, i) => {
    const rulePath = `${rulesPath}[${i}]`;
    const action = rule.action;
    if (action === '' || action === undefined) errors.push(fieldErrors.required(`${rulePath}.action`, validValues(PodFailurePolicyActions)));
    else if (action === 'FailIndex') {
      if (spec.backoffLimitPerIndex === undefined)
        errors.push(fieldErrors.invalid(`${rulePath}.action`, action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!(PodFailurePolicyActions as readonly unknown[]).includes(action)) {
      errors.push(fieldErrors.notSupported(`${rulePath}.action`, action, PodFailurePolicyActions));
    }
    const onExitCodes = rule.onExitCodes;
    const onPodConditions = Array.isArray(rule.onPodConditions) ? rule.onPodConditions : [];
    if (isRecord(onExitCodes)) errors.push(...onExitCodesErrors(onExitCodes, `${rulePath}.onExitCodes`, containerNames));
    if (onPodConditions.length > 0) errors.push(...onPodConditionsErrors(onPodConditions, `${rulePath}.onPodConditions`));
    if (isRecord(onExitCodes) && onPodConditions.length > 0) {
      errors.push(fieldErrors.invalid(rulePath, undefined, 'specifying both OnExitCodes and OnPodConditions is not supported'));
    }
    if (!isRecord(onExitCodes) && onPodConditions.length === 0) {
      errors.push(fieldErrors.invalid(rulePath, undefined, 'specifying one of OnExitCodes and OnPodConditions is required'));
    }
  });
  return errors;
}

function onExitCodesErrors(requirement: Record<string, unknown>, path: string, containerNames: Set<unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const operator = requirement.operator;
  if (operator === '' || operator === undefined) errors.push(fieldErrors.required(`${path}.operator`, validValues(PodFailurePolicyOnExitCodesOperators)));
  else if (!(PodFailurePolicyOnExitCodesOperators as readonly unknown[]).includes(operator)) {
    errors.push(fieldErrors.notSupported(`${path}.operator`, operator, PodFailurePolicyOnExitCodesOperators));
  }
  if (typeof requirement.containerName === 'string' && !containerNames.has(requirement.containerName)) {
    errors.push(
      fieldErrors.invalid(`${path}.containerName`, requirement.containerName, 'must be one of the container or initContainer names in the pod template'),
    );
  }
  const values = Array.isArray(requirement.values) ? (requirement.values as unknown[]) : [];
  if (values.length === 0) errors.push(fieldErrors.invalid(`${path}.values`, values, 'at least one value is required'));
  else if (values.length > MAX_ON_EXIT_CODES_VALUES) errors.push(fieldErrors.tooMany(`${path}.values`, values.length, MAX_ON_EXIT_CODES_VALUES));
  const seen = new Set<unknown>();
  let ordered = true;
  values.forEach((value, j) => {
    if (operator === 'In' && value === 0) errors.push(fieldErrors.invalid(`${path}.values[${j}]`, value, 'must not be 0 for the In operator'));
    if (seen.has(value)) errors.push(fieldErrors.duplicate(`${path}.values[${j}]`, value));
    else seen.add(value);
    if (j > 0 && (values[j - 1] as number) > (value as number)) ordered = false;
  });
  if (!ordered) errors.push(fieldErrors.invalid(`${path}.values`, values, 'must be ordered'));
  return errors;
}

function onPodConditionsErrors(patterns: unknown[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (patterns.length > MAX_ON_POD_CONDITIONS_PATTERNS) errors.push(fieldErrors.tooMany(path, patterns.length, MAX_ON_POD_CONDITIONS_PATTERNS));
  patterns.forEach((pattern, j) => {
    if (!isRecord(pattern)) return;
    const at = `${path}[${j}]`;
    const type = typeof pattern.type === 'string' ? pattern.type : '';
    for (const msg of isQualifiedName(type)) errors.push(fieldErrors.invalid(`${at}.type`, type, msg));
    const status = pattern.status;
    if (status === '' || status === undefined) errors.push(fieldErrors.required(`${at}.status`, validValues(ConditionStatuses.slice().sort())));
    else if (!(ConditionStatuses as readonly unknown[]).includes(status))
      errors.push(fieldErrors.notSupported(`${at}.status`, status, ConditionStatuses.slice().sort()));
  });
  return errors;
}

function successPolicyErrors(spec: Spec, path: string): FieldError[] {
  const policy = spec.successPolicy;
  if (!isRecord(policy)) return [];
  if (spec.completionMode !== 'Indexed') return [fieldErrors.invalid(path, policy, 'requires indexed completion mode')];
  const errors: FieldError[] = [];
  const rulesPath = `${path}.rules`;
  const rules = Array.isArray(policy.rules) ? policy.rules : [];
  if (rules.length === 0) errors.push(fieldErrors.required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_POLICY_RULES) errors.push(fieldErrors.tooMany(rulesPath, rules.length, MAX_SUCCESS_POLICY_RULES));
  const completions = num(spec.completions) ?? 0;
  rules.forEach((rule, i) => {
    if (!isRecord(rule)) return;
    const rulePath = `${rulesPath}[${i}]`;
    if (rule.succeededCount === undefined && rule.succeededIndexes === undefined) {
      errors.push(fieldErrors.required(rulePath, 'at least one of succeededCount or succeededIndexes must be specified'));
    }
    let total = 0;
    if (typeof rule.succeededIndexes === 'string') {
      const indexesPath = `${rulePath}.succeededIndexes`;
      if (rule.succeededIndexes.length > MAX_SUCCEEDED_INDEXES_LENGTH)
        errors.push(fieldErrors.tooLong(indexesPath, rule.succeededIndexes, MAX_SUCCEEDED_INDEXES_LENGTH));
      try {
        total = countIndexes(rule.succeededIndexes, completions);
      } catch (error) {
        errors.push(fieldErrors.invalid(indexesPath, rule.succeededIndexes, `error parsing succeededIndexes: ${(error as Error).message}`));
      }
    }
    const count = num(rule.succeededCount);
    if (count !== undefined) {
      const countPath = `${rulePath}.succeededCount`;
      if (count < 0) errors.push(fieldErrors.invalid(countPath, count, 'must be greater than or equal to 0'));
      if (count > completions) {
        errors.push(fieldErrors.invalid(countPath, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      }
      if (typeof rule.succeededIndexes === 'string' && count > total) {
        errors.push(
          fieldErrors.invalid(countPath, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`),
        );
      }
    }
  });
  return errors;
}

/**
 * validateJobSpec: the checks a Job's spec and a CronJob's job template share (everything but the
 * selector). `path` is where the spec sits (`spec`, `spec.jobTemplate.spec`).
 */
export function jobSpecErrors(spec: Spec, path: string, podSpecRules = true): FieldError[] {
  const errors: FieldError[] = [];
  const parallelism = num(spec.parallelism);
  const completions = num(spec.completions);
  const maxFailedIndexes = num(spec.maxFailedIndexes);
  if (maxFailedIndexes !== undefined && spec.backoffLimitPerIndex === undefined) {
    errors.push(fieldErrors.required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  }
  if (typeof spec.managedBy === 'string') {
    errors.push(...domainPrefixedPathErrors(`${path}.managedBy`, spec.managedBy));
    if (spec.managedBy.length > MAX_MANAGED_BY_LENGTH) errors.push(fieldErrors.tooLong(`${path}.managedBy`, spec.managedBy, MAX_MANAGED_BY_LENGTH));
  }
  if (spec.completionMode === 'Indexed') {
    if (completions === undefined) errors.push(fieldErrors.required(`${path}.completions`, 'when completion mode is Indexed'));
    if (parallelism !== undefined && parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB) {
      errors.push(
        fieldErrors.invalid(
          `${path}.parallelism`,
          parallelism,
          `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed`,
        ),
      );
    }
    if (completions !== undefined && maxFailedIndexes !== undefined && maxFailedIndexes > completions) {
      errors.push(fieldErrors.invalid(`${path}.maxFailedIndexes`, maxFailedIndexes, 'must be less than or equal to completions'));
    }
    if (maxFailedIndexes !== undefined && maxFailedIndexes > MAX_FAILED_INDEXES_FOR_INDEXED_JOB) {
      errors.push(fieldErrors.invalid(`${path}.maxFailedIndexes`, maxFailedIndexes, `must be less than or equal to ${MAX_FAILED_INDEXES_FOR_INDEXED_JOB}`));
    }
    if (completions !== undefined && completions > COMPLETIONS_SOFT_LIMIT && spec.backoffLimitPerIndex !== undefined) {
      const high = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
      if (maxFailedIndexes === undefined) {
        errors.push(fieldErrors.required(`${path}.maxFailedIndexes`, `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
      }
      if (parallelism !== undefined && parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS) {
        errors.push(fieldErrors.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} ${high}`));
      }
      if (maxFailedIndexes !== undefined && maxFailedIndexes > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS) {
        errors.push(
          fieldErrors.invalid(
            `${path}.maxFailedIndexes`,
            maxFailedIndexes,
            `must be less than or equal to ${MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} ${high}`,
          ),
        );
      }
    }
  } else {
    if (spec.backoffLimitPerIndex !== undefined) {
      errors.push(fieldErrors.invalid(`${path}.backoffLimitPerIndex`, spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    }
    if (maxFailedIndexes !== undefined) errors.push(fieldErrors.invalid(`${path}.maxFailedIndexes`, maxFailedIndexes, 'requires indexed completion mode'));
  }
  errors.push(...podFailurePolicyErrors(spec, `${path}.podFailurePolicy`));
  errors.push(...successPolicyErrors(spec, `${path}.successPolicy`));
  const replacement = spec.podReplacementPolicy;
  if (replacement !== undefined) {
    if (spec.podFailurePolicy !== undefined) {
      if (replacement !== 'Failed') errors.push(fieldErrors.notSupported(`${path}.podReplacementPolicy`, replacement, ['Failed']));
    } else if (!(PodReplacementPolicies as readonly unknown[]).includes(replacement)) {
      errors.push(fieldErrors.notSupported(`${path}.podReplacementPolicy`, replacement, PodReplacementPolicies));
    }
  }
  const template = templateOf(spec);
  const templatePath = `${path}.template`;
  errors.push(...templateErrors(template, templatePath));
  const podSpec = isRecord(template.spec) ? template.spec : {};
  if (podSpecRules) errors.push(...validatePodSpec(podSpec, `${templatePath}.spec`));
  const restartPolicy = podSpec.restartPolicy;
  if (restartPolicy === 'Always' || restartPolicy === '' || restartPolicy === undefined) {
    errors.push(fieldErrors.required(`${templatePath}.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
  } else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errors.push(fieldErrors.notSupported(`${templatePath}.spec.restartPolicy`, restartPolicy, ['OnFailure', 'Never']));
  } else if (spec.podFailurePolicy !== undefined && restartPolicy !== 'Never') {
    errors.push(fieldErrors.invalid(`${templatePath}.spec.restartPolicy`, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errors;
}

/** ValidateJob, with the prefixed labels required of a new Job and of one that already had them. */
function validateJob(job: ApiObject, current?: ApiObject): FieldError[] {
  const spec = specOf(job);
  const errors: FieldError[] = [];
  const oldLabels = current ? templateLabels(specOf(current)) : undefined;
  const requirePrefixed = oldLabels === undefined || (JOB_NAME_LABEL in oldLabels && JOB_CONTROLLER_UID_LABEL in oldLabels);
  errors.push(...generatedSelectorErrors(job, requirePrefixed));
  errors.push(...jobSpecErrors(spec, 'spec'));
  if (!isRecord(spec.selector)) errors.push(fieldErrors.required('spec.selector'));
  const query = selectorQuery(spec.selector);
  const labels = templateLabels(spec);
  if (query && !query.matches(labels)) errors.push(fieldErrors.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  const completions = num(spec.completions);
  if (spec.completionMode === 'Indexed' && completions !== undefined && completions > 0) {
    // The pods of an Indexed Job are named and host-named <job>-<index>.
    const hostname = `${job.metadata?.name ?? ''}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errors.push(fieldErrors.invalid('metadata.name', job.metadata?.name ?? '', `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return errors;
}

/** ValidateImmutableField. */
function immutable(value: unknown, old: unknown, field: string): FieldError[] {
  return jsonEqual(value, old) ? [] : [fieldErrors.invalid(field, value, 'field is immutable')];
}

/** The pod template of `spec` with what a suspended Job that never started may change taken from `incoming`. */
function withSchedulingDirectives(old: Record<string, unknown>, incoming: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(old);
  const oldSpec = isRecord(out.spec) ? out.spec : (out.spec = {});
  const newSpec = isRecord(incoming.spec) ? incoming.spec : {};
  const newAffinity = isRecord(newSpec.affinity) ? newSpec.affinity : undefined;
  const oldAffinity = isRecord(oldSpec.affinity) ? oldSpec.affinity : undefined;
  if (newAffinity === undefined && oldAffinity !== undefined) {
    delete oldAffinity.nodeAffinity;
    if (Object.keys(oldAffinity).length === 0) delete oldSpec.affinity;
  } else if (newAffinity !== undefined && oldAffinity === undefined) {
    oldSpec.affinity = newAffinity.nodeAffinity === undefined ? {} : { nodeAffinity: newAffinity.nodeAffinity };
  } else if (newAffinity !== undefined && oldAffinity !== undefined) {
    if (newAffinity.nodeAffinity === undefined) delete oldAffinity.nodeAffinity;
    else oldAffinity.nodeAffinity = newAffinity.nodeAffinity;
  }
  for (const key of ['nodeSelector', 'tolerations', 'schedulingGates'] as const) {
    if (newSpec[key] === undefined) delete oldSpec[key];
    else oldSpec[key] = newSpec[key];
  }
  const oldMeta = isRecord(out.metadata) ? out.metadata : (out.metadata = {});
  const newMeta = isRecord(incoming.metadata) ? incoming.metadata : {};
  for (const key of ['labels', 'annotations'] as const) {
    if (newMeta[key] === undefined) delete oldMeta[key];
    else oldMeta[key] = newMeta[key];
  }
  if (incoming.metadata === undefined && Object.keys(oldMeta).length === 0) delete out.metadata;
  return out;
}

/** ValidateJobSpecUpdate: what a Job's update may not change. */
function validateJobUpdate(job: ApiObject, current: ApiObject): FieldError[] {
  const spec = specOf(job);
  const old = specOf(current);
  const errors: FieldError[] = [];
  // ElasticIndexedJob (on in 1.32): an Indexed Job's completions may change together with parallelism.
  if (spec.completionMode === 'Indexed') {
    if (!jsonEqual(spec.completions, old.completions) && spec.completions !== undefined && spec.completions !== spec.parallelism) {
      errors.push(fieldErrors.invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism'));
    }
  } else {
    errors.push(...immutable(spec.completions, old.completions, 'spec.completions'));
  }
  errors.push(...immutable(spec.selector, old.selector, 'spec.selector'));
  // Node affinity, node selector, tolerations, scheduling gates, labels and annotations of the template
  // may change while a Job is suspended and has never started.
  const oldStatus = isRecord(current.status) ? current.status : {};
  const mutableDirectives = old.suspend === true && oldStatus.startTime === undefined;
  const oldTemplate = templateOf(old);
  const template = templateOf(spec);
  errors.push(...immutable(template, mutableDirectives ? withSchedulingDirectives(oldTemplate, template) : oldTemplate, 'spec.template'));
  errors.push(...immutable(spec.completionMode, old.completionMode, 'spec.completionMode'));
  errors.push(...immutable(spec.podFailurePolicy, old.podFailurePolicy, 'spec.podFailurePolicy'));
  errors.push(...immutable(spec.backoffLimitPerIndex, old.backoffLimitPerIndex, 'spec.backoffLimitPerIndex'));
  errors.push(...immutable(spec.managedBy, old.managedBy, 'spec.managedBy'));
  errors.push(...immutable(spec.successPolicy, old.successPolicy, 'spec.successPolicy'));
  return errors;
}

const conditionTrue = (job: ApiObject, type: string): boolean =>
  records(isRecord(job.status) ? job.status.conditions : undefined).some((c) => c.type === type && c.status === 'True');

/**
 * ValidateJobUpdateStatus with the checks Kubernetes 1.32 makes when the JobManagedBy feature is on (its
 * default): a status write may not take a Job back out of a finished state, lose counts, or describe a
 * state that cannot be. Most checks run only when the fields they read changed, so that a write leaving
 * them alone goes through while the controller catches up with a change of the spec.
 */
function validateJobStatusUpdate(job: ApiObject, current: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = specOf(job);
  const status = isRecord(job.status) ? job.status : {};
  const old = isRecord(current.status) ? current.status : {};
  const indexed = spec.completionMode === 'Indexed';
  const complete = (j: ApiObject) => conditionTrue(j, 'Complete');
  const failed = (j: ApiObject) => conditionTrue(j, 'Failed');
  const finished = (j: ApiObject) => complete(j) || failed(j);
  const changed = (key: string) => !jsonEqual(status[key], old[key]);
  const finishedChanged = finished(job) !== finished(current);
  const completeChanged = complete(job) !== complete(current);
  const failedChanged = failed(job) !== failed(current);
  const failureTargetChanged = conditionTrue(job, 'FailureTarget') !== conditionTrue(current, 'FailureTarget');
  const completions = num(spec.completions);
  const active = num(status.active) ?? 0;

  const uncounted = isRecord(status.uncountedTerminatedPods) ? status.uncountedTerminatedPods : undefined;
  if (uncounted) {
    const seen = new Set<unknown>();
    for (const list of ['succeeded', 'failed'] as const) {
      (Array.isArray(uncounted[list]) ? uncounted[list] : []).forEach((uid: unknown, i: number) => {
        const at = `status.uncountedTerminatedPods.${list}[${i}]`;
        if (uid === '') errors.push(fieldErrors.invalid(at, uid, 'must not be empty'));
        else if (seen.has(uid)) errors.push(fieldErrors.duplicate(at, uid));
        else seen.add(uid);
      });
    }
  }
  if ((completeChanged || failedChanged) && complete(job) && failed(job)) {
    errors.push(fieldErrors.invalid('status.conditions', undefined, 'cannot set Complete=True and Failed=true conditions'));
  }
  if ((completeChanged || failureTargetChanged) && complete(job) && conditionTrue(job, 'FailureTarget')) {
    errors.push(fieldErrors.invalid('status.conditions', undefined, 'cannot set Complete=True and FailureTarget=true conditions'));
  }
  if ((completeChanged || changed('completionTime')) && status.completionTime !== undefined && !complete(job)) {
    errors.push(fieldErrors.invalid('status.completionTime', status.completionTime, 'cannot set completionTime when there is no Complete=True condition'));
  }
  if ((completeChanged || changed('completionTime')) && status.completionTime === undefined && complete(job)) {
    errors.push(fieldErrors.required('status.completionTime', 'completionTime is required for Complete jobs'));
  }
  if ((changed('startTime') || changed('completionTime')) && typeof status.startTime === 'string' && typeof status.completionTime === 'string') {
    if (Date.parse(status.completionTime) < Date.parse(status.startTime)) {
      errors.push(fieldErrors.invalid('status.completionTime', status.completionTime, 'completionTime cannot be set before startTime'));
    }
  }
  if ((finishedChanged || changed('active')) && active > 0 && finished(job)) {
    errors.push(fieldErrors.invalid('status.active', active, 'active>0 is invalid for finished job'));
  }
  if ((finishedChanged || changed('startTime')) && status.startTime === undefined && finished(job)) {
    errors.push(fieldErrors.required('status.startTime', 'startTime is required for finished job'));
  }
  if ((finishedChanged || changed('uncountedTerminatedPods')) && finished(job) && uncounted) {
    const pending = (Array.isArray(uncounted.succeeded) ? uncounted.succeeded.length : 0) + (Array.isArray(uncounted.failed) ? uncounted.failed.length : 0);
    if (pending > 0)
      errors.push(fieldErrors.invalid('status.uncountedTerminatedPods', uncounted, 'uncountedTerminatedPods needs to be empty for finished job'));
  }
  if (changed('completedIndexes') && completions !== undefined) {
    const detail = indexesError(typeof status.completedIndexes === 'string' ? status.completedIndexes : '', completions);
    if (detail !== undefined) errors.push(fieldErrors.invalid('status.completedIndexes', status.completedIndexes, `error parsing completedIndexes: ${detail}`));
  }
  if (changed('failedIndexes') && completions !== undefined && spec.backoffLimitPerIndex !== undefined && typeof status.failedIndexes === 'string') {
    const detail = indexesError(status.failedIndexes, completions);
    if (detail !== undefined) errors.push(fieldErrors.invalid('status.failedIndexes', status.failedIndexes, `error parsing failedIndexes: ${detail}`));
  }
  if (changed('completedIndexes') && typeof status.completedIndexes === 'string' && status.completedIndexes !== '' && !indexed) {
    errors.push(
      fieldErrors.invalid('status.completedIndexes', status.completedIndexes, 'cannot set non-empty completedIndexes when non-indexed completion mode'),
    );
  }
  if (changed('failedIndexes') && spec.backoffLimitPerIndex === undefined && status.failedIndexes !== undefined) {
    errors.push(fieldErrors.invalid('status.failedIndexes', status.failedIndexes, 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'));
  }
  if ((changed('failedIndexes') || changed('completedIndexes')) && completions !== undefined && typeof status.failedIndexes === 'string') {
    const at = overlappingIndex(typeof status.completedIndexes === 'string' ? status.completedIndexes : '', status.failedIndexes, completions);
    if (at !== undefined)
      errors.push(fieldErrors.invalid('status.failedIndexes', status.failedIndexes, `failedIndexes and completedIndexes overlap at index: ${at}`));
  }
  const successCriteriaMet = (j: ApiObject) => conditionTrue(j, 'SuccessCriteriaMet');
  if (successCriteriaMet(job) && failed(job))
    errors.push(fieldErrors.invalid('status.conditions', undefined, 'cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (successCriteriaMet(job) && conditionTrue(job, 'FailureTarget')) {
    errors.push(fieldErrors.invalid('status.conditions', undefined, 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  }
  if (spec.successPolicy !== undefined && !successCriteriaMet(job) && complete(job)) {
    errors.push(fieldErrors.invalid('status.conditions', undefined, 'cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'));
  }
  // Transitions.
  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (conditionTrue(current, type) && !conditionTrue(job, type)) {
      errors.push(fieldErrors.invalid('status.conditions', undefined, `cannot disable the terminal ${type}=True condition`));
    }
  }
  if ((num(status.failed) ?? 0) < (num(old.failed) ?? 0))
    errors.push(fieldErrors.invalid('status.failed', num(status.failed) ?? 0, 'cannot decrease the failed counter'));
  // An Indexed Job scaled down together (completions equal to parallelism) may lose succeeded pods.
  if ((!indexed || spec.completions !== spec.parallelism) && (num(status.succeeded) ?? 0) < (num(old.succeeded) ?? 0)) {
    errors.push(fieldErrors.invalid('status.succeeded', num(status.succeeded) ?? 0, 'cannot decrease the succeeded counter'));
  }
  if (status.completionTime !== undefined && old.completionTime !== undefined && status.completionTime !== old.completionTime) {
    errors.push(fieldErrors.invalid('status.completionTime', status.completionTime, 'completionTime cannot be mutated'));
  }
  if (old.startTime !== undefined && status.startTime !== old.startTime && spec.suspend !== true) {
    errors.push(fieldErrors.required('status.startTime', 'startTime cannot be removed for unsuspended job'));
  }
  if (successCriteriaMet(current) && !successCriteriaMet(job)) {
    errors.push(fieldErrors.invalid('status.conditions', undefined, 'cannot disable the SuccessCriteriaMet=True condition'));
  }
  if (complete(current) && !successCriteriaMet(current) && successCriteriaMet(job)) {
    errors.push(fieldErrors.invalid('status.conditions', undefined, 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'));
  }
  return errors;
}

/** Kubernetes' hasJobCondition: the first condition of the type decides. */
function hasCondition(job: Job, type: string): boolean {
  const condition = (job.status?.conditions ?? []).find((c) => c.type === type);
  return condition?.status === 'True';
}

/** The STATUS column of `kubectl get jobs`. */
function jobStatusCell(job: Job): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function completionsCell(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (job.spec?.completions !== undefined) return `${succeeded}/${job.spec.completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function durationCell(job: Job, now: Date): string {
  const start = job.status?.startTime;
  if (start === undefined) return '';
  const completion = job.status?.completionTime;
  if (completion === undefined) return timestampSince(start, now);
  return humanDuration(Date.parse(completion) - Date.parse(start));
}

/** Warnings Kubernetes gives for a new Job (WarningsOnCreate). */
function jobWarnings(job: ApiObject, current: ApiObject | undefined): string[] {
  if (current !== undefined) return [];
  const messages = isDNS1123Label(job.metadata?.name ?? '');
  return messages.length === 0
    ? []
    : [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${messages.join(' ')}]`];
}

/** Kubernetes' Job (batch/v1), run by the job controller. */
export const jobDefinition = defineKind({
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  resource: 'jobs',
  namespaced: true,
  categories: ['all'],
  subresources: { status: true },
  strategy: {
    podSpec: { path: ['spec', 'template', 'spec'], template: true },
    // batch/v1 keeps the Job's pods when a delete names no propagation policy, as Kubernetes did before
    // the garbage collector (kubectl asks for Background).
    defaultPropagationPolicy: 'Orphan',
    // jobStrategy.PrepareForCreate: the selector the server makes, and an empty status. The Job's own
    // labels default to the template's, as decoding (before) and reading back from the store (after the
    // selector is made) do in Kubernetes.
    prepareForCreate(job) {
      job.status = {};
      // The pods are labelled with the Job's name: with a generateName, once the name is made.
      if (!job.metadata?.name) return;
      defaultJobLabels(job);
      generateSelector(job);
      defaultJobLabels(job);
    },
    warnings: jobWarnings,
    validateUpdate: validateJobUpdate,
    status: { validateUpdate: validateJobStatusUpdate },
  },
  schema: JobSchema,
  fieldSelectors: { 'status.successful': (o) => String(as<Job>(o).status?.succeeded ?? 0) },
  columns: [
    nameColumn(),
    column('Status', 'string', (o) => jobStatusCell(as<Job>(o)), { description: 'Status of the job.' }),
    column('Completions', 'string', (o) => completionsCell(as<Job>(o)), {
      description:
        'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.',
    }),
    column('Duration', 'string', (o, { now }) => durationCell(as<Job>(o), now), { description: 'Time required to complete the job.' }),
    ageColumn(),
    column('Containers', 'string', (o) => containerCells(as<Job>(o).spec?.template?.spec?.containers).names, {
      priority: 1,
      description: 'Names of each container in the template.',
    }),
    column('Images', 'string', (o) => containerCells(as<Job>(o).spec?.template?.spec?.containers).images, {
      priority: 1,
      description: 'Images referenced by each container in the template.',
    }),
    column('Selector', 'string', (o) => selectorCell(as<Job>(o).spec?.selector), {
      priority: 1,
      description:
        'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
    }),
  ],
  defaultHooks: [(o) => defaultJobSpec(o.spec), (o) => defaultPodSpec(templateOf(specOf(o)).spec), defaultJobLabels],
  validationRules: [validateJob],
});
