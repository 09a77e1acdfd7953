import fc from 'fast-check';

/** A generated query: its pairs, and why a server must refuse it for the verb it is sent with. */
export interface GeneratedQuery {
  pairs: Array<[string, string]>;
  mustRefuse: string[];
  /** Kubernetes refuses these too, but neither the issue nor the spec says so: reported, not failed. */
  shouldRefuse: string[];
}

export type QueryVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'apply' | 'delete' | 'deletecollection';

/**
 * `{rv}` is the store's revision when the request is sent, `{rv+N}` a revision N past it (a future
 * one), so resourceVersion values stay meaningful however long the run has gone on.
 */
const RESOURCE_VERSIONS = fc.oneof(
  {
    weight: 30,
    arbitrary: fc.constantFrom('', '0', '1', '{rv}', '{rv}', '{rv+1}', 'abc', '-1', '1.5', '99999999999999999999', '18446744073709551616', ' 1', '0x10'),
  },
  // A revision far ahead: a get or list waits for it, then answers 504 (spec 1), so it is kept rare.
  { weight: 1, arbitrary: fc.constant('{rv+1000000}') },
);

/** Values Go's strconv.ParseInt refuses, as Kubernetes reads integer parameters. */
const MALFORMED_INTEGERS = fc.constantFrom('abc', '1.5', '1e3', '0x10', '9223372036854775808', ' 1', '1s', 'NaN', '١', '--1');

const TIMEOUT_DURATIONS = fc.constantFrom('1s', '500ms', '1m', '0', '30s');
const MALFORMED_DURATIONS = fc.constantFrom('abc', '10', '1x', 's', '1.2.3s');

const LABEL_SELECTORS = fc.constantFrom('app=fz', 'app in (fz,x)', '!missing', 'app', 'fuzz!=x', '', 'fuzz=none', 'app notin (a,b)', 'a.b/c=d');
/** Selectors Kubernetes' parser refuses (400), which the issue found refused here too. */
const MALFORMED_LABEL_SELECTORS = fc.constantFrom('a in (', '!', 'a=b c', '-a=b');
const FIELD_SELECTORS = fc.constantFrom(
  'metadata.name=fz-configmap',
  'metadata.namespace!=x',
  '',
  'metadata.name==a,metadata.namespace=b',
  'metadata.name=a\\,b',
);
const MALFORMED_FIELD_SELECTORS = fc.constantFrom('nonexistent.field=x', 'metadata.name');

const CONTINUE_TOKENS = fc.constantFrom(
  'not-a-token',
  '!!!',
  Buffer.from('{"v":"x"}').toString('base64'),
  'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIn0',
  'x'.repeat(4096),
);

const BOOLEANS = fc.constantFrom('true', 'false', '1', '0', '', 'maybe', 'TRUE');

interface Draft {
  pairs: Array<[string, string]>;
  mustRefuse: string[];
  shouldRefuse: string[];
}

type Piece = fc.Arbitrary<(draft: Draft) => void>;

function add(name: string, values: fc.Arbitrary<string>): Piece {
  return values.map((value) => (draft: Draft) => void draft.pairs.push([name, value]));
}

function addMustRefuse(name: string, values: fc.Arbitrary<string>, reason: (value: string) => string): Piece {
  return values.map((value) => (draft: Draft) => {
    draft.pairs.push([name, value]);
    draft.mustRefuse.push(reason(value));
  });
}

function addShouldRefuse(name: string, values: fc.Arbitrary<string>, reason: (value: string) => string): Piece {
  return values.map((value) => (draft: Draft) => {
    draft.pairs.push([name, value]);
    draft.shouldRefuse.push(reason(value));
  });
}

const malformedInteger = (name: string) => (value: string) => `${name}=${JSON.stringify(value)} is not an integer`;

