#!/usr/bin/env node
// Builds the libraries an operator author needs as installable packages, one per library, named
// `@svc/<lib>`, all at the root package.json's version:
//
//   node scripts/build-packages.js [--pack] [--out <dir>]
//
// The libraries are compiled once with declarations (tsconfig.packages.json) and WITHOUT rewriting
// the `@svc/<lib>` aliases, so that an import of another library stays a package import. Each
// package gets its compiled folder, a package.json whose dependencies are what its files import
// (third-party ranges from the root package.json, siblings at the same version), and its README.
// With --pack, `npm pack` writes the tarballs to <out>/packs.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { builtinModules } = require('node:module');

const root = path.resolve(__dirname, '..');
const rootPackage = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** The packaged libraries, from the ground up; `testing` says which have a `./testing` entry. */
const LIBRARIES = [
  { name: 'machinery', description: 'Selectors, Status errors, resourceVersion rules, patches and apply of the svc control plane.' },
  { name: 'options', description: 'Flag primitives and the option sets of the svc control plane processes.' },
  {
    name: 'storage',
    description: 'The Storage contract of the svc control plane and its backends (embedded SQLite, etcd v3 as store3, MongoDB).',
    testing: true,
  },
  { name: 'api', description: 'The kinds of the svc control plane: types, schemas, defaults, validation and the scheme.' },
  { name: 'client', description: 'REST client for the svc control plane (and Kubernetes): typed verbs, watches, connection settings.' },
  {
    name: 'delegated-auth',
    description: "Delegated authentication and authorization of a component's HTTPS endpoint (TokenReview, SubjectAccessReview, client certificates).",
  },
  { name: 'informers', description: 'Reflectors, indexed caches, shared informers, listers and work queues.', testing: true },
  { name: 'runtime', description: 'The operator framework: reconcilers declared with decorators, the manager, resource types from code.', testing: true },
  { name: 'node-simulation', description: 'Simulated nodes and pod readiness for testing a control plane or an operator without a container runtime.' },
  {
    name: 'controllers',
    description: 'The built-in controllers (deployment, replicaset, namespace, garbage collector, ...) of the svc control plane.',
    testing: true,
  },
  { name: 'apiserver', description: 'The svc API server as a library, and the in-process test environment for operator tests.', testing: true },
  { name: 'scaffold', description: 'svc-operator: scaffolds a new operator project on the svc operator framework.' },
];
const NAMES = new Set(LIBRARIES.map((l) => l.name));
const SCOPE = '@svc';

/** The commands packages install: the scaffold's, which makes an operator project. */
const BINS = { scaffold: { 'svc-operator': 'dist/cli.js' } };

function parseArgs(argv) {
  const args = { pack: false, out: path.join(root, 'build') };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--pack') args.pack = true;
    else if (argv[i] === '--out') args.out = path.resolve(argv[++i] ?? '');
    else throw new Error(`unknown argument ${argv[i]}; usage: build-packages.js [--pack] [--out <dir>]`);
  }
  return args;
}

function walk(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else out.push(full);
  }
  return out;
}

/** `lodash/fp` -> `lodash`, `@scope/name/sub` -> `@scope/name`; undefined for relative and built-in modules. */
function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return builtinModules.includes(name) ? undefined : name;
}

