import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { UserInfo } from '@svc/machinery';
import type { RequestInfo } from '../request/request-info';
import { AUDIT_LEVELS, AUDIT_STAGES, type AuditLevel, type AuditStage } from './audit-event';

interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface AuditPolicyRule {
  level: AuditLevel;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: AuditStage[];
  omitManagedFields?: boolean;
}

/** An audit.k8s.io/v1 Policy: the first matching rule decides; no match means level None. */
export interface AuditPolicy {
  rules: AuditPolicyRule[];
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

/** What the policy decided for one request. */
export interface AuditDecision {
  level: AuditLevel;
  omitStages: ReadonlySet<AuditStage>;
  omitManagedFields: boolean;
}

const API_VERSIONS = ['audit.k8s.io/v1', 'audit.svc.io/v1'];
const MAX_RULES = 10_000;

/** Reads `--audit-policy-file`; throws one line naming what is wrong. */
export function loadAuditPolicy(path: string): AuditPolicy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`--audit-policy-file: cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return parseAuditPolicy(text);
  } catch (error) {
    throw new Error(`--audit-policy-file ${path}: ${(error as Error).message}`);
  }
}

export function parseAuditPolicy(text: string): AuditPolicy {
  const doc = object(parseYaml(text, { maxAliasCount: 0 }) as unknown, 'the file');
  if (doc.kind !== 'Policy') throw new Error(`kind must be Policy, got ${JSON.stringify(doc.kind)}`);
  if (!API_VERSIONS.includes(String(doc.apiVersion)))
    throw new Error(`apiVersion must be one of ${API_VERSIONS.join(', ')}, got ${JSON.stringify(doc.apiVersion)}`);
  const rules = list(doc.rules, 'rules');
  if (rules.length === 0) throw new Error('rules: at least one rule is required');
  if (rules.length > MAX_RULES) throw new Error(`rules: at most ${MAX_RULES} rules`);
  return {
    rules: rules.map((r, i) => rule(r, `rules[${i}]`)),
    omitStages: stages(doc.omitStages, 'omitStages'),
    omitManagedFields: doc.omitManagedFields === true,
  };
}

function rule(value: unknown, where: string): AuditPolicyRule {
  const r = object(value, where);
  const level = r.level;
  if (!AUDIT_LEVELS.includes(level as AuditLevel)) throw new Error(`${where}.level must be one of ${AUDIT_LEVELS.join(', ')}, got ${JSON.stringify(level)}`);
  const resources = list(r.resources, `${where}.resources`).map((g, i) => {
    const entry = object(g, `${where}.resources[${i}]`);
    return {
      group: typeof entry.group === 'string' ? entry.group : '',
      resources: strings(entry.resources, `${where}.resources[${i}].resources`),
      resourceNames: strings(entry.resourceNames, `${where}.resources[${i}].resourceNames`),
    };
  });
  const nonResourceURLs = strings(r.nonResourceURLs, `${where}.nonResourceURLs`);
  const namespaces = strings(r.namespaces, `${where}.namespaces`);
  if (nonResourceURLs.length > 0 && (resources.length > 0 || namespaces.length > 0)) {
    throw new Error(`${where}: rules cannot apply to both regular resources and non-resource URLs`);
  }
  for (const url of nonResourceURLs) {
    if (!url.startsWith('/') && url !== '*') throw new Error(`${where}.nonResourceURLs: ${JSON.stringify(url)} must start with /`);
    if (url.slice(0, -1).includes('*')) throw new Error(`${where}.nonResourceURLs: ${JSON.stringify(url)} may hold * only at its end`);
  }
  return {
    level: level as AuditLevel,
    users: strings(r.users, `${where}.users`),
    userGroups: strings(r.userGroups, `${where}.userGroups`),
    verbs: strings(r.verbs, `${where}.verbs`),
    resources,
    namespaces,
    nonResourceURLs,
    omitStages: stages(r.omitStages, `${where}.omitStages`),
    omitManagedFields: typeof r.omitManagedFields === 'boolean' ? r.omitManagedFields : undefined,
  };
}

/** The level and stages for a request, by the first rule that matches it (Kubernetes' policy checker). */
export function evaluatePolicy(policy: AuditPolicy, user: UserInfo | undefined, info: RequestInfo): AuditDecision {
  const matched = policy.rules.find((r) => ruleMatches(r, user, info));
  if (!matched) return { level: 'None', omitStages: new Set(), omitManagedFields: false };
  return {
    level: matched.level,
    omitStages: new Set([...policy.omitStages, ...matched.omitStages]),
    omitManagedFields: matched.omitManagedFields ?? policy.omitManagedFields,
  };
}

function ruleMatches(r: AuditPolicyRule, user: UserInfo | undefined, info: RequestInfo): boolean {
  if (r.users.length > 0 && (!user || !r.users.includes(user.name))) return false;
  if (r.userGroups.length > 0 && (!user || !user.groups.some((g) => r.userGroups.includes(g)))) return false;
  if (r.verbs.length > 0 && !r.verbs.includes(info.verb)) return false;
  if (r.namespaces.length > 0 || r.resources.length > 0) return resourceMatches(r, info);
  if (r.nonResourceURLs.length > 0) return nonResourceMatches(r, info);
  return true;
}

function resourceMatches(r: AuditPolicyRule, info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  // "" in namespaces stands for cluster-scoped requests.
  if (r.namespaces.length > 0 && !r.namespaces.includes(info.namespace)) return false;
  if (r.resources.length === 0) return true;
  const combined = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  return r.resources.some((g) => {
    if (canonicalGroup(g.group) !== canonicalGroup(info.group)) return false;
    if (g.resources.length === 0) return true;
    if (g.resourceNames.length > 0 && !g.resourceNames.includes(info.name)) return false;
    return g.resources.some(
      (res) =>
        res === combined ||
        res === '*' ||
        (info.subresource !== '' && res === `*/${info.subresource}`) ||
        (info.subresource !== '' && res === `${info.resource}/*`),
    );
  });
}

function nonResourceMatches(r: AuditPolicyRule, info: RequestInfo): boolean {
  if (info.isResourceRequest) return false;
  return r.nonResourceURLs.some((url) => url === '*' || url === info.path || (url.endsWith('*') && info.path.startsWith(url.slice(0, -1))));
}

/** A rule naming a group's `k8s.io` name matches requests through its `svc.io` name too. */
function canonicalGroup(group: string): string {
  return group.endsWith('.svc.io') ? `${group.slice(0, -'.svc.io'.length)}.k8s.io` : group;
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${where} must be an object`);
  return value as Record<string, unknown>;
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${where} must be a list`);
  return value;
}

function strings(value: unknown, where: string): string[] {
  return list(value, where).map((v) => {
    if (typeof v !== 'string') throw new Error(`${where} must be a list of strings`);
    return v;
  });
}

function stages(value: unknown, where: string): AuditStage[] {
  return strings(value, where).map((s) => {
    if (!AUDIT_STAGES.includes(s as AuditStage)) throw new Error(`${where}: unknown stage ${JSON.stringify(s)}; use ${AUDIT_STAGES.join(', ')}`);
    return s as AuditStage;
  });
}
