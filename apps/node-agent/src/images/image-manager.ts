import type { Container, Pod } from '@svc/api';
import { defaultPullPolicy } from '@svc/api';
import { TokenBucket, type Clock } from '@svc/client';
import { CriError, type AuthConfig, type CriClient, type PodSandboxConfig } from '@svc/cri';
import { errorMessage, goQuote } from '@svc/machinery';
import { KeyedBackoff } from '../keyed-backoff';
import { imageReferenceProblem } from './image-reference';

/** Why a container's image is not there: the waiting reason Kubernetes shows for it. */
export class ImagePullError extends Error {
  constructor(
    readonly reason: 'ErrImagePull' | 'ImagePullBackOff' | 'ErrImageNeverPull' | 'InvalidImageName',
    message: string,
  ) {
    super(message);
    this.name = 'ImagePullError';
  }
}

export interface ImageManagerOptions {
  /** `serializeImagePulls`: one pull at a time. */
  serialize: boolean;
  /** `registryPullQPS` (0: no limit) and `registryBurst`: a pull beyond them fails with `pull QPS exceeded`. */
  qps: number;
  burst: number;
  /** What the pull limiter reads the time from (tests substitute a manual one). */
  clock?: Clock;
}

/** Pulls that failed with each credential tried. */
class AggregatePullError extends Error {
  constructor(readonly failures: unknown[]) {
    // Kubernetes' error aggregate: each distinct message once, in brackets when there are several.
    const distinct = [...new Set(failures.map(pullErrorText))];
    super(distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`);
  }
}

/** A pull error as the kubelet words it: the runtime's gRPC error as a Go client prints it. */
function pullErrorText(error: unknown): string {
  return error instanceof CriError ? error.grpcText : errorMessage(error);
}

/** Credentials for pulling an image: the pod's imagePullSecrets and the credential provider plugins. */
export type CredentialLookup = (image: string, pod: Pod) => Promise<AuthConfig[]>;

/**
 * Makes sure a container's image is present before it starts, by its pull policy: `Never` uses
 * what the runtime has (ErrImageNeverPull otherwise), `IfNotPresent` pulls when missing, `Always`
 * pulls every time. Failed pulls back off (ImagePullBackOff) as Kubernetes' do.
 */
export class ImageManager {
  private readonly backoff = new KeyedBackoff();
  private readonly limiter?: TokenBucket;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly cri: CriClient,
    private readonly options: ImageManagerOptions,
    private readonly credentials: CredentialLookup,
    private readonly onEvent: (pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string) => void,
  ) {
    if (options.qps > 0) this.limiter = new TokenBucket(options.qps, Math.max(1, options.burst), options.clock);
  }

  /** The image reference (id) to run, pulling per policy; throws ImagePullError when it cannot be had. */
  async ensure(pod: Pod, container: Container, sandboxConfig: PodSandboxConfig): Promise<string> {
    const image = container.image;
    const problem = imageReferenceProblem(image ?? '');
    if (problem !== undefined) {
      // As the kubelet: never pulled nor backed off, reported until the pod's spec names a valid image.
      const message = `Failed to apply default image tag ${goQuote(image ?? '')}: couldn't parse image reference ${goQuote(image ?? '')}: ${problem}`;
      this.onEvent(pod, 'Warning', 'InspectFailed', message);
      throw new ImagePullError('InvalidImageName', message);
    }
    const policy = container.imagePullPolicy ?? defaultPullPolicy(image);
    const present = await this.cri.imageStatus(image);
    if (policy === 'Never') {
      if (present) return present.id;
      const message = `Container image "${image}" is not present with pull policy of Never`;
      this.onEvent(pod, 'Warning', 'ErrImageNeverPull', message);
      throw new ImagePullError('ErrImageNeverPull', message);
    }
    if (present && policy === 'IfNotPresent') {
      this.onEvent(pod, 'Normal', 'Pulled', `Container image "${image}" already present on machine`);
      return present.id;
    }
    const key = `${pod.metadata?.uid ?? ''}/${image}`;
    if (this.backoff.isInBackoffSince(key, Date.now())) {
      const message = `Back-off pulling image "${image}"`;
      this.onEvent(pod, 'Normal', 'BackOff', message);
      throw new ImagePullError('ImagePullBackOff', message);
    }
    try {
      const ref = await this.pull(pod, image, sandboxConfig);
      this.backoff.reset(key);
      return ref;
    } catch (error) {
      this.backoff.next(key, Date.now());
      // As the kubelet: the event names the image, the container's waiting message is the error itself.
      const message = pullErrorText(error);
      this.onEvent(pod, 'Warning', 'Failed', `Failed to pull image "${image}": ${message}`);
      throw new ImagePullError('ErrImagePull', message);
    }
  }

  /** When the pull backoff of the pod's image ends (to retry then), or undefined. */
  retryAt(pod: Pod, image: string): number | undefined {
    const key = `${pod.metadata?.uid ?? ''}/${image}`;
    const delay = this.backoff.get(key);
    return delay > 0 ? Date.now() + delay : undefined;
  }

  forgetPod(uid: string): void {
    this.backoff.forgetPrefix(`${uid}/`);
  }

  private async pull(pod: Pod, image: string, sandboxConfig: PodSandboxConfig): Promise<string> {
    const run = async (): Promise<string> => {
      // As the kubelet: a pull over the rate fails at once (and backs off), it does not queue.
      if (this.limiter && !this.limiter.tryAccept()) throw new Error('pull QPS exceeded');
      this.onEvent(pod, 'Normal', 'Pulling', `Pulling image "${image}"`);
      const started = Date.now();
      const auths = await this.credentials(image, pod);
      const failures: unknown[] = [];
      // Each credential of the keyring in turn, or none when it has none (the kubelet makes no anonymous
      // try after credentials that failed); every failure is reported.
      for (const auth of auths.length > 0 ? auths : [undefined]) {
        try {
          const ref = await this.cri.pullImage(image, auth, sandboxConfig);
          this.onEvent(pod, 'Normal', 'Pulled', `Successfully pulled image "${image}" in ${Date.now() - started}ms`);
          return ref;
        } catch (error) {
          failures.push(error);
        }
      }
      throw failures.length === 1 ? failures[0] : new AggregatePullError(failures);
    };
    if (!this.options.serialize) return run();
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
