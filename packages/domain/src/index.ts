export * from './api-key.js'
export * from './api-key-usage.js'
export {
  authenticatorByDigest,
  trustedKeysLookup,
  type KeyLookup,
  type TrustedApiKey,
  type UnknownKeysOptions,
} from './authenticate-by-digest.js'
export { anyAuthenticator } from './authenticators.js'
export { checked, CheckedType, describeErrors, type Issue } from './checked.js'
export {
  decodeNewPet,
  decodeWith,
  NEW_PET_FIELDS,
  refuseUnknownKeys,
  shownFieldName,
  UNKNOWN_NAMED,
  unknownKeyIssues,
} from './decode.js'
export * from './errors.js'
export * from './idempotency.js'
export * from './pet.js'
export type * from './ports.js'
export * from './use-cases/index.js'
