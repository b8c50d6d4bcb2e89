/** Thrown for a command that cannot run as asked; main prints its message and exits 2. */
export class UsageError extends Error {}

// The usage lines of the commands, here so that `--help` loads none of the commands' modules.
export const KEYS_USAGE = `animal-store keys create --name NAME   issue a key; it is printed once, only its digest is kept
animal-store keys list                 show every key's id, name and dates (never a key)
animal-store keys revoke ID            refuse the key; returns once every instance listening has heard
animal-store keys usage                per key: its last use, and its calls of deprecated operations`

export const OPENAPI_USAGE = `animal-store openapi [--out FILE]      print the OpenAPI document of this environment, or write it to FILE`
