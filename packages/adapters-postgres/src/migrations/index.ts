import type { Migration } from 'kysely'
import { createPets } from './2026-11-22-0001-create-pets.js'
import { createApiKeys } from './2026-11-22-0002-create-api-keys.js'
import { createApiKeyUsage } from './2026-11-22-0003-create-api-key-usage.js'
import { createIdempotencyRecords } from './2026-11-22-0004-create-idempotency-records.js'
import { notifyApiKeyChanges } from './2026-11-22-0005-notify-api-key-changes.js'
import { createPetOnce } from './2026-11-23-0006-create-pet-once.js'
import { createPetsOnce } from './2026-11-26-0007-create-pets-once.js'
import { createInsertIntents } from './2026-11-26-0008-insert-intents.js'
import { replaysBesideBusyKeys } from './2026-11-26-0009-replays-beside-busy-keys.js'
import { petIdsWithinJson } from './2026-11-27-0010-pet-ids-within-json.js'
import { listPets } from './2026-11-27-0011-list-pets.js'

/**
 * Every migration, by name, in the order they run (kysely sorts the names). Forward only: a change
 * is a new date-prefixed file, never an edit of a file that has shipped.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  '2026-11-22-0001-create-pets': createPets,
  '2026-11-22-0002-create-api-keys': createApiKeys,
  '2026-11-22-0003-create-api-key-usage': createApiKeyUsage,
  '2026-11-22-0004-create-idempotency-records': createIdempotencyRecords,
  '2026-11-22-0005-notify-api-key-changes': notifyApiKeyChanges,
  '2026-11-23-0006-create-pet-once': createPetOnce,
  '2026-11-26-0007-create-pets-once': createPetsOnce,
  '2026-11-26-0008-insert-intents': createInsertIntents,
  '2026-11-26-0009-replays-beside-busy-keys': replaysBesideBusyKeys,
  '2026-11-27-0010-pet-ids-within-json': petIdsWithinJson,
  '2026-11-27-0011-list-pets': listPets,
}
