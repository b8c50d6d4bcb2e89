import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, openSync } from 'node:fs'
import { freePort } from '@pets/adapters-postgres/testing'
import { pollUntil } from '@pets/domain/testing'
import { describe, expect, it } from 'vitest'
import { NODE_FLAGS } from '../src/node-flags.js'
import { MAIN } from './support/child-service.js'
import { logLinesOf } from './support/log-lines.js'

const GENERATED =
  /^No API_KEYS set: this development run accepts the generated key\n {2}([A-Za-z0-9_-]{43})\n/

// The built service in development without API_KEYS; `stdout` or `stderr` may be /dev/full (ENOSPC).
const startWithoutKeys = async (full: 'stdout' | 'stderr' | 'neither') => {
  const port = await freePort()
  const fd = full === 'neither' ? undefined : openSync('/dev/full', 'w')
  const child = spawn(process.execPath, [...NODE_FLAGS, MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_FORMAT: 'json' },
    stdio: ['ignore', full === 'stdout' ? fd! : 'pipe', full === 'stderr' ? fd! : 'pipe'],
  })
  if (fd !== undefined) closeSync(fd)
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  let [stdout, stderr] = ['', '']
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const url = `http://127.0.0.1:${port}`
  const status = (key?: string) =>
    fetch(`${url}/v1/pets`, key === undefined ? {} : { headers: { Authorization: `Bearer ${key}` } }).then(
      (res) => res.status,
      () => 0,
    )
  await pollUntil(
    'the service answers',
    async () => (await status()) === 401 || child.exitCode !== null,
    20_000,
  )
  return { child, exited, status, stdout: () => stdout, stderr: () => stderr }
}

describe('the key a development run without API_KEYS generates', () => {
  it('is printed once on stderr, never on stdout, whose log stays JSON lines', async () => {
    const svc = await startWithoutKeys('neither')
    try {
      const key = GENERATED.exec(svc.stderr())?.[1]
      expect(key, svc.stderr()).toBeDefined()
      expect(await svc.status(key)).toBe(200)
      svc.child.kill('SIGTERM')
      expect(await svc.exited).toEqual([0, null])
      expect(svc.stdout()).not.toContain(key)
      for (const line of svc.stdout().trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow()
      expect(svc.stderr().split(key!).length - 1).toBe(1)
    } finally {
      svc.child.kill('SIGKILL')
    }
  })

  it('keeps the service serving when stdout cannot be written (ENOSPC): the key is on stderr all the same', async () => {
    const svc = await startWithoutKeys('stdout')
    try {
      const key = GENERATED.exec(svc.stderr())?.[1]
      expect(key, svc.stderr()).toBeDefined()
      expect(await svc.status(key)).toBe(200)
      // Once the log's lines have gone out and failed: still serving after that.
      await pollUntil('the log is found unwritable', () =>
        svc.stderr().includes('animal-store: the log cannot be written (ENOSPC); its lines are dropped\n'),
      )
      expect(svc.child.exitCode, svc.stderr()).toBeNull()
      expect(await svc.status(key)).toBe(200)
      svc.child.kill('SIGTERM')
      expect(await svc.exited).toEqual([0, null])
    } finally {
      svc.child.kill('SIGKILL')
    }
  })

  it('when stderr cannot take it, says so in the log, without the key, and serves', async () => {
    const svc = await startWithoutKeys('stderr')
    try {
      expect(await svc.status()).toBe(401)
      await pollUntil('the warning is written', () => svc.stdout().includes('could not be printed'))
      expect(logLinesOf(svc.stdout())).toContainEqual(
        expect.objectContaining({
          level: 40,
          code: 'ENOSPC',
          msg: expect.stringMatching(/the key generated for this run could not be printed .*set API_KEYS$/),
        }),
      )
      svc.child.kill('SIGTERM')
      expect(await svc.exited).toEqual([0, null])
    } finally {
      svc.child.kill('SIGKILL')
    }
  })
})
