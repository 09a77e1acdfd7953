import { FLOWCONTROL_ALL, storedNamespace, type FlowSchema, type FlowSubject, type NonResourcePolicyRule, type ResourcePolicyRule } from '@svc/api';
import { specGroupName, type UserInfo } from '@svc/machinery';
import type { RequestInfo } from '../request/request-info';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

function subjectMatches(subject: FlowSubject, user: UserInfo): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.user?.name === FLOWCONTROL_ALL || subject.user?.name === user.name;
    case 'Group': {
      const name = subject.group?.name;
      return name === FLOWCONTROL_ALL || (name !== undefined && (user.groups ?? []).includes(name));
    }
    case 'ServiceAccount': {
      const sa = subject.serviceAccount;
      if (sa === undefined || !user.name.startsWith(SERVICE_ACCOUNT_PREFIX)) return false;
      const [namespace, name] = user.name.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
      // kube-system and svc-system are one namespace, under either name.
      return storedNamespace(sa.namespace) === storedNamespace(namespace) && (sa.name === FLOWCONTROL_ALL || sa.name === name);
    }
    default:
      return false;
  }
}

const listHas = (list: readonly string[] | undefined, value: string): boolean => (list ?? []).some((v) => v === FLOWCONTROL_ALL || v === value);

function resourceRuleMatches(rule: ResourcePolicyRule, info: RequestInfo): boolean {
  if (!listHas(rule.verbs, info.verb)) return false;
  // A group is matched under the spec's name and Kubernetes' name alike.
  const group = specGroupName(info.group);
  if (!(rule.apiGroups ?? []).some((g) => g === FLOWCONTROL_ALL || specGroupName(g) === group)) return false;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  if (!listHas(rule.resources, resource)) return false;
  if (info.namespace === '') return rule.clusterScope === true;
  return (rule.namespaces ?? []).some((ns) => ns === FLOWCONTROL_ALL || storedNamespace(ns) === storedNamespace(info.namespace));
}

function nonResourceRuleMatches(rule: NonResourcePolicyRule, info: RequestInfo): boolean {
  if (!listHas(rule.verbs, info.verb)) return false;
  return (rule.nonResourceURLs ?? []).some((url) => {
    if (url === FLOWCONTROL_ALL || url === info.path) return true;
    return url.endsWith('/*') && info.path.startsWith(url.slice(0, -1));
  });
}

/** Whether a FlowSchema matches a request of `user` (Kubernetes' matchesFlowSchema). */
export function flowSchemaMatches(schema: FlowSchema, info: RequestInfo, user: UserInfo): boolean {
  return (schema.spec?.rules ?? []).some((rule) => {
    if (!(rule.subjects ?? []).some((s) => subjectMatches(s, user))) return false;
    if (info.isResourceRequest) return (rule.resourceRules ?? []).some((r) => resourceRuleMatches(r, info));
    return (rule.nonResourceRules ?? []).some((r) => nonResourceRuleMatches(r, info));
  });
}

/** Kubernetes' order of FlowSchemas: matching precedence, then name. */
export function compareFlowSchemas(a: FlowSchema, b: FlowSchema): number {
  const pa = a.spec?.matchingPrecedence ?? 0;
  const pb = b.spec?.matchingPrecedence ?? 0;
  if (pa !== pb) return pa - pb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}
