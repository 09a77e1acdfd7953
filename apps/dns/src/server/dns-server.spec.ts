import { createSocket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';
import { StaticClusterView } from '../zone/cluster-view';
import { ClusterRecords } from '../zone/cluster-records';
import { answerQuery, RCODE } from './dns-server';
import { Forwarder } from './upstream';

const ports = Array.from({ length: 60 }, (_, i) => ({ name: `p${i}`, port: 1000 + i }));
const records = new ClusterRecords(new StaticClusterView([{ metadata: { name: 'big', namespace: 'default' }, spec: { clusterIP: '10.96.0.1', ports } }], []), {
  zone: 'cluster.local',
  ttl: 5,
});
/** An answer's data (OPT records have none). */
const dataOf = (a: dnsPacket.Answer) => ('data' in a ? a.data : undefined);
const noForward = new Forwarder([], 1000);
const query = (name: string, type: dnsPacket.RecordType = 'A', extra: Partial<dnsPacket.Packet> = {}) =>
  dnsPacket.encode({ type: 'query', id: 4242, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }], ...extra });
const rcodeOf = (buf: Buffer | undefined) => buf!.readUInt16BE(2) & 0xf;

describe('answerQuery', () => {
  const deps = { records, forwarder: noForward };

  it('answers a cluster name authoritatively, echoing the ID and the question', async () => {
    const reply = dnsPacket.decode((await answerQuery(query('big.default.svc.cluster.local'), false, deps))!);
    expect(reply).toMatchObject({ id: 4242, rcode: 'NOERROR', flag_aa: true, flag_rd: true });
    expect(reply.questions).toEqual([{ name: 'big.default.svc.cluster.local', type: 'A', class: 'IN' }]);
    expect(reply.answers?.map(dataOf)).toEqual(['10.96.0.1']);
  });

  it('answers FORMERR for malformed queries and stays silent for runts and responses', async () => {
    expect(await answerQuery(Buffer.alloc(5), false, deps)).toBeUndefined();
    const good = query('big.default.svc.cluster.local');
    expect(rcodeOf(await answerQuery(good.subarray(0, good.length - 3), false, deps))).toBe(RCODE.FORMERR);
    const twoQuestions = Buffer.from(good);
    twoQuestions.writeUInt16BE(2, 4);
    expect(rcodeOf(await answerQuery(twoQuestions, false, deps))).toBe(RCODE.FORMERR);
    const noQuestion = Buffer.from(good.subarray(0, 12));
    noQuestion.writeUInt16BE(0, 4);
    expect(rcodeOf(await answerQuery(noQuestion, false, deps))).toBe(RCODE.FORMERR);
    const withAnswers = Buffer.from(good);
    withAnswers.writeUInt16BE(1, 6);
    expect(rcodeOf(await answerQuery(withAnswers, false, deps))).toBe(RCODE.FORMERR);
    // A compression pointer to itself (a loop) is refused by the decoder, not followed.
    const loop = Buffer.concat([good.subarray(0, 12), Buffer.from([0xc0, 12, 0, 1, 0, 1])]);
    expect(rcodeOf(await answerQuery(loop, false, deps))).toBe(RCODE.FORMERR);
    const response = Buffer.from(good);
    response.writeUInt16BE(0x8000 | response.readUInt16BE(2), 2);
    expect(await answerQuery(response, false, deps)).toBeUndefined();
    const notify = Buffer.from(good);
    notify.writeUInt16BE((4 << 11) | notify.readUInt16BE(2), 2);
    expect(rcodeOf(await answerQuery(notify, false, deps))).toBe(RCODE.NOTIMP);
  });

  it('truncates a UDP answer beyond 512 bytes (the EDNS size, up to 1232, when asked) and sends it whole over TCP', async () => {
    const q = query('big.default.svc.cluster.local', 'SRV');
    const udp = dnsPacket.decode((await answerQuery(q, false, deps))!);
    expect(udp.flag_tc).toBe(true);
    expect(udp.answers).toEqual([]);
    const tcp = dnsPacket.decode((await answerQuery(q, true, deps))!);
    expect(tcp.flag_tc).toBe(false);
    expect(tcp.answers).toHaveLength(60);
    const edns = await answerQuery(
      query('big.default.svc.cluster.local', 'SRV', { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096 } as dnsPacket.Answer] }),
      false,
      deps,
    );
    expect(edns!.length).toBeLessThanOrEqual(1232);
  });

  it('refuses names outside the cluster without upstreams, and forwards them to an upstream as is', async () => {
    expect(rcodeOf(await answerQuery(query('example.org'), false, deps))).toBe(RCODE.REFUSED);
    const upstream = createSocket('udp4');
    upstream.on('message', (msg, from) => {
      const q = dnsPacket.decode(msg);
      upstream.send(
        dnsPacket.encode({ type: 'response', id: q.id, questions: q.questions, answers: [{ name: 'example.org', type: 'A', ttl: 60, data: '192.0.2.7' }] }),
        from.port,
        from.address,
      );
    });
    await new Promise<void>((resolve) => upstream.bind(0, '127.0.0.1', () => resolve()));
    try {
      const forwarder = new Forwarder(['127.0.0.1'], 1000, upstream.address().port);
      const reply = dnsPacket.decode((await answerQuery(query('example.org'), false, { records, forwarder }))!);
      expect(reply.id).toBe(4242);
      expect(reply.answers?.map(dataOf)).toEqual(['192.0.2.7']);
      const silent = new Forwarder(['127.0.0.1'], 100, 9); // nobody answers on the discard port
      expect(rcodeOf(await answerQuery(query('example.org'), false, { records, forwarder: silent }))).toBe(RCODE.SERVFAIL);
    } finally {
      upstream.close();
    }
  });

  it("follows an ExternalName's CNAME to the addresses asked for: in the zone here, outside it through the upstream", async () => {
    const chain = new ClusterRecords(
      new StaticClusterView(
        [
          { metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.96.0.9', ports: [] } },
          { metadata: { name: 'alias', namespace: 'default' }, spec: { type: 'ExternalName', externalName: 'web.default.svc.cluster.local' } },
          { metadata: { name: 'ext', namespace: 'default' }, spec: { type: 'ExternalName', externalName: 'www.example.org' } },
          { metadata: { name: 'gone', namespace: 'default' }, spec: { type: 'ExternalName', externalName: 'missing.example.org' } },
          { metadata: { name: 'loop', namespace: 'default' }, spec: { type: 'ExternalName', externalName: 'loop.default.svc.cluster.local' } },
        ],
        [],
      ),
      { zone: 'cluster.local', ttl: 5 },
    );
    const upstream = createSocket('udp4');
    upstream.on('message', (msg, from) => {
      const q = dnsPacket.decode(msg);
      const name = q.questions![0].name;
      const answers: dnsPacket.Answer[] =
        name === 'www.example.org'
          ? [
              { name, type: 'CNAME', ttl: 60, data: 'cdn.example.net' },
              { name: 'cdn.example.net', type: 'A', ttl: 60, data: '192.0.2.8' },
              { name: 'cdn.example.net', type: 'TXT', ttl: 60, data: 'stray' },
            ]
          : [];
      const flags = name === 'www.example.org' ? 0 : 3; // NXDOMAIN for any other name
      upstream.send(dnsPacket.encode({ type: 'response', id: q.id, flags, questions: q.questions, answers }), from.port, from.address);
    });
    await new Promise<void>((resolve) => upstream.bind(0, '127.0.0.1', () => resolve()));
    try {
      const forwarder = new Forwarder(['127.0.0.1'], 1000, upstream.address().port);
      const ask = async (name: string, type: dnsPacket.RecordType = 'A', deps = { records: chain, forwarder }) =>
        dnsPacket.decode((await answerQuery(query(name, type), false, deps))!) as dnsPacket.DecodedPacket & { rcode?: string };
      const local = await ask('alias.default.svc.cluster.local');
      expect(local.answers?.map((a) => [a.name, a.type, dataOf(a)])).toEqual([
        ['alias.default.svc.cluster.local', 'CNAME', 'web.default.svc.cluster.local'],
        ['web.default.svc.cluster.local', 'A', '10.96.0.9'],
      ]);
      const outside = await ask('ext.default.svc.cluster.local');
      expect([outside.rcode, outside.answers?.map((a) => [a.type, dataOf(a)])]).toEqual([
        'NOERROR',
        [
          ['CNAME', 'www.example.org'],
          ['CNAME', 'cdn.example.net'],
          ['A', '192.0.2.8'],
        ],
      ]);
      // Asked for the CNAME itself, it is not followed.
      expect((await ask('ext.default.svc.cluster.local', 'CNAME')).answers?.map(dataOf)).toEqual(['www.example.org']);
      const missing = await ask('gone.default.svc.cluster.local');
      expect([missing.rcode, missing.answers?.map(dataOf)]).toEqual(['NXDOMAIN', ['missing.example.org']]);
      expect((await ask('loop.default.svc.cluster.local')).answers?.map(dataOf)).toEqual(['loop.default.svc.cluster.local']);
      // Without an upstream the CNAME alone is the answer.
      expect((await ask('ext.default.svc.cluster.local', 'A', { records: chain, forwarder: noForward })).answers?.map(dataOf)).toEqual(['www.example.org']);
    } finally {
      upstream.close();
    }
  });
});
