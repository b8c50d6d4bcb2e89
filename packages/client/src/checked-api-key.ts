// fetch drops HTTP's white space (tab, line feed, carriage return, space) at either end of a header value
// (`Bearer <key>`: the key's end), then refuses a value that still holds a line break or a NUL, or a
// character its bytes cannot carry (above U+00FF): a TypeError that quotes the header, key included, where
// no request was sent, and which the client took for a lost response and retried. Index loops only.
const isHttpWhiteSpace = (code: number) => code === 0x09 || code === 0x0a || code === 0x0d || code === 0x20

/** The key itself, unless fetch could not send it: then a TypeError that never shows it. */
export const checkedApiKey = (apiKey: string): string => {
  let end = apiKey.length
  while (end > 0 && isHttpWhiteSpace(apiKey.charCodeAt(end - 1))) end--
  for (let i = 0; i < end; i++) {
    const code = apiKey.charCodeAt(i)
    if (code === 0x00 || code === 0x0a || code === 0x0d || code > 0xff)
      throw new TypeError(
        'apiKey cannot be sent in an Authorization header: it holds a line break, a NUL or a character ' +
          'above U+00FF (the key is not shown)',
      )
  }
  return apiKey
}
