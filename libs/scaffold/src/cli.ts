#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { relative } from 'node:path';
import { frameworkVersion, scaffoldProject, ScaffoldError } from './scaffold-project';

const USAGE = `usage: svc-operator init <dir> [--name <name>] [--kind <Kind>] [--group <group>] [--packages <dir>]

Creates a new operator project in <dir> (missing or empty): a resource type defined in code, a
reconciler, its test on the in-process test environment, a Dockerfile and RBAC manifests.

  --name      npm package name and the manifests' names (default: the folder's name)
  --kind      the resource type's kind (default: Widget)
  --group     its API group (default: demo.example.com)
  --packages  a folder of packed @svc packages (svc-<lib>-<version>.tgz) to depend on instead of the registry
  --version   print the framework version`;

/** `svc-operator init <dir>`: returns the exit status (0 done, 2 usage or refused). */
export function runCli(argv: string[], out: (line: string) => void = console.log, err: (line: string) => void = console.error): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        kind: { type: 'string' },
        group: { type: 'string' },
        packages: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (error) {
    err(`svc-operator: ${(error as Error).message}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(USAGE);
    return 0;
  }
  if (values.version) {
    out(`svc-operator v${frameworkVersion()}`);
    return 0;
  }
  if (positionals[0] !== 'init' || positionals.length !== 2) {
    err(USAGE);
    return 2;
  }
  const dir = positionals[1];
  try {
    const files = scaffoldProject(dir, { name: values.name, kind: values.kind, group: values.group, packages: values.packages });
    out(`created ${files.length} files in ${relative(process.cwd(), dir) || '.'}; next: cd ${dir} && npm install && npm test`);
    return 0;
  } catch (error) {
    if (!(error instanceof ScaffoldError)) throw error;
    err(`svc-operator: ${error.message}`);
    return 2;
  }
}

if (require.main === module) process.exitCode = runCli(process.argv.slice(2));
