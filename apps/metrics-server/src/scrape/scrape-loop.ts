import type { Node } from '@svc/api';
import { errorMessage } from '@svc/machinery';
import type { MetricsBatch } from '../storage/metrics-point';
import type { MetricsStorage } from '../storage/metrics-storage';
import type { NodeScraper } from './node-scraper';

/** How many node agents are scraped at once. */
const CONCURRENCY = 16;

export interface ScrapeLoopOptions {
  resolutionMs: number;
  nodes: () => Node[];
  log: (line: string) => void;
  /** Told of each node's scrape: its duration and whether it failed (for the server's own metrics). */
  onScrape?: (node: string, seconds: number, failed: boolean) => void;
}

/**
 * Scrapes every node every `resolutionMs`, as metrics-server's scraper: the nodes in parallel (at
 * most 16 at once), each within the request timeout; what the ones that answered gave is stored as
 * one batch (a node that failed drops out until it answers again).
 */
export class ScrapeLoop {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private running?: Promise<void>;

  constructor(
    private readonly scraper: NodeScraper,
    private readonly storage: MetricsStorage,
    private readonly options: ScrapeLoopOptions,
  ) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      const started = Date.now();
      this.running = this.scrapeOnce().finally(() => {
        if (this.stopped) return;
        this.timer = setTimeout(tick, Math.max(0, this.options.resolutionMs - (Date.now() - started)));
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One round over every node. */
  async scrapeOnce(): Promise<void> {
    const nodes = this.options.nodes();
    const batch: MetricsBatch = { nodes: new Map(), pods: new Map() };
    let next = 0;
    const worker = async () => {
      while (next < nodes.length) {
        const node = nodes[next++];
        const name = node.metadata?.name ?? '';
        const started = process.hrtime.bigint();
        try {
          const result = await this.scraper.scrape(node);
          for (const [key, point] of result.nodes) batch.nodes.set(key, point);
          for (const [key, pod] of result.pods) if (!batch.pods.has(key)) batch.pods.set(key, pod);
          this.options.onScrape?.(name, Number(process.hrtime.bigint() - started) / 1e9, false);
        } catch (error) {
          this.options.onScrape?.(name, Number(process.hrtime.bigint() - started) / 1e9, true);
          this.options.log(`Failed to scrape node ${name}: ${errorMessage(error)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, nodes.length) }, worker));
    this.storage.store(batch);
  }
}
