import { Client, loadClientConfig } from '@svc/client';
import { listerWatcherFor, SharedInformer } from '@svc/informers';
import { EventCounter, forcedGc, parseChildArgs, send, settledHeap } from './child-protocol';

// This product's SharedInformer on ConfigMaps of one namespace, in a process of its own so its heap is its own,
// its client speaking the content type it is given (protobuf or JSON).
async function main(): Promise<void> {
  const args = parseChildArgs(process.argv.slice(2));
  const gc = forcedGc();
  // The bench, not the client, sets the pace: no client-side rate limit.
  const client = new Client({ ...(await loadClientConfig({ svcconfig: args.svcconfig })), qps: -1, contentType: args.contentType });
  const counter = new EventCounter(args);
  const before = settledHeap(gc);
  const started = performance.now();
  const informer = new SharedInformer(listerWatcherFor(client.configMaps, { namespace: args.namespace }));
  informer.addEventHandler({ onAdd: () => counter.onAdd(), onUpdate: () => counter.onUpdate() });
  informer.start();
  await counter.addsSeen;
  const syncMs = performance.now() - started;
  const heapBytes = settledHeap(gc) - before;
  counter.markSynced();
  send({ type: 'synced', syncMs, heapBytes });
  await counter.updatesSeen;
  send(counter.done());
  await informer.stop();
  client.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
