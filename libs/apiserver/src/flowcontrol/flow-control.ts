import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import {
  FLOW_SCHEMA_CATCH_ALL,
  FLOW_SCHEMA_CONDITION_DANGLING,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  PRIORITY_LEVEL_CATCH_ALL,
  flowSchemaDefinition,
  priorityLevelConfigurationDefinition,
  type FlowSchema,
  type PriorityLevelConfiguration,
} from '@svc/api';
import { ANONYMOUS_USER, jsonEqual, type UserInfo } from '@svc/machinery';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ChainHandler } from '../filters/handler-chain';
import { requestContext, requestUrl } from '../request/request-context';
import type { ResourceRegistries } from '../registry/registries';
import type { ResourceRegistry } from '../registry/resource-registry';
import type { MuxRoute } from '../serving/mux';
import type { ServerPart } from '../serving/serving-core';
import { tooManyRequestsStatus } from '../status/status';
import { writeStatus } from '../status/write-status';
import { ensureFlowcontrolConfiguration } from './apf-bootstrap';
import { compareFlowSchemas, flowSchemaMatches } from './flow-matching';
import { QueueSet, REAL_CLOCK, type FairQueueClock, type RejectReason } from './queue-set';
import { flowHash } from './shuffle-sharding';
import { estimateSeats, levelMaxSeats } from './work-estimate';

export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';
/** The post-start hook that writes the mandatory and suggested objects, as Kubernetes names it. */
export const APF_BOOTSTRAP_POST_START_HOOK = 'priority-and-fairness-config-producer';

// A request with no deadline (a watch) waits in a queue this long at most (Kubernetes' default wait limit).
const DEFAULT_WAIT_LIMIT_MS = 15_000;
const MAX_WAIT_LIMIT_MS = 60_000;
// How often the configuration objects are read again, and the ensurer runs (Kubernetes: every minute).
const CONFIG_RESYNC_MS = 1_000;
const ENSURE_PERIOD_MS = 60_000;
const RETRY_AFTER_SECONDS = 1;
const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

export interface FlowControlOptions {
  registries: ResourceRegistries;
  /** `--max-requests-inflight` plus `--max-mutating-requests-inflight`: the seats all levels share. */
  serverConcurrencyLimit: number;
  clock?: FairQueueClock;
}

interface Level {
  object: PriorityLevelConfiguration;
  exempt: boolean;
  queues: QueueSet | undefined;
  concurrencyLimit: number;
  maxSeats: number;
}

interface Classification {
  schema: FlowSchema;
  level: Level;
  flowKey: string;
}

/**
 * API Priority and Fairness, in place of the plain in-flight caps: each request is classified by the
 * FlowSchemas (lowest matching precedence first, then name) into a priority level, and waits there
 * for seats in the queues of its flow (fair queuing, shuffle sharded), or is refused with 429 when
 * its queue is full or its wait runs out. The configuration is read from the server's own objects,
 * with the mandatory ones standing in for any missing; the server keeps the mandatory and suggested
 * objects, and the Dangling condition of every FlowSchema.
 */
export class FlowControl {
  private readonly clock: FairQueueClock;
  private schemas: FlowSchema[] = [];
  private levels = new Map<string, Level>();
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private readonly log = new Logger('FlowControl');
  private objectCount: (resource: string, group: string) => number | undefined = () => undefined;
  private metrics: FlowMetrics | undefined;
  /** Requests executing by kind, for apiserver_current_inflight_requests, which Kubernetes keeps with APF on too. */
  private readonly inflight = { readOnly: 0, mutating: 0 };
  private setInflight: (kind: 'readOnly' | 'mutating', count: number) => void = () => undefined;

  constructor(private readonly options: FlowControlOptions) {
    this.clock = options.clock ?? REAL_CLOCK;
    this.digest([], []);
  }

  /** Its metrics and the debug dumps on the serving shell. */
  readonly part: ServerPart = (core) => {
    this.metrics = new FlowMetrics(core.metrics.registry, this);
    this.objectCount = (resource, group) => core.metrics.storedObjectCount(resource, group);
    this.setInflight = (kind, count) => core.metrics.setInflight(kind, count);
    return debugRoutes(this);
  };

