import type { Scenario } from './scenarios.js'

type Answer = { readonly status: number; readonly body: unknown; readonly headers: Headers }

// Headers that differ between any two servers, or between two responses of one.
const VARYING = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'x-request-id',
  'transfer-encoding',
])

const ask = async (url: string, scenario: Scenario, apiKey: string): Promise<Answer> => {
  const response = await fetch(`${url}${scenario.path}`, {
    method: scenario.method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(scenario.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(scenario.body === undefined ? {} : { body: scenario.body }),
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // Compared as text.
  }
  return { status: response.status, body, headers: response.headers }
}

// A created pet's id, and the Location that carries it, depend on how many pets the server holds.
const comparable = (scenario: Scenario, answer: Answer) => {
  const body =
    scenario.method === 'POST' && typeof answer.body === 'object' && answer.body !== null
      ? { ...answer.body, id: '(assigned)' }
      : answer.body
  const headers = [...answer.headers.entries()]
    .filter(([name]) => !VARYING.has(name))
    .map(([name, value]) => [name, name === 'location' ? value.replace(/\/[0-9]+$/, '/(id)') : value])
  return { status: answer.status, body, headers: Object.fromEntries(headers) as Record<string, string> }
}

/**
 * Sends each scenario once to every server that answers it and compares the answers with the service's: status
 * and body must be equal (or the baselines do not do the same work, and the run stops); a header
 * that only some send is returned as a note. Every answer must carry an X-Request-Id.
 */
export const checkSameAnswers = async (
  servers: ReadonlyArray<{
    readonly name: string
    readonly url: string
    readonly answers: ReadonlyArray<string> | undefined
  }>,
  scenarios: ReadonlyArray<Scenario>,
  apiKey: string,
): Promise<ReadonlyArray<string>> => {
  const notes: Array<string> = []
  const [reference, ...others] = servers
  if (reference === undefined) return notes
  for (const scenario of scenarios) {
    const first = await ask(reference.url, scenario, apiKey)
    const expected = comparable(scenario, first)
    for (const server of [reference, ...others]) {
      if (server.answers !== undefined && !server.answers.includes(scenario.key)) continue
      const raw = server === reference ? first : await ask(server.url, scenario, apiKey)
      if (!raw.headers.has('x-request-id'))
        throw new Error(`${server.name}, ${scenario.title}: no X-Request-Id`)
      const actual = comparable(scenario, raw)
      if (actual.status !== scenario.status || JSON.stringify(actual.body) !== JSON.stringify(expected.body))
        throw new Error(
          `${server.name} does not answer ${scenario.title} as ${reference.name} does:\n` +
            `  ${reference.name}: ${expected.status} ${JSON.stringify(expected.body).slice(0, 300)}\n` +
            `  ${server.name}: ${actual.status} ${JSON.stringify(actual.body).slice(0, 300)}`,
        )
      for (const name of new Set([...Object.keys(expected.headers), ...Object.keys(actual.headers)]))
        if (expected.headers[name] !== actual.headers[name])
          notes.push(
            `${scenario.title}: ${name} is ${JSON.stringify(expected.headers[name] ?? null)} from ${reference.name}, ` +
              `${JSON.stringify(actual.headers[name] ?? null)} from ${server.name}`,
          )
    }
  }
  return [...new Set(notes)]
}
