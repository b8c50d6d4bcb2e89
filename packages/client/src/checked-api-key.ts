/**
 * The key itself, unless fetch could not send it in `Authorization: Bearer <key>` (a line break or a NUL in
 * it, a character above U+00FF): then a TypeError that never shows it. fetch's own Headers decides, so the
 * rule is fetch's; its TypeError quotes the header, key included, and came where no request was sent, which
 * the client took for a lost response and retried.
 */
export const checkedApiKey = (apiKey: string): string => {
  try {
    new Headers({ authorization: `Bearer ${apiKey}` })
  } catch {
    throw new TypeError(
      'apiKey cannot be sent in an Authorization header: it holds a line break, a NUL or a character ' +
        'above U+00FF (the key is not shown)',
    )
  }
  return apiKey
}
