import { T, type CelCheckedType } from './cel-checker-types';
import { FORMAT_NAMES } from './cel-format-library';

/**
 * The overload signatures of every function of Kubernetes 1.32's CEL environment, as its checker
 * resolves calls against them: cel-go's standard library, the strings extension (version 2), sets,
 * optional types, and Kubernetes' lists, regex, URL, quantity, IP, CIDR, format and authorizer
 * libraries (k8s.io/apiserver/pkg/cel/library). Two-variable comprehensions are 1.32's only for
 * stored expressions (new ones compile against 1.31's environment), so they are not declared.
 */

export interface CelOverload {
  /** cel-go's overload id (`add_int64`, `string_to_quantity`), also what the cost model keys on. */
  readonly id: string;
  /** A receiver-style overload: the first argument is the target. */
  readonly member: boolean;
  readonly args: readonly CelCheckedType[];
  readonly result: CelCheckedType;
}

export type CelFunctionDeclarations = ReadonlyMap<string, readonly CelOverload[]>;

const A = T.param('A');
const B = T.param('B');
const K = T.param('K');
const V = T.param('V');
const { bool, int, uint, double, string, bytes, duration, timestamp, dyn } = T;
const listA = T.list(A);
const mapAB = T.map(A, B);

/** Kubernetes' value types. */
export const K8S_TYPES = {
  quantity: T.struct('kubernetes.Quantity'),
  url: T.struct('kubernetes.URL'),
  format: T.struct('kubernetes.NamedFormat'),
  ip: T.opaque('net.IP'),
  cidr: T.opaque('net.CIDR'),
  authorizer: T.struct('kubernetes.authorization.Authorizer'),
  pathCheck: T.struct('kubernetes.authorization.PathCheck'),
  groupCheck: T.struct('kubernetes.authorization.GroupCheck'),
  resourceCheck: T.struct('kubernetes.authorization.ResourceCheck'),
  decision: T.struct('kubernetes.authorization.Decision'),
};

const global = (id: string, args: CelCheckedType[], result: CelCheckedType): CelOverload => ({ id, member: false, args, result });
const member = (id: string, args: CelCheckedType[], result: CelCheckedType): CelOverload => ({ id, member: true, args, result });

const table = new Map<string, CelOverload[]>();
function declare(name: string, ...overloads: CelOverload[]): void {
  table.set(name, [...(table.get(name) ?? []), ...overloads]);
}

