import fc from 'fast-check';
import { protobufKinds } from '@svc/machinery';
import {
  applyArbitrary,
  jsonPatchArbitrary,
  mergePatchArbitrary,
  objectArbitrary,
  setPath,
  strategicPatchArbitrary,
  SURPRISES,
  type GeneratedDocument,
} from './body-arbitrary';
import { CUSTOM_GROUP, fixtureBody, fixtureName } from './fixtures';
import { NS, type BodySpec, type Family, type FuzzInput, type ValueBody } from './fuzz-input';
import type { FuzzModel, ResourceModel } from './fuzz-model';
import { encodeSegment, namespaceArbitrary, nameArbitrary, pathArbitrary, segmentsOf } from './path-arbitrary';
import { queryArbitrary, withLeadingPairs, type GeneratedQuery } from './query-arbitrary';

export interface InputOptions {
  /** The server's `--min-request-timeout`: a watch without its own timeout lasts up to twice this. */
  minRequestTimeoutSeconds: number;
}

export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';
export const STRATEGIC_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

const GARBAGE_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  '*/*',
  'application/',
  ';;;',
  'application/vnd.svc.protobuf;stream=watch',
  'application/json-seq',
  'x'.repeat(10_000),
  'application/apply-patch+cbor',
];

const ACCEPTS = [
  'application/json',
  'application/yaml',
  'application/vnd.svc.protobuf',
  'application/vnd.svc.protobuf, application/json',
  'application/json;as=Table;g=meta.svc.io;v=v1',
  'application/json;as=Table;g=meta.k8s.io;v=v1',
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
  'application/json;as=Table;g=meta.svc.io;v=v9',
  '*/*',
  'application/*;q=0.5',
  'text/html',
  'application/json;q=0',
  'application/xml, text/plain',
  ';;;,,,',
  'x'.repeat(20_000),
];

/** Accept, mostly absent or JSON. */
function acceptHeader(): fc.Arbitrary<Array<[string, string]>> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant<Array<[string, string]>>([]) },
    { weight: 6, arbitrary: fc.constant<Array<[string, string]>>([['Accept', 'application/json']]) },
    { weight: 4, arbitrary: fc.constantFrom(...ACCEPTS).map((accept): Array<[string, string]> => [['Accept', accept]]) },
  );
}

const PROTOBUF_KINDS = new Set(protobufKinds().map((k) => `${k.apiVersion}/${k.kind}`));

type Encoding = ValueBody['encoding'] | 'garbage';

function encodingArbitrary(resource: ResourceModel): fc.Arbitrary<Encoding> {
  const protobuf = !resource.custom;
  const kubernetesProtobuf = PROTOBUF_KINDS.has(`${resource.apiVersion}/${resource.kind}`);
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant<Encoding>('json') },
    { weight: 3, arbitrary: fc.constant<Encoding>('yaml') },
    { weight: protobuf ? 2 : 0, arbitrary: fc.constant<Encoding>('svc-protobuf') },
    { weight: kubernetesProtobuf ? 2 : 0, arbitrary: fc.constant<Encoding>('kubernetes-protobuf') },
    { weight: 1, arbitrary: fc.constant<Encoding>('garbage') },
  );
}

function contentTypeFor(encoding: Encoding, pick: number): string {
  switch (encoding) {
    case 'json':
      return ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON'][pick % 3];
    case 'yaml':
      return ['application/yaml', 'application/yaml; charset=utf-8'][pick % 2];
    case 'svc-protobuf':
      return 'application/vnd.svc.protobuf';
    case 'kubernetes-protobuf':
      return 'application/vnd.kubernetes.protobuf';
    default:
      return GARBAGE_CONTENT_TYPES[pick % GARBAGE_CONTENT_TYPES.length];
  }
}

function bodyOf(doc: GeneratedDocument, encoding: Encoding, liveResourceVersion = false): BodySpec {
  return { encoding: encoding === 'garbage' ? 'json' : encoding, value: doc.value, ...(liveResourceVersion ? { liveResourceVersion } : {}) };
}

function kindLabel(resource: ResourceModel): string {
  return `${resource.apiVersion}/${resource.kind}`;
}

/** Resources that support a verb (and, for object verbs, are not the fixture CRD, whose loss costs a rebuild). */
function supporting(model: FuzzModel, verb: string): ResourceModel[] {
  return model.resources.filter((r) => r.verbs.includes(verb));
}

