import type pg from 'pg'
import type { SubmitStatement } from './statement.js'

type Answer = Promise<pg.QueryResult>
/** How the guarded pool bounds each query. */
export type GuardOptions = {
  /** A query unanswered this long fails and its connection is destroyed; 0 (the default): no limit. */
  readonly queryTimeoutMs?: number | undefined
  /** A monotonic clock in ms; `performance.now` unless given. */
  readonly now?: (() => number) | undefined
  /** Runs on each connection before it is first handed out, with a query bounded as every other. */
  readonly firstUse?: ((query: (text: string) => Answer, client: pg.PoolClient) => Promise<void>) | undefined
  /** How a query is sent; `client.query(text, values)` unless given. */
  readonly send?:
    ((client: pg.PoolClient, text: string, values: ReadonlyArray<unknown>) => Answer) | undefined
  /** How a statement of the request path is sent; unnamed unless given (statement.ts). */
  readonly submit?: SubmitStatement | undefined
  /** Whether a failed connection attempt is made once more at once (the settings were changed). */
  readonly retryConnect?: ((error: unknown) => boolean) | undefined
}
