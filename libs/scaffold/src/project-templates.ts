/** What a new operator project is named and what it defines. */
export interface ProjectSettings {
  /** The npm package name (also the operator's name in manifests). */
  name: string;
  /** The resource type's kind (`Widget`). */
  kind: string;
  /** Its API group (`demo.example.com`). */
  group: string;
  /** Version of the `@svc/*` packages depended on. */
  frameworkVersion: string;
  /** `@svc/<lib>` -> dependency spec; `^<frameworkVersion>` for each when absent. */
  frameworkSpecs?: Readonly<Record<string, string>>;
}

/**
 * Third-party versions the project is created with: the ranges this framework is built and tested
 * with (a unit test keeps them equal to the framework's own), so that a project's install needs
 * nothing the framework's did not.
 */
export const SCAFFOLD_TOOL_VERSIONS = {
  '@sinclair/typebox': '^0.34.52',
  'reflect-metadata': '^0.2.2',
  '@swc/core': '^1.16.22',
  '@swc/jest': '^0.2.39',
  '@types/jest': '^30.0.0',
  '@types/node': '^20.19.43',
  jest: '^30.5.2',
  typescript: '5.9',
} as const;

/** The `@svc/*` packages a project uses at run time, and those its tests and tools add (the scaffold: `svc-operator`). */
export const RUNTIME_PACKAGES = ['@svc/api', '@svc/client', '@svc/machinery', '@svc/runtime'] as const;
export const TEST_PACKAGES = ['@svc/apiserver', '@svc/node-simulation', '@svc/scaffold'] as const;

function names(s: ProjectSettings) {
  const lower = s.kind.toLowerCase();
  const camel = s.kind[0].toLowerCase() + s.kind.slice(1);
  return { lower, plural: `${lower}s`, file: s.kind.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase(), camel };
}

function frameworkSpec(s: ProjectSettings, name: string): string {
  return s.frameworkSpecs?.[name] ?? `^${s.frameworkVersion}`;
}

function packageJson(s: ProjectSettings): string {
  const v = SCAFFOLD_TOOL_VERSIONS;
  const dependencies: Record<string, string> = { '@sinclair/typebox': v['@sinclair/typebox'], 'reflect-metadata': v['reflect-metadata'] };
  for (const p of RUNTIME_PACKAGES) dependencies[p] = frameworkSpec(s, p);
  const devDependencies: Record<string, string> = {
    '@swc/core': v['@swc/core'],
    '@swc/jest': v['@swc/jest'],
    '@types/jest': v['@types/jest'],
    '@types/node': v['@types/node'],
    jest: v.jest,
    typescript: v.typescript,
  };
  for (const p of TEST_PACKAGES) devDependencies[p] = frameworkSpec(s, p);
  const sortedRecord = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
  const pkg: Record<string, unknown> = {
    name: s.name,
    version: '0.1.0',
    private: true,
    description: `An operator for ${names(s).plural}.${s.group}`,
    engines: { node: '>=20.19' },
    scripts: {
      build: 'tsc -p tsconfig.build.json',
      start: 'node dist/main.js',
      'print-crd': 'npm run --silent build && node dist/main.js --print-crd',
      manifests: 'npm run --silent build && node dist/main.js --print-manifests',
      test: 'jest',
      typecheck: 'tsc -p tsconfig.json --noEmit',
    },
    dependencies: sortedRecord(dependencies),
    devDependencies: sortedRecord(devDependencies),
    // npm runs a dependency's install script only when it is listed here: the test environment's
    // embedded store (better-sqlite3) compiles its native binding on install.
    allowScripts: { 'better-sqlite3': true },
  };
  // Local tarballs: the framework's own dependencies between its packages resolve to them too.
  if (s.frameworkSpecs) pkg.overrides = sortedRecord({ ...s.frameworkSpecs });
  return JSON.stringify(pkg, null, 2) + '\n';
}

