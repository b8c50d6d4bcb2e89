import { expect } from 'vitest'

/** The Error body of the interface. */
export type ErrorBody = { readonly code: string; readonly message: string; readonly status: number }

// What would betray the server's insides: stack frames and paths of its files.
const INTERNALS = [
  /\n\s*at /,
  /\bat \S+ \(/,
  /\.(ts|js|mjs|cjs):\d+/,
  /file:\/\//,
  /node_modules/,
  /\/(work|home|usr|src)\//,
]

/** Fails when a message carries a stack trace or a file path of the server. */
export const expectNoInternals = (message: string): void => {
  for (const pattern of INTERNALS) expect(message, `message leaks ${pattern}`).not.toMatch(pattern)
}

/**
 * Checks an error response: the status, `application/json`, and a body that is exactly
 * `{ code, message, status }` with `status` equal to the HTTP status. Returns the body.
 */
export const expectError = async (res: Response, status: number, code: string): Promise<ErrorBody> => {
  const text = await res.text()
  expect(res.status, text).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/json\s*(;|$)/)
  const body = JSON.parse(text) as ErrorBody
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status'])
  expect(body).toEqual({ code, message: expect.any(String), status })
  expect(body.message.trim()).not.toBe('')
  expectNoInternals(body.message)
  return body
}

const wordPattern = (word: string, flags = '') =>
  new RegExp(`(^|[^A-Za-z0-9_])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`, flags)

/** How many times a message names a field or parameter as a whole word. */
export const mentions = (message: string, word: string): number =>
  message.match(wordPattern(word, 'g'))?.length ?? 0

/** Fails unless the message names each of the fields or parameters. */
export const expectNames = (message: string, ...words: ReadonlyArray<string>): void => {
  for (const word of words) expect(message, `the message should name ${word}`).toMatch(wordPattern(word))
}

/** Checks a 400 `validation_failed` answer whose message names each of `words`. Returns the message. */
export const expectValidationFailed = async (
  res: Response,
  ...words: ReadonlyArray<string>
): Promise<string> => {
  const { message } = await expectError(res, 400, 'validation_failed')
  expectNames(message, ...words)
  return message
}
