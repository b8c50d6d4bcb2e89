import type { Context } from 'koa'
import { toErrorResponse, type Problem } from './problems.js'

/** Writes a JSON body that is already serialized. */
export const sendJson = (ctx: Context, status: number, json: string): void => {
  ctx.status = status
  ctx.type = 'application/json'
  ctx.body = json
}

/** Answers with the Error body of a problem, and its headers. Nothing else writes an error. */
export const sendProblem = (ctx: Context, problem: Problem): void => {
  const { body, headers } = toErrorResponse(problem)
  ctx.set(headers)
  sendJson(ctx, body.status, JSON.stringify(body))
}