function base(family: Family, label: string, method: string, path: string, query: GeneratedQuery): FuzzInput {
  const input: FuzzInput = { family, label, method, path, query: query.pairs, headers: [], mustRefuse: [...query.mustRefuse] };
  if (query.shouldRefuse.length > 0) input.shouldRefuse = [...query.shouldRefuse];
  return input;
}

function objectTarget(resource: ResourceModel, namespace: string, name: string): FuzzInput['target'] {
  return { apiVersion: resource.apiVersion, kind: resource.kind, namespace: resource.namespaced ? namespace : '', name };
}

function withNamespacePath(resource: ResourceModel, namespace: string, name?: string): string {
  const segments = segmentsOf(resource, namespace, name, undefined, false).map(encodeSegment);
  return `/${segments.join('/')}`;
}

function createArbitrary(model: FuzzModel): fc.Arbitrary<FuzzInput> {
  return fc.constantFrom(...supporting(model, 'create')).chain((resource) =>
    fc
      .record({
        namespace: namespaceArbitrary(),
        name: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('fz-a', 'fz-b', 'fz-c', 'fz-d') }, { weight: 1, arbitrary: nameArbitrary(resource) }),
        encoding: encodingArbitrary(resource),
        pick: fc.nat(),
        query: queryArbitrary('create'),
        accept: acceptHeader(),
        namespaceMismatch: fc.constantFrom(false, false, false, false, false, false, false, true),
      })
      .chain((r) => objectArbitrary(resource, r.name).map((doc) => ({ ...r, doc })))
      .map(({ namespace, name, encoding, pick, query, accept, namespaceMismatch, doc }) => {
        const input = base('create', `${kindLabel(resource)}:${encoding}:${doc.label}`, 'POST', withNamespacePath(resource, namespace), query);
        let value = doc.value;
        if (namespaceMismatch && resource.namespaced && typeof value === 'object' && value !== null && !Array.isArray(value)) {
          value = setPath(value as Record<string, unknown>, 'metadata.namespace', 'other-namespace');
          input.mustRefuse.push('a body whose namespace differs from the one in the path');
        }
        input.mustRefuse.push(...doc.mustRefuse);
        input.headers = [['Content-Type', contentTypeFor(encoding, pick)], ...accept];
        input.body = bodyOf({ ...doc, value }, encoding);
        input.target = objectTarget(resource, namespace, name);
        return input;
      }),
  );
}

function updateArbitrary(model: FuzzModel): fc.Arbitrary<FuzzInput> {
  return fc.constantFrom(...supporting(model, 'update')).chain((resource) =>
    fc
      .record({
        namespace: namespaceArbitrary(),
        name: nameArbitrary(resource),
        encoding: encodingArbitrary(resource),
        pick: fc.nat(),
        query: queryArbitrary('update'),
        accept: acceptHeader(),
        live: fc.constantFrom(true, true, true, false),
        mismatch: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'name', 'namespace', 'kind', 'apiVersion'),
      })
      .chain((r) => objectArbitrary(resource, r.name).map((doc) => ({ ...r, doc })))
      .map(({ namespace, name, encoding, pick, query, accept, live, mismatch, doc }) => {
        const input = base('update', `${kindLabel(resource)}:${encoding}:${doc.label}`, 'PUT', withNamespacePath(resource, namespace, name), query);
        let value = doc.value;
        const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
        if (isObject && mismatch !== 'none' && !(mismatch === 'namespace' && !resource.namespaced)) {
          const change = {
            name: ['metadata.name', 'fz-other'],
            namespace: ['metadata.namespace', 'other-namespace'],
            kind: ['kind', 'Other'],
            apiVersion: ['apiVersion', 'v9'],
          }[mismatch] as [string, string];
          value = setPath(value as Record<string, unknown>, change[0], change[1]);
          input.mustRefuse.push(`an update whose body has ${change[0]} ${JSON.stringify(change[1])}, not the object's`);
          input.label = `${kindLabel(resource)}:${encoding}:identity-${mismatch}`;
        }
        input.mustRefuse.push(...doc.mustRefuse);
        input.headers = [['Content-Type', contentTypeFor(encoding, pick)], ...accept];
        input.body = bodyOf({ ...doc, value }, encoding, live);
        input.target = objectTarget(resource, namespace, name);
        return input;
      }),
  );
}

const PATCH_TYPES = [MERGE_PATCH, JSON_PATCH, STRATEGIC_PATCH];

