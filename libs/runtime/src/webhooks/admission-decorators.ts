import type { KubeObject } from '@svc/informers';
import type { ResourceRef } from '../reconcile/resource-ref';

export type WebhookOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** What a validating or defaulting method gets: the request's objects, typed by its resource. */
export interface AdmissionInput<T> {
  operation: WebhookOperation;
  /** The object as it would be stored (absent on DELETE). */
  object?: T;
  /** The stored object (UPDATE and DELETE). */
  oldObject?: T;
  namespace?: string;
  name?: string;
  dryRun: boolean;
  /** The caller, as the API server authenticated it. */
  userInfo: { username?: string; uid?: string; groups?: string[] };
}

/** A validator's verdict: nothing or `true` allows; a string or `false` denies (the string is the message). */
export type ValidationVerdict = void | boolean | string | { allowed: boolean; message?: string; warnings?: string[] };

export interface AdmissionHookOptions {
  /** The operations it is called for; CREATE and UPDATE by default. */
  operations?: readonly WebhookOperation[];
  /** Fail (default) refuses requests while the webhook cannot be reached; Ignore lets them through. */
  failurePolicy?: 'Fail' | 'Ignore';
  timeoutSeconds?: number;
}

export interface AdmissionHook {
  kind: 'validate' | 'default';
  method: string | symbol;
  resource: ResourceRef<unknown>;
  options: AdmissionHookOptions;
}

const HOOKS = Symbol.for('svc.runtime.admissionHooks');

function record(target: object, hook: AdmissionHook): void {
  const existing = (Reflect.getOwnMetadata(HOOKS, target) as AdmissionHook[] | undefined) ?? [];
  Reflect.defineMetadata(HOOKS, [...existing, hook], target);
}

/**
 * Marks a method as a validating admission webhook of `resource`: it gets the request's typed objects
 * and answers allowed or denied (a thrown error denies with its message). The manager serves it and
 * registers a ValidatingWebhookConfiguration for it.
 */
export function Validate<T extends KubeObject>(resource: ResourceRef<T>, options: AdmissionHookOptions = {}) {
  return <M extends (input: AdmissionInput<T>) => ValidationVerdict | Promise<ValidationVerdict>>(
    target: object,
    method: string | symbol,
    _descriptor: TypedPropertyDescriptor<M>,
  ): void => record(target, { kind: 'validate', method, resource, options });
}

/**
 * Marks a method as a defaulting (mutating) admission webhook of `resource`: it gets the object about
 * to be stored and returns it changed (or changes it in place and returns nothing); the manager answers
 * with the JSON patch between the two and registers a MutatingWebhookConfiguration for it.
 */
export function Default<T extends KubeObject>(resource: ResourceRef<T>, options: AdmissionHookOptions = {}) {
  return <M extends (object: T, input: AdmissionInput<T>) => T | void | Promise<T | void>>(
    target: object,
    method: string | symbol,
    _descriptor: TypedPropertyDescriptor<M>,
  ): void => record(target, { kind: 'default', method, resource, options });
}

/** The hooks a class's methods declare. */
export function admissionHooksOf(instance: object): AdmissionHook[] {
  return (Reflect.getMetadata(HOOKS, Object.getPrototypeOf(instance) as object) as AdmissionHook[] | undefined) ?? [];
}