const TSCONFIG = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "Node16",
    "moduleResolution": "Node16",
    "lib": ["ES2023"],
    "strict": true,
    "esModuleInterop": true,
    "experimentalDecorators": true,
    "emitDecoratorMetadata": true,
    "skipLibCheck": true,
    "outDir": "dist",
    "rootDir": "src",
    "types": ["node", "jest"]
  },
  "include": ["src/**/*.ts"]
}
`;

const TSCONFIG_BUILD = `{
  "extends": "./tsconfig.json",
  "compilerOptions": { "types": ["node"] },
  "exclude": ["src/**/*.spec.ts"]
}
`;

// Jest compiles the project's own TypeScript only; the framework's packages are plain JavaScript.
const JEST_CONFIG = `/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src'],
  transform: {
    '^.+\\\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          // The manager hands a reconciler its constructor's parameters by their types.
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  testTimeout: 30000,
};
`;

function resourceFile(s: ProjectSettings): string {
  const n = names(s);
  return `import { Type } from '@sinclair/typebox';
import { defineResource, type ResourceType } from '@svc/runtime';

/**
 * The ${s.kind} resource type, defined once: its TypeScript type, the typed resource that clients and
 * \`@Reconciler\` take, and its CustomResourceDefinition (\`npm run print-crd\`) all come from here.
 */
