import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  decodeEnvelope,
  decodeKubernetesMessage,
  decodeProtobufObject,
  encodeEnvelope,
  encodeKubernetesMessage,
  encodeProtobufObject,
  kubernetesGroupName,
  kubernetesMessageNameFor,
  kubernetesMessageSource,
} from '@svc/machinery';
import { builtinScheme } from '../scheme/builtin-scheme';

/**
 * The gate of the protobuf codec: for every kind the server serves (read from the scheme, so a kind
 * added later is gated too), a fully populated fixture of that kind must come out of the codec
 * unchanged both ways: decoding its `.pb` gives its `.json`, encoding its `.json` gives its `.pb`,
 * byte for byte. The fixtures are Kubernetes' own `testdata/HEAD` objects of k8s.io/api at the tag
 * the table was extracted from, those of apiextensions-apiserver where a copy of them sits beside
 * k8s.io/api's, and fixtures of our own (testing/protobuf-fixtures) for kinds k8s.io/api has none of.
 */
const FIXTURE_DIRS: readonly FixtureDir[] = [
  { source: 'k8s.io/api', dir: findFixtures('shared/reference/k8s-api-testdata-v0.32.9') },
  { source: 'k8s.io/apiextensions-apiserver', dir: findFixtures('shared/reference/apiextensions-apiserver-testdata-v0.32.9', false) },
  // A CRD as a real one is written (every union form of its schema, maps whose keys sort by bytes),
  // its bytes checked against Kubernetes' generated.proto with another decoder when it was made.
  { source: 'own', dir: join(__dirname, 'testing/protobuf-fixtures') },
].filter((d): d is FixtureDir => d.dir !== undefined);

interface FixtureDir {
  source: string;
  dir: string | undefined;
}

/** The fixtures sit beside the checkout (as the specification does), some levels above a worktree. */
function findFixtures(relative: string, required = true): string | undefined {
  for (let dir = join(__dirname, '../../../..'); ; dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return join(dir, relative);
    if (dirname(dir) !== dir) continue;
    if (required) throw new Error(`no ${relative} above ${__dirname}`);
    return undefined;
  }
}

/** Served kinds that have no fixture, each with the reason. */
const WITHOUT_FIXTURE: Readonly<Record<string, string>> = {
  // kube-aggregator's types are not in k8s.io/api, whose fixtures these are; the protobuf e2e gate round-trips them.
  'apiregistration.k8s.io/v1/APIService': 'kube-aggregator types are not in k8s.io/api',
  'apiregistration.k8s.io/v1/APIServiceList': 'kube-aggregator types are not in k8s.io/api',
};

/** Kubernetes' kinds every group version serves, whatever kinds it holds. */
const META_KINDS = ['Status', 'DeleteOptions', 'WatchEvent'];

/** Bodies the API server's authentication and authorization endpoints serve beside the scheme's kinds. */
const REVIEW_KINDS: readonly ServedKind[] = [
  ...['TokenRequest', 'TokenReview', 'SelfSubjectReview'].map((kind) => ({ group: 'authentication.k8s.io', version: 'v1', kind })),
  ...['SubjectAccessReview', 'SelfSubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview'].map((kind) => ({
    group: 'authorization.k8s.io',
    version: 'v1',
    kind,
  })),
];

interface ServedKind {
  group: string;
  version: string;
  kind: string;
}

/** Every kind the scheme's built-in kinds are served with: the kinds, their lists, the bodies of their subresources. */
function servedKinds(): ServedKind[] {
  const out = new Map<string, ServedKind>();
  const add = (group: string, version: string, kind: string) => {
    const k8sGroup = kubernetesGroupName(group) ?? group;
    out.set(`${k8sGroup}/${version}/${kind}`, { group: k8sGroup, version, kind });
  };
  for (const def of builtinScheme().all()) {
    add(def.group, def.version, def.kind);
    add(def.group, def.version, def.listKind);
    for (const sub of Object.values(def.strategy.subresources ?? {})) {
      if (sub.create) add(sub.create.kind.group, sub.create.kind.version, sub.create.kind.kind);
    }
    if (def.subresources.scale) add('autoscaling', 'v1', 'Scale');
  }
  for (const kind of META_KINDS) add('', 'v1', kind);
  for (const { group, version, kind } of REVIEW_KINDS) add(group, version, kind);
  // Served by the API server's health checks, not the scheme (`kubectl get cs`).
  for (const kind of ['ComponentStatus', 'ComponentStatusList']) add('', 'v1', kind);
  return [...out.values()];
}

function keyOf(k: ServedKind): string {
  return `${k.group === '' ? '' : `${k.group}/`}${k.version}/${k.kind}`;
}