function patchArbitrary(model: FuzzModel): fc.Arbitrary<FuzzInput> {
  return fc.constantFrom(...supporting(model, 'patch')).chain((resource) =>
    fc
      .record({
        namespace: namespaceArbitrary(),
        name: nameArbitrary(resource),
        type: fc.oneof(
          { weight: 10, arbitrary: fc.constantFrom(...PATCH_TYPES) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('application/json', 'text/plain', '', 'application/merge-patch+yaml', 'application/json-patch+json; charset=utf-8'),
          },
        ),
        query: queryArbitrary('patch'),
        accept: acceptHeader(),
      })
      .chain((r) => {
        const mediaType = r.type.split(';')[0].trim();
        const docs =
          mediaType === JSON_PATCH
            ? jsonPatchArbitrary(resource)
            : mediaType === STRATEGIC_PATCH
              ? strategicPatchArbitrary(resource)
              : mergePatchArbitrary(resource);
        return docs.map((doc) => ({ ...r, doc }));
      })
      .map(({ namespace, name, type, query, accept, doc }) => {
        const input = base('patch', `${type.split(';')[0]}:${doc.label}`, 'PATCH', withNamespacePath(resource, namespace, name), query);
        // A patch with a content type that is no patch type is refused before it is read.
        if (PATCH_TYPES.includes(type.split(';')[0].trim())) input.mustRefuse.push(...doc.mustRefuse);
        input.headers = [['Content-Type', type], ...accept];
        input.body = { encoding: 'json', value: doc.value };
        input.target = objectTarget(resource, namespace, name);
        return input;
      }),
  );
}

function applyArbitraryInput(model: FuzzModel): fc.Arbitrary<FuzzInput> {
  return fc.constantFrom(...supporting(model, 'patch')).chain((resource) =>
    fc
      .record({
        namespace: namespaceArbitrary(),
        name: nameArbitrary(resource),
        query: queryArbitrary('apply'),
        manager: fc.constantFrom<string | undefined>('fuzzer', 'fuzzer', 'fuzzer', 'fuzzer-2', undefined),
        yaml: fc.boolean(),
        accept: acceptHeader(),
      })
      .chain((r) => applyArbitrary(resource, r.name).map((doc) => ({ ...r, doc })))
      .map(({ namespace, name, query, manager, yaml, accept, doc }) => {
        const withManager = manager !== undefined ? withLeadingPairs(query, [['fieldManager', manager]]) : query;
        const input = base(
          'apply',
          `${kindLabel(resource)}:${yaml ? 'yaml' : 'json'}:${doc.label}`,
          'PATCH',
          withNamespacePath(resource, namespace, name),
          withManager,
        );
        const managerGiven = withManager.pairs.find(([k]) => k === 'fieldManager');
        if (managerGiven === undefined || managerGiven[1] === '') input.mustRefuse.push('an apply without fieldManager (spec 1: required)');
        input.mustRefuse.push(...doc.mustRefuse);
        input.headers = [['Content-Type', APPLY_PATCH], ...accept];
        input.body = { encoding: yaml ? 'yaml' : 'json', value: doc.value };
        input.target = objectTarget(resource, namespace, name);
        return input;
      }),
  );
}

function readArbitrary(model: FuzzModel, verb: 'get' | 'list'): fc.Arbitrary<FuzzInput> {
  return fc.constantFrom(...supporting(model, verb)).chain((resource) =>
    fc
      .record({
        namespace: namespaceArbitrary(),
        name: nameArbitrary(resource),
        query: queryArbitrary(verb),
        accept: acceptHeader(),
        allNamespaces: fc.boolean(),
        head: fc.constantFrom(false, false, false, false, false, false, true),
      })
      .map(({ namespace, name, query, accept, allNamespaces, head }) => {
        const path =
          verb === 'get'
            ? withNamespacePath(resource, namespace, name)
            : allNamespaces && resource.namespaced
              ? `${resource.basePath}/${resource.resource}`
              : withNamespacePath(resource, namespace);
        const input = base(verb, `${kindLabel(resource)}${head ? ':HEAD' : ''}`, head ? 'HEAD' : 'GET', path, query);
        input.headers = accept;
        return input;
      }),
  );
}