export const ${n.camel}Type = defineResource({
  group: '${s.group}',
  kind: '${s.kind}',
  storage: 'v1',
  versions: {
    v1: {
      spec: Type.Object({
        message: Type.String({ minLength: 1, description: 'What the ${s.kind}\\'s ConfigMap says.' }),
        author: Type.Optional(Type.String({ description: 'Who wrote it: the user who created it, unless given (set by the defaulting webhook).' })),
      }),
      status: Type.Object({
        observedGeneration: Type.Optional(Type.Integer({ description: 'The generation of the spec the ConfigMap matches.' })),
      }),
      printerColumns: [{ name: 'Message', type: 'string', jsonPath: '.spec.message' }],
    },
  },
});

/** The object the API server stores for \`kind: ${s.kind}\`. */
export type ${s.kind} = ResourceType<typeof ${n.camel}Type>;

/** \`${n.plural}\` in \`${s.group}/v1\`, typed. */
export const ${n.plural} = ${n.camel}Type.resource;
`;
}

function reconcilerFile(s: ProjectSettings): string {
  const n = names(s);
  return `import type { ConfigMap } from '@svc/api';
import { BUILTIN_RESOURCES, Client, type ResourceClient } from '@svc/client';
import { isNotFound } from '@svc/machinery';
import {
  handleFinalizer,
  isBeingDeleted,
  Reconciler,
  setControllerReference,
  updateStatusWithRetry,
  type Reconcile,
  type ReconcileContext,
  type Request,
  type Result,
} from '@svc/runtime';
import { ${n.plural}, type ${s.kind} } from './${n.file}';

/** Held on each ${s.kind} until its cleanup ran, so that a deletion waits for it. */
export const FINALIZER = '${s.group}/cleanup';

/**
 * Keeps one ConfigMap per ${s.kind}, of the same name, saying its \`spec.message\`, owned by it. Level-based:
 * each call reads the world and makes it right, so a missed or repeated wake-up changes nothing.
 * The finalizer shows where cleanup goes that the garbage collector cannot do (an external
 * resource, a record elsewhere): here it deletes the ConfigMap at once, before the ${s.kind} goes.
 */
@Reconciler({ for: ${n.plural}, owns: [BUILTIN_RESOURCES.configMaps] })
export class ${s.kind}Reconciler implements Reconcile {
  private readonly ${n.plural}: ResourceClient<${s.kind}>;
  private readonly configMaps: ResourceClient<ConfigMap>;

  // The manager hands in its client, found by the parameter's type.
  constructor(client: Client) {
    this.${n.plural} = client.resource(${n.plural});
    this.configMaps = client.configMaps;
  }

  async reconcile(request: Request, { cache }: ReconcileContext): Promise<Result> {
    const found = cache.get(${n.plural}, request);
    if (!found) return {};
    const { namespace, name } = request;
    // Added while it lives; removed once the cleanup ran, when it is being deleted.
    const { outcome, object: ${n.camel} } = await handleFinalizer(this.${n.plural}, found, FINALIZER, () =>
      this.configMaps.delete(name, { namespace }).then(
        () => undefined,
        (error: unknown) => {
          if (!isNotFound(error)) throw error;
        },
      ),
    );
    // The write wakes this reconciler again; a ${s.kind} being deleted gets nothing new.
    if (outcome !== 'unchanged' || isBeingDeleted(${n.camel})) return {};
    const message = ${n.camel}.spec.message;

    const current = cache.get(BUILTIN_RESOURCES.configMaps, request);
    if (!current) {
      await this.configMaps.create(setControllerReference(${n.camel}, { metadata: { name, namespace }, data: { message } }));
    } else if (current.data?.message !== message) {
      await this.configMaps.update({ ...current, data: { ...current.data, message } });
    }

    const generation = ${n.camel}.metadata?.generation;
    if (${n.camel}.status?.observedGeneration !== generation) {
      await updateStatusWithRetry(this.${n.plural}, ${n.camel}, (latest) => {
        latest.status = { observedGeneration: generation };
      });
    }
    return {};
  }
}
`;
}

function webhooksFile(s: ProjectSettings): string {
  const n = names(s);
  return `import { Default, Validate, type AdmissionInput } from '@svc/runtime';
import { ${n.plural}, type ${s.kind} } from './${n.file}';

/**
 * Admission webhooks of ${n.plural}: what the schema cannot say. The manager serves each method and
 * registers the webhook configurations; in a cluster every replica serves them behind a Service.
 */
export class ${s.kind}Webhooks {
  /** Signs a new ${s.kind} with the user who created it, unless it names an author. */
  @Default(${n.plural}, { operations: ['CREATE'] })
  signed(${n.camel}: ${s.kind}, { userInfo }: AdmissionInput<${s.kind}>): ${s.kind} {
    return { ...${n.camel}, spec: { ...${n.camel}.spec, author: ${n.camel}.spec.author ?? userInfo.username ?? 'unknown' } };
  }

  /** Keeps the message plain text: it ends up in places that would render markup. */
  @Validate(${n.plural})
  plainText({ object }: AdmissionInput<${s.kind}>): string | void {
    if (object && /[<>]/.test(object.spec.message)) return 'spec.message is plain text: it may not hold "<" or ">"';
  }
}
`;
}

function specFile(s: ProjectSettings): string {
  const n = names(s);
  return `import 'reflect-metadata';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { isNotFound } from '@svc/machinery';
import { createManager, type Manager } from '@svc/runtime';
import { eventually } from '@svc/runtime/testing';
import { ${n.plural}, ${n.camel}Type } from './${n.file}';
import { ${s.kind}Reconciler } from './${n.file}-reconciler';
import { ${s.kind}Webhooks } from './${n.file}-webhooks';

const silent = { info: () => undefined, error: () => undefined };

let env: TestEnvironment;
let manager: Manager;

beforeAll(async () => {
  // A real API server in this process, on a temporary store.
  env = await startTestEnvironment();
  // The manager applies the CustomResourceDefinition before it starts watching, and serves the
  // webhooks at this process's URL (development mode).
  ({ manager } = createManager({
    clientConfig: env.clientConfig,
    reconcilers: [${s.kind}Reconciler],
    resources: [${n.camel}Type],
    webhooks: { name: '${s.name}', handlers: [new ${s.kind}Webhooks()] },
    logger: silent,
  }));
  await manager.start();
});

afterAll(async () => {
  await manager?.stop();
  await env?.stop();
});

const client = () => env.client.resource(${n.plural}).inNamespace('default');

it('keeps a ConfigMap saying the ${s.kind}\\'s message, and records the generation it matches', async () => {
  const created = await client().create({ metadata: { name: 'hello' }, spec: { message: 'Hello' } });
  expect(created.spec.author).toBeTruthy(); // signed by the defaulting webhook
  await eventually(async () => expect((await env.client.configMaps.get('hello', { namespace: 'default' })).data).toEqual({ message: 'Hello' }));
  await eventually(async () => expect((await client().get('hello')).status).toEqual({ observedGeneration: 1 }));

  await client().patch('hello', { spec: { message: 'Bonjour' } }, 'merge');
  await eventually(async () => expect((await env.client.configMaps.get('hello', { namespace: 'default' })).data).toEqual({ message: 'Bonjour' }));
});

it('refuses markup in the message, and cleans up before a ${s.kind} is deleted', async () => {
  await expect(client().create({ metadata: { name: 'markup' }, spec: { message: '<b>Hi</b>' } })).rejects.toThrow('plain text');
  await client().create({ metadata: { name: 'bye' }, spec: { message: 'Bye' } });
  await eventually(() => env.client.configMaps.get('bye', { namespace: 'default' }));
  await client().delete('bye');
  await eventually(async () => expect(await client().get('bye').catch((error: unknown) => isNotFound(error))).toBe(true));
  await expect(env.client.configMaps.get('bye', { namespace: 'default' })).rejects.toThrow();
});
`;
}

function mainFile(s: ProjectSettings): string {
  const n = names(s);
  return `import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { loadClientConfig } from '@svc/client';
import { createManager, operatorManifests, parseBindAddress } from '@svc/runtime';
import { ${n.camel}Type } from './${n.file}';
import { ${s.kind}Reconciler } from './${n.file}-reconciler';
import { ${s.kind}Webhooks } from './${n.file}-webhooks';

/** The port the webhooks listen on in a pod, behind the Service \`${s.name}-webhooks\` (443). */
const WEBHOOK_PORT = 9443;

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      kubeconfig: { type: 'string' },
      'print-crd': { type: 'boolean' },
      // The YAML that deploys this operator (CRD, RBAC derived from the reconcilers, Deployment, ...).
      'print-manifests': { type: 'boolean' },
      image: { type: 'string', default: '${s.name}:0.1.0' },
      'leader-elect': { type: 'boolean' },
      // /healthz, /readyz and /metrics: every address by default (the kubelet probes the pod's IP);
      // 127.0.0.1:0 for a second local instance, 0 for none.
      'health-probe-bind-address': { type: 'string', default: ':8081' },
    },
  });
  if (values['print-crd']) {
    process.stdout.write(${n.camel}Type.yaml());
    return;
  }
  if (values['print-manifests']) {
    const manifests = operatorManifests({
      name: '${s.name}',
      namespace: '${s.name}-system',
      image: values.image,
      reconcilers: [${s.kind}Reconciler],
      resources: [${n.camel}Type],
      webhooks: { port: WEBHOOK_PORT },
    });
    process.stdout.write(manifests);
    return;
  }
  // No --kubeconfig: the files KUBECONFIG lists, else the pod's service account, else ~/.kube/config.
  const clientConfig = await loadClientConfig({ svcconfig: values.kubeconfig });
  // In a pod (the manifests set POD_NAMESPACE) every replica serves the webhooks behind the Service,
  // with a certificate kept in a Secret; elsewhere (npm start on a workstation) this process serves
  // them at its own URL, which only a cluster on this machine reaches.
  const namespace = process.env.POD_NAMESPACE;
  const { manager } = createManager({
    clientConfig,
    reconcilers: [${s.kind}Reconciler],
    // Applied (and waited for) before the manager starts watching.
    resources: [${n.camel}Type],
    http: parseBindAddress(values['health-probe-bind-address']),
    leaderElection: { leaderElect: values['leader-elect'] ?? false, resourceName: '${s.name}', resourceNamespace: namespace ?? 'default' },
    webhooks: {
      name: '${s.name}',
      handlers: [new ${s.kind}Webhooks()],
      ...(namespace ? { host: '0.0.0.0', port: WEBHOOK_PORT, service: { namespace, name: '${s.name}-webhooks' } } : {}),
    },
  });
  await manager.start();
  console.log('${s.name}: started' + (manager.port !== undefined ? ', probes and metrics on port ' + manager.port : ''));
  void manager.elected.then(() => console.log('${s.name}: leading, reconciling ${n.plural}.${s.group}'));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await manager.stop();
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
`;
}

// The build stage is the full image: its compilers build the test environment's native binding
// should npm find no prebuilt one.
function dockerfile(s: ProjectSettings): string {
  // A project made from local tarballs installs them from its vendor/ folder.
  const vendor = s.frameworkSpecs ? 'COPY vendor ./vendor\n' : '';
  return `# Builds the operator's image: compile, then keep only what it runs with.
