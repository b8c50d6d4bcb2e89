import type { HttpLogger } from './logger.js'
import type { HttpContext } from './request-state.js'

const ANSWERED = 'the store cannot serve this call now: answered 503 unavailable'
const CUT = 'the store could not serve a request that the shutdown cut: no 503 went out'
const GONE = 'the store could not serve a request whose client went away: no 503 went out'

/**
 * The line of a request whose store could not serve it (sendProblem noted the StoreUnavailable): at warn,
 * with the request id, its trace ids, what the store said of it (`details`: the call, a SQLSTATE…) and the
 * cause, so that a log search joins it to the request line. A request whose client went away, or that a
 * shutdown cut, got no 503: its line says so, at info.
 */
export const logStoreFailure = (
  logger: HttpLogger,
  ctx: HttpContext,
  ids: object | undefined,
  gone: boolean,
  cut: boolean,
): void => {
  const failure = ctx.state.unavailable
  // Noted when the 503 was made; a defect thrown after it turned the answer into a 500 (its own line).
  if (failure === undefined || (!gone && ctx.status !== 503)) return
  const fields = { requestId: ctx.state.requestId, ...ids, ...failure.details, err: failure.cause }
  // Called as methods: pino's need their logger as `this`.
  if (gone) logger.info(fields, cut ? CUT : GONE)
  else if (logger.warn !== undefined) logger.warn(fields, ANSWERED)
  else logger.info(fields, ANSWERED)
}
