import { postPet, sendOne, type Sample } from './failover-load.js'
import { queryOnce } from './node-sql.js'

/** What the stored pets of one failover showed. */
export type StoredFigures = {
  /** Pets answered 201 that the primary does not have, but those the database itself lost (below). */
  readonly lost: number
  /** Pets answered 201 while the old primary ran without a synchronous standby, that the primary does not have. */
  readonly lostByDatabase: number
  readonly keys: number
  /** Keys whose replay did not give their pet, or with other than exactly one pet. */
  readonly keysNotOnce: number
}

const REPLAYS_AT_ONCE = 8

/** Every pet the load named, by name, as the primary has them. */
const petsByName = async (primaryUrl: string, names: ReadonlyArray<string>) => {
  const rows = await queryOnce<{ id: string; name: string }>(
    primaryUrl,
    'SELECT id::text AS id, name FROM pets WHERE name = ANY($1::text[])',
    [names],
    10_000,
  )
  const byName = new Map<string, Array<number>>()
  for (const { id, name } of rows) byName.set(name, [...(byName.get(name) ?? []), Number(id)])
  return byName
}

/** Replays `sample`'s key (the same body) until an answer other than 503, three tries at most. */
const replay = async (url: string, apiKey: string, sample: Sample) => {
  for (let attempt = 1; ; attempt++) {
    const again = await sendOne('keyed', postPet(url, apiKey, sample.name!, sample.key))
    if (again.status !== 503 || attempt === 3) return again
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
}

/**
 * Checks, on the primary, that every pet answered 201 is there under its name, that no create made
 * two pets, and that each Idempotency-Key, replayed now, gives the one pet it made.
 */
export const checkStoredPets = async (o: {
  readonly url: string
  readonly apiKey: string
  readonly samples: ReadonlyArray<Sample>
  readonly primaryUrl: string
  /** When the failover began (Date.now()): the times of lost pets are told from it. */
  readonly eventAt: number
  /**
   * Whether a 201 came while the old primary acknowledged commits without its synchronous standby
   * (unprotected-writes.ts): such a pet may be gone, its key replayed into a new pet, by the database's doing.
   */
  readonly unprotected: (s: Sample) => boolean
}) => {
  const problems: Array<string> = []
  const writes = o.samples.filter((s) => s.kind === 'create' || s.kind === 'keyed')
  const names = writes.map((s) => s.name!)
  const before = await petsByName(o.primaryUrl, names)
  const gone = writes.filter((s) => s.status === 201 && !(before.get(s.name!) ?? []).includes(s.id!))
  const lostByDatabase = new Set(gone.filter(o.unprotected))
  const lost = gone.filter((s) => !lostByDatabase.has(s))
  if (lost.length > 0)
    problems.push(
      `${lost.length} pets answered 201 are gone (id: sent..answered, ms from the failover): ${lost
        .map((s) => `${s.id}: ${s.startedAt - o.eventAt}..${s.endedAt! - o.eventAt}`)
        .join(', ')}`,
    )
  const keyed = writes.filter((s) => s.kind === 'keyed')
  const replays: Array<Sample> = []
  for (let i = 0; i < keyed.length; i += REPLAYS_AT_ONCE)
    replays.push(
      ...(await Promise.all(keyed.slice(i, i + REPLAYS_AT_ONCE).map((s) => replay(o.url, o.apiKey, s)))),
    )
  const after = await petsByName(o.primaryUrl, names)
  const notOnce = keyed.flatMap((s, i) => {
    const ids = after.get(s.name!) ?? []
    const again = replays[i]!
    // A key whose first pet the database lost: its record went with it, and the replay made the one pet there is.
    const first = s.status !== 201 || s.id === ids[0] || lostByDatabase.has(s)
    const same = again.status === 201 && ids.length === 1 && again.id === ids[0] && first
    return same
      ? []
      : [
          `${s.key} (first ${s.status ?? s.error}, replay ${again.status ?? again.error}): pets ${JSON.stringify(ids)}`,
        ]
  })
  for (const line of notOnce.slice(0, 10)) problems.push(`Idempotency-Key ${line}`)
  if (notOnce.length > 10)
    problems.push(`…and ${notOnce.length - 10} more keys without exactly their one pet`)
  const twice = [...after].filter(([, ids]) => ids.length > 1)
  if (twice.length > 0)
    problems.push(
      `${twice.length} creates made more than one pet: ${twice
        .slice(0, 5)
        .map(([n]) => n)
        .join(', ')}`,
    )
  const figures: StoredFigures = {
    lost: lost.length,
    lostByDatabase: lostByDatabase.size,
    keys: keyed.length,
    keysNotOnce: notOnce.length,
  }
  return { figures, problems }
}
