// The bundle on the memory store, its standard output a pipe nobody reads past the first line (a stalled log
// collector), under wrk sending 401s for DURATION_S (30): its RSS every 5 s. BUNDLE: the animal-store.mjs to run
// (A/B), this checkout's unless given; PORT (18502).
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { clearInterval, setInterval } from 'node:timers'

const bundle = process.env.BUNDLE ?? new URL('../../dist/bin/animal-store.mjs', import.meta.url).pathname
const port = process.env.PORT ?? '18502'
const seconds = process.env.DURATION_S ?? '30'
const env = { ...process.env, PORT: port, HOST: '127.0.0.1', STORAGE: 'memory', API_KEYS: 'k1' }
const service = spawn(process.execPath, [bundle], { env, stdio: ['ignore', 'pipe', 'inherit'] })
await new Promise((resolve) => service.stdout.once('data', resolve))
service.stdout.pause()
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${service.pid}/status`, 'utf8'))[1]) >> 10
const samples = [rss()]
const wrk = spawn('wrk', ['-t1', '-c16', `-d${seconds}s`, `http://127.0.0.1:${port}/v1/pets`])
let report = ''
wrk.stdout.on('data', (chunk) => (report += chunk))
const timer = setInterval(() => samples.push(rss()), 5_000)
await new Promise((resolve) => wrk.on('exit', resolve))
clearInterval(timer)
console.log(`RSS (MiB) every 5 s: ${samples.join(' ')}; ${/Requests\/sec:\s+[\d.]+/.exec(report)?.[0]}`)
service.kill('SIGKILL')
