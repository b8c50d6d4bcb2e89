import { keyListenerPids, listenForKeyChangesHeard, type PostgresDatabase } from '@pets/adapters-postgres'
import type { ApiKeyRecord } from '@pets/domain'
import type { AppConfig } from '../config.js'
import { commandSession } from './with-database.js'

/** How long `keys revoke` waits for each instance listening for key changes to say that it heard. */
export const HEARD_WITHIN_MS = 5000

/** What `keys revoke` says of a revocation: a line for standard output, and perhaps one for standard error. */
export type HeardReport = { readonly line: string; readonly warning?: string | undefined }

/**
 * LISTENs for the instances' answers, through the command's session (DATABASE_DIRECT_URL, else DATABASE_URL);
 * once the key is revoked, notes which instances listen for key changes and asks them whether they heard
 * (adapters-postgres: `keyListenerPids`, `listenForKeyChangesHeard`). Noted after the revocation, not before:
 * a store holds its lock once it LISTENs, and loads the keys after, so one not counted then loads them
 * without the key, and one counted hears the question.
 */
export const listenForRevocationHeard = async (config: AppConfig, { db }: PostgresDatabase) => {
  if (config.storage.kind !== 'postgres') throw new Error('keys revoke works on PostgreSQL only')
  const listening = await listenForKeyChangesHeard(db, {
    ...commandSession(config.storage),
    applicationName: 'animal-store keys revoke',
    timeoutMs: config.storage.connectionTimeoutMs,
  })
  return {
    /** Asks the instances listening now, waits HEARD_WITHIN_MS at most, and says who heard. */
    report: async ({ id, name }: ApiKeyRecord): Promise<HeardReport> => {
      const revoked = `Revoked key ${id} (${name})`
      const cannot = (why: string) => ({
        line: `${revoked}; each instance refuses it once it hears of the revocation (milliseconds).`,
        warning: `cannot hear which instances heard it: ${why}`,
      })
      const notListening = listening.notListening()
      if (notListening !== undefined) return cannot(notListening.message)
      let pids: ReadonlyArray<number>
      try {
        pids = await keyListenerPids(db)
      } catch (error) {
        return cannot(error instanceof Error ? error.message : String(error))
      }
      if (pids.length === 0)
        return {
          line:
            `${revoked}; no instance listens for key changes now, so each one running looks keys up in ` +
            'PostgreSQL and refuses it.',
        }
      const since = performance.now()
      const heard = await listening.ask(pids, HEARD_WITHIN_MS)
      const ms = Math.ceil(performance.now() - since)
      if (heard.size === pids.length)
        return {
          line: `${revoked}; refused by every instance: the ${pids.length} listening for key changes heard it within ${ms} ms.`,
        }
      const silent = pids.filter((pid) => !heard.has(pid))
      return {
        line: `${revoked}; ${heard.size} of the ${pids.length} instances listening for key changes heard it within ${ms} ms.`,
        warning:
          `no word within ${HEARD_WITHIN_MS} ms from the LISTEN connection${silent.length > 1 ? 's' : ''} with backend pid ` +
          `${silent.join(', ')} (an instance of an earlier release, one stopped or too busy to answer, or one whose ` +
          'connection died silently, which asks PostgreSQL instead within about 10 s)',
      }
    },
    close: listening.close,
  }
}
