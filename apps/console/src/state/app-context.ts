import { createContext, useContext } from 'react';
import type { ApiResource } from '../api/discovery';

export interface UserInfo {
  username: string;
  groups: string[];
}

export interface AppState {
  user: UserInfo;
  resources: ApiResource[];
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
export function findResource(resources: ApiResource[], group: string, version: string, resource: string): ApiResource | undefined {
  return (
    resources.find((r) => r.group === group && r.version === version && r.resource === resource) ??
    resources.find((r) => r.group === group && r.resource === resource && r.preferred)
  );
}

/** The preferred resource of a kind in a group (`apps` Deployments), for links between views. */
export function resourceOfKind(resources: ApiResource[], group: string, kind: string): ApiResource | undefined {
  return resources.find((r) => r.group === group && r.kind === kind && r.preferred);
}
