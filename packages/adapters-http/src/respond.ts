import type { Context } from 'koa'
import { toErrorResponse, type Problem } from './problems.js'
import type { RequestState } from './request-state.js'

// What Koa writes for `ctx.type = 'application/json'`, without its media-type look-up per response.
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** Writes a JSON body that is already serialized. */
export const sendJson = (ctx: Context, status: number, json: string): void => {
  ctx.status = status
  ctx.set('Content-Type', JSON_CONTENT_TYPE)
  ctx.body = json
}

/** Answers with the Error body of a problem, and its headers, and nothing else: what a probe answers. */
export const sendErrorBody = (ctx: Context, problem: Problem): void => {
  const { body, headers } = toErrorResponse(problem)
  ctx.set(headers)
  sendJson(ctx, body.status, JSON.stringify(body))
}

/**
 * Answers with the Error body of a problem; a store's failure is noted for the request's line (store-failure.ts).
 * Nothing else writes an error but sendErrorBody.
 */
export const sendProblem = (ctx: Context, problem: Problem): void => {
  if (problem._tag === 'StoreUnavailable') (ctx.state as RequestState).unavailable = problem
  sendErrorBody(ctx, problem)
}
