import { Validator } from '@seriousme/openapi-schema-validator'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAIN, startTestService, type TestService } from './support/test-service.js'

const STAGING = {
  APP_ENV: 'staging',
  PUBLIC_BASE_URL: 'https://staging-api.example.com/v1',
  SHUTDOWN_DELAY_MS: '0',
}

/** Runs the built command line with `env` only, and collects what it printed. */
const run = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    )
  })

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the OpenAPI document of the service', () => {
  let svc: TestService
  let served: Json
  beforeAll(async () => {
    svc = await startTestService({ env: STAGING })
    const res = await svc.request('/openapi.json')
    expect(res.status).toBe(200)
    served = (await res.json()) as Json
  })
  afterAll(() => svc.close())

  it('is served at /openapi.json without a key, and is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(served)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(served.openapi).toBe('3.1.0')
    expect(served.info.version).toBe('1.0.0')
  })

  it('lists the servers of the current environment: its PUBLIC_BASE_URL, named after it', () => {
    expect(served.servers).toEqual([{ url: 'https://staging-api.example.com/v1', description: 'staging' }])
  })

  it('lists the three pet operations and GET /store/orders', () => {
    const ids = Object.values(served.paths as Json).flatMap((item) =>
      Object.values(item as Json).map((op) => (op as Json).operationId),
    )
    expect(ids).toEqual(['listPets', 'createPet', 'getPet', 'listOrders'])
  })

  it('renders it for people at /docs, without a key', async () => {
    const res = await svc.request('/docs')
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('<div id="swagger-ui"></div>')
  })

  it('is printed by "animal-store openapi" for the same environment, as the service serves it', async () => {
    const { code, stdout, stderr } = await run(['openapi'], STAGING)
    expect(code, stderr).toBe(0)
    expect(JSON.parse(stdout)).toEqual(served)
  })

  it('is written to a file by "animal-store openapi --out FILE"', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-'))
    try {
      const file = join(dir, 'openapi.json')
      const { code, stdout, stderr } = await run(['openapi', '--out', file], STAGING)
      expect(code, stderr).toBe(0)
      expect(stdout).toContain(file)
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(served)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('refuses other arguments of "animal-store openapi" with its usage and status 2', async () => {
    const { code, stderr } = await run(['openapi', '--output'], STAGING)
    expect(code).toBe(2)
    expect(stderr).toContain('animal-store openapi [--out FILE]')
  })
})
