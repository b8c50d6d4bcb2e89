import type { ObservedRequest } from '@pets/adapters-http'
import { METHODS } from 'node:http'
import { describe, expect, it } from 'vitest'
import { createServiceMetrics } from '../src/service-metrics.js'

// The fixture the lab bench/complexity/metrics-labels.mjs observes too.
const { answered } = (await import(new URL('./support/observed-request.mjs', import.meta.url).href)) as {
  readonly answered: (method: string, route: string | null, status: number) => ObservedRequest
}

describe('the request metrics of the service', () => {
  it('name a method by the nine of the HTTP semantic conventions, any other _OTHER: strangers choose it', async () => {
    const metrics = createServiceMetrics({ deprecatedOperations: [] })
    // What a stranger can send without a key: every method node's parser takes, to a public endpoint.
    for (const method of METHODS) metrics.observe(answered(method, '/healthz', method === 'GET' ? 200 : 405))
    const { body } = await metrics.page()
    const methods = new Set(
      body
        .split('\n')
        .filter((line) => line.startsWith('http_request_duration_seconds_count{'))
        .map((line) => /method="([^"]*)"/.exec(line)?.[1]),
    )
    // 35 methods were 35 histograms of 15 lines each on every scrape; now at most ten.
    expect([...methods].sort()).toEqual(
      ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE', '_OTHER'].sort(),
    )
    const others = METHODS.length - 9
    expect(body).toContain(`http_requests_total{method="_OTHER",route="/healthz",status="405"} ${others}`)
    expect(body).not.toContain('PROPFIND')
  })
})
