import { encodeProtobufList, encodeProtobufMessage, encodeProtobufObject } from './index';

describe('lists from encoded items', () => {
  it('writes the same bytes as encoding the whole list, items given as their messages', () => {
    const item = (name: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'd', labels: { a: name } },
      data: { k: 'v'.repeat(200) },
    });
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '12', continue: 'token' }, items: [item('a'), item('b'), item('c')] };
    const asked: string[] = [];
    const composed = encodeProtobufList(list, (i) => {
      asked.push((i.metadata as { name: string }).name);
      return encodeProtobufMessage(i);
    });
    expect(Buffer.from(composed).equals(Buffer.from(encodeProtobufObject(list)))).toBe(true);
    expect(asked).toEqual(['a', 'b', 'c']);
    const empty = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: {}, items: [] };
    expect(Buffer.from(encodeProtobufList(empty, encodeProtobufMessage)).equals(Buffer.from(encodeProtobufObject(empty)))).toBe(true);
  });

  it('encodes the items it is given no message for, as the list item message (items need no type meta)', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'ComponentStatusList',
      metadata: {},
      items: [{ metadata: { name: 'etcd-0' }, conditions: [{ type: 'Healthy', status: 'True' }] }],
    };
    expect(Buffer.from(encodeProtobufList(list, () => undefined)).equals(Buffer.from(encodeProtobufObject(list)))).toBe(true);
  });
});
