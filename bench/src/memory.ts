import { readFileSync } from 'node:fs'

/** A line of /proc/PID/status in bytes: VmRSS (resident now) or VmHWM (the most it ever was). */
export const readProcMemory = (pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined => {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    )
    return match === null ? undefined : Number(match[1]) * 1024
  } catch {
    return undefined
  }
}

/** Polls a process's resident memory until stopped, and tells the largest value seen. */
export const sampleRss = (pid: number, everyMs = 50): { readonly stop: () => number } => {
  let peak = readProcMemory(pid, 'VmRSS') ?? 0
  const timer = setInterval(() => {
    peak = Math.max(peak, readProcMemory(pid, 'VmRSS') ?? 0)
  }, everyMs)
  return {
    stop: () => {
      clearInterval(timer)
      return Math.max(peak, readProcMemory(pid, 'VmRSS') ?? 0)
    },
  }
}

// USER_HZ: the unit of utime and stime in /proc/PID/stat on Linux.
const TICKS_PER_SECOND = 100

/**
 * CPU time a process has used so far, user and system, in ms (10 ms resolution). Unlike its
 * throughput, what a request costs in CPU does not depend much on what else the machine runs.
 */
export const readProcCpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
  } catch {
    return Number.NaN
  }
}

/** Bytes as MiB with one decimal. */
export const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1)
