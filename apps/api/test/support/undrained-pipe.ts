import { execFileSync } from 'node:child_process'
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A FIFO full before its writer starts: `writer` for the child, then `drain` reads it all. */
export const undrainedPipe = () => {
  const dir = mkdtempSync(join(tmpdir(), 'undrained-'))
  const path = join(dir, 'stdout')
  execFileSync('mkfifo', [path])
  // Opened without blocking, so that the writers' opens find a reader; read through a socket.
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  const filler = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK)
  const page = Buffer.alloc(4096, '\n')
  try {
    for (;;) writeSync(filler, page)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
  } finally {
    closeSync(filler)
  }
  let writer: number | undefined = openSync(path, constants.O_WRONLY)
  let socket: Socket | undefined
  return {
    writer,
    /** The child holds its own copy now. */
    handedOver: () => {
      if (writer !== undefined) closeSync(writer)
      writer = undefined
    },
    drain: () =>
      new Promise<string>((resolve, reject) => {
        socket = new Socket({ fd: reader, readable: true, writable: false })
        let text = ''
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()))
        socket.on('end', () => resolve(text))
        socket.on('error', reject)
      }),
    close: () => {
      if (writer !== undefined) closeSync(writer)
      if (socket === undefined) closeSync(reader)
      else socket.destroy()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
