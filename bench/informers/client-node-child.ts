import type * as ClientNode from '@kubernetes/client-node';
import { EventCounter, forcedGc, parseChildArgs, send, settledHeap } from './child-protocol';

// The package is ESM only; tsc would turn a plain import() into require(), so the import is hidden from it.
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fixed string, not input: an ESM import that tsc leaves alone
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<typeof ClientNode>;

// @kubernetes/client-node's informer on the same ConfigMaps, in a process of its own.
async function main(): Promise<void> {
  const args = parseChildArgs(process.argv.slice(2));
  const gc = forcedGc();
  const k8s = await importEsm('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(args.svcconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const counter = new EventCounter(args);
  const before = settledHeap(gc);
  const started = performance.now();
  const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${args.namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace: args.namespace }));
  informer.on('add', () => counter.onAdd());
  informer.on('update', () => counter.onUpdate());
  informer.on('error', (error: unknown) => {
    console.error('client-node informer error', error);
    process.exit(1);
  });
  await informer.start();
  await counter.addsSeen;
  const syncMs = performance.now() - started;
  const heapBytes = settledHeap(gc) - before;
  counter.markSynced();
  send({ type: 'synced', syncMs, heapBytes });
  await counter.updatesSeen;
  send(counter.done());
  await informer.stop();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
