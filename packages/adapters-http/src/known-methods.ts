// The methods of the HTTP semantic conventions (OpenTelemetry's known methods); node's parser takes 35.
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
])

/**
 * A request's method as spans and metrics name it: one of the nine methods of the HTTP semantic conventions,
 * any other `_OTHER`. Strangers choose the method: as a metric's label, each of the 35 that node's parser
 * takes was a histogram more on every scrape of /metrics (README, "Probes and metrics").
 */
export const knownMethodOf = (method: string | undefined): string =>
  method !== undefined && KNOWN_METHODS.has(method) ? method : '_OTHER'
