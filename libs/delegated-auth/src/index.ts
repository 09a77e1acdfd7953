export {
  DelegatedAuth,
  delegatedAuthFromFlags,
  isPathAllowed,
  type AccessAttributes,
  type AccessDescriber,
  type AuthDecision,
  type DelegatedAuthFlags,
  type DelegatedAuthOptions,
} from './delegated-auth';
