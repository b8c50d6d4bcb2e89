/** Where the service is in its life: serving, or draining once shutdown has begun. */
export type Lifecycle = {
  readonly draining: () => boolean
  /** Turns /readyz to 503 from now on; the service still answers every other request. */
  readonly drain: () => void
}

/** A lifecycle that starts serving. */
export const createLifecycle = (): Lifecycle => {
  let draining = false
  return {
    draining: () => draining,
    drain: () => {
      draining = true
    },
  }
}
