import { failureStatus, queryBool, StatusError, StatusReasons } from '@svc/machinery';
import type { Pod } from '../../kinds/core/pod';
import type { ApiObject } from '../kind-definition';
import type { ConnectLocation, ConnectSubresource } from '../kind-strategy';
import { as } from './define-kind';

function badRequest(message: string): StatusError {
  return new StatusError(failureStatus(400, StatusReasons.BadRequest, message, {}));
}

/** The container a request names, or the pod's only one; Kubernetes' messages otherwise. */
function containerOf(pod: Pod, query: URLSearchParams, includeInit: boolean): string {
  const name = query.get('container') ?? '';
  const podName = pod.metadata?.name ?? '';
  const containers = (pod.spec?.containers ?? []).map((c) => c.name);
  const init = (pod.spec?.initContainers ?? []).map((c) => c.name);
  const ephemeral = (pod.spec?.ephemeralContainers ?? []).map((c) => c.name);
  if (name === '') {
    if (containers.length === 1) return containers[0];
    const choices = `[${containers.join(' ')}]${init.length > 0 && includeInit ? ` or one of the init containers: [${init.join(' ')}]` : ''}`;
    throw badRequest(`a container name must be specified for pod ${podName}, choose one of: ${choices}`);
  }
  if (![...containers, ...(includeInit ? init : []), ...ephemeral].includes(name)) {
    throw badRequest(`container ${name} is not valid for pod ${podName}`);
  }
  return name;
}

function nodeOf(pod: Pod): string {
  const node = pod.spec?.nodeName ?? '';
  if (node === '') throw badRequest(`pod ${pod.metadata?.name ?? ''} does not have a host assigned`);
  return node;
}

function nonNegativeInt(query: URLSearchParams, name: string): void {
  const value = query.get(name);
  if (value !== null && !/^\d+$/.test(value)) throw badRequest(`${name}: Invalid value: ${JSON.stringify(value)}: must be a non-negative integer`);
}

function copy(query: URLSearchParams, names: readonly string[]): URLSearchParams {
  const out = new URLSearchParams();
  for (const name of names) for (const value of query.getAll(name)) out.append(name, value);
  return out;
}

function segment(value: string | undefined): string {
  return encodeURIComponent(value ?? '');
}

const LOG_OPTIONS = ['follow', 'previous', 'timestamps', 'sinceSeconds', 'sinceTime', 'tailLines', 'limitBytes', 'insecureSkipTLSVerifyBackend'];
const STREAM_FLAGS = [
  ['stdin', 'input'],
  ['stdout', 'output'],
  ['stderr', 'error'],
  ['tty', 'tty'],
] as const;

/**
 * The node agent's query of an exec or attach, as Kubernetes' streamParams writes it from the decoded
 * options: each stream asked for as `1` (whatever spelling the client used: `True`, `true`, `1`, or
 * the older `input`/`output`/`error`), the command's words in order.
 */
function streamQuery(query: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [name, legacy] of STREAM_FLAGS) if (queryBool(query, name) || queryBool(query, legacy)) out.append(name, '1');
  for (const word of query.getAll('command')) out.append('command', word);
  return out;
}

const log: ConnectSubresource = {
  methods: ['GET'],
  location(object: ApiObject, query: URLSearchParams): ConnectLocation {
    const pod = as<Pod>(object);
    const container = containerOf(pod, query, true);
    for (const name of ['sinceSeconds', 'tailLines', 'limitBytes']) nonNegativeInt(query, name);
    if (query.get('sinceSeconds') !== null && query.get('sinceTime') !== null) throw badRequest('at most one of sinceTime or sinceSeconds may be specified');
    const path = `/containerLogs/${segment(pod.metadata?.namespace)}/${segment(pod.metadata?.name)}/${segment(container)}`;
    return { nodeName: nodeOf(pod), path, query: copy(query, LOG_OPTIONS) };
  },
};

function streaming(kind: 'exec' | 'attach'): ConnectSubresource {
  return {
    methods: ['GET', 'POST'],
    location(object: ApiObject, query: URLSearchParams): ConnectLocation {
      const pod = as<Pod>(object);
      const container = containerOf(pod, query, false);
      if (kind === 'exec' && query.getAll('command').length === 0) throw badRequest('you must specify at least one command for the container');
      const path = `/${kind}/${segment(pod.metadata?.namespace)}/${segment(pod.metadata?.name)}/${segment(container)}`;
      return { nodeName: nodeOf(pod), path, query: streamQuery(query) };
    },
  };
}

const portforward: ConnectSubresource = {
  methods: ['GET', 'POST'],
  location(object: ApiObject, query: URLSearchParams): ConnectLocation {
    const pod = as<Pod>(object);
    for (const port of query.getAll('ports').flatMap((p) => p.split(','))) {
      const n = Number(port);
      if (!Number.isInteger(n) || n < 1 || n > 65535) throw badRequest(`port ${JSON.stringify(port)} must be between 1 and 65535, inclusive`);
    }
    const out = new URLSearchParams();
    for (const port of query.getAll('ports')) out.append('port', port);
    return { nodeName: nodeOf(pod), path: `/portForward/${segment(pod.metadata?.namespace)}/${segment(pod.metadata?.name)}`, query: out };
  },
};

/** A pod's connections to the node agent that runs it: Kubernetes' pods/log, exec, attach and portforward. */
export const POD_CONNECT_SUBRESOURCES: Readonly<Record<string, ConnectSubresource>> = {
  log,
  exec: streaming('exec'),
  attach: streaming('attach'),
  portforward,
};
