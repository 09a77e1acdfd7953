import { isDNS1123Label, isDNS1123Subdomain, isRecord, jsonEqual } from '@svc/machinery';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, PRIORITY_LEVEL_EXEMPT, FLOW_SCHEMA_EXEMPT } from '../../kinds/flowcontrol/bootstrap-configuration';
import {
  DistinguisherMethodTypes,
  FLOWCONTROL_ALL,
  FLOW_SCHEMA_DEFAULT_MATCHING_PRECEDENCE,
  FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE,
  FlowSchemaSchema,
  FlowSchemaVerbs,
  SubjectKinds,
  type FlowcontrolCondition,
  type FlowSchema,
  type FlowSubject,
  type NonResourcePolicyRule,
  type PolicyRulesWithSubjects,
  type ResourcePolicyRule,
} from '../../kinds/flowcontrol/flow-schema';
import {
  DEFAULT_NOMINAL_CONCURRENCY_SHARES,
  DEFAULT_QUEUING,
  LimitResponseTypes,
  MAX_QUEUES,
  PriorityLevelConfigurationSchema,
  PriorityLevelEnablements,
  type PriorityLevelConfiguration,
  type QueuingConfiguration,
} from '../../kinds/flowcontrol/priority-level-configuration';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

const GROUP = 'flowcontrol.apiserver.svc.io';
/** Kubernetes' shufflesharding.MaxHashBits: a hand must be dealt from 60 bits of a flow's hash. */
const MAX_HASH_BITS = 60;

/** shufflesharding.RequiredEntropyBits: the bits needed to deal `handSize` cards from `deckSize`. */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

/** SetDefaults_FlowSchemaSpec: an unset (or zero) precedence is 1000. */
function defaultFlowSchema(obj: ApiObject): void {
  const spec = obj.spec;
  if (!isRecord(spec)) return;
  if (spec.matchingPrecedence === undefined || spec.matchingPrecedence === 0) spec.matchingPrecedence = FLOW_SCHEMA_DEFAULT_MATCHING_PRECEDENCE;
}

/** Kubernetes' v1 defaults of a level: shares, lendable percentage and the queues. */
function defaultPriorityLevel(obj: ApiObject): void {
  const spec = obj.spec;
  if (!isRecord(spec)) return;
  if (isRecord(spec.limited)) {
    const limited = spec.limited;
    limited.nominalConcurrencyShares ??= DEFAULT_NOMINAL_CONCURRENCY_SHARES;
    limited.lendablePercent ??= 0;
    if (!isRecord(limited.limitResponse)) limited.limitResponse = {};
    const response = limited.limitResponse as Record<string, unknown>;
    response.type ??= '';
    if (isRecord(response.queuing)) {
      const queuing = response.queuing;
      if (!queuing.queues) queuing.queues = DEFAULT_QUEUING.queues;
      if (!queuing.handSize) queuing.handSize = DEFAULT_QUEUING.handSize;
      if (!queuing.queueLengthLimit) queuing.queueLengthLimit = DEFAULT_QUEUING.queueLengthLimit;
    }
  }
  if (isRecord(spec.exempt)) {
    spec.exempt.nominalConcurrencyShares ??= 0;
    spec.exempt.lendablePercent ??= 0;
  }
}

const hasWildcard = (values: readonly string[] | undefined): boolean => (values ?? []).includes(FLOWCONTROL_ALL);

function verbErrors(verbs: readonly string[] | undefined, path: string): FieldError[] {
  if (!verbs || verbs.length === 0) return [fieldErrors.required(`${path}.verbs`, 'verbs must contain at least one value')];
  if (hasWildcard(verbs)) return verbs.length > 1 ? [fieldErrors.invalid(`${path}.verbs`, verbs, "if '*' is present, must not specify other verbs")] : [];
  if (verbs.some((v) => !(FlowSchemaVerbs as readonly string[]).includes(v))) return [fieldErrors.notSupported(`${path}.verbs`, verbs, FlowSchemaVerbs)];
  return [];
}

