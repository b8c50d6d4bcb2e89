export { createCallerAuthenticator } from './caller-authenticator.js'
export { createInternalService, PETS_PREFIX, type InternalServiceOptions } from './create-internal-service.js'
export { intakeRoutes } from './intake-routes.js'
