import type { ApiObject } from '@svc/api';
import type { WriteOptions, WriteResult } from '../types';
import { Stepper } from './stepper';
import type { Store } from './store';
import { recoverTypeError } from './validation';
import type { WriteFinish } from './write-hooks';

/** The subresource a write goes through: the object itself (''), `status`, `scale`, or one the kind's strategy serves. */
export type WriteTarget = string;

/** What one write knows as its steps run: the request, the warnings gathered, and the object worked on. */
export interface WriteState {
  namespace: string;
  name: string;
  target: WriteTarget;
  options: WriteOptions;
  now: Date;
  warnings: string[];
  /** Unknown fields the body had (pruned); with type errors beside them the answer is a 400, not a 422. */
  unknownCount: number;
  /** managedFields were computed by server-side apply: the update bookkeeping must not run again. */
  applied: boolean;
  /** What the kind's write hooks want told once the write of this attempt is stored or abandoned. */
  finish?: WriteFinish;
  /** Runs the write's steps, yielding when its slice of the event loop is spent. */
  stepper: Stepper;
  /** The object the write is working on, once there is one: see recoverTypeError. */
  subject?: ApiObject;
}

/** A write's state before its first step; a step that fails on a mistyped body is answered as the body deserves (recoverTypeError). */
export function newWriteState(store: Store, namespace: string, name: string, target: WriteTarget, options: WriteOptions): WriteState {
  const w: WriteState = { namespace, name, target, options, now: store.context.now(), warnings: [], unknownCount: 0, applied: false, stepper: new Stepper() };
  w.stepper = new Stepper((error) => recoverTypeError(store, w, error));
  return w;
}

/** Tells the hooks how the attempt ended (once); errors of the hooks' cleanup are theirs to keep. */
export async function finishWrite(w: WriteState, stored: boolean): Promise<void> {
  const finish = w.finish;
  w.finish = undefined;
  if (finish !== undefined) await finish(stored);
}

/** The answer of a write: the object as the endpoint serves it, with the write's warnings. */
export async function writeResult(store: Store, object: ApiObject, w: WriteState, created: boolean): Promise<WriteResult> {
  return { object: await store.served(object), warnings: w.warnings, created };
}
