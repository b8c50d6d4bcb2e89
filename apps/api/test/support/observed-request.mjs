// JavaScript, not TypeScript: bench/complexity/metrics-labels.mjs runs it under plain node too.
/** An ObservedRequest (@pets/adapters-http) of a request answered `status` in 1 ms, without a key. */
export const answered = (method, route, status) => ({
  requestId: 'r',
  method,
  route,
  operation: null,
  status,
  durationMs: 1,
  apiKeyId: null,
  clientAddress: '127.0.0.1',
  path: null,
  aborted: false,
})
