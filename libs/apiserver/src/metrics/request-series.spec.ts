import { Counter, Histogram, Registry } from 'prom-client';
import { RequestSeries } from './request-series';

const LABELS = ['verb', 'group', 'resource'] as const;
const BUCKETS = [0.005, 0.025, 0.1, 1];

describe('RequestSeries', () => {
  it("renders what prom-client's Counter and Histogram render for the same requests", async () => {
    const reference = new Registry();
    const counter = new Counter({ name: 'requests_total', help: 'Requests.', labelNames: [...LABELS, 'code'], registers: [reference] });
    const histogram = new Histogram({ name: 'request_seconds', help: 'Latency.', labelNames: [...LABELS], buckets: BUCKETS, registers: [reference] });
    const ours = new Registry();
    const series = new RequestSeries(ours, { name: 'requests_total', help: 'Requests.' }, { name: 'request_seconds', help: 'Latency.', buckets: BUCKETS });

    const requests: Array<[Record<(typeof LABELS)[number], string>, number, number]> = [
      [{ verb: 'GET', group: '', resource: 'pods' }, 200, 0.001],
      [{ verb: 'GET', group: '', resource: 'pods' }, 200, 0.025],
      [{ verb: 'GET', group: '', resource: 'pods' }, 404, 0.3],
      [{ verb: 'LIST', group: 'apps', resource: 'deployments' }, 200, 2.5],
      [{ verb: 'POST', group: 'a"b\\c', resource: 'x\ny' }, 201, 0.1],
    ];
    for (const [labels, code, seconds] of requests) {
      counter.inc({ ...labels, code: String(code) });
      histogram.observe(labels, seconds);
      series.observe(labels, code, seconds);
    }
    expect(await ours.metrics()).toBe(await reference.metrics());
    // The JSON form matches but for prom-client's empty exemplar slots.
    const withoutExemplars = (metrics: unknown) => JSON.parse(JSON.stringify(metrics, (key, value: unknown) => (key === 'exemplar' ? undefined : value)));
    expect(withoutExemplars(await ours.getMetricsAsJSON())).toEqual(withoutExemplars(await reference.getMetricsAsJSON()));
    ours.resetMetrics();
    reference.resetMetrics();
    expect(await ours.metrics()).toBe(await reference.metrics());
  });
});
