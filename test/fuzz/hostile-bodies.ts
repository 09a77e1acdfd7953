/**
 * Known-hostile request bodies, built from a few parameters so that a counterexample prints short and
 * always rebuilds the same bytes: deep nesting (JSON and YAML), YAML alias bombs, JSON patches with
 * many operations or copy amplification, lone UTF-16 surrogates, huge numbers, duplicate keys, wide
 * objects, bodies over the size limit. Each builder also says when the server must refuse the body
 * outright, whatever else the request says.
 */

/** Kubernetes' limit on a request body (and this server's default `maxRequestBodyBytes`). */
export const REQUEST_BODY_LIMIT = 3 * 1024 * 1024;
/** Kubernetes' limit on the nesting depth of a JSON or YAML body. */
export const NESTING_LIMIT = 10_000;
/** Kubernetes refuses a JSON patch with more operations than this (413). */
export const JSON_PATCH_OPS_LIMIT = 10_000;

/**
 * Must-refuse reasons are asserted with a margin past the limits above: where exactly the server
 * draws the line is its choice (the issue allows a lower nesting limit); far past it is not.
 */
const MARGIN = 10;

export type Frame = 'object' | 'merge' | 'strategic' | 'json-patch' | 'apply';

export interface BuiltBody {
  body: Buffer;
  mustRefuse: string[];
}

type Params = Record<string, string | number | boolean>;

function str(params: Params, name: string): string {
  return String(params[name]);
}

function num(params: Params, name: string): number {
  return Number(params[name]);
}

const RAW = '@@RAW@@';

/**
 * The frame's shape around a raw JSON value at `field` (a dotted path: `deep`, `spec.free.deep`,
 * `metadata.labels.k`): a whole object, a merge or strategic patch, a JSON patch `add`, or an apply
 * body. The frame is a plain value serialised by JSON.stringify; the raw text (too deep or too odd for
 * JSON.stringify: 100,000 levels, `1e400`, an escaped lone surrogate) replaces a marker after.
 */
function framed(frame: Frame, params: Params, field: string, rawValue: string): string {
  const segments = field.split('.');
  let text: string;
  if (frame === 'json-patch') {
    text = JSON.stringify([{ op: 'add', path: `/${segments.join('/')}`, value: RAW }]);
  } else {
    const root: Record<string, unknown> =
      frame === 'object' || frame === 'apply'
        ? { apiVersion: str(params, 'apiVersion'), kind: str(params, 'kind'), metadata: { name: str(params, 'name') } }
        : {};
    let node = root;
    segments.forEach((key, index) => {
      if (index === segments.length - 1) node[key] = RAW;
      else {
        const next = node[key];
        node[key] = typeof next === 'object' && next !== null ? next : {};
        node = node[key] as Record<string, unknown>;
      }
    });
    text = JSON.stringify(root);
  }
  const at = text.indexOf(JSON.stringify(RAW));
  return `${text.slice(0, at)}${rawValue}${text.slice(at + RAW.length + 2)}`;
}

