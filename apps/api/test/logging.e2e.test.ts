import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { LOG_FLUSH_INTERVAL_MS } from '../src/log/logger.js'
import { startLoad, type Sent } from './support/load.js'
import { MAIN, startTestService, type ChildService } from './support/test-service.js'

const KEY = 'logging-e2e-key-5b81d2'
const LOGGER = new URL('../dist/log/logger.js', import.meta.url).href

// Preloaded into the service with NODE_OPTIONS: says at exit whether pino-pretty was ever loaded
// (a CommonJS package lands in require.cache however it is loaded, by require or by import), and
// on SIGUSR2 throws, or rejects a promise, where nothing catches it.
const dir = mkdtempSync(join(tmpdir(), 'logging-e2e-'))
const PRELOAD = join(dir, 'preload.cjs')
writeFileSync(
  PRELOAD,
  `'use strict'
process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((file) => file.includes('pino-pretty')).length
  require('node:fs').writeSync(2, 'pino-pretty modules loaded: ' + loaded + '\\n')
})
process.on('SIGUSR2', () => {
  if (process.env.FAIL_WITH === 'rejection') Promise.reject(new Error('test: a rejection nobody handled'))
  else setImmediate(() => { throw new Error('test: an exception nobody caught') })
})
`,
)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Line = { msg: string; level: number; requestId?: string; outcome?: string; err?: { message: string } }
/** Every line of the service's stdout and stderr, parsed: a line that is not JSON fails. */
const linesOf = (svc: ChildService): Array<Line> =>
  svc
    .output()
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('pino-pretty modules loaded'))
    .map((line) => JSON.parse(line) as Line)

const listPets = (url: string) => (requestId: string) =>
  fetch(`${url}/v1/pets?limit=2`, {
    headers: { Authorization: `Bearer ${KEY}`, 'X-Request-Id': requestId },
  })

/** Every request that got an answer has exactly one request line, and no line was lost. */
const expectEveryAnswerLogged = (svc: ChildService, sent: ReadonlyArray<Sent>) => {
  const logged = new Map<string, number>()
  for (const line of linesOf(svc))
    if (line.msg === 'request') logged.set(line.requestId!, (logged.get(line.requestId!) ?? 0) + 1)
  const answered = sent.filter((s) => s.status !== undefined)
  const missing = answered.filter((s) => logged.get(s.id) !== 1).map((s) => s.id)
  expect(missing, `of ${answered.length} answered requests, those without exactly one line`).toEqual([])
  return answered.length
}

// Generous: on a machine busy with every package's tests, 2,000 requests can take 20 s.
const LOAD_MS = 60_000
const UNDER_LOAD = { timeout: LOAD_MS + 30_000 }

// Real time against a real process: a quiet service's lines go out on its flush timer alone.
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves once the service's stdout and stderr are read to their end: 'exit' may come first. */
const allRead = async (svc: ChildService) => {
  await svc.exited
  await Promise.all(
    [svc.child.stdout!, svc.child.stderr!].map((s) => (s.closed ? undefined : once(s, 'close'))),
  )
}

