import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { freePort } from '@pets/adapters-postgres/testing'
import { describe, expect, it } from 'vitest'
import { NODE_FLAGS } from '../src/node-flags.js'
import { MAIN } from './support/test-service.js'

const KEY = 'closed-stdout-key-5d2e81'

const statusOf = (url: string, key?: string) =>
  fetch(url, key === undefined ? {} : { headers: { Authorization: `Bearer ${key}` } }).then(
    (res) => res.status,
    () => 0,
  )

describe('the built service whose stdout nobody reads any more (`animal-store | head -n 1`)', () => {
  it('drops its log lines and keeps serving, then stops cleanly, with nothing on stderr', async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const service = spawn(process.execPath, [...NODE_FLAGS, MAIN], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_FORMAT: 'json', API_KEYS: KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = once(service, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
    // head reads the service's stdout, and this process lets go of its end at once: once head has
    // exited, nobody holds the pipe's read end, and the service's next write fails with EPIPE.
    const head = spawn('head', ['-n', '1'], { stdio: [service.stdout!, 'pipe', 'ignore'] })
    service.stdout!.destroy()
    let stderr = ''
    service.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    let firstLine = ''
    head.stdout.on('data', (chunk: Buffer) => (firstLine += chunk.toString()))
    try {
      await once(head, 'exit')
      expect(JSON.parse(firstLine)).toMatchObject({ service: 'animal-store', pid: service.pid })

      const deadline = Date.now() + 20_000
      while ((await statusOf(`${url}/healthz`)) !== 200) {
        expect(service.exitCode, stderr).toBeNull()
        expect(Date.now()).toBeLessThan(deadline)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      // Each answer logs a request line: the first batch of them written meets the broken pipe.
      const statuses: Array<number> = []
      for (let i = 0; i < 50; i++) statuses.push(await statusOf(`${url}/v1/pets`, KEY))
      expect(statuses, `exit code ${service.exitCode}, stderr: ${stderr}`).toEqual(statuses.map(() => 200))
      // The last lines go out within 100 ms (LOG_FLUSH_INTERVAL_MS): still serving after that.
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(service.exitCode, stderr).toBeNull()
      expect(await statusOf(`${url}/healthz`)).toBe(200)

      service.kill('SIGTERM')
      expect(await exited).toEqual([0, null])
      expect(stderr).toBe('')
    } finally {
      service.kill('SIGKILL')
      head.kill('SIGKILL')
    }
  })
})
