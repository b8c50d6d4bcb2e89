/** What was thrown or rejected, as an Error (pg's release, a run's `done` and the loggers take only those). */
export const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)))
