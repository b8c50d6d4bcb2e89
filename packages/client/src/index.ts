export type { Pet, PetStatus } from '@pets/domain'
export {
  describeClientError,
  ERROR_STATUSES,
  ERROR_TAGS,
  PetsClientFailure,
  type ErrorCode,
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
export type {
  CreatePetOptions,
  ListPetsQuery,
  NewPetInput,
  PageLink,
  PetsClient,
  PetsClientOptions,
  PetsPage,
} from './pets-client.js'
export { ErrorBody } from './decode-response.js'
export type { RetryOptions } from './send-request.js'
