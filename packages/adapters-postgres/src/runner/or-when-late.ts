/**
 * `work`'s outcome, or `late()`'s when `work` has not settled within `ms` (what `late` throws rejects).
 * The timer is cleared either way; `work`'s own outcome after that is ignored.
 */
export const orWhenLate = <T>(work: Promise<T>, ms: number, late: () => T): Promise<T> => {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late())
      } catch (error) {
        reject(error)
      }
    }, ms)
  })
  return Promise.race([work, timedOut]).finally(() => clearTimeout(timer))
}
