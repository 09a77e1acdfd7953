import { deepFreeze } from '../../watchcache/deep-freeze';
import { jsonBytes, jsonLine, listJsonBytes, watchFrame } from './encoded-json';

describe('encoded JSON of shared objects', () => {
  const object = deepFreeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ü-name', resourceVersion: '7' }, data: { text: 'é\n"' } });

  it('writes the bytes JSON.stringify writes, once per frozen object', () => {
    expect(jsonBytes(object).toString('utf8')).toBe(JSON.stringify(object));
    expect(jsonLine(object).toString('utf8')).toBe(`${JSON.stringify(object)}\n`);
    expect(jsonLine(object)).toBe(jsonLine(object));
    expect(jsonBytes(object).buffer).toBe(jsonLine(object).buffer);
    const plain = { a: 1 };
    expect(jsonBytes(plain).toString('utf8')).toBe('{"a":1}');
    expect(jsonLine(plain)).not.toBe(jsonLine(plain));
  });

  it('frames a watch event as one chunk of a chunked response around the event document', () => {
    const frame = watchFrame('MODIFIED', object);
    const document = `${JSON.stringify({ type: 'MODIFIED', object })}\n`;
    expect(frame.document.toString('utf8')).toBe(document);
    const length = Buffer.byteLength(document);
    expect(frame.chunk.toString('utf8')).toBe(`${length.toString(16)}\r\n${document}\r\n`);
    expect(watchFrame('MODIFIED', object)).toBe(frame);
    expect(watchFrame('DELETED', object).document.toString('utf8')).toBe(`${JSON.stringify({ type: 'DELETED', object })}\n`);
  });

  it('writes a list as JSON.stringify does, from the items own bytes', () => {
    const head = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '9', continue: '' } };
    const items = [object, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } }];
    expect(listJsonBytes(head, items).toString('utf8')).toBe(`${JSON.stringify({ ...head, items })}\n`);
    expect(listJsonBytes(head, []).toString('utf8')).toBe(`${JSON.stringify({ ...head, items: [] })}\n`);
  });
});
