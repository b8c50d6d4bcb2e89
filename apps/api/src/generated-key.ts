import { generateApiKey } from '@pets/wire/api-key-secret'
import { writeSync } from 'node:fs'

/** The key of a development run without API_KEYS, and why it could not be printed, if it could not. */
export type GeneratedKey = { readonly key: string; readonly unprinted?: string }

/**
 * Generates the key that a development run without API_KEYS accepts, and prints it once on standard error:
 * standard output is the log, JSON lines that a key would break and that may go where nobody reads. Straight
 * to fd 2, as line-buffer.ts writes there: process.stderr would end the process with an 'error' of its own.
 */
export const printGeneratedKey = (): GeneratedKey => {
  const key = generateApiKey()
  try {
    writeSync(2, `No API_KEYS set: this development run accepts the generated key\n  ${key}\n`)
    return { key }
  } catch (error) {
    return { key, unprinted: (error as NodeJS.ErrnoException).code ?? String(error) }
  }
}
