import { createContext, useContext } from 'react';
import type { DiscoveredResource } from '../api/discovery';

export interface ReviewedUser {
  username: string;
  groups: string[];
}

export interface AppState {
  user: ReviewedUser;
  resources: DiscoveredResource[];
  /** The namespace lists and views are scoped to; '' for all namespaces. */
  namespace: string;
  setNamespace: (namespace: string) => void;
  /** Shows the outcome of an action (a denial as the server's message) in the page's status region. */
  notify: (message: string, kind?: 'ok' | 'error') => void;
  signOut: () => void;
}

export const AppContext = createContext<AppState | undefined>(undefined);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (!state) throw new Error('outside the console');
  return state;
}

/** The resource a route names (its exact version, or the group's preferred one). */
export function findResource(resources: DiscoveredResource[], group: string, version: string, resource: string): DiscoveredResource | undefined {
  return (
    resources.find((r) => r.group === group && r.version === version && r.resource === resource) ??
    resources.find((r) => r.group === group && r.resource === resource && r.preferred)
  );
}

/** The preferred resource of a kind in a group (`apps` Deployments), for links between views. */
export function resourceOfKind(resources: DiscoveredResource[], group: string, kind: string): DiscoveredResource | undefined {
  return resources.find((r) => r.group === group && r.kind === kind && r.preferred);
}