  /** Reads the configuration now and from then on; the first read is awaited. */
  async start(): Promise<void> {
    await this.resync();
    const tick = setInterval(() => void this.resync(), CONFIG_RESYNC_MS);
    tick.unref();
    this.timers.push(tick);
  }

  /** Writes the mandatory and suggested objects now and every minute (a post-start hook's work). */
  async startEnsuring(): Promise<void> {
    const registries = this.kindRegistries();
    if (registries === undefined) return;
    await ensureFlowcontrolConfiguration(registries);
    await this.resync();
    const tick = setInterval(() => {
      if (!this.stopped) ensureFlowcontrolConfiguration(registries).catch((error: unknown) => this.log.warn(`keeping the APF configuration: ${String(error)}`));
    }, ENSURE_PERIOD_MS);
    tick.unref();
    this.timers.push(tick);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
  }

  /** The filter in the handler chain. */
  filter(): ChainHandler {
    return (req, res, next) => this.handle(req, res, next);
  }

  /** The levels as they stand, for the debug dumps and the metrics. */
  levelStates(): Array<{ name: string; exempt: boolean; concurrencyLimit: number; queues: QueueSet | undefined }> {
    return [...this.levels.entries()].map(([name, l]) => ({ name, exempt: l.exempt, concurrencyLimit: l.concurrencyLimit, queues: l.queues }));
  }

  private kindRegistries(): { flowSchemas: ResourceRegistry; priorityLevels: ResourceRegistry } | undefined {
    const flowSchemas = this.options.registries.kind(flowSchemaDefinition);
    const priorityLevels = this.options.registries.kind(priorityLevelConfigurationDefinition);
    return flowSchemas && priorityLevels ? { flowSchemas, priorityLevels } : undefined;
  }

  private resyncing = false;

  private async resync(): Promise<void> {
    const registries = this.kindRegistries();
    if (registries === undefined || this.resyncing || this.stopped) return;
    this.resyncing = true;
    try {
      const [schemas, levels] = await Promise.all([registries.flowSchemas.list(''), registries.priorityLevels.list('')]);
      this.digest(schemas.items, levels.items);
      await this.writeDanglingConditions(registries.flowSchemas, schemas.items);
    } catch (error) {
      this.log.warn(`reading the APF configuration: ${String(error)}`);
    } finally {
      this.resyncing = false;
    }
  }

  /** Takes a new configuration: the mandatory objects stand in for missing ones; the seats are divided by shares. */
  private digest(schemas: readonly FlowSchema[], levels: readonly PriorityLevelConfiguration[]): void {
    const levelObjects = [...levels];
    for (const m of MANDATORY_PRIORITY_LEVELS) if (!levelObjects.some((l) => l.metadata?.name === m.metadata?.name)) levelObjects.push(m);
    const schemaObjects = [...schemas];
    for (const m of MANDATORY_FLOW_SCHEMAS) if (!schemaObjects.some((s) => s.metadata?.name === m.metadata?.name)) schemaObjects.push(m);
    const shares = (pl: PriorityLevelConfiguration): number =>
      pl.spec?.type === 'Exempt' ? (pl.spec.exempt?.nominalConcurrencyShares ?? 0) : (pl.spec?.limited?.nominalConcurrencyShares ?? 30);
    const total = levelObjects.reduce((sum, pl) => sum + shares(pl), 0);
    const next = new Map<string, Level>();
    for (const pl of levelObjects) {
      const name = pl.metadata?.name ?? '';
      const exempt = pl.spec?.type === 'Exempt';
      const concurrencyLimit = total > 0 ? Math.ceil((this.options.serverConcurrencyLimit * shares(pl)) / total) : 0;
      const response = pl.spec?.limited?.limitResponse;
      const queuing = response?.type === 'Queue' && response.queuing ? response.queuing : undefined;
      const shape = queuing
        ? { queues: queuing.queues ?? 64, handSize: Math.min(queuing.handSize ?? 8, queuing.queues ?? 64), queueLengthLimit: queuing.queueLengthLimit ?? 50 }
        : undefined;
      const previous = this.levels.get(name);
      let queues: QueueSet | undefined;
      if (!exempt) {
        queues = previous?.queues ?? new QueueSet(concurrencyLimit, shape, this.clock);
        if (previous?.queues) queues.reshape(concurrencyLimit, shape);
      }
      next.set(name, { object: pl, exempt, queues, concurrencyLimit, maxSeats: levelMaxSeats(concurrencyLimit, shape?.handSize ?? 1) });
    }
    // A level no longer configured keeps serving what it admitted; its waiting requests were already served or expire.
    this.levels = next;
    this.schemas = schemaObjects.filter((s) => next.has(s.spec?.priorityLevelConfiguration?.name ?? '')).sort(compareFlowSchemas);
  }

