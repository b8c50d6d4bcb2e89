// The service's log after a run: every line JSON with pino's fields, no key we sent anywhere in it, and what
// was logged at warn or above. Standard error must stay empty.
import { readFileSync } from 'node:fs'

export const checkLog = (logPath, errPath, keys) =>
  checkLogText(readFileSync(logPath, 'utf8'), readFileSync(errPath, 'utf8'), keys)

/** checkLog on the text of the log and of standard error. */
export const checkLogText = (text, err, keys) => {
  const lines = text.split('\n').filter((l) => l.length)
  const result = {
    lines: lines.length,
    badLines: 0,
    badSamples: [],
    levels: {},
    high: {},
    leaks: 0,
    leakSamples: [],
    requestLines: 0,
    statuses: {},
  }
  // Every Authorization we send holds "fzk" (or, for Basic, its base64 "ZnprO"), or is the stored key.
  const secrets = ['fzk', 'ZnprO', ...keys.filter((k) => !k.startsWith('fzk'))]
  for (const line of lines) {
    let j
    try {
      j = JSON.parse(line)
    } catch {
      result.badLines++
      if (result.badSamples.length < 5) result.badSamples.push(line.slice(0, 300))
      continue
    }
    if (
      typeof j !== 'object' ||
      j === null ||
      !['level', 'time', 'service', 'pid', 'msg'].every((k) => k in j)
    ) {
      result.badLines++
      if (result.badSamples.length < 5) result.badSamples.push(line.slice(0, 300))
    }
    result.levels[j.level] = (result.levels[j.level] ?? 0) + 1
    if (j.level >= 40) {
      const key = `${j.level} ${j.msg}`
      result.high[key] = (result.high[key] ?? 0) + 1
    }
    if (j.msg === 'request') {
      result.requestLines++
      result.statuses[j.status] = (result.statuses[j.status] ?? 0) + 1
    }
    if (secrets.some((s) => line.includes(s))) {
      result.leaks++
      if (result.leakSamples.length < 5) result.leakSamples.push(line.slice(0, 400))
    }
  }
  result.stderr = err.slice(0, 2000)
  return result
}
