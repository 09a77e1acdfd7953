import { Client, credentials, Metadata, status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import { methodMessages, type ImageMethod, type RuntimeMethod } from './cri-protocol';
import type {
  AuthConfig,
  RuntimeContainer,
  ContainerConfig,
  ContainerFilter,
  ContainerStats,
  RuntimeContainerStatus,
  ExecSyncResponse,
  Image,
  FilesystemUsage,
  Labels,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxFilter,
  PodSandboxStatus,
  StatusResponse,
  VersionResponse,
} from './cri-types';

/** The version of the CRI this client speaks, sent in `Version`. */
export const CRI_API_VERSION = 'v1';

export interface CriClientOptions {
  /** Deadline of every call but pulls and streaming set-ups (the node agent's `runtimeRequestTimeout`). */
  timeoutMs: number;
  /** Told of every finished call: the method, its duration and whether it failed (for metrics). */
  onCall?: (method: string, seconds: number, failed: boolean) => void;
}

/** A failed CRI call: the gRPC status code's name (`NOT_FOUND`, `UNAVAILABLE`, ...) and the runtime's message. */
export class CriError extends Error {
  constructor(
    readonly method: string,
    readonly code: string,
    readonly details: string,
  ) {
    super(`${method}: ${code}: ${details}`);
    this.name = 'CriError';
  }

  /**
   * The error as a Go gRPC client prints it (`rpc error: code = NotFound desc = ...`): the kubelet
   * passes the runtime's errors on in that form, into events and container statuses that users read.
   */
  get grpcText(): string {
    const goName =
      this.code === 'CANCELLED'
        ? 'Canceled'
        : this.code === 'OK'
          ? 'OK'
          : this.code
              .toLowerCase()
              .split('_')
              .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
              .join('');
    return `rpc error: code = ${goName} desc = ${this.details}`;
  }
}

export function isCriNotFound(error: unknown): boolean {
  return error instanceof CriError && error.code === 'NOT_FOUND';
}

const STATUS_NAMES = new Map<number, string>(Object.entries(grpcStatus).map(([name, code]) => [code as number, name]));

/** `unix:///path` as grpc-js wants it, from a bare path or an endpoint URL. */
export function grpcTarget(endpoint: string): string {
  if (endpoint.startsWith('unix://')) return `unix://${endpoint.slice('unix://'.length)}`;
  if (endpoint.startsWith('/')) return `unix://${endpoint}`;
  return endpoint;
}

interface CallOptions {
  /** Overrides the default deadline; 0 means none. */
  timeoutMs?: number;
}

/**
 * A client of a container runtime's CRI v1 services (`runtime.v1.RuntimeService` and
 * `runtime.v1.ImageService`) over gRPC on a unix socket. Each method is one call; a failure is a
 * {@link CriError}. Objects go in and come out camelCase, as `cri-types.ts` declares them.
 */
export class CriClient {
  private readonly client: Client;

  constructor(
    readonly endpoint: string,
    private readonly options: CriClientOptions,
  ) {
    // Messages of a busy node (ListContainers of hundreds of containers) pass 4 MiB.
    this.client = new Client(grpcTarget(endpoint), credentials.createInsecure(), {
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      'grpc.max_send_message_length': 16 * 1024 * 1024,
    });
  }

  close(): void {
    this.client.close();
  }

  private call<T>(service: 'RuntimeService' | 'ImageService', method: RuntimeMethod | ImageMethod, request: object, options: CallOptions = {}): Promise<T> {
    const { request: requestType, response: responseType } = methodMessages(method);
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const message = requestType.fromObject(request);
    const started = performance.now();
    const onCall = this.options.onCall;
    return new Promise<T>((resolve, reject) => {
      this.client.makeUnaryRequest(
        `/runtime.v1.${service}/${method}`,
        (value: object) => Buffer.from(requestType.encode(value).finish()),
        (bytes: Buffer) => responseType.toObject(responseType.decode(bytes), { longs: Number, enums: String, defaults: true }),
        message,
        new Metadata(),
        timeoutMs > 0 ? { deadline: Date.now() + timeoutMs } : {},
        (error: ServiceError | null, response?: object) => {
          onCall?.(method, (performance.now() - started) / 1000, error !== null);
          if (error) reject(new CriError(method, STATUS_NAMES.get(error.code) ?? String(error.code), error.details || error.message));
          else resolve(response as T);
        },
      );
    });
  }

  private runtime<T>(method: RuntimeMethod, request: object, options?: CallOptions): Promise<T> {
    return this.call<T>('RuntimeService', method, request, options);
  }

  private image<T>(method: ImageMethod, request: object, options?: CallOptions): Promise<T> {
    return this.call<T>('ImageService', method, request, options);
  }

  version(): Promise<VersionResponse> {
    return this.runtime('Version', { version: CRI_API_VERSION });
  }

  status(): Promise<StatusResponse> {
    return this.runtime('Status', {});
  }

  async updateRuntimeConfig(podCidr: string): Promise<void> {
    await this.runtime('UpdateRuntimeConfig', { runtimeConfig: { networkConfig: { podCidr } } });
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler = '', options?: CallOptions): Promise<string> {
    const response = await this.runtime<{ podSandboxId: string }>('RunPodSandbox', { config, runtimeHandler }, options);
    return response.podSandboxId;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.runtime('StopPodSandbox', { podSandboxId });
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.runtime('RemovePodSandbox', { podSandboxId });
  }

  async podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus> {
    const response = await this.runtime<{ status: PodSandboxStatus }>('PodSandboxStatus', { podSandboxId });
    return response.status;
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    const response = await this.runtime<{ items: PodSandbox[] }>('ListPodSandbox', filter ? { filter } : {});
    return response.items;
  }

  async createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    const response = await this.runtime<{ containerId: string }>('CreateContainer', { podSandboxId, config, sandboxConfig });
    return response.containerId;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.runtime('StartContainer', { containerId });
  }

  /** Stops with SIGTERM (or the image's stop signal), then SIGKILL after `timeoutSeconds`. */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    // The call lasts as long as the grace period; the deadline leaves room for it.
    await this.runtime('StopContainer', { containerId, timeout: timeoutSeconds }, { timeoutMs: this.options.timeoutMs + timeoutSeconds * 1000 });
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.runtime('RemoveContainer', { containerId });
  }

  async listContainers(filter?: ContainerFilter): Promise<RuntimeContainer[]> {
    const response = await this.runtime<{ containers: RuntimeContainer[] }>('ListContainers', filter ? { filter } : {});
    return response.containers;
  }

  async containerStatus(containerId: string): Promise<RuntimeContainerStatus> {
    const response = await this.runtime<{ status: RuntimeContainerStatus }>('ContainerStatus', { containerId });
    return response.status;
  }

  async reopenContainerLog(containerId: string): Promise<void> {
    await this.runtime('ReopenContainerLog', { containerId });
  }

  /** Runs a command to completion; `timeoutSeconds` 0 means none (the call's deadline is a little later). */
  execSync(containerId: string, cmd: readonly string[], timeoutSeconds: number): Promise<ExecSyncResponse> {
    const timeoutMs = timeoutSeconds > 0 ? timeoutSeconds * 1000 + this.options.timeoutMs : 0;
    return this.runtime('ExecSync', { containerId, cmd, timeout: timeoutSeconds }, { timeoutMs });
  }

  /** The URL of the runtime's streaming server that runs the command once connected. */
  async exec(request: { containerId: string; cmd: readonly string[]; tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean }): Promise<string> {
    const response = await this.runtime<{ url: string }>('Exec', request);
    return response.url;
  }

  async attach(request: { containerId: string; tty: boolean; stdin: boolean; stdout: boolean; stderr: boolean }): Promise<string> {
    const response = await this.runtime<{ url: string }>('Attach', request);
    return response.url;
  }

  async portForward(podSandboxId: string, ports: readonly number[]): Promise<string> {
    const response = await this.runtime<{ url: string }>('PortForward', { podSandboxId, port: ports });
    return response.url;
  }

  async listContainerStats(filter?: { id?: string; podSandboxId?: string; labelSelector?: Labels }): Promise<ContainerStats[]> {
    const response = await this.runtime<{ stats: ContainerStats[] }>('ListContainerStats', filter ? { filter } : {});
    return response.stats;
  }

  async listImages(): Promise<Image[]> {
    const response = await this.image<{ images: Image[] }>('ListImages', {});
    return response.images;
  }

  /** The image, or undefined when the runtime does not have it. */
  async imageStatus(image: string): Promise<Image | undefined> {
    const response = await this.image<{ image: Image | null }>('ImageStatus', { image: { image } });
    return response.image && response.image.id ? response.image : undefined;
  }

  /** Pulls and returns the image reference (its id); no deadline, as a large image takes long. */
  async pullImage(image: string, auth?: AuthConfig, sandboxConfig?: PodSandboxConfig): Promise<string> {
    const response = await this.image<{ imageRef: string }>('PullImage', { image: { image }, auth, sandboxConfig }, { timeoutMs: 0 });
    return response.imageRef;
  }

  async removeImage(image: string): Promise<void> {
    await this.image('RemoveImage', { image: { image } });
  }

  async imageFsInfo(): Promise<FilesystemUsage[]> {
    const response = await this.image<{ imageFilesystems: FilesystemUsage[] }>('ImageFsInfo', {});
    return response.imageFilesystems;
  }
}
