/**
 * The tables of the docs that list what the code has, generated from the code: `npm run docs` rewrites
 * them, and test/docs.spec.ts fails when a page differs from what the code says (run `npm run docs`).
 * A table stands in a page between `<!-- generated:<name> -->` and `<!-- end generated:<name> -->`.
 * A code sample stands between `<!-- generated:sample:docs/samples/<file>.ts -->` and its end marker:
 * the part of that file between `// #region doc` and `// #endregion`, a file test/docs-samples.e2e-spec.ts
 * runs against a real API server, so what a page shows is code that compiles and works.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinScheme } from '@svc/api';
import { kubernetesGroupName } from '@svc/machinery';
import { admissionPluginSupport } from '@svc/apiserver';
import { BUILT_IN_CONTROLLERS } from '@svc/controllers';
import {
  ADMISSION_PLUGIN_ORDER,
  API_SERVER_REFUSED_FLAGS,
  CONTROLLER_MANAGER_REFUSED_FLAGS,
  SCHEDULER_REFUSED_FLAGS,
  PROXY_REFUSED_FLAGS,
  DEFAULT_ADMISSION_PLUGINS,
  DISABLED_BY_DEFAULT_CONTROLLERS,
  KNOWN_CONTROLLERS,
  type AdmissionPluginName,
  type RefusedFlag,
} from '@svc/options';

export const ROOT = join(__dirname, '..');

type Row = readonly string[];

function table(header: Row, rows: readonly Row[]): string {
  const line = (cells: Row) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

const code = (text: string) => `\`${text}\``;

function controllers(): string {
  const implemented = new Set<string>(BUILT_IN_CONTROLLERS.map((c) => c.name));
  const rows = KNOWN_CONTROLLERS.map((name) => [
    code(name),
    implemented.has(name) ? 'yes' : 'no: naming it starts nothing',
    DISABLED_BY_DEFAULT_CONTROLLERS.includes(name) ? 'no (only when named)' : 'yes',
  ]);
  return table(['`--controllers` name', 'implemented here', 'on with `*`'], rows);
}

function admissionPlugins(): string {
  const defaults = new Set<AdmissionPluginName>(DEFAULT_ADMISSION_PLUGINS);
  const rows = ADMISSION_PLUGIN_ORDER.map((name) => [code(name), defaults.has(name) ? 'on' : 'off', admissionPluginSupport(name)]);
  return table(['plugin (in the order they run)', 'by default', 'here'], rows);
}

function refusedFlags(refused: readonly RefusedFlag[]): string {
  const rows = [...refused]
    .sort((a, b) => a.flag.localeCompare(b.flag))
    .map((r) => [code(`--${r.flag}`), r.reason + (r.alsoAccepted?.length ? ` (accepted: ${r.alsoAccepted.map((v) => code(String(v))).join(', ')})` : '')]);
  return rows.length === 0 ? '(none)' : table(['flag', 'refused at any value but its default, because it'], rows);
}

function executables(): string {
  const bin = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin;
  return table(
    ['executable', 'started by'],
    Object.keys(bin)
      .sort()
      .map((name) => [code(name), code(bin[name])]),
  );
}

function servedKinds(): string {
  const defs = builtinScheme()
    .all()
    .map((d) => ({ ...d, group: kubernetesGroupName(d.group) ?? d.group }))
    .sort((a, b) => a.group.localeCompare(b.group) || a.resource.localeCompare(b.resource) || a.version.localeCompare(b.version));
  const rows = defs.map((d) => [
    code(d.resource),
    d.group === '' ? code(d.version) : code(`${d.group}/${d.version}`),
    d.kind,
    d.namespaced ? 'yes' : 'no',
    d.shortNames.length ? d.shortNames.join(', ') : '',
  ]);
  return table(['resource', 'apiVersion', 'kind', 'namespaced', 'short names'], rows);
}

/** Each generated table: the page it stands in and how it is made. */
export const GENERATED: ReadonlyArray<{ file: string; name: string; render: () => string }> = [
  { file: 'docs/executables.md', name: 'executables', render: executables },
  { file: 'docs/executables.md', name: 'controllers', render: controllers },
  { file: 'docs/executables.md', name: 'apiserver-refused-flags', render: () => refusedFlags(API_SERVER_REFUSED_FLAGS) },
  { file: 'docs/executables.md', name: 'controller-manager-refused-flags', render: () => refusedFlags(CONTROLLER_MANAGER_REFUSED_FLAGS) },
  { file: 'docs/executables.md', name: 'scheduler-refused-flags', render: () => refusedFlags(SCHEDULER_REFUSED_FLAGS) },
  { file: 'docs/executables.md', name: 'proxy-refused-flags', render: () => refusedFlags(PROXY_REFUSED_FLAGS) },
  { file: 'docs/admission.md', name: 'admission-plugins', render: admissionPlugins },
  { file: 'docs/kubectl.md', name: 'served-kinds', render: servedKinds },
  { file: 'libs/controllers/README.md', name: 'controllers', render: controllers },
];

