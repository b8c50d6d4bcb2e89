import { randomUUID } from 'node:crypto'

/** CONTRACT: the caller's X-Request-Id when it is 1..128 visible ASCII characters, else a new one. */
export const REQUEST_ID_PATTERN = /^[\x21-\x7E]{1,128}$/

/** The id of a request: the caller's, if acceptable, or a fresh UUID. */
export const requestIdOf = (header: string | undefined): string =>
  header !== undefined && REQUEST_ID_PATTERN.test(header) ? header : randomUUID()
