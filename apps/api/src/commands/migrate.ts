import { migrateToLatest, MigrationsStoppedError } from '@pets/adapters-postgres'
import { constants } from 'node:os'
import type { AppConfig } from '../config.js'
import { withoutEchoes } from '../lifecycle.js'
import { withDatabase } from './with-database.js'

// A migrate that a signal stopped exits as the shell reports a command killed by it (130 for
// SIGINT, 143 for SIGTERM): not done, so a release job's next step does not run.
const statusOf = (signal: NodeJS.Signals) => 128 + constants.signals[signal]

/**
 * `animal-store migrate`: brings the schema up to date and says what ran. A signal stops it until it holds the
 * migration lock (its wait for another instance may take 5 minutes), or while the migrations wait for a table
 * another session holds locked, with one line; migrations already running finish (one transaction). A second
 * signal exits at once (SAME_STOP_MS or more after the first).
 */
export const migrateCommand = async (config: AppConfig, print: (line: string) => void) => {
  const stop = new AbortController()
  // A signal that comes with the first (a Ctrl-C under pnpm, a supervisor's stop) is no second: withoutEchoes.
  const onSignal = withoutEchoes(
    (signal: NodeJS.Signals) => {
      if (!stop.signal.aborted) return stop.abort(signal)
      // Its connection closes with the process: migrations not yet committed are rolled back whole.
      process.stderr.write(`animal-store: migrate: a second signal (${signal}): exiting at once\n`)
      process.exit(statusOf(signal))
    },
    () => {},
  )
  process.on('SIGTERM', onSignal).on('SIGINT', onSignal)
  try {
    await withDatabase(config, 'migrate', (database) =>
      migrateToLatest(database, print, { signal: stop.signal }),
    )
  } catch (error) {
    if (!(error instanceof MigrationsStoppedError)) throw error
    const signal = stop.signal.reason as NodeJS.Signals
    const when = error.waiting ? `while waiting for ${error.waitingFor}` : 'before migrating'
    process.stderr.write(`animal-store: migrate: stopped by ${signal} ${when}; nothing was migrated\n`)
    process.exitCode = statusOf(signal)
  } finally {
    process.off('SIGTERM', onSignal).off('SIGINT', onSignal)
  }
}
