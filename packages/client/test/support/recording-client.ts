import { createPetsClient } from '../../src/index.js'
import { API_KEY, type Service } from './start-service.js'

/** A client of `svc` that records the URL and headers of every request it sends. */
export const recordingClient = (svc: Service, apiKey = API_KEY) => {
  const sent: Array<{ url: string; headers: Record<string, string> }> = []
  const client = createPetsClient({
    baseUrl: svc.baseUrl,
    apiKey,
    fetch: (input, init) => {
      sent.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) } })
      return fetch(input, init)
    },
  })
  return { client, sent }
}
