import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kindFromCrd, type CustomResourceDefinition } from '@svc/api';
import { typedResource } from '@svc/client';
import { parse } from 'yaml';

/** The object the API server stores for `kind: Greeting` (its schema is in crd.yaml). */
export interface Greeting {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
  };
  spec: {
    message: string;
    /** 1..5, defaulted to 1 by the server. */
    copies?: number;
  };
  status?: {
    observedGeneration?: number;
    configMaps?: number;
  };
}

/** The CustomResourceDefinition, read from crd.yaml so that kubectl and the code share one source. */
export const greetingCrd: CustomResourceDefinition = parse(readFileSync(join(__dirname, 'crd.yaml'), 'utf8')) as CustomResourceDefinition;

/** `greetings` in `demo.svc.io/v1`, typed: the same KindDefinition the server builds from the CRD. */
export const greetings = typedResource<Greeting>(kindFromCrd(greetingCrd, 'v1'));
