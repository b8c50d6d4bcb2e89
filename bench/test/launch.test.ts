import { freePort } from '@pets/adapters-postgres/testing'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launch, launchOn } from '../src/launch.js'
import { listensOn } from '../src/listener-owner.js'

// A server as the benchmark launches them: PORT and HOST from its environment, 200 on /healthz.
const SERVER = `require('node:http').createServer((req, res) => res.end(String(process.pid)))
  .listen(Number(process.env.PORT), process.env.HOST)`

describe('launch', () => {
  let folder: string
  let script: string
  let other: Server
  let taken: number

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'bench-launch-'))
    script = join(folder, 'server.cjs')
    writeFileSync(script, SERVER)
    // Another test's server, on the port a launch is about to use: it answers /healthz 200 as well.
    taken = await freePort()
    other = createServer((_req, res) => res.end('another'))
    await new Promise<void>((resolve) => other.listen(taken, '127.0.0.1', resolve))
  })
  afterAll(async () => {
    await new Promise((resolve) => other.close(resolve))
    rmSync(folder, { recursive: true, force: true })
  })

  it("tells a port's listener by its process: this one's, not another's", async () => {
    expect(listensOn(process.pid, taken)).toBe(true)
    expect(listensOn(process.pid, await freePort())).toBe(false)
    const server = await launch({ name: 'server', script, env: {} })
    try {
      const port = Number(new URL(server.url).port)
      expect(listensOn(server.pid, port)).toBe(true)
      expect(listensOn(server.pid, taken)).toBe(false)
    } finally {
      await server.stop()
    }
  })

  it("does not take another process's 200 on its port for its server's: the try fails as a port taken", async () => {
    // Before, the 200 of the other server was taken for the launched one's, which had exited with EADDRINUSE.
    await expect(launchOn(taken, { name: 'server', script, env: {} }, 0)).rejects.toThrow(/EADDRINUSE/)
  })
})
