import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { StatusError } from '@svc/machinery';
import { Watch } from './watch';

const event = (type: string, name: string, rv: string) => JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } }) + '\n';

function response(chunks: string[]): IncomingMessage {
  return Readable.from(chunks.map((c) => Buffer.from(c))) as unknown as IncomingMessage;
}

describe('Watch.batches', () => {
  it('gives the events each chunk completed as one array, and tracks the last version', async () => {
    const two = event('ADDED', 'a', '1') + event('MODIFIED', 'a', '2');
    const third = event('DELETED', 'a', '3');
    const watch = new Watch<{ metadata: { name: string } }>(response([two, third.slice(0, 10), third.slice(10)]), 'things');
    const seen: string[][] = [];
    for await (const batch of watch.batches()) seen.push(batch.map((e) => `${e.type} ${e.object.metadata.name}`));
    expect(seen).toEqual([['ADDED a', 'MODIFIED a'], ['DELETED a']]);
    expect(watch.resourceVersion).toBe('3');
    expect(() => watch.batches()).toThrow('only once');
  });

  it('delivers the events before an ERROR event, then throws its Status', async () => {
    const error = JSON.stringify({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', code: 410, reason: 'Expired', message: 'gone' } }) + '\n';
    const watch = new Watch(response([event('ADDED', 'a', '1') + error + event('ADDED', 'b', '2')]), 'things');
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const batch of watch.batches()) seen.push(batch.length);
      })(),
    ).rejects.toBeInstanceOf(StatusError);
    expect(seen).toEqual([1]);
  });
});
