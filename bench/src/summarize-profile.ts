import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

type CallFrame = { readonly functionName: string; readonly url: string; readonly lineNumber: number }
type ProfileNode = { readonly id: number; readonly callFrame: CallFrame }
/** The parts of a V8 .cpuprofile (what `node --cpu-prof` writes) that a summary needs. */
export type CpuProfile = {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** Self time of a function or of a package, in ms and as a share of all samples. */
export type SelfTime = {
  readonly name: string
  readonly where: string
  readonly ms: number
  readonly share: number
}
export type ProfileSummary = {
  readonly totalMs: number
  readonly functions: ReadonlyArray<SelfTime>
  readonly packages: ReadonlyArray<SelfTime>
}

/** Which package a script belongs to: an npm package, a workspace package, Node itself, or V8. */
export const packageOf = (url: string): string => {
  if (url === '') return '(V8 and native)'
  if (url.startsWith('node:')) return 'node (built-in)'
  const installed = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (installed !== null) return installed[1]!
  const workspace = /\/(packages|apps|bench)\/([^/]+\/)?(dist|src)\//.exec(url)
  if (workspace !== null)
    return workspace[1] === 'bench' ? '@pets/bench' : `@pets/${workspace[2]!.replace('/', '')}`
  return url
}

const V8_ENTRIES = new Set(['(garbage collector)', '(program)', '(root)'])

const where = ({ url, lineNumber }: CallFrame) =>
  url === ''
    ? ''
    : `${url.replace(/^.*\/node_modules\/(?=[^/]+\/)|^file:\/\/.*?\/(?=(packages|apps|bench)\/)/, '')}:${lineNumber + 1}`

const top = (times: Map<string, SelfTime>, totalMs: number, count: number): ReadonlyArray<SelfTime> =>
  [...times.values()]
    .map((t) => ({ ...t, share: t.ms / totalMs }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count)

/**
 * Sums each sample's time into the function it was taken in (self time), and into that function's
 * package; samples of the first `skipMs` of the profile (start-up, seeding) are left out.
 */
export const summarizeProfile = (profile: CpuProfile, count = 20, skipMs = 0): ProfileSummary => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const functions = new Map<string, SelfTime>()
  const packages = new Map<string, SelfTime>()
  let totalMs = 0
  let elapsedMs = 0
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)
    const ms = (profile.timeDeltas[i] ?? 0) / 1000
    elapsedMs += ms
    if (elapsedMs < skipMs || frame === undefined || frame.functionName === '(idle)') return
    totalMs += ms
    const name = frame.functionName || '(anonymous)'
    const key = `${name} ${frame.url}:${frame.lineNumber}`
    const fn = functions.get(key) ?? { name, where: where(frame), ms: 0, share: 0 }
    functions.set(key, { ...fn, ms: fn.ms + ms })
    // V8's own entries ((garbage collector), (program)) keep their names; the rest go by script.
    const pkg = frame.url === '' && V8_ENTRIES.has(name) ? name : packageOf(frame.url)
    const p = packages.get(pkg) ?? { name: pkg, where: '', ms: 0, share: 0 }
    packages.set(pkg, { ...p, ms: p.ms + ms })
  })
  return { totalMs, functions: top(functions, totalMs, count), packages: top(packages, totalMs, count) }
}

/** The summary as two Markdown tables: top functions by self time, and self time by package. */
export const formatProfileSummary = (summary: ProfileSummary): string => {
  const pct = (share: number) => `${(share * 100).toFixed(1)} %`
  return [
    `Busy time sampled: ${(summary.totalMs / 1000).toFixed(2)} s (idle excluded).`,
    '',
    '| self | function | where |',
    '|---:|---|---|',
    ...summary.functions.map((f) => `| ${pct(f.share)} | \`${f.name}\` | ${f.where} |`),
    '',
    '| self | package |',
    '|---:|---|',
    ...summary.packages.map((p) => `| ${pct(p.share)} | ${p.name} |`),
  ].join('\n')
}

// node dist/summarize-profile.js FILE.cpuprofile [COUNT] [SKIP_MS]
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, count = '25', skipMs = '0'] = process.argv.slice(2)
  if (file === undefined) {
    console.error('usage: node dist/summarize-profile.js FILE.cpuprofile [COUNT] [SKIP_MS]')
    process.exit(2)
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  console.log(formatProfileSummary(summarizeProfile(profile, Number(count), Number(skipMs))))
}