# The base it runs on: any Node.js 20 image whose node is /usr/local/bin/node with a uid 1000
# (--build-arg BASE_IMAGE=svc.local/node:20, the base npm start makes, on an engine that holds it).
ARG BASE_IMAGE=node:20-slim

FROM node:20 AS build
WORKDIR /app
# .npmrc: the registry a scope comes from, when the project names one.
COPY package.json package-lock.json* .npmrc* ./
${vendor}RUN npm install
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM \${BASE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# node's uid, as a number: a pod that runs as non-root can only verify a numeric user.
USER 1000
EXPOSE 8081 9443
CMD ["node", "dist/main.js", "--leader-elect"]
`;
}

function readmeFile(s: ProjectSettings): string {
  const n = names(s);
  return `# ${s.name}

An operator for \`${n.plural}.${s.group}\`, written with the svc operator framework (\`@svc/runtime\`).

| file | what |
|---|---|
| \`src/${n.file}.ts\` | the ${s.kind} resource type, defined once: its type, typed client and CustomResourceDefinition |
| \`src/${n.file}-reconciler.ts\` | the reconciler: one ConfigMap per ${s.kind}, saying its message |
| \`src/${n.file}-reconciler.spec.ts\` | its test, on a real API server started in the test's process |
| \`src/${n.file}-webhooks.ts\` | its admission webhooks: a defaulting one (the author) and a validating one (plain text) |
| \`src/main.ts\` | the operator as a program: applies the CRD, then reconciles until signalled |
| \`Dockerfile\` | its image |

## Test, build, run

\`\`\`sh
npm install          # builds the test environment's native SQLite binding (about a minute)
npm test             # starts an API server in-process, applies the CRD, runs the reconciler
npm run typecheck
npm run build && npm start          # against the cluster of KUBECONFIG (else in-cluster, else ~/.kube/config)
npm run print-crd > crd.yaml       # the CRD alone, as YAML
\`\`\`

The manager applies the CRD itself at start.

## Image and deployment

\`\`\`sh
docker build -t ${s.name}:0.1.0 .
npm run --silent manifests -- --image ${s.name}:0.1.0 > operator.yaml
kubectl apply -f operator.yaml
\`\`\`

\`operator.yaml\` holds the Namespace \`${s.name}-system\`, the CRD, a ServiceAccount with the RBAC the
reconciler's declarations need (derived from \`@Reconciler\`: nothing to keep by hand; declare what it
writes besides what it reconciles and owns with \`writes\`), the Service \`${s.name}-webhooks\` in
front of the webhooks, a Deployment of two replicas with probes (one leads; both serve the webhooks,
with a certificate the first one keeps in a Secret) and a PodDisruptionBudget. The leader installs the
webhook configurations; no replica removes them when it stops. \`--health-probe-bind-address\` moves
the probes. \`--build-arg BASE_IMAGE=...\` picks the image the operator runs on (\`node:20-slim\` by
default).
`;
}

/** Every file of a new project, by its path inside the project. */
export function projectFiles(s: ProjectSettings): Record<string, string> {
  const n = names(s);
  return {
    'package.json': packageJson(s),
    'tsconfig.json': TSCONFIG,
    'tsconfig.build.json': TSCONFIG_BUILD,
    'jest.config.js': JEST_CONFIG,
    '.gitignore': 'node_modules/\ndist/\n',
    '.dockerignore': 'node_modules/\ndist/\n',
    [`src/${n.file}.ts`]: resourceFile(s),
    [`src/${n.file}-reconciler.ts`]: reconcilerFile(s),
    [`src/${n.file}-reconciler.spec.ts`]: specFile(s),
    [`src/${n.file}-webhooks.ts`]: webhooksFile(s),
    'src/main.ts': mainFile(s),
    Dockerfile: dockerfile(s),
    'README.md': readmeFile(s),
  };
}
