/** A JSON line of the service's log, as pino writes it: its level, its message, and its fields. */
export type LogLine = { readonly level: number; readonly msg: string; readonly [field: string]: unknown }

/** The JSON lines of a process's output, in order; what else it wrote (a line on stderr, say) is left out. */
export const logLinesOf = (output: string): Array<LogLine> =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine)
