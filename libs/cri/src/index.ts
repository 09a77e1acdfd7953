export * from './cri-types';
export { CriClient, CriError, isCriNotFound, grpcTarget, CRI_API_VERSION, type CriClientOptions } from './cri-client';
export { criMessage, CRI_METHODS, type RuntimeMethod, type ImageMethod } from './cri-protocol';
export * from './node-runtime';
