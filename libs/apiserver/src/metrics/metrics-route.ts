import type { MuxRoute } from '../serving/mux';
import type { MetricsService } from './metrics.service';

/** `/metrics`: the server's Prometheus metrics. */
export function metricsRoute(metrics: MetricsService): MuxRoute {
  return {
    path: '/metrics',
    methods: ['GET'],
    handler: async (_req, res) => {
      const { contentType, body } = await metrics.render();
      res.end(200, body, { 'Content-Type': contentType });
    },
  };
}
