// The bundle with WEB_CONCURRENCY=2 on PostgreSQL (DATABASE_URL, migrated here first), its standard output a pipe that `cat` reads (to
// /dev/null) as an operator's `| cat` would, under wrk asking TARGET (/healthz: the most request lines a second; a
// key is sent) for DURATION_S (45): the RSS of each worker every 5 s. Where the processes share a pipe, each writes its log in
// 4 KiB writes of whole lines (line-chunks.ts); one such write a turn of the event loop fell behind a busy
// worker's lines (ARCHITECTURE.md, "Made by hand, on purpose", row "line buffer": writeChunksNow). BUNDLE: the
// animal-store.mjs to run (A/B), this checkout's unless given; PORT (18503).
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { clearInterval, setInterval, setTimeout } from 'node:timers'

const bundle = process.env.BUNDLE ?? new URL('../../dist/bin/animal-store.mjs', import.meta.url).pathname
const port = process.env.PORT ?? '18503'
const seconds = process.env.DURATION_S ?? '45'
const target = process.env.TARGET ?? '/healthz'
const KEY = 'bench-key-0123456789abcdef0123456789'
const env = {
  ...process.env,
  PORT: port,
  HOST: '127.0.0.1',
  STORAGE: 'postgres',
  API_KEYS: `bench:${KEY}`,
  WEB_CONCURRENCY: '2',
}
if (env.DATABASE_URL === undefined)
  throw new Error('DATABASE_URL: the database to serve from (migrated here)')
await new Promise((resolve, reject) =>
  spawn(process.execPath, [bundle, 'migrate'], { env, stdio: 'ignore' }).on('exit', (code) =>
    code === 0 ? resolve() : reject(new Error(`migrate exited ${code}`)),
  ),
)
const service = spawn(process.execPath, [bundle], { env, stdio: ['ignore', 'pipe', 'inherit'] })
const cat = spawn('cat', [], { stdio: [service.stdout, 'ignore', 'inherit'] })
const workers = () =>
  readFileSync(`/proc/${service.pid}/task/${service.pid}/children`, 'utf8').trim().split(' ').filter(Boolean)
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) >> 10
const ready = async () => {
  for (;;) {
    const up = await globalThis.fetch(`http://127.0.0.1:${port}/healthz`).then(
      (res) => res.ok && workers().length === 2,
      () => false,
    )
    if (up) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
await ready()
// Both workers listening: the round robin gives each its share.
await new Promise((resolve) => setTimeout(resolve, 1_000))
const pids = workers()
const samples = [pids.map(rss)]
const wrk = spawn('wrk', [
  '-t2',
  '-c64',
  `-d${seconds}s`,
  '-H',
  `Authorization: Bearer ${KEY}`,
  `http://127.0.0.1:${port}${target}`,
])
let report = ''
wrk.stdout.on('data', (chunk) => (report += chunk))
const timer = setInterval(() => samples.push(pids.map(rss)), 5_000)
await new Promise((resolve) => wrk.on('exit', resolve))
clearInterval(timer)
const rate = /Requests\/sec:\s+([\d.]+)/.exec(report)?.[1]
console.log(`workers' RSS (MiB) every 5 s: ${samples.map((s) => s.join('+')).join(' ')}; ${rate} requests/s`)
service.kill('SIGKILL')
for (const pid of pids) process.kill(Number(pid), 'SIGKILL')
cat.kill()
