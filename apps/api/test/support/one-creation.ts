import { expect } from 'vitest'

interface Rows {
  query<Row>(sql: string): Promise<{ rows: Array<Row> }>
}

/**
 * CONTRACT: one Idempotency-Key adds one pet, however many requests carry it at once. Checks that the
 * database holds exactly one pet and that each concurrent answer is its `201` or the `409` of a key
 * in use; returns the pet's id for the retries a test makes after.
 */
export async function expectOneCreation(pool: Rows, answers: ReadonlyArray<Response>): Promise<number> {
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM pets')
  expect(rows).toHaveLength(1)
  const id = Number(rows[0]!.id)
  for (const answer of answers) {
    expect([201, 409]).toContain(answer.status)
    const json = (await answer.json()) as { id?: number; code?: string }
    if (answer.status === 201) expect(json.id).toBe(id)
    else expect(json.code).toBe('idempotency_key_in_use')
  }
  return id
}
