import { Client, loadClientConfig } from '@svc/client';
import { EventCounter, forcedGc, parseChildArgs, send, settledHeap } from './child-protocol';

interface Named {
  metadata: { name: string; resourceVersion: string };
}

/**
 * The floor under any informer that reads JSON: the same list and watch over the same TLS connection
 * setup, each event's line handed to JSON.parse and the object put in a Map by name, and nothing else
 * (no event validation, no freezing, no indexes, no handler queue, no relist). In a process of its own,
 * like the two informers.
 */
async function main(): Promise<void> {
  const args = parseChildArgs(process.argv.slice(2));
  const gc = forcedGc();
  const client = new Client({ ...(await loadClientConfig({ svcconfig: args.svcconfig })), qps: -1 });
  const path = `/api/v1/namespaces/${args.namespace}/configmaps`;
  const counter = new EventCounter(args);
  const before = settledHeap(gc);
  const started = performance.now();
  const cache = new Map<string, Named>();
  const list = JSON.parse(await client.rest.requestText({ method: 'GET', path })) as { metadata: { resourceVersion: string }; items: Named[] };
  for (const item of list.items) {
    cache.set(item.metadata.name, item);
    counter.onAdd();
  }
  const watch = await client.rest.stream({ method: 'GET', path, query: { watch: true, resourceVersion: list.metadata.resourceVersion } });
  watch.setEncoding('utf8');
  let pending = '';
  watch.on('data', (chunk: string) => {
    const text = pending + chunk;
    let start = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
      const event = JSON.parse(text.slice(start, newline)) as { type: string; object: Named };
      start = newline + 1;
      cache.set(event.object.metadata.name, event.object);
      if (event.type === 'MODIFIED') counter.onUpdate();
    }
    pending = text.slice(start);
  });
  await counter.addsSeen;
  const syncMs = performance.now() - started;
  const heapBytes = settledHeap(gc) - before;
  counter.markSynced();
  send({ type: 'synced', syncMs, heapBytes });
  await counter.updatesSeen;
  send(counter.done());
  watch.destroy();
  client.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
