import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// The example's command line, as its README runs it (built by `pnpm build`).
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url))

type Run = {
  readonly child: ReturnType<typeof spawn>
  readonly stdout: () => string
  readonly stderr: () => string
}

const start = (env: Record<string, string>): Run => {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return { child, stdout: () => stdout, stderr: () => stderr }
}

const exitOf = (child: ReturnType<typeof spawn>) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

describe('the example run as its README shows', () => {
  it('on PORT=0, names the port it was given in the links of the pets API', async () => {
    const run = start({ PORT: '0', PETS_CALLERS: 'billing:token-1' })
    try {
      await expect.poll(run.stdout, { timeout: 10_000 }).toMatch(/^intake desk on http:\/\/127\.0\.0\.1:\d+;/)
      const url = /on (\S+);/.exec(run.stdout())![1]!
      expect(url).not.toMatch(/:0$/)
      const created = await fetch(`${url}/animals/v1/pets`, {
        method: 'POST',
        headers: { Authorization: 'Bearer token-1', 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
      })
      expect(created.status).toBe(201)
      expect(created.headers.get('Location')).toBe(`${url}/animals/v1/pets/1`)
    } finally {
      run.child.kill('SIGTERM')
    }
  })

  it('refuses a PORT that is no port with one line and status 2, no stack', async () => {
    for (const port of ['abc', '70000', '-1', '3.5']) {
      const run = start({ PORT: port })
      expect(await exitOf(run.child), port).toBe(2)
      expect(run.stderr()).toBe('intake desk: PORT must be an integer from 0 to 65535\n')
    }
  })

  it('says in one line that PORT is taken, with status 1, no stack (the README starts it in the background)', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as { port: number }
    try {
      const run = start({ PORT: String(port) })
      expect(await exitOf(run.child)).toBe(1)
      expect(run.stderr()).toBe(`intake desk: cannot listen on 127.0.0.1:${port}: EADDRINUSE\n`)
    } finally {
      taken.close()
    }
  })
})