/** Parameters that make sense for the verb, well-formed or not, and a few that belong to other verbs. */
function piecesFor(verb: QueryVerb): Piece[] {
  const listish = verb === 'list' || verb === 'watch' || verb === 'deletecollection';
  const writes = verb === 'create' || verb === 'update' || verb === 'patch' || verb === 'apply';
  const deletes = verb === 'delete' || verb === 'deletecollection';
  const pieces: Piece[] = [
    add('pretty', BOOLEANS),
    add('resourceVersion', RESOURCE_VERSIONS),
    add('unknownParameter', fc.constantFrom('1', '', 'x'.repeat(2000))),
  ];
  if (verb !== 'watch') {
    pieces.push(add('timeout', TIMEOUT_DURATIONS));
    pieces.push(addShouldRefuse('timeout', MALFORMED_DURATIONS, (v) => `timeout=${JSON.stringify(v)} is not a duration`));
  }
  if (listish) {
    pieces.push(
      add('labelSelector', LABEL_SELECTORS),
      addMustRefuse('labelSelector', MALFORMED_LABEL_SELECTORS, (v) => `labelSelector=${JSON.stringify(v)} does not parse`),
      add('fieldSelector', FIELD_SELECTORS),
      addMustRefuse('fieldSelector', MALFORMED_FIELD_SELECTORS, (v) => `fieldSelector=${JSON.stringify(v)} does not parse or names no field`),
      add('limit', fc.constantFrom('1', '2', '500', '0', '-1')),
      addMustRefuse('limit', MALFORMED_INTEGERS, malformedInteger('limit')),
      add('timeoutSeconds', verb === 'watch' ? fc.constantFrom('1', '2', '3') : fc.constantFrom('1', '30', '0', '-5')),
      addMustRefuse('timeoutSeconds', MALFORMED_INTEGERS, malformedInteger('timeoutSeconds')),
      add('allowWatchBookmarks', BOOLEANS),
      add('sendInitialEvents', fc.constantFrom('true', 'false')),
      add('resourceVersionMatch', fc.constantFrom('Exact', 'NotOlderThan', '', 'exact', 'Bogus')),
    );
  }
  if (verb === 'list') {
    pieces.push(
      add('continue', CONTINUE_TOKENS),
      add('watch', fc.constantFrom('0', 'false')),
      add('includeObject', fc.constantFrom('None', 'Metadata', 'Object', 'Bogus')),
    );
  }
  if (writes || deletes) {
    pieces.push(
      add('dryRun', fc.constantFrom('All', '')),
      addMustRefuse('dryRun', fc.constantFrom('all', 'true', 'Bogus'), (v) => `dryRun=${JSON.stringify(v)} is not All`),
    );
  }
  if (writes) {
    pieces.push(
      add('fieldValidation', fc.constantFrom('Ignore', 'Warn', 'Strict', '')),
      addMustRefuse(
        'fieldValidation',
        fc.constantFrom('strict', 'Bogus', 'ignore'),
        (v) => `fieldValidation=${JSON.stringify(v)} is not Ignore, Warn or Strict`,
      ),
      add('fieldManager', fc.constantFrom('fuzzer', 'kubectl-client-side-apply', 'a', 'fuzzer-2')),
      addShouldRefuse(
        'fieldManager',
        fc.constantFrom('x'.repeat(129), 'bad\u0001manager'),
        (v) => `fieldManager=${JSON.stringify(v)} is longer than 128 bytes or not printable`,
      ),
    );
  }
  if (verb === 'apply') pieces.push(add('force', fc.constantFrom('true', 'false')));
  if (verb === 'patch') pieces.push(addShouldRefuse('force', fc.constantFrom('true', 'false'), () => 'force on a patch that is not an apply'));
  if (deletes) {
    pieces.push(
      add('gracePeriodSeconds', fc.constantFrom('0', '1', '30', '-1')),
      addMustRefuse('gracePeriodSeconds', MALFORMED_INTEGERS, malformedInteger('gracePeriodSeconds')),
      add('propagationPolicy', fc.constantFrom('Foreground', 'Background', 'Orphan')),
      addMustRefuse('propagationPolicy', fc.constantFrom('Bogus', 'foreground'), (v) => `propagationPolicy=${JSON.stringify(v)} is not a policy`),
      add('orphanDependents', fc.constantFrom('true', 'false')),
    );
  }
  return pieces;
}

/**
 * Query strings for a verb: a few parameters (sometimes repeated, sometimes none), each valid or
 * malformed; the must-refuse reasons follow what Kubernetes and spec 1 refuse for that verb.
 */
export function queryArbitrary(verb: QueryVerb): fc.Arbitrary<GeneratedQuery> {
  const pieces = piecesFor(verb);
  return fc.array(fc.oneof(...pieces), { maxLength: 5 }).map((applied) => {
    const draft: Draft = { pairs: [], mustRefuse: [], shouldRefuse: [] };
    for (const apply of applied) apply(draft);
    // A repeated parameter is read by its first value (as Kubernetes does); later reasons do not apply.
    const first = new Map<string, string>();
    for (const [name, value] of draft.pairs) if (!first.has(name)) first.set(name, value);
    const mustRefuse = draft.mustRefuse.filter((reason) => firstValueStillMalformed(reason, first));
    addCombinationRules(verb, first, mustRefuse);
    return { pairs: draft.pairs, mustRefuse, shouldRefuse: draft.shouldRefuse.filter((reason) => firstValueStillMalformed(reason, first)) };
  });
}

/**
 * The query with pairs put in front (a parameter the family always sets): a reason about a
 * parameter holds only if its value is still the first one, the one the server reads.
 */
export function withLeadingPairs(query: GeneratedQuery, leading: Array<[string, string]>): GeneratedQuery {
  const pairs = [...leading, ...query.pairs];
  const first = new Map<string, string>();
  for (const [name, value] of pairs) if (!first.has(name)) first.set(name, value);
  return {
    pairs,
    mustRefuse: query.mustRefuse.filter((r) => firstValueStillMalformed(r, first)),
    shouldRefuse: query.shouldRefuse.filter((r) => firstValueStillMalformed(r, first)),
  };
}

/** A reason names `name=value`; it holds only if that is the value the server reads. */
function firstValueStillMalformed(reason: string, first: Map<string, string>): boolean {
  const match = /^(\w+)=("(?:[^"\\]|\\.)*")/.exec(reason);
  if (match === null) return true;
  return first.get(match[1]) === (JSON.parse(match[2]) as string);
}

/** Spec 1's table of list semantics: the combinations it calls Invalid. */
function addCombinationRules(verb: QueryVerb, first: Map<string, string>, mustRefuse: string[]): void {
  if (verb !== 'list') return;
  const rv = first.get('resourceVersion') ?? '';
  const match = first.get('resourceVersionMatch') ?? '';
  const token = first.get('continue') ?? '';
  if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan')
    mustRefuse.push(`resourceVersionMatch=${JSON.stringify(match)} is not Exact or NotOlderThan`);
  if (match !== '' && rv === '') mustRefuse.push('resourceVersionMatch without resourceVersion');
  if (match === 'Exact' && rv === '0') mustRefuse.push('resourceVersionMatch=Exact with resourceVersion=0');
  if (token !== '') mustRefuse.push(`a continue token that no list handed out (${token.slice(0, 20)})`);
}