const SAMPLE_MARKER = /<!-- generated:(sample:([\w./-]+\.ts)(?:#([\w-]+))?) -->/g;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The documented part of a sample file, as a fenced block: its `// #region doc` block (or
 * `// #region doc <region>` when the marker names one, `file.ts#region`), dedented.
 */
export function renderSample(path: string, region?: string): string {
  const source = readFileSync(join(ROOT, path), 'utf8');
  const open = escapeRegExp(region === undefined ? '// #region doc' : `// #region doc ${region}`);
  const match = new RegExp(`^([ \\t]*)${open}\\n([\\s\\S]*?)^[ \\t]*// #endregion`, 'm').exec(source);
  if (!match) throw new Error(`${path} has no ${region === undefined ? '// #region doc' : `// #region doc ${region}`} ... // #endregion block`);
  const indent = match[1].length;
  const lines = match[2]
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => line.slice(Math.min(indent, /^ */.exec(line)![0].length)));
  const imports = importsUsed(source, lines.join('\n'));
  return ['```ts', ...imports, ...(imports.length ? [''] : []), ...lines, '```'].join('\n');
}

/** The file's named imports that `body` uses, one line per module, as a reader of the sample needs them. */
function importsUsed(source: string, body: string): string[] {
  const code = body.replace(/\/\/.*$/gm, ''); // a name in a comment is not a use
  const used = (name: string) => new RegExp(`\\b${escapeRegExp(name)}\\b`).test(code);
  const lines: string[] = [];
  for (const [, typeOnly, names, from] of source.matchAll(/^import (type )?\{([^}]*)\} from '([^']+)';/gm)) {
    const kept = names
      .split(',')
      .map((n) => n.trim())
      .filter(
        (n) =>
          n !== '' &&
          used(
            n
              .replace(/^type /, '')
              .split(' as ')
              .pop()!,
          ),
      );
    if (kept.length) lines.push(`import ${typeOnly ?? ''}{ ${kept.join(', ')} } from '${from}';`);
  }
  return lines;
}

/** The samples a page shows, by their markers. */
function samplesOf(text: string): Array<{ name: string; render: () => string }> {
  return [...text.matchAll(SAMPLE_MARKER)].map(([, name, path, region]) => ({ name, render: () => renderSample(path, region) }));
}

/** Every sample file under docs/samples, which the samples test runs. */
export function sampleFiles(): string[] {
  return readdirSync(join(ROOT, 'docs/samples'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `docs/samples/${f}`);
}

/** Pages that may show samples: the book and the libraries' READMEs. */
function pagesWithSamples(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const libs = readdirSync(join(ROOT, 'libs'))
    .map((lib) => `libs/${lib}/README.md`)
    .filter((f) => existsSync(join(ROOT, f)));
  return [...docs, ...libs].filter((f) => readFileSync(join(ROOT, f), 'utf8').includes('<!-- generated:sample:'));
}

/** `text` with every generated block of `file` filled from the code; throws when a block's markers are missing. */
export function regenerate(file: string, text: string): string {
  let out = text;
  for (const { name, render } of [...GENERATED.filter((g) => g.file === file), ...samplesOf(text)]) {
    const begin = `<!-- generated:${name} -->`;
    const end = `<!-- end generated:${name} -->`;
    const from = out.indexOf(begin);
    const to = out.indexOf(end);
    if (from < 0 || to < from) throw new Error(`${file} has no ${begin} ... ${end} block`);
    out = `${out.slice(0, from + begin.length)}\n${render()}\n${out.slice(to)}`;
  }
  return out;
}

export function generatedFiles(): string[] {
  return [...new Set([...GENERATED.map((g) => g.file), ...pagesWithSamples()])];
}

if (require.main === module) {
  for (const file of generatedFiles()) {
    const path = join(ROOT, file);
    const before = readFileSync(path, 'utf8');
    const after = regenerate(file, before);
    if (after !== before) {
      writeFileSync(path, after);
      console.log(`${file}: tables regenerated`);
    }
  }
}
