import { requestInfo } from '../request/request-info';
import { longRunningLabelsOf, MetricsService, requestLabels } from './metrics.service';

describe('MetricsService', () => {
  it('counts requests and records latency with Kubernetes labels', async () => {
    const metrics = new MetricsService({ defaultMetrics: false });
    metrics.observeRequest(requestInfo('GET', '/apis/apps/v1/namespaces/ns/deployments'), 200, 0.01);
    metrics.observeRequest(requestInfo('POST', '/api/v1/namespaces/ns/pods'), 201, 0.3, { dryRun: ['All'] });
    const { body, contentType } = await metrics.render();
    expect(contentType).toContain('text/plain');
    expect(body).toContain(
      'apiserver_request_total{verb="LIST",dry_run="",group="apps",version="v1",resource="deployments",subresource="",scope="namespace",component="apiserver",code="200"} 1',
    );
    expect(body).toContain(
      'apiserver_request_total{verb="POST",dry_run="All",group="",version="v1",resource="pods",subresource="",scope="resource",component="apiserver",code="201"} 1',
    );
    expect(body).toContain(
      'apiserver_request_duration_seconds_bucket{le="0.025",verb="LIST",dry_run="",group="apps",version="v1",resource="deployments",subresource="",scope="namespace",component="apiserver"} 1',
    );
    expect(body).not.toContain('process_cpu_user_seconds_total');
  });

  it('keeps its own registry, so two servers in one process do not collide', async () => {
    const a = new MetricsService();
    const b = new MetricsService();
    a.setStorageObjects('pods', 3);
    expect(await b.render().then((r) => r.body)).not.toContain('apiserver_storage_objects{resource="pods"} 3');
    expect((await a.render()).body).toContain('apiserver_storage_objects{resource="pods"} 3');
    expect((await a.render()).body).toContain('nodejs_heap_size_used_bytes');
  });

  it('tracks open watches, in-flight counts and deprecated API use', async () => {
    const metrics = new MetricsService({ defaultMetrics: false });
    const labels = longRunningLabelsOf(requestInfo('GET', '/api/v1/namespaces/ns/pods', 'watch=1'));
    metrics.watchOpened(labels);
    metrics.watchOpened(labels);
    metrics.watchClosed(labels);
    metrics.setInflight('mutating', 2);
    metrics.markDeprecatedApiRequested({ group: 'batch', version: 'v1beta1', resource: 'cronjobs', removedRelease: '1.25' });
    const { body } = await metrics.render();
    expect(body).toContain(
      'apiserver_longrunning_requests{verb="WATCH",group="",version="v1",resource="pods",subresource="",scope="namespace",component="apiserver"} 1',
    );
    expect(body).toContain('apiserver_current_inflight_requests{request_kind="mutating"} 2');
    expect(body).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 0');
    expect(body).toContain('apiserver_requested_deprecated_apis{group="batch",version="v1beta1",resource="cronjobs",subresource="",removed_release="1.25"} 1');
  });
});

describe('requestLabels', () => {
  it('labels a non-resource path by its path, with no component', () => {
    expect(requestLabels(requestInfo('GET', '/readyz'))).toEqual({
      verb: 'GET',
      dry_run: '',
      group: '',
      version: '',
      resource: '',
      subresource: '/readyz',
      scope: '',
      component: '',
    });
  });

  it('blanks everything but the verb for paths no route answered', () => {
    expect(requestLabels(requestInfo('GET', '/apis/made/up/things'), { unmatched: true })).toEqual({
      verb: 'LIST',
      dry_run: '',
      group: '',
      version: '',
      resource: '',
      subresource: '',
      scope: '',
      component: '',
    });
  });

  it('sorts and dedupes dryRun values', () => {
    expect(requestLabels(requestInfo('DELETE', '/api/v1/namespaces/a/pods/p'), { dryRun: ['All', 'All'] }).dry_run).toBe('All');
  });
});
