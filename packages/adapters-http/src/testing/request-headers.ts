// What Node's fetch (undici) adds to a request whose caller did not set it, the same on Node 20 and 24.
const FETCH_DEFAULTS: Readonly<Record<string, string>> = {
  connection: 'keep-alive',
  accept: '*/*',
  'accept-language': '*',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
}

/**
 * The header lines Node's fetch sends for `request`: the caller's, each default above it did not set,
 * `Sec-Fetch-Mode: cors` whatever the caller said, the Host of the URL and the Content-Length of the body
 * (`0` for a POST or PUT without one): a Host or Content-Length in the caller's headers is dropped.
 */
export const requestHeaders = (
  request: Request,
  url: URL,
  bodyLength: number | undefined,
): Record<string, string> => {
  // No prototype: `__proto__` is a header name like any other.
  const headers = Object.assign(Object.create(null) as Record<string, string>, FETCH_DEFAULTS)
  request.headers.forEach((value, name) => void (headers[name] = value))
  headers.host = url.host
  headers['sec-fetch-mode'] = 'cors'
  delete headers['content-length']
  if (bodyLength !== undefined) headers['content-length'] = String(bodyLength)
  else if (request.method === 'POST' || request.method === 'PUT') headers['content-length'] = '0'
  return headers
}