function watchArbitrary(model: FuzzModel, options: InputOptions): fc.Arbitrary<FuzzInput> {
  const longest = 2 * options.minRequestTimeoutSeconds + 5;
  return fc.constantFrom(...supporting(model, 'watch')).chain((resource) =>
    fc
      .record({
        namespace: namespaceArbitrary(),
        name: fc.option(nameArbitrary(resource), { freq: 4 }),
        query: queryArbitrary('watch'),
        timeout: fc.oneof(
          { weight: 12, arbitrary: fc.constantFrom('1', '2', '3') },
          { weight: 2, arbitrary: fc.constantFrom('-5', '-1') },
          { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, '0') },
          { weight: 1, arbitrary: fc.constantFrom('abc', '1.5', '1s') },
        ),
        watchValue: fc.constantFrom('1', 'true', 'yes', ''),
        prefix: fc.constantFrom(false, false, false, true),
        accept: acceptHeader(),
      })
      .map(({ namespace, name, query, timeout, watchValue, prefix, accept }) => {
        const segments = segmentsOf(resource, namespace, name ?? undefined, undefined, prefix).map(encodeSegment);
        const withoutTimeout = query.pairs.filter(([k]) => k !== 'timeoutSeconds' && k !== 'watch');
        const pairs: Array<[string, string]> = [
          ...(prefix ? [] : [['watch', watchValue] as [string, string]]),
          ...(timeout !== undefined ? [['timeoutSeconds', timeout] as [string, string]] : []),
          ...withoutTimeout,
        ];
        // `.../configmaps/c1?watch=1` is a GET of one object in Kubernetes (only a collection's GET turns
        // into a list or a watch), whose options hold no selectors: nothing of the query is refused.
        const namedGet = name !== null && name !== undefined && !prefix;
        const mustRefuse = namedGet ? [] : query.mustRefuse.filter((reason) => !reason.startsWith('timeoutSeconds='));
        let deadlineSeconds: number;
        if (timeout !== undefined && /^\d+$/.test(timeout) && Number(timeout) > 0) deadlineSeconds = Number(timeout) + 5;
        else if (timeout !== undefined && /^-\d+$/.test(timeout)) deadlineSeconds = 5;
        else if (timeout === undefined || timeout === '0') deadlineSeconds = longest;
        else {
          if (!namedGet) mustRefuse.push(`timeoutSeconds=${JSON.stringify(timeout)} is not an integer`);
          deadlineSeconds = longest;
        }
        const input = base(
          'watch',
          `${kindLabel(resource)}:timeoutSeconds=${timeout ?? 'unset'}${prefix ? ':watch-prefix' : ''}`,
          'GET',
          `/${segments.join('/')}`,
          { ...query, pairs, mustRefuse },
        );
        input.headers = accept;
        input.watchDeadlineMs = deadlineSeconds * 1000;
        return input;
      }),
  );
}

function deleteOptionsArbitrary(): fc.Arbitrary<GeneratedDocument> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record(
          {
            gracePeriodSeconds: fc.constantFrom(0, 1, 30, -1),
            propagationPolicy: fc.constantFrom('Foreground', 'Background', 'Orphan'),
            dryRun: fc.constantFrom(['All'], []),
            preconditions: fc.constantFrom({ uid: 'not-the-uid' }, { resourceVersion: '1' }, {}),
          },
          { requiredKeys: [] },
        )
        .map((options) => {
          const value = { kind: 'DeleteOptions', apiVersion: 'v1', ...options };
          const failed = options.preconditions !== undefined && Object.keys(options.preconditions).length > 0;
          // Only for one object: a deletecollection that selects nothing has no precondition to fail.
          return {
            value,
            label: failed ? 'failed-precondition' : 'options',
            mustRefuse: failed ? ['a precondition that does not hold (uid or resourceVersion)'] : [],
          };
        }),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom<GeneratedDocument>(
        {
          value: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 'soon' },
          label: 'bad-grace',
          mustRefuse: ['gracePeriodSeconds that is not an integer'],
        },
        { value: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Bogus' }, label: 'bad-policy', mustRefuse: ['an unknown propagationPolicy'] },
        { value: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['Bogus'] }, label: 'bad-dry-run', mustRefuse: ['an unknown dryRun value'] },
        {
          value: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan', orphanDependents: true },
          label: 'policy-and-orphan',
          mustRefuse: ['propagationPolicy together with orphanDependents'],
        },
        { value: { kind: 'Pod', apiVersion: 'v1' }, label: 'wrong-kind', mustRefuse: [] },
        { value: [], label: 'not-an-object', mustRefuse: [] },
        { value: 'x', label: 'string', mustRefuse: [] },
      ),
    },
  );
}

const DELETE_PARAMETERS = /^(gracePeriodSeconds|propagationPolicy|dryRun|orphanDependents)=/;

