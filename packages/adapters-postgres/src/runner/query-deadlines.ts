/** A deadline being watched: `expire` runs once it has passed, unless it was removed first. */
export type Deadline = { readonly at: number; readonly expire: () => void }

/**
 * Deadlines watched by one interval, not a timer per query: ARCHITECTURE.md, 'Made by hand, on purpose',
 * row "statement path". A passed one expires in `setImmediate`, after the input already arrived is read,
 * so a busy process never expires a query whose answer waits in its socket.
 */
export const watchDeadlines = (everyMs: number, now: () => number) => {
  const watched = new Set<Deadline>()
  let timer: NodeJS.Timeout | undefined
  const expirePassed = () => {
    const at = now()
    for (const deadline of watched)
      if (deadline.at <= at) {
        watched.delete(deadline)
        setImmediate(deadline.expire)
      }
    if (watched.size === 0) timer = void clearInterval(timer)
  }
  return {
    add: (deadline: Deadline) => {
      watched.add(deadline)
      timer ??= setInterval(expirePassed, everyMs).unref()
    },
    remove: (deadline: Deadline) => void watched.delete(deadline),
  }
}
