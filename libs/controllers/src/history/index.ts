export { ControllerHistory, type CreatedRevision } from './controller-history';
export { CONTROLLER_REVISION_HASH_LABEL, controllerRevisionName, hashControllerRevision, newControllerRevision, type OwnerKind } from './revision-hash';
export { equalRevision, findEqualRevisions, nextRevisionNumber, revisionsBeyondLimit, sortControllerRevisions } from './revision-order';