function deleteArbitrary(model: FuzzModel, collection: boolean): fc.Arbitrary<FuzzInput> {
  const verb = collection ? 'deletecollection' : 'delete';
  return fc.constantFrom(...supporting(model, verb)).chain((resource) =>
    fc
      .record({
        namespace: namespaceArbitrary(),
        name: nameArbitrary(resource),
        query: queryArbitrary(verb),
        body: fc.option(fc.tuple(deleteOptionsArbitrary(), fc.constantFrom<Encoding>('json', 'json', 'yaml', 'garbage'), fc.nat()), { freq: 2 }),
        narrow: fc.constantFrom(true, true, true, false),
        accept: acceptHeader(),
      })
      .map(({ namespace, name, query, body, narrow, accept }) => {
        const path = collection ? withNamespacePath(resource, namespace) : withNamespacePath(resource, namespace, name);
        // A deletecollection that selects nothing most of the time: the fixtures are not there to be wiped each time.
        const narrowed = collection && narrow ? withLeadingPairs(query, [['labelSelector', 'fuzz=none']]) : query;
        const input = base(verb, `${kindLabel(resource)}${body ? `:body-${body[0].label}` : ''}`, 'DELETE', path, narrowed);
        input.headers = accept;
        if (body !== null) {
          const [doc, encoding, pick] = body;
          // With a body, DeleteOptions come from the body alone.
          input.mustRefuse = input.mustRefuse.filter((reason) => !DELETE_PARAMETERS.test(reason));
          if (encoding !== 'garbage') input.mustRefuse.push(...doc.mustRefuse.filter((reason) => !(collection && reason.startsWith('a precondition'))));
          input.headers = [...accept, ['Content-Type', contentTypeFor(encoding, pick)]];
          input.body = { encoding: 'json', value: doc.value };
        }
        if (!collection) input.target = objectTarget(resource, namespace, name);
        return input;
      }),
  );
}

function subresourceArbitrary(model: FuzzModel): fc.Arbitrary<FuzzInput> {
  const withSubresources = model.resources.filter((r) => r.subresources.length > 0);
  return fc.constantFrom(...withSubresources).chain((resource) =>
    fc
      .record({
        subresource: fc.constantFrom(...resource.subresources),
        method: fc.constantFrom('GET', 'PUT', 'PATCH', 'PATCH', 'POST', 'DELETE'),
        namespace: namespaceArbitrary(),
        name: nameArbitrary(resource),
        replicas: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constantFrom(...SURPRISES)),
        patchType: fc.constantFrom(MERGE_PATCH, JSON_PATCH, STRATEGIC_PATCH, APPLY_PATCH),
        query: queryArbitrary('patch'),
        accept: acceptHeader(),
      })
      .chain((r) => objectArbitrary(resource, r.name).map((doc) => ({ ...r, doc })))
      .map(({ subresource, method, namespace, name, replicas, patchType, query, accept, doc }) => {
        const segments = segmentsOf(resource, namespace, name, subresource, false).map(encodeSegment);
        const sent: GeneratedQuery =
          method === 'GET'
            ? { pairs: [], mustRefuse: [], shouldRefuse: [] }
            : patchType === APPLY_PATCH && method === 'PATCH'
              ? { ...withLeadingPairs(query, [['fieldManager', 'fuzzer']]), shouldRefuse: [] }
              : { ...query, shouldRefuse: method === 'PATCH' ? query.shouldRefuse : [] };
        const input = base(
          'subresource',
          `${resource.resource}/${subresource}:${method}${method === 'PATCH' ? `:${patchType}` : ''}`,
          method,
          `/${segments.join('/')}`,
          sent,
        );
        input.headers = accept;
        const scale = subresource === 'scale';
        if (method === 'PUT') {
          const value = scale ? { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas } } : doc.value;
          input.headers = [['Content-Type', 'application/json'], ...accept];
          input.body = { encoding: 'json', value, liveResourceVersion: !scale };
        } else if (method === 'PATCH') {
          const value =
            patchType === JSON_PATCH
              ? [{ op: 'replace', path: '/spec/replicas', value: replicas }]
              : patchType === APPLY_PATCH
                ? scale
                  ? { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas } }
                  : doc.value
                : { spec: { replicas }, status: { replicas } };
          input.headers = [['Content-Type', patchType], ...accept];
          input.body = { encoding: 'json', value };
        } else if (method === 'POST' || method === 'DELETE') {
          input.mustRefuse.push(`${method} on a ${subresource} subresource`);
          input.headers = [['Content-Type', 'application/json'], ...accept];
          input.body = { encoding: 'json', value: doc.value };
        }
        if (!scale && method !== 'GET') input.target = objectTarget(resource, namespace, name);
        return input;
      }),
  );
}