const JS_IMPORT = /\brequire\(\s*(["'])([^"']+)\1\s*\)/g;
const DTS_IMPORT = /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(["'])([^"']+)\2/g;

/**
 * Declarations may name a type of another library by a relative path into its sources (tsc writes
 * `import("../../machinery/src")` for an inferred type). Between packages only the entry points
 * exist, so such a path becomes the package's name; a path deeper into another library fails the
 * build (export the type from that library's index, or annotate the declaration).
 */
function rewriteSiblingPaths(file, lib, tscOut) {
  const text = fs.readFileSync(file, 'utf8');
  const rewritten = text.replace(DTS_IMPORT, (match, lead, quote, specifier) => {
    if (!specifier.startsWith('.')) return match;
    const target = path.relative(tscOut, path.resolve(path.dirname(file), specifier)).split(path.sep);
    if (target[0] === lib) return match;
    const [other, src, ...rest] = target;
    const entry = rest.join('/').replace(/\/index$/, '');
    if (NAMES.has(other) && src === 'src' && (entry === '' || entry === 'index')) return `${lead}${quote}${SCOPE}/${other}${quote}`;
    if (NAMES.has(other) && src === 'src' && entry === 'testing') return `${lead}${quote}${SCOPE}/${other}/testing${quote}`;
    throw new Error(`${path.relative(tscOut, file)} refers to ${target.join('/')} of another library; export it from that library's index`);
  });
  if (rewritten !== text) fs.writeFileSync(file, rewritten);
}

/** The bare modules a package's compiled files need, and the type packages its declarations name. */
function scanImports(dir, lib) {
  const runtime = new Set();
  const types = new Set();
  for (const file of walk(dir)) {
    const text = fs.readFileSync(file, 'utf8');
    if (file.endsWith('.d.ts')) {
      for (const [, , , specifier] of text.matchAll(DTS_IMPORT)) {
        const name = packageOf(specifier);
        if (name) types.add(name);
      }
    } else if (file.endsWith('.js')) {
      for (const [, , specifier] of text.matchAll(JS_IMPORT)) {
        if (specifier.startsWith('.')) {
          const target = path.resolve(path.dirname(file), specifier);
          if (!target.startsWith(dir + path.sep)) throw new Error(`${file} requires ${specifier}, outside its package`);
          continue;
        }
        const name = packageOf(specifier);
        if (name && name !== `${SCOPE}/${lib}`) runtime.add(name);
      }
    }
  }
  return { runtime, types };
}

function rangeOf(name, lib) {
  if (name.startsWith(`${SCOPE}/`)) {
    if (!NAMES.has(name.slice(SCOPE.length + 1))) throw new Error(`${lib} imports ${name}, which is not a packaged library`);
    return rootPackage.version;
  }
  const range = rootPackage.dependencies?.[name];
  if (!range) throw new Error(`${lib} imports ${name}, which is not among the root package.json's dependencies`);
  return range;
}

function sorted(record) {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function manifest(lib, deps) {
  const entry = (sub) => ({ types: `./dist/${sub}index.d.ts`, default: `./dist/${sub}index.js` });
  const exports = { '.': entry('') };
  if (lib.testing) exports['./testing'] = entry('testing/');
  exports['./package.json'] = './package.json';
  const files = ['dist', 'README.md'];
  if (lib.testing) files.push('testing');
  return {
    name: `${SCOPE}/${lib.name}`,
    version: rootPackage.version,
    description: lib.description,
    license: rootPackage.license,
    keywords: ['kubernetes', 'operator', 'controller', 'svc'],
    engines: rootPackage.engines,
    main: './dist/index.js',
    types: './dist/index.d.ts',
    exports,
    ...(BINS[lib.name] ? { bin: BINS[lib.name] } : {}),
    files,
    dependencies: sorted(deps),
    // Scoped packages are published restricted unless told otherwise.
    publishConfig: { access: 'public' },
    ...repositoryOf(lib),
  };
}

/**
 * Where each package's source lives, for the registry's page and for provenance (`npm publish
 * --provenance` in CI checks that the package names the repository it is built from): the root
 * package.json's repository, homepage, bugs and author, the repository with the library's folder.
 */
function repositoryOf(lib) {
  const fields = {};
  const repository = typeof rootPackage.repository === 'string' ? { type: 'git', url: rootPackage.repository } : rootPackage.repository;
  if (repository && repository.url) fields.repository = { ...repository, directory: `libs/${lib.name}` };
  for (const key of ['homepage', 'bugs', 'author']) if (rootPackage[key]) fields[key] = rootPackage[key];
  return fields;
}

function readme(lib) {
  const own = path.join(root, 'libs', lib.name, 'README.md');
  if (fs.existsSync(own)) return fs.readFileSync(own, 'utf8');
  throw new Error(`libs/${lib.name}/README.md is missing`);
}

function build(args) {
  const tscOut = path.join(args.out, 'tsc');
  const packagesDir = path.join(args.out, 'packages');
  fs.rmSync(tscOut, { recursive: true, force: true });
  fs.rmSync(packagesDir, { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.packages.json'), '--outDir', tscOut], {
    cwd: root,
    stdio: 'inherit',
  });

  const built = [];
  for (const lib of LIBRARIES) {
    const dir = path.join(packagesDir, lib.name);
    const dist = path.join(dir, 'dist');
    const compiled = path.join(tscOut, lib.name, 'src');
    for (const file of walk(compiled).filter((f) => f.endsWith('.d.ts'))) rewriteSiblingPaths(file, lib.name, tscOut);
    fs.mkdirSync(dir, { recursive: true });
    fs.cpSync(compiled, dist, { recursive: true });
    const { runtime, types } = scanImports(dist, lib.name);
    const deps = {};
    for (const name of runtime) deps[name] = rangeOf(name, lib.name);
    // A declaration naming a module typed by DefinitelyTyped needs its @types package too.
    for (const name of types) {
      if (name.startsWith(`${SCOPE}/`)) {
        if (name !== `${SCOPE}/${lib.name}`) deps[name] = rangeOf(name, lib.name);
        continue;
      }
      const typesName = `@types/${name.replace(/^@([^/]+)\//, '$1__')}`;
      if (!deps[name] && !rootPackage.dependencies?.[name]) throw new Error(`${lib.name}'s declarations import ${name}, which is not a dependency`);
      deps[name] ??= rangeOf(name, lib.name);
      const typesRange = rootPackage.devDependencies?.[typesName] ?? rootPackage.dependencies?.[typesName];
      if (typesRange) deps[typesName] = typesRange;
    }
    if (lib.testing) {
      // Resolvers that ignore `exports` (TypeScript's node10 resolution) find `<pkg>/testing` here.
      fs.mkdirSync(path.join(dir, 'testing'));
      fs.writeFileSync(
        path.join(dir, 'testing', 'package.json'),
        JSON.stringify({ main: '../dist/testing/index.js', types: '../dist/testing/index.d.ts' }, null, 2) + '\n',
      );
    }
    for (const bin of Object.values(BINS[lib.name] ?? {})) if (fs.existsSync(path.join(dir, bin))) fs.chmodSync(path.join(dir, bin), 0o755);
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest(lib, deps), null, 2) + '\n');
    fs.writeFileSync(path.join(dir, 'README.md'), readme(lib));
    built.push(dir);
  }

  if (args.pack) {
    const packs = path.join(args.out, 'packs');
    fs.rmSync(packs, { recursive: true, force: true });
    fs.mkdirSync(packs, { recursive: true });
    for (const dir of built) {
      execFileSync('npm', ['pack', '--silent', '--pack-destination', packs], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    }
    console.log(`packed ${built.length} packages at version ${rootPackage.version} into ${path.relative(process.cwd(), packs) || '.'}`);
  } else {
    console.log(`built ${built.length} packages at version ${rootPackage.version} into ${path.relative(process.cwd(), packagesDir) || '.'}`);
  }
}

if (require.main === module) {
  try {
    build(parseArgs(process.argv.slice(2)));
  } catch (error) {
    console.error(`build-packages: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

module.exports = { LIBRARIES, build };
