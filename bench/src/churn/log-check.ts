import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'

/** What the log of a churn soak held: every line must be one JSON object (none cut by another process's). */
export type LogCheck = {
  readonly lines: number
  /** Lines that are not one JSON object: cut, or two run together (must be 0). */
  readonly notJson: number
  readonly requestLines: number
  readonly processes: number
  /** `a worker died; replacing it` lines, and the connections they say were reset (handed-connections.ts). */
  readonly died: number
  readonly connectionsReset: number
  /** `a worker stopped, not asked by the primary; replacing it` lines. */
  readonly stoppedAlone: number
  /** Lines at `error` or above, by message, the worker deaths aside. */
  readonly errors: Readonly<Record<string, number>>
  /** Answers with a status of 500 or more, by route and status. */
  readonly serverErrors: Readonly<Record<string, number>>
}

type Line = {
  pid?: number
  level?: number
  msg?: string
  route?: string
  status?: number
  connectionsReset?: number
}

/** Reads the log line by line. */
export const checkLog = async (file: string): Promise<LogCheck> => {
  const pids = new Set<number>()
  const errors: Record<string, number> = {}
  const serverErrors: Record<string, number> = {}
  let lines = 0
  let notJson = 0
  let requestLines = 0
  let died = 0
  let connectionsReset = 0
  let stoppedAlone = 0
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    lines++
    let line: Line
    try {
      line = JSON.parse(text) as Line
    } catch {
      notJson++
      continue
    }
    if (line.pid !== undefined) pids.add(line.pid)
    if (line.msg === 'request') {
      requestLines++
      if ((line.status ?? 0) >= 500) {
        const key = `${line.route} ${line.status}`
        serverErrors[key] = (serverErrors[key] ?? 0) + 1
      }
    } else if (line.msg === 'a worker died; replacing it') {
      died++
      connectionsReset += line.connectionsReset ?? 0
    } else if (line.msg === 'a worker stopped, not asked by the primary; replacing it') stoppedAlone++
    else if ((line.level ?? 0) >= 50) errors[line.msg ?? '?'] = (errors[line.msg ?? '?'] ?? 0) + 1
  }
  return {
    lines,
    notJson,
    requestLines,
    processes: pids.size,
    died,
    connectionsReset,
    stoppedAlone,
    errors,
    serverErrors,
  }
}
