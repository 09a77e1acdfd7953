import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { projectFiles, RUNTIME_PACKAGES, TEST_PACKAGES, type ProjectSettings } from './project-templates';

export interface ScaffoldOptions {
  /** npm package name; the folder's name by default. */
  name?: string;
  /** The resource type's kind; `Widget` by default. */
  kind?: string;
  /** Its API group; `demo.example.com` by default. */
  group?: string;
  /**
   * A folder of packed framework packages (`svc-<lib>-<version>.tgz`): they are copied into the
   * project's `vendor/` and the project depends on them there, by a path relative to itself, instead
   * of the registry's versions; so the project, committed with `vendor/`, installs and builds on any
   * machine, in CI and in its Dockerfile.
   */
  packages?: string;
}

/** Why a project was not created (bad settings, a folder in the way); the command prints it. */
export class ScaffoldError extends Error {}

const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const FRAMEWORK_PACKAGES = [...RUNTIME_PACKAGES, ...TEST_PACKAGES];

/** The version of this framework: its own package.json (installed) or the repository's (sources). */
export function frameworkVersion(): string {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
    if (typeof pkg.version === 'string') return pkg.version;
  }
  throw new ScaffoldError('cannot find the framework version (no package.json above the scaffold)');
}

/** Where a project keeps the framework's tarballs it was made with. */
export const VENDOR_FOLDER = 'vendor';

/**
 * The framework's tarballs in a folder, by package, and the `file:` specs that name their copies in
 * the project's `vendor/` (relative, never a path of the machine the project was made on). Every
 * package is listed, as the packages depend on each other by version and npm would otherwise look
 * those up in the registry.
 */
function tarballs(folder: string, version: string): { files: Record<string, string>; specs: Record<string, string> } {
  const dir = resolve(folder);
  if (!existsSync(dir)) throw new ScaffoldError(`--packages: ${folder} does not exist`);
  const files: Record<string, string> = {};
  const specs: Record<string, string> = {};
  for (const file of readdirSync(dir)) {
    const match = /^svc-([a-z-]+)-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/.exec(file);
    if (!match || match[2] !== version) continue;
    files[file] = join(dir, file);
    specs[`@svc/${match[1]}`] = `file:${VENDOR_FOLDER}/${file}`;
  }
  const missing = FRAMEWORK_PACKAGES.filter((p) => !specs[p]);
  if (missing.length > 0) throw new ScaffoldError(`--packages: ${folder} has no tarball of ${missing.join(', ')} at version ${version}`);
  return { files, specs };
}

/** Writes a new operator project into `dir` (missing or empty); returns the files written. */
export function scaffoldProject(dir: string, options: ScaffoldOptions = {}): string[] {
  const target = resolve(dir);
  const name = options.name ?? basename(target).toLowerCase();
  const kind = options.kind ?? 'Widget';
  const group = options.group ?? 'demo.example.com';
  // The name is the npm package's and also names the ServiceAccount, Roles and namespace of the manifests.
  if (!LABEL.test(name) || name.length > 50)
    throw new ScaffoldError(
      `name ${JSON.stringify(name)} must be a DNS label of at most 50 characters (lower-case letters, digits and '-'); give one with --name`,
    );
  if (!KIND.test(kind)) throw new ScaffoldError(`--kind ${JSON.stringify(kind)} must start with an upper-case letter and hold only letters and digits`);
  if (!DNS_SUBDOMAIN.test(group)) throw new ScaffoldError(`--group ${JSON.stringify(group)} must be a DNS subdomain with at least one dot (demo.example.com)`);
  if (existsSync(target) && readdirSync(target).length > 0) throw new ScaffoldError(`${dir} exists and is not empty`);

  const version = frameworkVersion();
  const vendored = options.packages ? tarballs(options.packages, version) : undefined;
  const settings: ProjectSettings = { name, kind, group, frameworkVersion: version, frameworkSpecs: vendored?.specs };
  const files = projectFiles(settings);
  for (const [path, text] of Object.entries(files)) {
    const file = join(target, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  const copied = Object.entries(vendored?.files ?? {}).map(([name, from]) => {
    mkdirSync(join(target, VENDOR_FOLDER), { recursive: true });
    copyFileSync(from, join(target, VENDOR_FOLDER, name));
    return `${VENDOR_FOLDER}/${name}`;
  });
  return [...Object.keys(files), ...copied];
}