  private async writeDanglingConditions(registry: ResourceRegistry, schemas: readonly FlowSchema[]): Promise<void> {
    for (const schema of schemas) {
      const levelName = schema.spec?.priorityLevelConfiguration?.name ?? '';
      const dangling = !this.levels.has(levelName);
      const wanted = dangling
        ? {
            status: 'True' as const,
            reason: 'NotFound',
            message: `This FlowSchema references the PriorityLevelConfiguration object named "${levelName}" but there is no such object`,
          }
        : {
            status: 'False' as const,
            reason: 'Found',
            message: `This FlowSchema references the PriorityLevelConfiguration object named "${levelName}" and it exists`,
          };
      const conditions = schema.status?.conditions ?? [];
      const current = conditions.find((c) => c.type === FLOW_SCHEMA_CONDITION_DANGLING);
      if (current && current.status === wanted.status && current.reason === wanted.reason && current.message === wanted.message) continue;
      const condition = {
        type: FLOW_SCHEMA_CONDITION_DANGLING,
        ...wanted,
        lastTransitionTime: new Date(this.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z'),
      };
      const next = structuredClone(schema);
      next.status = { conditions: [...conditions.filter((c) => c.type !== FLOW_SCHEMA_CONDITION_DANGLING), condition] };
      if (jsonEqual(next.status, schema.status)) continue;
      try {
        await registry.updateStatus(next, { fieldManager: 'api-priority-and-fairness-config-consumer-v1' });
      } catch {
        // Changed or deleted meanwhile: the next round sees it as it is.
      }
    }
  }

  private classify(req: IncomingMessage, user: UserInfo): Classification {
    const info = requestContext(req).info;
    for (const schema of this.schemas) {
      if (!flowSchemaMatches(schema, info, user)) continue;
      const level = this.levels.get(schema.spec?.priorityLevelConfiguration?.name ?? '');
      if (level === undefined) continue;
      const method = schema.spec?.distinguisherMethod?.type;
      const flowKey = method === 'ByUser' ? user.name : method === 'ByNamespace' ? info.namespace : '';
      return { schema, level, flowKey };
    }
    // The catch-all schema matches every request; it stands even when its object is missing.
    const schema = this.schemas.find((s) => s.metadata?.name === FLOW_SCHEMA_CATCH_ALL)!;
    return { schema, level: this.levels.get(PRIORITY_LEVEL_CATCH_ALL)!, flowKey: user.name };
  }

  private handle(req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void {
    const context = requestContext(req);
    const user = context.user ?? ANONYMOUS_USER;
    const { schema, level, flowKey } = this.classify(req, user);
    const schemaName = schema.metadata?.name ?? '';
    const levelName = level.object.metadata?.name ?? '';
    res.setHeader(FLOW_SCHEMA_UID_HEADER, schema.metadata?.uid ?? '');
    res.setHeader(PRIORITY_LEVEL_UID_HEADER, level.object.metadata?.uid ?? '');
    const metrics = this.metrics;
    const kind = context.mutating ? 'mutating' : 'readOnly';
    const executing = (delta: number): void => {
      this.inflight[kind] += delta;
      this.setInflight(kind, this.inflight[kind]);
    };
    if (level.exempt || level.queues === undefined) {
      metrics?.dispatched(levelName, schemaName, 0);
      metrics?.executing(levelName, schemaName, 1);
      executing(1);
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        metrics?.executing(levelName, schemaName, -1);
        executing(-1);
      };
      onceDone(res, end);
      if (context.longRunning) releaseOnHeaders(res, end);
      return next();
    }
    const url = requestUrl(req);
    const width = estimateSeats(context.info, url.searchParams, this.objectCount(context.info.resource, context.info.group), level.maxSeats);
    const now = this.clock.now();
    const waitLimitMs = context.deadline !== undefined ? Math.min(MAX_WAIT_LIMIT_MS, Math.max(0, (context.deadline - now) / 4)) : DEFAULT_WAIT_LIMIT_MS;
    metrics?.inqueue(levelName, schemaName, 1);
    level.queues
      .acquire({ hash: flowHash(schemaName, flowKey), width, waitLimitMs, signal: context.signal, tag: schemaName })
      .then((admission) => {
        metrics?.inqueue(levelName, schemaName, -1);
        if (!admission.admitted) {
          metrics?.rejected(levelName, schemaName, admission.reason);
          if (admission.reason === 'cancelled' || res.writableEnded) return;
          return writeStatus(res, tooManyRequestsStatus('Too many requests, please try again later.', RETRY_AFTER_SECONDS));
        }
        metrics?.dispatched(levelName, schemaName, admission.waitedMs / 1000);
        metrics?.executing(levelName, schemaName, 1, width);
        executing(1);
        let released = false;
        const release = (): void => {
          if (released) return;
          released = true;
          admission.release();
          metrics?.executing(levelName, schemaName, -1, -width);
          executing(-1);
        };
        onceDone(res, release);
        // A watch holds its seats only until it starts streaming, as Kubernetes' watches do until their initialization.
        if (context.longRunning) releaseOnHeaders(res, release);
        next();
      })
      .catch(next);
  }
}

function onceDone(res: ServerResponse, done: () => void): void {
  let called = false;
  const once = (): void => {
    if (called) return;
    called = true;
    done();
  };
  res.once('finish', once);
  res.once('close', once);
}

function releaseOnHeaders(res: ServerResponse, release: () => void): void {
  const writeHead = res.writeHead.bind(res);
  res.writeHead = ((...args: Parameters<ServerResponse['writeHead']>) => {
    res.writeHead = writeHead;
    release();
    return writeHead(...args);
  }) as ServerResponse['writeHead'];
}

/** Kubernetes' `apiserver_flowcontrol_*` metrics. */
class FlowMetrics {
  private readonly inqueueGauge: Gauge<'priority_level' | 'flow_schema'>;
  private readonly executingGauge: Gauge<'priority_level' | 'flow_schema'>;
  private readonly seatsGauge: Gauge<'priority_level' | 'flow_schema'>;
  private readonly rejectedCounter: Counter<'priority_level' | 'flow_schema' | 'reason'>;
  private readonly dispatchedCounter: Counter<'priority_level' | 'flow_schema'>;
  private readonly waitHistogram: Histogram<'priority_level' | 'flow_schema' | 'execute'>;