function deepJsonValue(depth: number, container: string): string {
  if (container === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

function deepJson(params: Params): BuiltBody {
  const depth = num(params, 'depth');
  const text = framed(str(params, 'frame') as Frame, params, str(params, 'field'), deepJsonValue(depth, str(params, 'container')));
  return { body: Buffer.from(text), mustRefuse: depth > NESTING_LIMIT + MARGIN ? [`nesting depth ${depth} is past the limit of ${NESTING_LIMIT}`] : [] };
}

function yamlHead(params: Params): string {
  return `apiVersion: ${str(params, 'apiVersion')}\nkind: ${str(params, 'kind')}\nmetadata:\n  name: ${str(params, 'name')}\n`;
}

function deepYaml(params: Params): BuiltBody {
  const depth = num(params, 'depth');
  const style = str(params, 'style');
  let value: string;
  if (style === 'flow-map') value = `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`;
  else if (style === 'block-seq') {
    // Block style costs depth^2 bytes: the generators keep it to 1,000 levels.
    const lines: string[] = [];
    for (let i = 0; i < depth; i++) lines.push(`${' '.repeat(2 * i + 2)}- `);
    value = `\n${lines.join('\n')}x`;
  } else value = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const text = `${yamlHead(params)}${str(params, 'field')}: ${value}\n`;
  return { body: Buffer.from(text), mustRefuse: depth > NESTING_LIMIT + MARGIN ? [`YAML nesting depth ${depth} is past the limit of ${NESTING_LIMIT}`] : [] };
}

function aliasBomb(params: Params): BuiltBody {
  const levels = num(params, 'levels');
  const fanout = num(params, 'fanout');
  const lines = [yamlHead(params).trimEnd(), `a0: &a0 [${Array(fanout).fill('"lol"').join(',')}]`];
  for (let i = 1; i <= levels; i++)
    lines.push(
      `a${i}: &a${i} [${Array(fanout)
        .fill(`*a${i - 1}`)
        .join(',')}]`,
    );
  lines.push(`data:\n  bomb: *a${levels}`);
  const expanded = fanout ** (levels + 1);
  // Kubernetes' YAML decoder refuses documents whose aliases expand far past their size.
  return { body: Buffer.from(`${lines.join('\n')}\n`), mustRefuse: expanded >= 10_000_000 ? [`a YAML alias bomb expanding to ${expanded} nodes`] : [] };
}

function manyOps(params: Params): BuiltBody {
  const ops = num(params, 'ops');
  const op = str(params, 'op');
  const parts: string[] = [];
  for (let i = 0; i < ops; i++) {
    if (op === 'test') parts.push(`{"op":"test","path":"/metadata/name","value":${JSON.stringify(str(params, 'name'))}}`);
    else if (op === 'add') parts.push(`{"op":"add","path":"/metadata/annotations/k${i}","value":"v"}`);
    else parts.push(`{"op":"replace","path":"/metadata/annotations/k","value":"v${i}"}`);
  }
  const text = `[${op === 'replace' ? '{"op":"add","path":"/metadata/annotations/k","value":"v"},' : ''}${parts.join(',')}]`;
  return {
    body: Buffer.from(text),
    mustRefuse: ops > JSON_PATCH_OPS_LIMIT + MARGIN ? [`a JSON patch of ${ops} operations (limit ${JSON_PATCH_OPS_LIMIT})`] : [],
  };
}

function copyAmplification(params: Params): BuiltBody {
  const bytes = num(params, 'valueBytes');
  const copies = num(params, 'copies');
  const container = str(params, 'container');
  const ops = [`{"op":"add","path":"${container}/k","value":${JSON.stringify('x'.repeat(bytes))}}`];
  for (let i = 0; i < copies; i++) ops.push(`{"op":"copy","from":"${container}","path":"${container}/c${i}"}`);
  const amplified = bytes * 2 ** copies;
  return {
    body: Buffer.from(`[${ops.join(',')}]`),
    mustRefuse: amplified > 2 * REQUEST_BODY_LIMIT ? [`JSON patch copies that would grow the object to ${amplified} bytes`] : [],
  };
}

function deepPatchPath(params: Params): BuiltBody {
  const depth = num(params, 'depth');
  const path = `/spec/free${'/a'.repeat(depth)}`;
  return { body: Buffer.from(`[{"op":${JSON.stringify(str(params, 'op'))},"path":${JSON.stringify(path)},"value":1}]`), mustRefuse: [] };
}

/** A lone surrogate as a JSON escape, as raw (invalid) UTF-8 bytes, or as a YAML escape. */
function loneSurrogate(params: Params): BuiltBody {
  const unit = num(params, 'unit');
  const form = str(params, 'form');
  const frame = str(params, 'frame') as Frame;
  const where = str(params, 'where');
  const marker = '@@SURROGATE@@';
  const hex = unit.toString(16);
  const value = `"a${marker}b"`;
  if (form === 'yaml-escape') {
    const key = where === 'annotation-key' ? `"k${'\\u'}${hex}"` : 'k';
    const val = where === 'annotation-key' ? 'v' : `"a\\u${hex}b"`;
    const section = where === 'label-value' ? 'labels' : where === 'data-value' ? 'data' : 'annotations';
    const yaml = section === 'data' ? `${yamlHead(params)}data:\n  ${key}: ${val}\n` : `${yamlHead(params).trimEnd()}\n  ${section}:\n    ${key}: ${val}\n`;
    return { body: Buffer.from(yaml), mustRefuse: [] };
  }
  const field =
    where === 'data-value'
      ? 'data.k'
      : where === 'label-value'
        ? 'metadata.labels.k'
        : where === 'annotation-key'
          ? `metadata.annotations.k${marker}`
          : 'unknownField';
  const text = framed(frame, params, field, where === 'annotation-key' ? '"v"' : value);
  const [before, ...after] = text.split(marker);
  if (form === 'raw-utf8') {
    // The three bytes UTF-8 would use for the code point: invalid UTF-8 (CESU-8).
    const raw = Buffer.from([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]);
    return { body: Buffer.concat([Buffer.from(before), ...after.flatMap((part) => [raw, Buffer.from(part)])]), mustRefuse: [] };
  }
  return { body: Buffer.from([before, ...after].join(`\\u${hex}`)), mustRefuse: [] };
}

function hugeNumber(params: Params): BuiltBody {
  const text = framed(str(params, 'frame') as Frame, params, str(params, 'field'), str(params, 'literal'));
  return { body: Buffer.from(text), mustRefuse: [] };
}

function duplicateKeys(params: Params): BuiltBody {
  const where = str(params, 'where');
  const yaml = params.encoding === 'yaml';
  const strict = params.fieldValidation === 'Strict';
  const name = str(params, 'name');
  let text: string;
  if (yaml) {
    const head = `apiVersion: ${str(params, 'apiVersion')}\nkind: ${str(params, 'kind')}\n`;
    if (where === 'metadata.name') text = `${head}metadata:\n  name: ${name}\n  name: ${name}-other\n`;
    else if (where === 'kind') text = `${head}kind: ${str(params, 'kind')}\nmetadata:\n  name: ${name}\n`;
    else text = `${head}metadata:\n  name: ${name}\n  labels:\n    a: "1"\n    a: "2"\n`;
  } else {
    const apiVersion = JSON.stringify(str(params, 'apiVersion'));
    const kind = JSON.stringify(str(params, 'kind'));
    if (where === 'metadata.name')
      text = `{"apiVersion":${apiVersion},"kind":${kind},"metadata":{"name":${JSON.stringify(`${name}-other`)},"name":${JSON.stringify(name)}}}`;
    else if (where === 'kind') text = `{"apiVersion":${apiVersion},"kind":"Other","kind":${kind},"metadata":{"name":${JSON.stringify(name)}}}`;
    else text = `{"apiVersion":${apiVersion},"kind":${kind},"metadata":{"name":${JSON.stringify(name)},"labels":{"a":"1","a":"2"}}}`;
  }
  return { body: Buffer.from(text), mustRefuse: strict ? ['duplicate fields with fieldValidation=Strict'] : [] };
}

function wideObject(params: Params): BuiltBody {
  const keys = num(params, 'keys');
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"k${i}":"v"`);
  const text = framed(str(params, 'frame') as Frame, params, str(params, 'field'), `{${parts.join(',')}}`);
  const body = Buffer.from(text);
  return { body, mustRefuse: body.length > REQUEST_BODY_LIMIT ? [`a body of ${body.length} bytes, past the ${REQUEST_BODY_LIMIT}-byte limit`] : [] };
}

function hugeBody(params: Params): BuiltBody {
  const bytes = num(params, 'bytes');
  const text = framed('object', params, 'data.big', JSON.stringify('x'.repeat(bytes)));
  const body = Buffer.from(text);
  return { body, mustRefuse: body.length > REQUEST_BODY_LIMIT ? [`a body of ${body.length} bytes, past the ${REQUEST_BODY_LIMIT}-byte limit`] : [] };
}

const BUILDERS: Record<string, (params: Params) => BuiltBody> = {
  'deep-json': deepJson,
  'deep-yaml': deepYaml,
  'yaml-alias-bomb': aliasBomb,
  'json-patch-many-ops': manyOps,
  'json-patch-copy-amplification': copyAmplification,
  'json-patch-deep-path': deepPatchPath,
  'lone-surrogate': loneSurrogate,
  'huge-number': hugeNumber,
  'duplicate-keys': duplicateKeys,
  'wide-object': wideObject,
  'huge-body': hugeBody,
};

export const HOSTILE_SHAPES = Object.keys(BUILDERS);

export function buildHostileBody(shape: string, params: Params): BuiltBody {
  const builder = BUILDERS[shape];
  if (builder === undefined) throw new Error(`unknown hostile body shape ${shape}`);
  return builder(params);
}