// ---- cel-go's standard library ----
declare('_?_:_', global('conditional', [bool, A, A], A));
declare('_&&_', global('logical_and', [bool, bool], bool));
declare('_||_', global('logical_or', [bool, bool], bool));
declare('!_', global('logical_not', [bool], bool));
declare('@not_strictly_false', global('not_strictly_false', [bool], bool));
declare('_==_', global('equals', [A, A], bool));
declare('_!=_', global('not_equals', [A, A], bool));
declare(
  '_+_',
  global('add_bytes', [bytes, bytes], bytes),
  global('add_double', [double, double], double),
  global('add_duration_duration', [duration, duration], duration),
  global('add_duration_timestamp', [duration, timestamp], timestamp),
  global('add_timestamp_duration', [timestamp, duration], timestamp),
  global('add_int64', [int, int], int),
  global('add_list', [listA, listA], listA),
  global('add_string', [string, string], string),
  global('add_uint64', [uint, uint], uint),
);
declare('_/_', global('divide_double', [double, double], double), global('divide_int64', [int, int], int), global('divide_uint64', [uint, uint], uint));
declare('_%_', global('modulo_int64', [int, int], int), global('modulo_uint64', [uint, uint], uint));
declare('_*_', global('multiply_double', [double, double], double), global('multiply_int64', [int, int], int), global('multiply_uint64', [uint, uint], uint));
declare('-_', global('negate_double', [double], double), global('negate_int64', [int], int));
declare(
  '_-_',
  global('subtract_double', [double, double], double),
  global('subtract_duration_duration', [duration, duration], duration),
  global('subtract_int64', [int, int], int),
  global('subtract_timestamp_duration', [timestamp, duration], timestamp),
  global('subtract_timestamp_timestamp', [timestamp, timestamp], duration),
  global('subtract_uint64', [uint, uint], uint),
);
for (const [op, prefix] of [
  ['_<_', 'less'],
  ['_<=_', 'less_equals'],
  ['_>_', 'greater'],
  ['_>=_', 'greater_equals'],
] as const) {
  declare(
    op,
    global(`${prefix}_bool`, [bool, bool], bool),
    global(`${prefix}_int64`, [int, int], bool),
    global(`${prefix}_int64_double`, [int, double], bool),
    global(`${prefix}_int64_uint64`, [int, uint], bool),
    global(`${prefix}_uint64`, [uint, uint], bool),
    global(`${prefix}_uint64_double`, [uint, double], bool),
    global(`${prefix}_uint64_int64`, [uint, int], bool),
    global(`${prefix}_double`, [double, double], bool),
    global(`${prefix}_double_int64`, [double, int], bool),
    global(`${prefix}_double_uint64`, [double, uint], bool),
    global(`${prefix}_string`, [string, string], bool),
    global(`${prefix}_bytes`, [bytes, bytes], bool),
    global(`${prefix}_timestamp`, [timestamp, timestamp], bool),
    global(`${prefix}_duration`, [duration, duration], bool),
  );
}
declare('_[_]', global('index_list', [listA, int], A), global('index_map', [mapAB, A], B));
declare('@in', global('in_list', [A, listA], bool), global('in_map', [A, mapAB], bool));
declare(
  'size',
  global('size_bytes', [bytes], int),
  member('bytes_size', [bytes], int),
  global('size_list', [listA], int),
  member('list_size', [listA], int),
  global('size_map', [mapAB], int),
  member('map_size', [mapAB], int),
  global('size_string', [string], int),
  member('string_size', [string], int),
);
declare('type', global('type', [A], T.type(A)));
declare('bool', global('bool_to_bool', [bool], bool), global('string_to_bool', [string], bool));
declare('bytes', global('bytes_to_bytes', [bytes], bytes), global('string_to_bytes', [string], bytes));
declare(
  'double',
  global('double_to_double', [double], double),
  global('int64_to_double', [int], double),
  global('string_to_double', [string], double),
  global('uint64_to_double', [uint], double),
);
declare(
  'duration',
  global('duration_to_duration', [duration], duration),
  global('int64_to_duration', [int], duration),
  global('string_to_duration', [string], duration),
);
declare('dyn', global('to_dyn', [A], dyn));
declare(
  'int',
  global('int64_to_int64', [int], int),
  global('double_to_int64', [double], int),
  global('duration_to_int64', [duration], int),
  global('string_to_int64', [string], int),
  global('timestamp_to_int64', [timestamp], int),
  global('uint64_to_int64', [uint], int),
);
declare(
  'string',
  global('string_to_string', [string], string),
  global('bool_to_string', [bool], string),
  global('bytes_to_string', [bytes], string),
  global('double_to_string', [double], string),
  global('duration_to_string', [duration], string),
  global('int64_to_string', [int], string),
  global('timestamp_to_string', [timestamp], string),
  global('uint64_to_string', [uint], string),
);
declare(
  'timestamp',
  global('timestamp_to_timestamp', [timestamp], timestamp),
  global('int64_to_timestamp', [int], timestamp),
  global('string_to_timestamp', [string], timestamp),
);
declare(
  'uint',
  global('uint64_to_uint64', [uint], uint),
  global('double_to_uint64', [double], uint),
  global('int64_to_uint64', [int], uint),
  global('string_to_uint64', [string], uint),
);
declare('contains', member('contains_string', [string, string], bool));
declare('endsWith', member('ends_with_string', [string, string], bool));
declare('startsWith', member('starts_with_string', [string, string], bool));
declare('matches', global('matches', [string, string], bool), member('matches_string', [string, string], bool));
for (const [fn, id] of [
  ['getFullYear', 'timestamp_to_year'],
  ['getMonth', 'timestamp_to_month'],
  ['getDayOfYear', 'timestamp_to_day_of_year'],
  ['getDayOfMonth', 'timestamp_to_day_of_month'],
  ['getDate', 'timestamp_to_day_of_month_1_based'],
  ['getDayOfWeek', 'timestamp_to_day_of_week'],
  ['getHours', 'timestamp_to_hours'],
  ['getMinutes', 'timestamp_to_minutes'],
  ['getSeconds', 'timestamp_to_seconds'],
  ['getMilliseconds', 'timestamp_to_milliseconds'],
] as const) {
  declare(fn, member(id, [timestamp], int), member(`${id}_with_tz`, [timestamp, string], int));
}
for (const [fn, id] of [
  ['getHours', 'duration_to_hours'],
  ['getMinutes', 'duration_to_minutes'],
  ['getSeconds', 'duration_to_seconds'],
  ['getMilliseconds', 'duration_to_milliseconds'],
] as const) {
  declare(fn, member(id, [duration], int));
}