function pathFamilyArbitrary(model: FuzzModel): fc.Arbitrary<FuzzInput> {
  return fc
    .record({
      path: pathArbitrary(model),
      method: fc.constantFrom('GET', 'GET', 'DELETE', 'DELETE', 'PUT', 'PATCH', 'POST', 'HEAD', 'OPTIONS', 'FOO'),
    })
    .map(({ path, method }) => {
      const input: FuzzInput = {
        family: 'path',
        label: `${path.perturbation}:${method}`,
        method,
        path: path.path,
        query: [],
        headers: [],
        mustRefuse: [...path.mustRefuse],
      };
      if (method === 'PUT' || method === 'POST' || method === 'PATCH') {
        // The body a route would accept, so a wrongly matched route does real damage the oracles see.
        const name = fixtureName(path.resource);
        const body = fixtureBody(path.resource, name, NS) ?? { apiVersion: path.resource.apiVersion, kind: path.resource.kind, metadata: { name } };
        input.headers = [['Content-Type', method === 'PATCH' ? MERGE_PATCH : 'application/json']];
        input.body = {
          encoding: 'json',
          value: method === 'PATCH' ? { metadata: { labels: { touched: 'yes' } } } : body,
          liveResourceVersion: method === 'PUT',
        };
      }
      // Watches are not made here: a GET on a collection is a list.
      return input;
    });
}

function headersArbitrary(model: FuzzModel): fc.Arbitrary<FuzzInput> {
  const resources = model.resources.filter((r) => r.verbs.includes('list') && r.verbs.includes('create'));
  const oddHeaders = fc.constantFrom<Array<[string, string]>>(
    [['Accept', 'a'.repeat(17_000)]],
    [['Accept', 'application/json'.repeat(5000)]],
    [['Content-Type', 'application/json;'.repeat(1000)]],
    [['User-Agent', 'u'.repeat(5000)]],
    [['User-Agent', 'kubectl/v1.30 (linux/amd64) ' + 'x'.repeat(300)]],
    [['X-Fuzz', 'v'.repeat(70_000)]],
    Array.from({ length: 200 }, (_, i): [string, string] => [`X-Fuzz-${i}`, 'v']),
    [['Accept-Encoding', 'gzip']],
    [['Accept-Encoding', 'br, deflate, gzip;q=0.1']],
    [['Authorization', 'Bearer not-a-token']],
    [['Authorization', 'Basic ' + Buffer.from('a:b').toString('base64')]],
    [['Impersonate-User', 'someone']],
    [['Impersonate-Group', 'system:masters']],
    [['Expect', '100-continue']],
    [['Transfer-Encoding', 'chunked']],
    [['Connection', 'close']],
    [
      ['Accept', 'application/json'],
      ['Accept', 'application/yaml'],
    ],
    [
      ['Content-Type', 'application/json'],
      ['Content-Type', 'application/yaml'],
    ],
    [
      ['X-Forwarded-For', '1.2.3.4'],
      ['X-Remote-User', 'admin'],
      ['X-Remote-Group', 'system:masters'],
    ],
    [['Audit-ID', 'x'.repeat(1000)]],
  );
  return fc.constantFrom(...resources).chain((resource) =>
    fc.record({ headers: oddHeaders, write: fc.boolean(), namespace: namespaceArbitrary() }).map(({ headers, write, namespace }) => {
      const name = `fz-h-${resource.kind.toLowerCase()}`.slice(0, 60);
      const input: FuzzInput = {
        family: 'headers',
        label: `${headers[0][0]}${headers.length > 1 ? `x${headers.length}` : ''}:${headers[0][1].length}`,
        method: write ? 'POST' : 'GET',
        path: withNamespacePath(resource, namespace),
        query: [],
        headers: [...headers],
        mustRefuse: [],
      };
      if (write) {
        if (!headers.some(([k]) => k === 'Content-Type')) input.headers.push(['Content-Type', 'application/json']);
        input.body = {
          encoding: 'json',
          value: fixtureBody(resource, name, NS) ?? { apiVersion: resource.apiVersion, kind: resource.kind, metadata: { name } },
        };
      }
      return input;
    }),
  );
}

