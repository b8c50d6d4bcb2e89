/**
 * Runs `run` with the built-in `owner[key]` wrapped, so that `each` sees the arguments and the result of
 * every call made meanwhile: a count of the operations a piece of code makes, where timing it would be no
 * test. vi.spyOn would do, but for the built-ins vitest's own spies call.
 */
export const watching = async <T extends object, K extends keyof T>(
  owner: T,
  key: K,
  each: (args: ReadonlyArray<unknown>, result: unknown) => void,
  run: () => unknown,
): Promise<void> => {
  const original = owner[key] as (...args: Array<unknown>) => unknown
  owner[key] = function (this: unknown, ...args: Array<unknown>) {
    const result = original.apply(this, args)
    each(args, result)
    return result
  } as T[K]
  try {
    await run()
  } finally {
    owner[key] = original as T[K]
  }
}

/** How many characters of a string `run` reads one at a time (`charCodeAt`), indexOf and slices aside. */
export const charactersRead = async (run: () => unknown): Promise<number> => {
  let read = 0
  await watching(String.prototype, 'charCodeAt', () => read++, run)
  return read
}
