import type { Clock } from '@pets/domain'

/** The machine's clock, or one that starts at `startAt` and runs at the machine's pace (CLOCK_NOW). */
export const createSystemClock = (startAt?: Date): Clock => {
  if (startAt === undefined) return { now: () => new Date() }
  const offset = startAt.getTime() - Date.now()
  return { now: () => new Date(Date.now() + offset) }
}
