import { JsonStreamDecoder, JsonStreamError } from './json-stream-decoder';

const events = [
  { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '1' }, data: { k: 'brace } and quote " and \\ slash' } } },
  { type: 'MODIFIED', object: { metadata: { name: 'b', resourceVersion: '2' }, data: { ü: '{[', list: [1, [2]] } } },
  { type: 'DELETED', object: { metadata: { name: 'c', resourceVersion: '3' } } },
];
const stream = events.map((e) => `${JSON.stringify(e)}\n`).join('');

describe('JsonStreamDecoder', () => {
  it('decodes every split of a newline-delimited stream into the same documents', () => {
    for (let size = 1; size <= stream.length; size += size < 20 ? 1 : 17) {
      const decoder = new JsonStreamDecoder();
      const out: unknown[] = [];
      for (let i = 0; i < stream.length; i += size) out.push(...decoder.push(stream.slice(i, i + size)));
      expect(out).toEqual(events);
      expect(decoder.pending).toBe(false);
    }
  });

  it('returns several documents from one chunk and keeps the rest for the next', () => {
    const decoder = new JsonStreamDecoder();
    const cut = stream.length - 10;
    expect(decoder.push(stream.slice(0, cut))).toEqual(events.slice(0, 2));
    expect(decoder.pending).toBe(true);
    expect(decoder.push(stream.slice(cut))).toEqual(events.slice(2));
  });

  it('reads concatenated and pretty-printed documents', () => {
    const decoder = new JsonStreamDecoder();
    const text = JSON.stringify(events[0]) + JSON.stringify(events[1]) + '\r\n' + JSON.stringify(events[2], null, 2);
    expect(decoder.push(text)).toEqual(events);
  });

  it('reads newline-delimited documents again after a line that held several, in every split', () => {
    const text =
      JSON.stringify(events[0]) +
      JSON.stringify(events[1]) +
      '\n' +
      JSON.stringify(events[2]) +
      '\n' +
      JSON.stringify(events[0], null, 2) +
      '\n' +
      JSON.stringify(events[1]) +
      '\n' +
      JSON.stringify(events[2]);
    const expected = [events[0], events[1], events[2], events[0], events[1], events[2]];
    for (let size = 1; size <= text.length; size += size < 20 ? 1 : 13) {
      const decoder = new JsonStreamDecoder();
      const out: unknown[] = [];
      for (let i = 0; i < text.length; i += size) out.push(...decoder.push(text.slice(i, i + size)));
      expect(out).toEqual(expected);
      expect(decoder.pending).toBe(false);
    }
  });

  it('rejects text that is not a sequence of JSON documents', () => {
    expect(() => new JsonStreamDecoder().push('{"a":1}\nnot json')).toThrow(JsonStreamError);
    expect(() => new JsonStreamDecoder().push('{"a":tru}')).toThrow(JsonStreamError);
    expect(() => new JsonStreamDecoder().push('{"a":tru}\n{"b":1}\n')).toThrow(JsonStreamError);
  });
});
