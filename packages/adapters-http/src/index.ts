export { bearerKey } from './authenticate.js'
export {
  decodeListPetsQuery,
  decodeNewPet,
  decodePetId,
  encodePet,
  encodePets,
  ListPetsQuery,
  NewPetBody,
  PetIdParam,
} from './codecs.js'
export { createHttpApp, type HttpAppOptions } from './create-http-app.js'
export { createPetsRouter, type PetsRouterOptions } from './create-pets-router.js'
export { silentLogger, type HttpLogger } from './logger.js'
export { toErrorResponse, type ErrorBody, type ErrorResponse, type Problem } from './problems.js'
export { MAX_BODY_BYTES } from './read-json-body.js'
export { requestIdOf } from './request-id.js'
export { GET_PET_DEPRECATED_AT } from './routes/pet-routes.js'
export type { PetsUseCases } from './use-cases.js'