describe('the log of the built service (buffered, asynchronous)', () => {
  const running: Array<ChildService> = []
  afterEach(async () => {
    for (const svc of running.splice(0)) await svc.stop('SIGKILL')
  })
  const start = async (env: Record<string, string> = {}) => {
    const svc = await startTestService({
      mode: 'child',
      env: {
        STORAGE: 'memory',
        API_KEYS: KEY,
        NODE_OPTIONS: `--require ${PRELOAD}`,
        ...env,
      },
    })
    running.push(svc)
    return svc
  }

  it(
    'loses no line when SIGTERM comes under load: every answered request is logged once',
    UNDER_LOAD,
    async () => {
      const svc = await start({ SHUTDOWN_DELAY_MS: '300', SHUTDOWN_GRACE_MS: '5000' })
      // 32 loops of fetch: 32 keep-alive connections, each sending its next request at once.
      const load = startLoad(32, listPets(svc.url))
      await expect
        .poll(() => load.sent.filter((s) => s.status === 200).length, { timeout: LOAD_MS, interval: 20 })
        .toBeGreaterThan(2_000)
      svc.child.kill('SIGTERM')
      // Requests keep being answered for SHUTDOWN_DELAY_MS, then the loops are refused and end.
      expect(await svc.exited).toBe(0)
      const sent = await load.done()
      await allRead(svc)

      expect(sent.filter((s) => s.status !== undefined && s.status !== 200)).toEqual([])
      expect(expectEveryAnswerLogged(svc, sent)).toBeGreaterThan(2_000)
      const lines = linesOf(svc)
      expect(lines.at(-1)).toMatchObject({ msg: 'stopped', outcome: 'clean' })
      expect(svc.output()).toContain('pino-pretty modules loaded: 0')
    },
  )

  it(
    'loses no line when its log reader stalls: lines wait in memory, answers do not',
    UNDER_LOAD,
    async () => {
      const svc = await start({ SHUTDOWN_DELAY_MS: '0', SHUTDOWN_GRACE_MS: '5000' })
      // Nobody reads the service's stdout: the pipe (64 KiB, about 250 lines) fills, and its writes
      // fail with EAGAIN until the reader comes back; the lines wait in the buffer meanwhile.
      svc.child.stdout!.pause()
      const load = startLoad(32, listPets(svc.url))
      await expect
        .poll(() => load.sent.filter((s) => s.status === 200).length, { timeout: LOAD_MS, interval: 20 })
        .toBeGreaterThan(1_500)
      svc.child.kill('SIGTERM')
      // The service stops while a write is held: it must wait for that write, not drop it. It
      // has stopped serving once every loop of the load is refused, and is still there.
      const sent = await load.done()
      expect(svc.child.exitCode).toBeNull()
      svc.child.stdout!.resume()
      expect(await svc.exited).toBe(0)
      await allRead(svc)

      expect(expectEveryAnswerLogged(svc, sent)).toBeGreaterThan(1_500)
      expect(linesOf(svc).at(-1)).toMatchObject({ msg: 'stopped', outcome: 'clean' })
    },
  )

  it(`writes a quiet service's line within about ${LOG_FLUSH_INTERVAL_MS} ms, without waiting for more`, async () => {
    const svc = await start()
    const delays: Array<number> = []
    for (let i = 0; i < 5; i++) {
      const id = `quiet-${i}`
      expect((await listPets(svc.url)(id)).status).toBe(200)
      const answeredAt = Date.now()
      await expect
        .poll(() => svc.output().includes(`"requestId":"${id}"`), { timeout: 2_000, interval: 5 })
        .toBe(true)
      delays.push(Date.now() - answeredAt)
      await pause(150)
    }
    // One line (about 250 bytes) never fills the 4 KiB buffer: only the periodic flush writes it.
    // The margin is for a machine busy with other tests.
    expect(Math.max(...delays), `delays: ${delays.join(', ')} ms`).toBeLessThan(LOG_FLUSH_INTERVAL_MS + 900)
  })

  it.each([
    ['exception', 'stopped on an uncaught error', 'test: an exception nobody caught'],
    ['rejection', 'stopped on an unhandled promise rejection', 'test: a rejection nobody handled'],
  ])(
    'logs an uncaught %s at fatal, flushes every line before it, and exits 1',
    UNDER_LOAD,
    async (kind, message, error) => {
      const svc = await start({ FAIL_WITH: kind })
      const load = startLoad(32, listPets(svc.url))
      await expect
        .poll(() => load.sent.filter((s) => s.status === 200).length, { timeout: LOAD_MS, interval: 20 })
        .toBeGreaterThan(500)
      svc.child.kill('SIGUSR2')
      expect(await svc.exited).toBe(1)
      const sent = await load.done()
      await allRead(svc)

      expectEveryAnswerLogged(svc, sent)
      const fatal = linesOf(svc).filter((line) => line.level === 60)
      expect(fatal).toEqual([
        expect.objectContaining({ msg: message, err: expect.objectContaining({ message: error }) }),
      ])
    },
  )

  it('flushes the lines logged before a start that fails, then logs the error at fatal and exits 1', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as { port: number }
    try {
      const child = spawn(process.execPath, [MAIN], {
        env: {
          PATH: process.env.PATH ?? '',
          STORAGE: 'memory',
          API_KEYS: KEY,
          LOG_FORMAT: 'json',
          PORT: String(port),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let [output, stderr] = ['', '']
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
      expect(code).toBe(1)
      // An expected failure: the operator's one line on stderr, and the log's fatal line without a stack.
      expect(stderr).toBe(
        `animal-store: serve: cannot listen on 127.0.0.1:${port} (HOST, PORT): address already in use (EADDRINUSE)\n`,
      )
      const lines = output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Line & { code?: string })
      expect(lines).toEqual([
        expect.objectContaining({ msg: expect.stringMatching(/^storage: in memory/) }),
        expect.objectContaining({
          msg: 'stopped on an error',
          level: 60,
          err: expect.objectContaining({ code: 'EADDRINUSE' }),
        }),
      ])
      expect(lines[1]?.err).not.toHaveProperty('stack')
    } finally {
      taken.close()
    }
  })
})

describe('the built logger in a fresh node', () => {
  const run = (script: string) =>
    promisify(execFile)(
      process.execPath,
      [
        '--require',
        PRELOAD,
        '--input-type=module',
        '-e',
        `import { createLogger } from '${LOGGER}'\n${script}`,
      ],
      { env: { PATH: process.env.PATH ?? '' } },
    )
  // The same check as the service's, shown able to fail.
  const modulesLoadedWith = async (format: 'json' | 'pretty') => {
    const { stderr } = await run(`createLogger({ logLevel: 'info', logFormat: '${format}' }).info('hello')`)
    return Number(/pino-pretty modules loaded: (\d+)/.exec(stderr)?.[1])
  }

  it('writes JSON lines in batches, after the code that logged them, and all of them at exit', async () => {
    // Logs, then writes straight to fd 1: a synchronous logger's lines would come first.
    const { stdout } = await run(`
      import { writeSync } from 'node:fs'
      const logger = createLogger({ logLevel: 'info', logFormat: 'json' })
      for (let i = 0; i < 3; i++) logger.info({ i }, 'buffered')
      writeSync(1, 'written at once\\n')`)
    const lines = stdout.trim().split('\n')
    expect(lines[0]).toBe('written at once')
    expect(lines.slice(1).map((line) => (JSON.parse(line) as { i: number }).i)).toEqual([0, 1, 2])
  })

  it('is loaded only by a logger of the pretty format: a JSON logger never loads it', async () => {
    expect(await modulesLoadedWith('json')).toBe(0)
    expect(await modulesLoadedWith('pretty')).toBeGreaterThan(0)
  })
})