function subjectErrors(subject: FlowSubject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const forbid = (field: 'user' | 'group' | 'serviceAccount', kind: string) => {
    if (subject[field] !== undefined) errors.push(fieldErrors.forbidden(`${path}.${field}`, `${field} is forbidden when subject kind is not '${kind}'`));
  };
  switch (subject.kind) {
    case 'ServiceAccount': {
      const sa = subject.serviceAccount;
      if (sa === undefined) errors.push(fieldErrors.required(`${path}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        if (!sa.name) errors.push(fieldErrors.required(`${path}.serviceAccount.name`));
        else if (sa.name !== FLOWCONTROL_ALL)
          for (const m of isDNS1123Subdomain(sa.name)) errors.push(fieldErrors.invalid(`${path}.serviceAccount.name`, sa.name, m));
        if (!sa.namespace) errors.push(fieldErrors.required(`${path}.serviceAccount.namespace`, 'must specify namespace for service account'));
        else for (const m of isDNS1123Label(sa.namespace)) errors.push(fieldErrors.invalid(`${path}.serviceAccount.namespace`, sa.namespace, m));
      }
      forbid('user', 'User');
      forbid('group', 'Group');
      break;
    }
    case 'User':
      if (subject.user === undefined) errors.push(fieldErrors.required(`${path}.user`, "user is required when subject kind is 'User'"));
      else if (!subject.user.name) errors.push(fieldErrors.required(`${path}.user.name`));
      forbid('serviceAccount', 'ServiceAccount');
      forbid('group', 'Group');
      break;
    case 'Group':
      if (subject.group === undefined) errors.push(fieldErrors.required(`${path}.group`, "group is required when subject kind is 'Group'"));
      else if (!subject.group.name) errors.push(fieldErrors.required(`${path}.group.name`));
      forbid('serviceAccount', 'ServiceAccount');
      forbid('user', 'User');
      break;
    default:
      errors.push(fieldErrors.notSupported(`${path}.kind`, subject.kind, SubjectKinds));
  }
  return errors;
}

function resourceRuleErrors(rule: ResourcePolicyRule, path: string): FieldError[] {
  const errors = verbErrors(rule.verbs, path);
  if (!rule.apiGroups?.length) errors.push(fieldErrors.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  else if (rule.apiGroups.length > 1 && hasWildcard(rule.apiGroups)) {
    errors.push(fieldErrors.invalid(`${path}.apiGroups`, rule.apiGroups, "if '*' is present, must not specify other api groups"));
  }
  if (!rule.resources?.length) errors.push(fieldErrors.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  else if (rule.resources.length > 1 && hasWildcard(rule.resources)) {
    errors.push(fieldErrors.invalid(`${path}.resources`, rule.resources, "if '*' is present, must not specify other resources"));
  }
  const namespaces = rule.namespaces ?? [];
  if (namespaces.length === 0 && !rule.clusterScope) {
    errors.push(fieldErrors.required(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (hasWildcard(namespaces)) {
    if (namespaces.length > 1) errors.push(fieldErrors.invalid(`${path}.namespaces`, namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const m of isDNS1123Label(ns)) {
        errors.push(fieldErrors.invalid(`${path}.namespaces[${i}]`, ns, `each member of this list must be '*' or a DNS-1123 label; ${m}`));
      }
    });
  }
  return errors;
}

/** ValidateNonResourceURLPath. */
function nonResourceUrlError(url: string, path: string): FieldError | undefined {
  if (url === '') return fieldErrors.invalid(path, url, 'must not be empty');
  if (url === '/') return undefined;
  if (!url.startsWith('/')) return fieldErrors.invalid(path, url, 'must start with slash');
  if (url.includes(' ')) return fieldErrors.invalid(path, url, 'must not contain white-space');
  if (url.includes('//')) return fieldErrors.invalid(path, url, 'must not contain double slash');
  const wildcards = url.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !url.endsWith('/*'))) return fieldErrors.invalid(path, url, 'wildcard can only do suffix matching');
  return undefined;
}

function nonResourceRuleErrors(rule: NonResourcePolicyRule, path: string): FieldError[] {
  const errors = verbErrors(rule.verbs, path);
  const urls = rule.nonResourceURLs ?? [];
  if (urls.length === 0) errors.push(fieldErrors.required(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  else if (hasWildcard(urls)) {
    if (urls.length > 1) errors.push(fieldErrors.invalid(`${path}.nonResourceURLs`, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((url, i) => {
      const error = nonResourceUrlError(url, `${path}.nonResourceURLs[${i}]`);
      if (error) errors.push(error);
    });
  }
  return errors;
}

function ruleErrors(rule: PolicyRulesWithSubjects, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (rule.subjects?.length) rule.subjects.forEach((s, i) => errors.push(...subjectErrors(s, `${path}.subjects[${i}]`)));
  else errors.push(fieldErrors.required(`${path}.subjects`, 'subjects must contain at least one value'));
  if (!rule.resourceRules?.length && !rule.nonResourceRules?.length) {
    errors.push(fieldErrors.required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  }
  (rule.resourceRules ?? []).forEach((r, i) => errors.push(...resourceRuleErrors(r, `${path}.resourceRules[${i}]`)));
  (rule.nonResourceRules ?? []).forEach((r, i) => errors.push(...nonResourceRuleErrors(r, `${path}.nonResourceRules[${i}]`)));
  return errors;
}

function conditionErrors(conditions: readonly FlowcontrolCondition[] | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (conditions ?? []).forEach((c, i) => {
    if (!c.type) errors.push(fieldErrors.required(`status.conditions[${i}].type`, 'must not be empty'));
    else if (seen.has(c.type)) errors.push(fieldErrors.duplicate(`status.conditions[${i}].type`, c.type));
    if (c.type) seen.add(c.type);
  });
  return errors;
}

/** ValidateFlowSchema: the spec, and the mandatory schemas' fixed specs. */
function validateFlowSchema(obj: ApiObject): FieldError[] {
  const fs = as<FlowSchema>(obj);
  const name = fs.metadata?.name ?? '';
  const spec = fs.spec ?? { priorityLevelConfiguration: { name: '' } };
  const errors: FieldError[] = [];
  const precedence = spec.matchingPrecedence ?? 0;
  if (precedence <= 0) errors.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE) {
    errors.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, `must not be greater than ${FLOW_SCHEMA_MAX_MATCHING_PRECEDENCE}`));
  }
  if (precedence === 1 && name !== FLOW_SCHEMA_EXEMPT) {
    errors.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  }
  const method = spec.distinguisherMethod;
  if (method !== undefined && !(DistinguisherMethodTypes as readonly string[]).includes(method.type)) {
    errors.push(fieldErrors.notSupported('spec.distinguisherMethod.type', method, DistinguisherMethodTypes));
  }
  const levelName = spec.priorityLevelConfiguration?.name ?? '';
  if (levelName === '') errors.push(fieldErrors.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  else for (const m of isDNS1123Subdomain(levelName)) errors.push(fieldErrors.invalid('spec.priorityLevelConfiguration.name', levelName, m));
  (spec.rules ?? []).forEach((rule, i) => errors.push(...ruleErrors(rule, `spec.rules[${i}]`)));
  const mandatory = MANDATORY_FLOW_SCHEMAS.find((m) => m.metadata?.name === name);
  if (mandatory !== undefined && !jsonEqual(fs.spec, mandatory.spec)) {
    errors.push(fieldErrors.invalid('spec', fs.spec, `spec of '${name}' must equal the fixed value`));
  }
  errors.push(...conditionErrors(fs.status?.conditions));
  return errors;
}

function queuingErrors(queuing: QueuingConfiguration, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const queues = queuing.queues ?? 0;
  const handSize = queuing.handSize ?? 0;
  const queueLengthLimit = queuing.queueLengthLimit ?? 0;
  if (queueLengthLimit <= 0) errors.push(fieldErrors.invalid(`${path}.queueLengthLimit`, queueLengthLimit, 'must be positive'));
  if (queues <= 0) errors.push(fieldErrors.invalid(`${path}.queues`, queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errors.push(fieldErrors.invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  if (handSize <= 0) errors.push(fieldErrors.invalid(`${path}.handSize`, handSize, 'must be positive'));
  else if (handSize > queues) errors.push(fieldErrors.invalid(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    errors.push(
      fieldErrors.invalid(
        `${path}.handSize`,
        handSize,
        `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`,
      ),
    );
  }
  return errors;
}

function percentErrors(value: number | undefined, path: string): FieldError[] {
  if (value === undefined || (value >= 0 && value <= 100)) return [];
  return [fieldErrors.invalid(path, value, 'must be between 0 and 100, inclusive')];
}

/** ValidatePriorityLevelConfiguration: the type against the name, the limited level's queues, the mandatory levels' fixed specs. */
function validatePriorityLevel(obj: ApiObject): FieldError[] {
  const pl = as<PriorityLevelConfiguration>(obj);
  const name = pl.metadata?.name ?? '';
  const spec = pl.spec ?? { type: '' };
  const errors: FieldError[] = [];
  if ((name === PRIORITY_LEVEL_EXEMPT) !== (spec.type === 'Exempt')) {
    errors.push(fieldErrors.invalid('spec.type', spec.type, "type must be 'Exempt' if and only if name is 'exempt'"));
  }
  switch (spec.type) {
    case 'Exempt':
      if (spec.limited !== undefined) errors.push(fieldErrors.forbidden('spec.limited', 'must be nil if the type is not Limited'));
      if (spec.exempt !== undefined) {
        const shares = spec.exempt.nominalConcurrencyShares;
        if (shares !== undefined && shares < 0)
          errors.push(fieldErrors.invalid('spec.exempt.nominalConcurrencyShares', shares, 'must be a non-negative integer'));
        errors.push(...percentErrors(spec.exempt.lendablePercent, 'spec.exempt.lendablePercent'));
      }
      break;
    case 'Limited': {
      if (spec.exempt !== undefined) errors.push(fieldErrors.forbidden('spec.exempt', 'must be nil if the type is Limited'));
      const limited = spec.limited;
      if (limited === undefined) {
        errors.push(fieldErrors.required('spec.limited', 'must not be empty when type is Limited'));
        break;
      }
      const shares = limited.nominalConcurrencyShares ?? 0;
      if (shares < 0) errors.push(fieldErrors.invalid('spec.limited.nominalConcurrencyShares', shares, 'must be a non-negative integer'));
      errors.push(...percentErrors(limited.lendablePercent, 'spec.limited.lendablePercent'));
      if (limited.borrowingLimitPercent !== undefined && limited.borrowingLimitPercent < 0) {
        errors.push(fieldErrors.invalid('spec.limited.borrowingLimitPercent', limited.borrowingLimitPercent, 'if specified, must be a non-negative integer'));
      }
      const response = limited.limitResponse ?? { type: '' };
      if (response.type === 'Reject') {
        if (response.queuing !== undefined)
          errors.push(fieldErrors.forbidden('spec.limited.limitResponse.queuing', 'must be nil if limited.limitResponse.type is not Limited'));
      } else if (response.type === 'Queue') {
        if (response.queuing === undefined) {
          errors.push(fieldErrors.required('spec.limited.limitResponse.queuing', 'must not be empty if limited.limitResponse.type is Limited'));
        } else errors.push(...queuingErrors(response.queuing, 'spec.limited.limitResponse.queuing'));
      } else errors.push(fieldErrors.notSupported('spec.limited.limitResponse.type', response.type, LimitResponseTypes));
      break;
    }
    default:
      errors.push(fieldErrors.notSupported('spec.type', spec.type, PriorityLevelEnablements));
  }
  const mandatory = MANDATORY_PRIORITY_LEVELS.find((m) => m.metadata?.name === name);
  if (mandatory !== undefined && !jsonEqual(pl.spec, mandatory.spec)) {
    errors.push(fieldErrors.invalid('spec', pl.spec, `spec of '${name}' must equal the fixed value`));
  }
  errors.push(...conditionErrors(pl.status?.conditions));
  return errors;
}

const conditionOf = (conditions: readonly FlowcontrolCondition[] | undefined, type: string) => (conditions ?? []).find((c) => c.type === type);

/** Kubernetes' FlowSchema (flowcontrol.apiserver.k8s.io/v1): which requests go to which priority level. */
export const flowSchemaDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'FlowSchema',
  resource: 'flowschemas',
  namespaced: false,
  subresources: { status: true },
  schema: FlowSchemaSchema,
  defaultHooks: [defaultFlowSchema],
  columns: [
    nameColumn(),
    column('PriorityLevel', 'string', (o) => as<FlowSchema>(o).spec?.priorityLevelConfiguration?.name ?? '', {
      description: 'The priority level the matched requests go to.',
    }),
    column('MatchingPrecedence', 'string', (o) => String(as<FlowSchema>(o).spec?.matchingPrecedence ?? ''), {
      description: 'Which schema a request goes to when several match: the lowest wins.',
    }),
    column('DistinguisherMethod', 'string', (o) => as<FlowSchema>(o).spec?.distinguisherMethod?.type ?? '<none>', {
      description: 'How matched requests are split into flows.',
    }),
    ageColumn(),
    column('MissingPL', 'string', (o) => conditionOf(as<FlowSchema>(o).status?.conditions, 'Dangling')?.status ?? '?', {
      description: 'Whether the priority level the schema names is missing.',
    }),
  ],
  validationRules: [validateFlowSchema],
});

/** Kubernetes' PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1): a share of the server's seats, with queues. */
export const priorityLevelConfigurationDefinition = defineKind({
  group: GROUP,
  version: 'v1',
  kind: 'PriorityLevelConfiguration',
  resource: 'prioritylevelconfigurations',
  namespaced: false,
  subresources: { status: true },
  schema: PriorityLevelConfigurationSchema,
  defaultHooks: [defaultPriorityLevel],
  columns: [
    nameColumn(),
    column('Type', 'string', (o) => as<PriorityLevelConfiguration>(o).spec?.type ?? '', { description: 'Exempt or Limited.' }),
    column('NominalConcurrencyShares', 'string', (o) => limitedCell(o, (l) => l.nominalConcurrencyShares), {
      description: "The level's part of the server's seats.",
    }),
    column('Queues', 'string', (o) => queuingCell(o, 'queues'), { description: 'How many queues the level has.' }),
    column('HandSize', 'string', (o) => queuingCell(o, 'handSize'), { description: 'How many queues each flow is dealt.' }),
    column('QueueLengthLimit', 'string', (o) => queuingCell(o, 'queueLengthLimit'), { description: 'How many requests a queue holds.' }),
    ageColumn(),
  ],
  validationRules: [validatePriorityLevel],
});

function limitedCell(o: ApiObject, get: (l: NonNullable<PriorityLevelConfiguration['spec']>['limited'] & object) => number | undefined): string {
  const limited = as<PriorityLevelConfiguration>(o).spec?.limited;
  return limited === undefined ? '<none>' : String(get(limited) ?? '<none>');
}

function queuingCell(o: ApiObject, field: keyof QueuingConfiguration): string {
  const queuing = as<PriorityLevelConfiguration>(o).spec?.limited?.limitResponse?.queuing;
  return queuing === undefined ? '<none>' : String(queuing[field] ?? '<none>');
}
