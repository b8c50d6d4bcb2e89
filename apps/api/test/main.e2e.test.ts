import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
// Every answer is checked against the OpenAPI document the process serves.
import { checkedFetch as fetch } from './support/checked-fetch.js'
import { runBin } from './support/run-bin.js'
import { MAIN, startTestService } from './support/test-service.js'

// The built service as a real process, over real HTTP: what `pnpm start` runs.
describe('the built service (node apps/api/dist/main.js)', () => {
  it('serves the contract with every key of API_KEYS, and exits 0 on SIGTERM', async () => {
    const svc = await startTestService({ mode: 'child', env: { API_KEYS: 'k1,k2' } })
    const auth = (key: string) => ({ Authorization: `Bearer ${key}` })
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200)
    expect((await fetch(`${svc.url}/v1/pets`)).status).toBe(401)

    const created = await fetch(`${svc.url}/v1/pets`, {
      method: 'POST',
      headers: { ...auth('k1'), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 2, status: 'pending' }),
    })
    expect(created.status).toBe(201)
    const pet = (await created.json()) as { id: number }
    expect(created.headers.get('location')).toBe(`${svc.url}/v1/pets/${pet.id}`)

    const listed = await fetch(`${svc.url}/v1/pets?status=pending`, { headers: auth('k2') })
    expect(await listed.json()).toEqual([{ id: pet.id, name: 'Rex', categoryId: 2, status: 'pending' }])
    const one = await fetch(`${svc.url}/v1/pets/${pet.id}`, { headers: auth('k2') })
    expect(one.status).toBe(200)
    expect(one.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT')

    expect(await svc.stop('SIGTERM')).toBe(0)
    expect(svc.output()).toContain('in memory')
    expect(svc.output()).not.toMatch(/\bk1\b|\bk2\b/)
  })

  it('says in its listening line where METRICS_PORT listens, a free port when 0, and serves /metrics there', async () => {
    const svc = await startTestService({ mode: 'child', env: { API_KEYS: 'k1', METRICS_PORT: '0' } })
    try {
      const line = svc
        .output()
        .split('\n')
        .find((l) => l.includes('"msg":"listening"'))
      const { metricsUrl } = JSON.parse(line!) as { metricsUrl?: string }
      expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(metricsUrl).not.toBe(svc.url)
      expect((await globalThis.fetch(`${metricsUrl}/metrics`)).status).toBe(200)
      expect((await fetch(`${svc.url}/metrics`)).status).toBe(404)
    } finally {
      await svc.stop()
    }
  })

  it('warns at start when no key can ever be accepted: staging in memory without API_KEYS', async () => {
    const svc = await startTestService({ mode: 'child', env: { APP_ENV: 'staging', SHUTDOWN_DELAY_MS: '0' } })
    try {
      expect((await fetch(`${svc.url}/v1/pets`, { headers: { Authorization: 'Bearer any' } })).status).toBe(
        401,
      )
      const warned = svc
        .output()
        .split('\n')
        .filter((line) => line.includes('API keys: none'))
      expect(warned).toHaveLength(1)
      expect(JSON.parse(warned[0]!)).toMatchObject({ level: 40 })
    } finally {
      await svc.stop()
    }
    const withKey = await startTestService({
      mode: 'child',
      env: { APP_ENV: 'staging', SHUTDOWN_DELAY_MS: '0', API_KEYS: 'k1' },
    })
    await withKey.stop()
    expect(withKey.output()).not.toContain('API keys: none')
  })

  it('generates one key in development when API_KEYS is unset, prints it once, and accepts it', async () => {
    const svc = await startTestService({ mode: 'child', env: {} })
    const printed = /accepts the generated key\n\s+(\S+)/.exec(svc.output())?.[1]
    expect(printed).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const response = await fetch(`${svc.url}/v1/pets`, { headers: { Authorization: `Bearer ${printed}` } })
    expect(response.status).toBe(200)
    expect(await svc.stop('SIGINT')).toBe(0)
    expect(svc.output().split(printed!).length - 1).toBe(1)
  })

  it('answers 410 for getPet when CLOCK_NOW is past the sunset', async () => {
    const svc = await startTestService({
      mode: 'child',
      env: { API_KEYS: 'k1', CLOCK_NOW: '2030-12-05T00:00:00Z' },
    })
    const response = await fetch(`${svc.url}/v1/pets/1`, { headers: { Authorization: 'Bearer k1' } })
    expect(response.status).toBe(410)
    expect(await response.json()).toMatchObject({ code: 'gone', status: 410 })
    expect(await svc.stop()).toBe(0)
  })

  it('refuses to start on a bad configuration, naming every bad variable and no value', async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty', APP_ENV: 'prod', API_KEYS: 'secret-one,,' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const code = await new Promise((done) => child.once('exit', done))
    expect(code).toBe(2)
    // A heading, then one item per bad variable.
    expect(stderr).toMatch(/^animal-store: cannot start:\n {2}- /)
    expect(stderr).toContain('PORT must be an integer from 0 to 65535')
    expect(stderr).toContain('APP_ENV must be one of development, staging, production')
    expect(stderr).toContain('API_KEYS must be')
    expect(stderr).not.toContain('secret-one')
  })

  it('refuses a command on a bad configuration without saying it cannot start: it starts nothing', async () => {
    const env = { PORT: 'eighty' }
    expect(await runBin(['keys', 'list'], env)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'animal-store: keys list: cannot run:\n  - PORT must be an integer from 0 to 65535\n',
    })
    expect((await runBin(['migrate'], env)).stderr).toMatch(/^animal-store: migrate: cannot run:\n/)
    expect((await runBin(['serve'], env)).stderr).toMatch(/^animal-store: cannot start:\n/)
  })
})
