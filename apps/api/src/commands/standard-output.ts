/** Standard output did not take a command's lines: `cause` is why (ENOSPC, EPIPE …). */
export class StandardOutputError extends Error {
  override readonly name = 'StandardOutputError'
  constructor(
    override readonly cause: NodeJS.ErrnoException,
    /** What the command undid or left because of it, for the operator's line (an issued key revoked). */
    readonly consequence?: string,
  ) {
    super('standard output cannot be written', { cause })
  }

  /** A reader that stopped reading (`animal-store openapi | head`): no failure, unless it cost something. */
  get readerGone(): boolean {
    return this.cause.code === 'EPIPE' && this.consequence === undefined
  }
}

/** A command's lines on standard output. */
export type Output = {
  /** Writes a line; once a write failed, the lines after it are dropped. */
  readonly print: (line: string) => void
  /** Resolves once every line printed so far is written; else rejects with a StandardOutputError. */
  readonly written: () => Promise<void>
}

/**
 * A command's standard output, whose failures are the command's to report: without this listener an error
 * writing it (a full disk, a closed pipe) would end the process with a stack.
 */
export const standardOutput = (stream: NodeJS.WritableStream = process.stdout): Output => {
  let failed: NodeJS.ErrnoException | undefined
  // Writes end in their order, so the last one's callback comes after every earlier one's.
  let last: Promise<void> = Promise.resolve()
  stream.on('error', (error: NodeJS.ErrnoException) => (failed ??= error))
  return {
    print: (line) => {
      if (failed !== undefined) return
      last = new Promise((resolve) => {
        stream.write(`${line}\n`, (error?: NodeJS.ErrnoException | null) => {
          if (error !== undefined && error !== null) failed ??= error
          resolve()
        })
      })
    },
    written: async () => {
      await last
      if (failed !== undefined) throw new StandardOutputError(failed)
    },
  }
}