function nonResourceArbitrary(): fc.Arbitrary<FuzzInput> {
  const paths = fc.constantFrom(
    '/readyz',
    '/readyz?verbose',
    '/readyz?verbose&exclude=ping&exclude=nope',
    '/readyz/ping',
    '/readyz/nonexistent',
    '/livez',
    '/livez?exclude=x',
    '/healthz',
    '/healthz/',
    '/version',
    '/version/',
    '/api',
    '/api/',
    '/apis',
    '/apis/apps',
    '/apis/no.such.group',
    '/apis/apps/v9',
    '/openapi/v3',
    '/openapi/v3/api/v1?hash=bad',
    '/openapi/v3/apis/no/v1',
    '/openapi/v2',
    '/metrics',
    '/',
    '/nope',
    '/debug/pprof',
    '/.well-known/openid-configuration',
    '/api/v1/watch',
    '//readyz',
    '/readyz/../livez',
    '/%2e%2e/readyz',
  );
  return fc
    .record({ path: paths, method: fc.constantFrom('GET', 'GET', 'GET', 'POST', 'DELETE', 'HEAD', 'PUT'), accept: acceptHeader() })
    .map(({ path, method, accept }): FuzzInput => {
      const [p, q] = path.split('?');
      return {
        family: 'nonresource',
        label: `${p}:${method}`,
        method,
        path: p,
        query: [],
        ...(q !== undefined ? { rawQuery: q } : {}),
        headers: accept,
        mustRefuse: [],
      };
    });
}

/** Hostile bodies aimed at the objects that reach the deepest code: the fixture of each kind, the custom resource, ConfigMaps. */
function hostileArbitrary(model: FuzzModel): fc.Arbitrary<FuzzInput> {
  const writable = supporting(model, 'patch');
  const custom = writable.find((r) => r.group === CUSTOM_GROUP);
  const configMaps = writable.find((r) => r.group === '' && r.resource === 'configmaps');
  const deployments = writable.find((r) => r.resource === 'deployments');
  const favourites = [custom, configMaps, deployments].filter((r): r is ResourceModel => r !== undefined);
  const target = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...favourites) }, { weight: 1, arbitrary: fc.constantFrom(...writable) });
  const frame = fc.constantFrom('object-create', 'object-update', 'merge', 'strategic', 'json-patch', 'apply');

  const shapes = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        shape: fc.constant('deep-json'),
        frame,
        depth: fc.constantFrom(10, 1000, 9000, 9990, 10_020, 20_000, 100_000),
        container: fc.constantFrom('array', 'object'),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        shape: fc.constant('deep-yaml'),
        frame: fc.constantFrom('object-create', 'object-update', 'apply'),
        depth: fc.constantFrom(10, 1000, 9990, 10_020, 20_000, 100_000),
        style: fc.constantFrom('flow-seq', 'flow-map'),
      }),
    },
    // Block style costs depth squared in bytes: 1,000 levels is half a megabyte.
    {
      weight: 1,
      arbitrary: fc.record({
        shape: fc.constant('deep-yaml'),
        frame: fc.constantFrom('object-create', 'object-update', 'apply'),
        depth: fc.constantFrom(10, 100, 1000),
        style: fc.constant('block-seq'),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        shape: fc.constant('yaml-alias-bomb'),
        frame: fc.constantFrom('object-create', 'apply'),
        levels: fc.integer({ min: 1, max: 9 }),
        fanout: fc.integer({ min: 2, max: 10 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        shape: fc.constant('json-patch-many-ops'),
        frame: fc.constant('json-patch'),
        ops: fc.constantFrom(10, 1000, 10_000, 10_020, 20_000),
        op: fc.constantFrom('test', 'add', 'replace'),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        shape: fc.constant('json-patch-copy-amplification'),
        frame: fc.constant('json-patch'),
        valueBytes: fc.constantFrom(16, 1024),
        copies: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 10 }) }, { weight: 1, arbitrary: fc.integer({ min: 11, max: 20 }) }),
        container: fc.constantFrom('/metadata/annotations', '/data'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        shape: fc.constant('json-patch-deep-path'),
        frame: fc.constant('json-patch'),
        depth: fc.constantFrom(10, 1000, 10_000, 100_000),
        op: fc.constantFrom('add', 'remove', 'test', 'replace'),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        shape: fc.constant('lone-surrogate'),
        frame,
        unit: fc.constantFrom(0xd800, 0xdbff, 0xdc00, 0xdfff),
        form: fc.constantFrom('json-escape', 'json-escape', 'raw-utf8', 'yaml-escape'),
        where: fc.constantFrom('data-value', 'label-value', 'annotation-key', 'unknown-field'),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        shape: fc.constant('huge-number'),
        frame,
        literal: fc.constantFrom('1e400', '-1e400', '1e-400', '123456789012345678901234567890', '9007199254740993', '-0', '0.1e99999', '1E+2', '2e308', '1.0'),
        field: fc.constantFrom('spec.replicas', 'unknownField', 'metadata.generation', 'data.k', 'spec.free.n'),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        shape: fc.constant('duplicate-keys'),
        frame: fc.constant('object-create'),
        where: fc.constantFrom('metadata.name', 'kind', 'labels'),
        encoding: fc.constantFrom('json', 'yaml'),
        fieldValidation: fc.constantFrom('Strict', 'Warn', 'Ignore'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        shape: fc.constant('wide-object'),
        frame: fc.constantFrom('object-create', 'merge'),
        keys: fc.constantFrom(1000, 50_000, 150_000),
        field: fc.constantFrom('metadata.annotations', 'metadata.labels', 'data', 'unknownField'),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        shape: fc.constant('huge-body'),
        frame: fc.constant('object-create'),
        bytes: fc.constantFrom(1 << 20, 3 * (1 << 20) - 300, 3 * (1 << 20) + 1000, 8 << 20),
        chunked: fc.boolean(),
      }),
    },
  );

  return fc.record({ resource: target, shape: shapes, namespace: fc.constant(NS) }).map(({ resource, shape, namespace }) => {
    const { shape: name, frame: rawFrame, ...rest } = shape as Record<string, string | number | boolean> & { shape: string; frame: string };
    const create = rawFrame === 'object-create';
    const objectName = create ? 'fz-hostile' : fixtureName(resource);
    const field = name === 'deep-json' || name === 'deep-yaml' ? (resource.custom ? 'spec.free.deep' : 'deep') : (rest.field as string | undefined);
    const builderFrame = rawFrame.startsWith('object') ? 'object' : rawFrame;
    const params: Record<string, string | number | boolean> = {
      ...rest,
      frame: builderFrame,
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      name: objectName,
    };
    if (field !== undefined) params.field = field;
    const path = create ? withNamespacePath(resource, namespace) : withNamespacePath(resource, namespace, objectName);
    const method = create ? 'POST' : rawFrame === 'object-update' ? 'PUT' : 'PATCH';
    const yamlBody = name === 'deep-yaml' || name === 'yaml-alias-bomb' || params.form === 'yaml-escape' || params.encoding === 'yaml';
    const contentType =
      rawFrame === 'apply'
        ? APPLY_PATCH
        : rawFrame === 'merge'
          ? MERGE_PATCH
          : rawFrame === 'strategic'
            ? STRATEGIC_PATCH
            : rawFrame === 'json-patch'
              ? JSON_PATCH
              : yamlBody
                ? 'application/yaml'
                : 'application/json';
    const query: Array<[string, string]> = [];
    if (rawFrame === 'apply') query.push(['fieldManager', 'fuzzer']);
    if (typeof params.fieldValidation === 'string') query.push(['fieldValidation', params.fieldValidation]);
    const headers: Array<[string, string]> = [['Content-Type', contentType]];
    if (params.chunked === true) headers.push(['Transfer-Encoding', 'chunked']);
    const label = `${name}:${rawFrame}${params.depth !== undefined ? `:${params.depth}` : ''}${params.copies !== undefined ? `:copies=${params.copies}` : ''}${params.ops !== undefined ? `:ops=${params.ops}` : ''}`;
    return {
      family: 'hostile',
      label,
      method,
      path,
      query,
      headers,
      body: { encoding: 'hostile', shape: name, params },
      mustRefuse: [],
      target: objectTarget(resource, namespace, objectName),
    } satisfies FuzzInput;
  });
}