/** The fixtures of a kind (the path of each without its `.json` and `.pb`), with where each comes from. */
function fixturesOf(k: ServedKind): Array<{ source: string; base: string }> {
  const name = `${k.group === '' ? 'core' : k.group}.${k.version}.${k.kind}`;
  return FIXTURE_DIRS.map(({ source, dir }) => ({ source, base: join(dir as string, name) })).filter(({ base }) => existsSync(`${base}.pb`));
}

/** A list kind's fixture: Kubernetes keeps none, so the list of its kind's fixture stands for it. */
function listFixture(k: ServedKind): { json: Record<string, unknown>; pb: Buffer } | undefined {
  if (!k.kind.endsWith('List')) return undefined;
  const [item] = fixturesOf({ ...k, kind: k.kind.slice(0, -'List'.length) });
  if (item === undefined) return undefined;
  return { json: JSON.parse(readFileSync(`${item.base}.json`, 'utf8')) as Record<string, unknown>, pb: readFileSync(`${item.base}.pb`) };
}

const served = servedKinds();
const withFixture = served.flatMap((k) => fixturesOf(k).map((fixture) => ({ ...fixture, k })));
const lists = served.filter((k) => fixturesOf(k).length === 0 && listFixture(k) !== undefined);

describe('the protobuf codec against a fixture of every served kind', () => {
  it('has a fixture for every served kind, or a reason why not', () => {
    const missing = served.filter((k) => fixturesOf(k).length === 0 && !listFixture(k) && WITHOUT_FIXTURE[keyOf(k)] === undefined).map(keyOf);
    expect(missing).toEqual([]);
    // A reason for a kind no longer served, or that has a fixture now, leaves the list.
    const stale = Object.keys(WITHOUT_FIXTURE).filter((key) => !served.some((k) => keyOf(k) === key && fixturesOf(k).length === 0 && !listFixture(k)));
    expect(stale).toEqual([]);
    expect(withFixture.length).toBeGreaterThan(20);
  });

  it('was extracted from the release the fixtures come from', () => {
    expect(kubernetesMessageSource()).toEqual({
      'k8s.io/api': 'v0.32.9',
      'k8s.io/apimachinery': 'v0.32.9',
      'k8s.io/apiextensions-apiserver': 'v0.32.9',
      'k8s.io/kube-aggregator': 'v0.32.9',
    });
  });

  describe.each(withFixture.map(({ k, source, base }) => [keyOf(k), source, k, base] as const))('%s (%s fixture)', (_key, _source, k, base) => {
    const json = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Record<string, unknown>;
    const pb = readFileSync(`${base}.pb`);

    it('has a message in the table', () => {
      expect(message).not.toEqual('');
    });

    // A watch event's fixture carries no type meta (its envelope's is empty): it is read as the kind it is named for.
    const typed = typeof json.kind === 'string';
    const message = kubernetesMessageNameFor(typed ? String(json.apiVersion) : 'v1', k.kind) ?? '';

    it('decodes the .pb to the .json', () => {
      const envelope = decodeEnvelope(pb);
      expect(typed ? decodeProtobufObject(envelope) : decodeKubernetesMessage(message, envelope.raw)).toEqual(json);
    });

    it('encodes the .json to the .pb, byte for byte', () => {
      const bytes = typed ? encodeProtobufObject(json) : encodeEnvelope({ apiVersion: '', kind: '', raw: encodeKubernetesMessage(message, json) });
      expect(Buffer.from(bytes).toString('hex')).toEqual(pb.toString('hex'));
    });
  });

  describe.each(lists.map((k) => [keyOf(k), k] as const))('%s (two items of its kind’s fixture)', (_key, k) => {
    const fixture = listFixture(k) as { json: Record<string, unknown>; pb: Buffer };

    it('carries each item as the item kind’s own message, and reads back what it wrote', () => {
      const { apiVersion, kind: _kind, ...item } = fixture.json;
      const list = { apiVersion, kind: k.kind, metadata: { resourceVersion: '12', continue: 'next' }, items: [item, item] };
      const bytes = encodeProtobufObject(list);
      const itemMessage = decodeEnvelope(fixture.pb).raw;
      const listMessage = decodeEnvelope(bytes).raw;
      // ListMeta (field 1), then each item as field 2 holding exactly the item's message.
      const expected = Buffer.concat([
        Buffer.from([0x0a, 0x0c, 0x0a, 0x00, 0x12, 0x02, 0x31, 0x32, 0x1a, 0x04, 0x6e, 0x65, 0x78, 0x74]),
        ...[itemMessage, itemMessage].map((m) => Buffer.concat([Buffer.from([0x12]), varint(m.length), Buffer.from(m)])),
      ]);
      expect(Buffer.from(listMessage).toString('hex')).toEqual(expected.toString('hex'));
      expect(decodeProtobufObject(decodeEnvelope(bytes))).toEqual(list);
    });
  });
});

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  bytes.push(v);
  return Buffer.from(bytes);
}
