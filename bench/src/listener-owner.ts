import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

// The inodes of the sockets listening on `port` of 127.0.0.1 or any address (/proc/net/tcp: local address
// in hex, state 0A for LISTEN, the inode in the tenth column).
const listeningInodes = (port: number): Set<string> => {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  const inodes = new Set<string>()
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const columns = line.trim().split(/ +/)
    if (columns[1]?.endsWith(`:${hexPort}`) === true && columns[3] === '0A') inodes.add(columns[9]!)
  }
  return inodes
}

// `pid` and the processes it started, and theirs (a runtime may serve from a child process).
const familyOf = (pid: number): Array<number> => {
  const parents = new Map<number, Array<number>>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // The fields after the command's closing parenthesis: state, then the parent's pid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)])
    } catch {
      // It ended meanwhile.
    }
  }
  const family = [pid]
  for (let i = 0; i < family.length; i++) family.push(...(parents.get(family[i]!) ?? []))
  return family
}

/**
 * Whether the socket listening on `port` belongs to `pid` or a process it started. A port chosen free may be
 * taken by another test's server before the launched one binds it (that one then exits with EADDRINUSE),
 * and the other's /healthz answers 200 meanwhile: the launch must not take that for its own.
 */
export const listensOn = (pid: number, port: number): boolean => {
  const inodes = listeningInodes(port)
  if (inodes.size === 0) return false
  for (const member of familyOf(pid)) {
    let descriptors: Array<string>
    try {
      descriptors = readdirSync(`/proc/${member}/fd`)
    } catch {
      continue
    }
    for (const fd of descriptors) {
      try {
        const target = readlinkSync(`/proc/${member}/fd/${fd}`)
        if (target.startsWith('socket:[') && inodes.has(target.slice(8, -1))) return true
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return false
}
