import { createPetsRouter, type PetsUseCases } from '@pets/adapters-http'
import { createMemoryStorage, createSystemClock } from '@pets/adapters-memory'
import { createUseCases, type Clock, type Storage } from '@pets/domain'
import Koa from 'koa'
import { createCallerAuthenticator } from './caller-authenticator.js'
import { intakeRoutes } from './intake-routes.js'
import { withoutTrailingSlashes } from '@pets/wire'

/** Where the pets API is mounted in this service. */
export const PETS_PREFIX = '/animals/v1'

/** What the internal service needs. */
export type InternalServiceOptions = {
  /** Where callers reach this service, such as `http://intake.internal:4000`; used in the pets API's links. */
  readonly publicUrl: string
  /** The internal services that may call the pets API: name → token. */
  readonly callers: Readonly<Record<string, string>>
  /** The clock of the domain (getPet's sunset); the machine's by default. */
  readonly clock?: Clock
  /** Where the pets are kept: any adapter of the domain's ports; the in-memory one by default. */
  readonly storage?: Storage
}

/**
 * An internal service that embeds the animal store: the domain on the in-memory adapters, its
 * own routes calling the use cases in-process, and the pets API mounted under `/animals/v1`
 * with its own authentication. Returns a Koa app that does not listen, and the use cases.
 */
export const createInternalService = (
  options: InternalServiceOptions,
): { app: Koa; useCases: PetsUseCases } => {
  // createPet serves POSTs with an Idempotency-Key too, such as the typed client's safe retries.
  const useCases: PetsUseCases = createUseCases({
    storage: options.storage ?? createMemoryStorage(),
    clock: options.clock ?? createSystemClock(),
  })
  const own = intakeRoutes(useCases)
  const app = new Koa()
  app.silent = true
  // This service's own error handling: it covers the mounted pets router too, which answers every
  // expected failure itself and lets only defects through.
  app.use(async (ctx, next) => {
    try {
      await next()
    } catch (error) {
      // A 4xx is the caller's mistake, told as http-errors tells one, exposed: a body parser's error
      // (malformed JSON, a JSON null) carries status 400 without `expose`, and is no internal error.
      const { status, expose } = error as { status?: unknown; expose?: boolean }
      const told =
        typeof status === 'number' &&
        Number.isInteger(status) &&
        (expose === true || (status >= 400 && status < 500))
      ctx.status = told ? status : 500
      ctx.body = { error: told ? (error as Error).message : 'internal error' }
    }
    // allowedMethods sets a 405 and its Allow without a body: said in this service's format.
    if (ctx.status === 405 && (ctx.body === undefined || ctx.body === null))
      ctx.body = {
        error: `${ctx.method} is not allowed at ${ctx.path} (Allow: ${ctx.response.get('Allow')})`,
      }
  })
  app.use(own.routes())
  app.use(own.allowedMethods())
  app.use(
    createPetsRouter({
      useCases,
      authenticator: createCallerAuthenticator(options.callers),
      prefix: PETS_PREFIX,
      publicBaseUrl: `${withoutTrailingSlashes(options.publicUrl)}${PETS_PREFIX}`,
    }),
  )
  app.use((ctx) => {
    // A path of its own routes asked with another method: allowedMethods, above, answers it 405.
    if ((ctx as { matched?: ReadonlyArray<unknown> }).matched?.length) return
    ctx.status = 404
    ctx.body = { error: `nothing at ${ctx.path}` }
  })
  return { app, useCases }
}
