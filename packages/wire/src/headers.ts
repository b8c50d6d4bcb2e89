/** The names of the headers that the interface gives a meaning to, spelled once. */
export const HEADERS = {
  /** Request: `Bearer <API key>`. */
  authorization: 'Authorization',
  /** Request: names a create so that its retries are performed at most once. */
  idempotencyKey: 'Idempotency-Key',
  /** Both ways: the request's id, the caller's when acceptable, else a new one. */
  requestId: 'X-Request-Id',
  /** 429 and 503: whole seconds to wait before trying again. */
  retryAfter: 'Retry-After',
  allow: 'Allow',
  /** 415 for a compressed body: the content codings accepted (`identity`). */
  acceptEncoding: 'Accept-Encoding',
  wwwAuthenticate: 'WWW-Authenticate',
  location: 'Location',
  /** A listing's next page (`rel="next"`), a deprecated operation's successor. */
  link: 'Link',
  /** A deprecated operation's answers (RFC 9745, RFC 8594). */
  deprecation: 'Deprecation',
  sunset: 'Sunset',
} as const
