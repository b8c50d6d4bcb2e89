import { availableParallelism, cpus, release, totalmem } from 'node:os'

/** What the figures were measured on. */
export type Machine = {
  readonly cpus: number
  readonly cpuModel: string
  readonly memoryGiB: number
  readonly node: string
  readonly kernel: string
}

/** This machine: cores this process may use (as nproc counts them), CPU model, memory, Node, kernel. */
export const describeMachine = (): Machine => ({
  cpus: availableParallelism(),
  cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
  memoryGiB: Math.round(totalmem() / 1024 ** 3),
  node: process.version,
  kernel: `Linux ${release()}`,
})