  constructor(registry: Registry, control: FlowControl) {
    const registers = [registry];
    const labelNames = ['priority_level', 'flow_schema'] as const;
    this.inqueueGauge = new Gauge({
      name: 'apiserver_flowcontrol_current_inqueue_requests',
      help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
      labelNames,
      registers,
    });
    this.executingGauge = new Gauge({
      name: 'apiserver_flowcontrol_current_executing_requests',
      help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
      labelNames,
      registers,
    });
    this.seatsGauge = new Gauge({
      name: 'apiserver_flowcontrol_current_executing_seats',
      help: 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
      labelNames,
      registers,
    });
    this.rejectedCounter = new Counter({
      name: 'apiserver_flowcontrol_rejected_requests_total',
      help: 'Number of requests rejected by API Priority and Fairness subsystem',
      labelNames: [...labelNames, 'reason'],
      registers,
    });
    this.dispatchedCounter = new Counter({
      name: 'apiserver_flowcontrol_dispatched_requests_total',
      help: 'Number of requests executed by API Priority and Fairness subsystem',
      labelNames,
      registers,
    });
    this.waitHistogram = new Histogram({
      name: 'apiserver_flowcontrol_request_wait_duration_seconds',
      help: 'Length of time a request spent waiting in its queue',
      labelNames: [...labelNames, 'execute'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'apiserver_flowcontrol_nominal_limit_seats',
      help: 'Nominal number of execution seats configured for each priority level',
      labelNames: ['priority_level'],
      registers,
      collect() {
        this.reset();
        for (const level of control.levelStates()) this.set({ priority_level: level.name }, level.concurrencyLimit);
      },
    });
  }

  inqueue(level: string, schema: string, delta: number): void {
    this.inqueueGauge.inc({ priority_level: level, flow_schema: schema }, delta);
  }

  executing(level: string, schema: string, delta: number, seats = 0): void {
    this.executingGauge.inc({ priority_level: level, flow_schema: schema }, delta);
    if (seats !== 0) this.seatsGauge.inc({ priority_level: level, flow_schema: schema }, seats);
  }

  dispatched(level: string, schema: string, waitedSeconds: number): void {
    this.dispatchedCounter.inc({ priority_level: level, flow_schema: schema });
    this.waitHistogram.observe({ priority_level: level, flow_schema: schema, execute: 'true' }, waitedSeconds);
  }

  rejected(level: string, schema: string, reason: RejectReason): void {
    this.rejectedCounter.inc({ priority_level: level, flow_schema: schema, reason });
  }
}

/** A table as Kubernetes' dumps print theirs: comma-separated cells, padded into columns. */
function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length + 1)));
  return (
    rows
      .map((row) =>
        row
          .map((cell, i) => (i === row.length - 1 ? cell : `${cell},`.padEnd(widths[i] + 1)))
          .join('')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** `/debug/api_priority_and_fairness/dump_priority_levels` and `dump_queues`, as Kubernetes prints them. */
function debugRoutes(control: FlowControl): MuxRoute[] {
  const text = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };
  return [
    {
      path: '/debug/api_priority_and_fairness/dump_priority_levels',
      methods: ['GET'],
      handler: (_req, res) => {
        const rows = [
          [
            'PriorityLevelName',
            'ActiveQueues',
            'IsIdle',
            'IsQuiescing',
            'WaitingRequests',
            'ExecutingRequests',
            'DispatchedRequests',
            'RejectedRequests',
            'TimedoutRequests',
            'CancelledRequests',
          ],
        ];
        for (const level of control.levelStates().sort((a, b) => (a.name < b.name ? -1 : 1))) {
          if (level.exempt || !level.queues) {
            rows.push([level.name, '<none>', '<none>', '<none>', '<none>', '<none>', '<none>', '<none>', '<none>', '<none>']);
            continue;
          }
          const s = level.queues.state();
          const active = s.queues.filter((q) => q.waitingRequests > 0 || q.executingRequests > 0).length;
          rows.push([
            level.name,
            String(active),
            String(level.queues.idle),
            'false',
            String(s.waitingRequests),
            String(s.executingRequests),
            String(s.dispatched),
            String(s.rejected),
            String(s.timedOut),
            String(s.cancelled),
          ]);
        }
        res.end(200, table(rows), text);
      },
    },
    {
      path: '/debug/api_priority_and_fairness/dump_queues',
      methods: ['GET'],
      handler: (_req, res) => {
        const rows = [['PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum']];
        for (const level of control.levelStates().sort((a, b) => (a.name < b.name ? -1 : 1))) {
          if (!level.queues) continue;
          for (const q of level.queues.state().queues) {
            rows.push([
              level.name,
              String(q.index),
              String(q.waitingRequests),
              String(q.executingRequests),
              String(q.seatsInUse),
              `${q.virtualFinish.toFixed(8)}ss`,
              String(q.waitingSeats),
            ]);
          }
        }
        res.end(200, table(rows), text);
      },
    },
  ];
}