/**
 * One generated request of any family, weighted so that the deep paths (writes and patches on live
 * objects) get most of the run, and every family, kind, content type and patch type comes up often.
 */
export function inputArbitrary(model: FuzzModel, options: InputOptions): fc.Arbitrary<FuzzInput> {
  return fc.oneof(
    { weight: 10, arbitrary: createArbitrary(model) },
    { weight: 8, arbitrary: updateArbitrary(model) },
    { weight: 12, arbitrary: patchArbitrary(model) },
    { weight: 5, arbitrary: applyArbitraryInput(model) },
    { weight: 5, arbitrary: readArbitrary(model, 'get') },
    { weight: 6, arbitrary: readArbitrary(model, 'list') },
    { weight: 5, arbitrary: watchArbitrary(model, options) },
    { weight: 4, arbitrary: deleteArbitrary(model, false) },
    { weight: 2, arbitrary: deleteArbitrary(model, true) },
    { weight: 4, arbitrary: subresourceArbitrary(model) },
    { weight: 8, arbitrary: pathFamilyArbitrary(model) },
    { weight: 3, arbitrary: headersArbitrary(model) },
    { weight: 10, arbitrary: hostileArbitrary(model) },
    { weight: 2, arbitrary: nonResourceArbitrary() },
  );
}
