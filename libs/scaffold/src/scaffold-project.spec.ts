import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';
import { runCli } from './cli';
import { SCAFFOLD_TOOL_VERSIONS } from './project-templates';
import { scaffoldProject } from './scaffold-project';

const ROOT = resolve(__dirname, '../../..');
const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'svc-scaffold-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

function readJson(file: string): Record<string, Record<string, unknown>> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
}

describe('scaffoldProject', () => {
  it('writes a project that depends on the framework at its version and lets the native store build', () => {
    const dir = join(work, 'shop-operator');
    const files = scaffoldProject(dir, { kind: 'ShopItem', group: 'shop.example.com' });
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'tsconfig.json',
        'jest.config.js',
        'src/shop-item.ts',
        'src/shop-item-reconciler.ts',
        'src/shop-item-reconciler.spec.ts',
        'src/main.ts',
        'Dockerfile',
        'deploy/rbac.yaml',
        'README.md',
      ]),
    );
    const pkg = readJson(join(dir, 'package.json'));
    expect(pkg.name).toBe('shop-operator');
    expect(pkg.dependencies['@svc/runtime']).toBe(`^${rootPackage.version}`);
    expect(pkg.devDependencies['@svc/apiserver']).toBe(`^${rootPackage.version}`);
    expect(pkg.devDependencies['@svc/scaffold']).toBe(`^${rootPackage.version}`);
    expect(pkg.allowScripts).toEqual({ 'better-sqlite3': true });
    expect(pkg.overrides).toBeUndefined();
    const tsconfig = readJson(join(dir, 'tsconfig.json'));
    expect(tsconfig.compilerOptions).toMatchObject({ experimentalDecorators: true, emitDecoratorMetadata: true });
    const rbac = readFileSync(join(dir, 'deploy/rbac.yaml'), 'utf8');
    for (const kind of ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']) expect(rbac).toContain(`kind: ${kind}\n`);
    expect(rbac).toContain("resources: ['shopitems']");
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('not built by the tests');
  });

  it('creates the project with the tool versions the framework is built with', () => {
    for (const [name, range] of Object.entries(SCAFFOLD_TOOL_VERSIONS)) {
      expect({ name, range: rootPackage.dependencies[name] ?? rootPackage.devDependencies[name] }).toEqual({ name, range });
    }
  });

  it('depends on packed tarballs (every framework package, also through overrides) when given --packages', () => {
    const packs = join(work, 'packs');
    mkdirSync(packs);
    for (const lib of [
      'api',
      'apiserver',
      'client',
      'delegated-auth',
      'informers',
      'machinery',
      'node-simulation',
      'options',
      'runtime',
      'scaffold',
      'storage',
    ]) {
      writeFileSync(join(packs, `svc-${lib}-${rootPackage.version}.tgz`), '');
    }
    scaffoldProject(join(work, 'op'), { packages: packs });
    const pkg = readJson(join(work, 'op', 'package.json'));
    expect(pkg.dependencies['@svc/runtime']).toBe(`file:${join(packs, `svc-runtime-${rootPackage.version}.tgz`)}`);
    expect(pkg.overrides['@svc/storage']).toBe(`file:${join(packs, `svc-storage-${rootPackage.version}.tgz`)}`);

    rmSync(join(packs, `svc-runtime-${rootPackage.version}.tgz`));
    expect(() => scaffoldProject(join(work, 'op2'), { packages: packs })).toThrow(/no tarball of @svc\/runtime/);
  });

  it('refuses a folder that is not empty, and names, kinds and groups Kubernetes would not take', () => {
    writeFileSync(join(work, 'taken'), '');
    expect(() => scaffoldProject(work)).toThrow(/not empty/);
    expect(() => scaffoldProject(join(work, 'a'), { name: 'Bad_Name' })).toThrow(/DNS label/);
    expect(() => scaffoldProject(join(work, 'b'), { kind: 'widget' })).toThrow(/--kind/);
    expect(() => scaffoldProject(join(work, 'c'), { group: 'nodot' })).toThrow(/--group/);
  });
});

describe('svc-operator', () => {
  it('creates a project with init, and answers a wrong call with its usage and status 2', () => {
    const out: string[] = [];
    const err: string[] = [];
    expect(
      runCli(
        ['init', join(work, 'op'), '--kind', 'Memo'],
        (l) => out.push(l),
        (l) => err.push(l),
      ),
    ).toBe(0);
    expect(out.join('\n')).toContain('npm install && npm test');
    expect(
      runCli(
        ['init', join(work, 'op')],
        (l) => out.push(l),
        (l) => err.push(l),
      ),
    ).toBe(2);
    expect(err.pop()).toContain('not empty');
    expect(
      runCli(
        ['create', 'x'],
        (l) => out.push(l),
        (l) => err.push(l),
      ),
    ).toBe(2);
    expect(err.pop()).toContain('usage: svc-operator init');
    expect(
      runCli(
        ['init', 'x', '--colour', 'red'],
        (l) => out.push(l),
        (l) => err.push(l),
      ),
    ).toBe(2);
    expect(err.pop()).toContain('--colour');
  });
});

describe('the scaffolded sources', () => {
  it('typecheck against the framework as it is now', () => {
    const dir = join(work, 'typed');
    scaffoldProject(dir, { kind: 'ShopItem', group: 'shop.example.com' });
    const base = ts.readConfigFile(join(ROOT, 'tsconfig.base.json'), (path) => ts.sys.readFile(path));
    const parsed = ts.parseJsonConfigFileContent({ ...base.config, files: [] }, ts.sys, ROOT);
    const sources = ['shop-item.ts', 'shop-item-reconciler.ts', 'shop-item-reconciler.spec.ts', 'main.ts'].map((f) => join(dir, 'src', f));
    // The project's own dependencies resolve to the repository's node_modules; `@svc/*` to the sources.
    const paths = { ...parsed.options.paths, '*': ['node_modules/*'] };
    const program = ts.createProgram(sources, {
      ...parsed.options,
      paths,
      noEmit: true,
      types: ['node', 'jest'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  }, 120_000);
});