// ---- cel-go's strings extension, version 2 ----
declare('charAt', member('string_char_at_int', [string, int], string));
declare('indexOf', member('string_index_of_string', [string, string], int), member('string_index_of_string_int', [string, string, int], int));
declare('lastIndexOf', member('string_last_index_of_string', [string, string], int), member('string_last_index_of_string_int', [string, string, int], int));
declare('lowerAscii', member('string_lower_ascii', [string], string));
declare(
  'replace',
  member('string_replace_string_string', [string, string, string], string),
  member('string_replace_string_string_int', [string, string, string, int], string),
);
declare('split', member('string_split_string', [string, string], T.list(string)), member('string_split_string_int', [string, string, int], T.list(string)));
declare('substring', member('string_substring_int', [string, int], string), member('string_substring_int_int', [string, int, int], string));
declare('trim', member('string_trim', [string], string));
declare('upperAscii', member('string_upper_ascii', [string], string));
declare('format', member('string_format', [string, T.list(dyn)], string));
declare('strings.quote', global('strings_quote', [string], string));
declare('join', member('list_join', [T.list(string)], string), member('list_join_string', [T.list(string), string], string));

// ---- cel-go's sets extension ----
declare('sets.contains', global('list_sets_contains_list', [listA, listA], bool));
declare('sets.equivalent', global('list_sets_equivalent_list', [listA, listA], bool));
declare('sets.intersects', global('list_sets_intersects_list', [listA, listA], bool));

// ---- cel-go's optional types ----
const optV = T.optional(V);
declare('optional.of', global('optional_of', [V], optV));
declare('optional.ofNonZeroValue', global('optional_ofNonZeroValue', [V], optV));
declare('optional.none', global('optional_none', [], optV));
declare('value', member('optional_value', [optV], V));
declare('hasValue', member('optional_hasValue', [optV], bool));
declare('or', member('optional_or_optional', [optV, optV], optV));
declare('orValue', member('optional_orValue_value', [optV, V], V));
declare('_?._', global('select_optional_field', [dyn, string], optV));
declare(
  '_[?_]',
  global('list_optindex_optional_int', [T.list(V), int], optV),
  global('optional_list_optindex_optional_int', [T.optional(T.list(V)), int], optV),
  global('map_optindex_optional_value', [T.map(K, V), K], optV),
  global('optional_map_optindex_optional_value', [T.optional(T.map(K, V)), K], optV),
);
declare('_[_]', global('optional_list_index_int', [T.optional(T.list(V)), int], optV), global('optional_map_index_value', [T.optional(T.map(K, V)), K], optV));

// ---- Kubernetes' lists library ----
const comparable: Array<[string, CelCheckedType]> = [
  ['int', int],
  ['uint', uint],
  ['double', double],
  ['bool', bool],
  ['duration', duration],
  ['timestamp', timestamp],
  ['string', string],
  ['bytes', bytes],
];
const summable: Array<[string, CelCheckedType]> = [
  ['int', int],
  ['uint', uint],
  ['double', double],
  ['duration', duration],
];
declare('isSorted', ...comparable.map(([n, t]) => member(`list_${n}_is_sorted_bool`, [T.list(t)], bool)));
declare('sum', ...summable.map(([n, t]) => member(`list_${n}_sum_${n}`, [T.list(t)], t)));
declare('max', ...comparable.map(([n, t]) => member(`list_${n}_max_${n}`, [T.list(t)], t)));
declare('min', ...comparable.map(([n, t]) => member(`list_${n}_min_${n}`, [T.list(t)], t)));
declare('indexOf', member('list_a_index_of_int', [listA, A], int));
declare('lastIndexOf', member('list_a_last_index_of_int', [listA, A], int));

// ---- Kubernetes' regex library ----
declare('find', member('string_find_string', [string, string], string));
declare(
  'findAll',
  member('string_find_all_string', [string, string], T.list(string)),
  member('string_find_all_string_int', [string, string, int], T.list(string)),
);

// ---- Kubernetes' URL library ----
const { quantity, url, format, ip, cidr } = K8S_TYPES;
declare('url', global('string_to_url', [string], url));
declare('getScheme', member('url_get_scheme', [url], string));
declare('getHost', member('url_get_host', [url], string));
declare('getHostname', member('url_get_hostname', [url], string));
declare('getPort', member('url_get_port', [url], string));
declare('getEscapedPath', member('url_get_escaped_path', [url], string));
declare('getQuery', member('url_get_query', [url], T.map(string, T.list(string))));
declare('isURL', global('is_url_string', [string], bool));

// ---- Kubernetes' quantity library (sign is global-only in 1.32) ----
declare('quantity', global('string_to_quantity', [string], quantity));
declare('isQuantity', global('is_quantity_string', [string], bool));
declare('sign', global('quantity_sign', [quantity], int));
declare('isGreaterThan', member('quantity_is_greater_than', [quantity, quantity], bool));
declare('isLessThan', member('quantity_is_less_than', [quantity, quantity], bool));
declare('compareTo', member('quantity_compare_to', [quantity, quantity], int));
declare('asApproximateFloat', member('quantity_get_float', [quantity], double));
declare('asInteger', member('quantity_get_int', [quantity], int));
declare('isInteger', member('quantity_is_integer', [quantity], bool));
declare('add', member('quantity_add', [quantity, quantity], quantity), member('quantity_add_int', [quantity, int], quantity));
declare('sub', member('quantity_sub', [quantity, quantity], quantity), member('quantity_sub_int', [quantity, int], quantity));

