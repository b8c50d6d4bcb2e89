export type { Pet, PetStatus } from '@pets/domain'
export {
  describeClientError,
  ERROR_TAGS,
  PetsClientFailure,
  type Aborted,
  type Gone,
  type IdempotencyKeyInUse,
  type IdempotencyKeyReused,
  type InternalError,
  type MethodNotAllowed,
  type NetworkFailure,
  type NotFound,
  type NotImplemented,
  type PayloadTooLarge,
  type PetsClientError,
  type RateLimited,
  type ServiceError,
  type ServiceErrorOf,
  type Unauthorized,
  type Unavailable,
  type UndecodableResponse,
  type UnsupportedMediaType,
  type ValidationFailed,
} from './client-errors.js'
export { createPetsClient } from './create-pets-client.js'
export { MAX_RESPONSE_BYTES } from './decode-response.js'
export type {
  CallOptions,
  CreatePetOptions,
  ListPetsQuery,
  NewPetInput,
  PageLink,
  PetsClient,
  PetsClientOptions,
  PetsPage,
} from './pets-client.js'
// The wire contract the client decodes with: every error code with its status, the Error body.
export { ErrorBody, ERRORS, type ErrorCode } from '@pets/wire'
export type { RetryOptions } from './retry-bounds.js'
export type { Sleep } from './abortable.js'
