/** Whether `work` settled within `ms`; its rejection is passed on. The timer is cleared either way. */
export const within = (work: Promise<unknown>, ms: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)))
  return Promise.race([work.then(() => true), late]).finally(() => clearTimeout(timer))
}
