import type { CustomResourceDefinition, CustomResourceDefinitionNames, KindDefinition } from '@svc/api';

/** Names already claimed in one API group: resource names (plural, singular, short) and kinds (kind, list kind). */
export interface ClaimedNames {
  resources: Set<string>;
  kinds: Set<string>;
}

export interface NamesAcceptedCondition {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface NamesCheck {
  /**
   * The names this CRD may serve under: the requested ones that are free, else the ones accepted
   * before. Partial while some name was never accepted (see {@link servable}).
   */
  acceptedNames: Partial<CustomResourceDefinitionNames>;
  condition: NamesAcceptedCondition;
}

/** The requested names with Kubernetes' defaults: singular is the lower-case kind, listKind is `<Kind>List`. */
export function requestedNames(crd: CustomResourceDefinition): CustomResourceDefinitionNames {
  const n = crd.spec.names;
  return {
    plural: n.plural,
    singular: n.singular || n.kind.toLowerCase(),
    ...(n.shortNames?.length ? { shortNames: [...n.shortNames] } : {}),
    kind: n.kind,
    listKind: n.listKind || `${n.kind}List`,
    ...(n.categories?.length ? { categories: [...n.categories] } : {}),
  };
}

/** `<plural>.<group>`, the only name a CRD may have. */
export function expectedCrdName(crd: CustomResourceDefinition): string {
  return `${crd.spec.names.plural}.${crd.spec.group}`;
}

/**
 * Names taken in `group` by anything but the CRD named `self`: other CRDs' accepted names and the
 * built-in kinds of the group (their resource, singular and short names, kind and list kind).
 */
export function claimedNames(group: string, self: string, otherCrds: Iterable<CustomResourceDefinition>, builtins: Iterable<KindDefinition>): ClaimedNames {
  const claimed: ClaimedNames = { resources: new Set(), kinds: new Set() };
  for (const crd of otherCrds) {
    if (crd.metadata?.name === self || crd.spec?.group !== group) continue;
    const accepted = crd.status?.acceptedNames;
    if (!accepted) continue;
    for (const n of [accepted.plural, accepted.singular, ...(accepted.shortNames ?? [])]) if (n) claimed.resources.add(n);
    for (const n of [accepted.kind, accepted.listKind]) if (n) claimed.kinds.add(n);
  }
  for (const def of builtins) {
    if (def.group !== group || def.source.type !== 'builtin') continue;
    for (const n of [def.resource, def.singular, ...def.shortNames]) claimed.resources.add(n);
    claimed.kinds.add(def.kind);
    claimed.kinds.add(def.listKind);
  }
  return claimed;
}

function conflict(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  if (!requested || requested === accepted || !used.has(requested)) return undefined;
  return `"${requested}" is already in use`;
}

/**
 * Kubernetes' naming check: each requested name is taken if it equals the name accepted before
 * or nobody else claims it; a taken name keeps its previously accepted value and the condition
 * says which name conflicts (the last conflict found wins, as in Kubernetes).
 */
export function checkNames(crd: CustomResourceDefinition, claimed: ClaimedNames): NamesCheck {
  const requested = requestedNames(crd);
  const previous: Partial<CustomResourceDefinitionNames> = crd.status?.acceptedNames ?? {};
  const accepted: Partial<CustomResourceDefinitionNames> = { ...previous };
  let condition: NamesAcceptedCondition | undefined;
  const fail = (reason: string, message: string) => (condition = { status: 'False', reason, message });

  if (crd.metadata?.name !== expectedCrdName(crd)) {
    fail('InvalidName', `metadata.name must be spec.names.plural+"."+spec.group: ${JSON.stringify(expectedCrdName(crd))}`);
  }
  const scalar = (key: 'plural' | 'singular' | 'kind' | 'listKind', used: Set<string>, reason: string) => {
    const problem = conflict(requested[key], previous[key], used);
    if (problem) fail(reason, problem);
    else accepted[key] = requested[key];
  };
  scalar('plural', claimed.resources, 'PluralConflict');
  scalar('singular', claimed.resources, 'SingularConflict');

  const previousShort = new Set(previous.shortNames ?? []);
  const shortProblems = (requested.shortNames ?? [])
    .filter((s) => !previousShort.has(s))
    .map((s) => conflict(s, undefined, claimed.resources))
    .filter((p): p is string => p !== undefined);
  if (shortProblems.length) fail('ShortNamesConflict', shortProblems.length === 1 ? shortProblems[0] : `[${shortProblems.join(', ')}]`);
  else if (requested.shortNames) accepted.shortNames = [...requested.shortNames];
  else delete accepted.shortNames;

  scalar('kind', claimed.kinds, 'KindConflict');
  scalar('listKind', claimed.kinds, 'ListKindConflict');
  if (requested.categories) accepted.categories = [...requested.categories];
  else delete accepted.categories;

  return {
    acceptedNames: accepted,
    condition: condition ?? { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
  };
}

/** Whether accepted names are complete enough to serve under (they were accepted once). */
export function servable(names: Partial<CustomResourceDefinitionNames> | undefined): names is CustomResourceDefinitionNames {
  return !!names && !!names.plural && !!names.kind && !!names.singular && !!names.listKind;
}