// ---- Kubernetes' IP and CIDR libraries ----
declare('ip', global('string_to_ip', [string], ip), member('cidr_ip', [cidr], ip));
declare('family', member('ip_family', [ip], int));
declare('ip.isCanonical', global('ip_is_canonical', [string], bool));
declare('isUnspecified', member('ip_is_unspecified', [ip], bool));
declare('isLoopback', member('ip_is_loopback', [ip], bool));
declare('isLinkLocalMulticast', member('ip_is_link_local_multicast', [ip], bool));
declare('isLinkLocalUnicast', member('ip_is_link_local_unicast', [ip], bool));
declare('isGlobalUnicast', member('ip_is_global_unicast', [ip], bool));
declare('isIP', global('is_ip', [string], bool));
declare('string', global('ip_to_string', [ip], string), global('cidr_to_string', [cidr], string));
declare('cidr', global('string_to_cidr', [string], cidr));
declare('containsIP', member('cidr_contains_ip_string', [cidr, string], bool), member('cidr_contains_ip_ip', [cidr, ip], bool));
declare('containsCIDR', member('cidr_contains_cidr_string', [cidr, string], bool), member('cidr_contains_cidr', [cidr, cidr], bool));
declare('prefixLength', member('cidr_prefix_length', [cidr], int));
declare('masked', member('cidr_masked', [cidr], cidr));
declare('isCIDR', global('is_cidr', [string], bool));

// ---- Kubernetes' format library ----
declare('validate', member('format-validate', [format, string], T.optional(T.list(string))));
declare('format.named', global('format-named', [string], T.optional(format)));
for (const name of FORMAT_NAMES) declare(`format.${name}`, global(`format.${name}`, [], format));

// ---- Kubernetes' authorizer library, with the selectors of AuthorizeWithSelectors (beta, on in 1.32) ----
const { authorizer, pathCheck, groupCheck, resourceCheck, decision } = K8S_TYPES;
declare('path', member('authorizer_path', [authorizer, string], pathCheck));
declare('group', member('authorizer_group', [authorizer, string], groupCheck));
declare('serviceAccount', member('authorizer_serviceaccount', [authorizer, string, string], authorizer));
declare('resource', member('groupcheck_resource', [groupCheck, string], resourceCheck));
declare('subresource', member('resourcecheck_subresource', [resourceCheck, string], resourceCheck));
declare('namespace', member('resourcecheck_namespace', [resourceCheck, string], resourceCheck));
declare('name', member('resourcecheck_name', [resourceCheck, string], resourceCheck));
declare('fieldSelector', member('authorizer_fieldselector', [resourceCheck, string], resourceCheck));
declare('labelSelector', member('authorizer_labelselector', [resourceCheck, string], resourceCheck));
declare('check', member('pathcheck_check', [pathCheck, string], decision), member('resourcecheck_check', [resourceCheck, string], decision));
declare('errored', member('decision_errored', [decision], bool));
declare('error', member('decision_error', [decision], string));
declare('allowed', member('decision_allowed', [decision], bool));
declare('reason', member('decision_reason', [decision], string));

/** Every function of the environment with its overloads. */
export const CEL_FUNCTIONS: CelFunctionDeclarations = table;

/**
 * The identifiers that name types (`int`, `list`, `google.protobuf.Duration`, `optional_type`, ...),
 * each of type `type(T)`, as cel-go's standard library and optional types declare them.
 */
export const CEL_TYPE_IDENTIFIERS: ReadonlyMap<string, CelCheckedType> = new Map<string, CelCheckedType>([
  ['bool', T.type(bool)],
  ['bytes', T.type(bytes)],
  ['double', T.type(double)],
  ['google.protobuf.Duration', T.type(duration)],
  ['int', T.type(int)],
  ['list', T.type(listA)],
  ['map', T.type(mapAB)],
  ['null_type', T.type(T.null)],
  ['string', T.type(string)],
  ['google.protobuf.Timestamp', T.type(timestamp)],
  ['type', T.type(T.type())],
  ['uint', T.type(uint)],
  ['optional_type', T.type(T.optional(T.param('T')))],
]);

/** Object types Kubernetes' libraries register: each is a known struct without declared fields. */
export const LIBRARY_STRUCT_TYPES: ReadonlySet<string> = new Set(
  Object.values(K8S_TYPES)
    .filter((t) => t.kind === 'struct')
    .map((t) => (t as { name: string }).name),
);
