import { Writable } from 'node:stream'

/** A destination that keeps what is written to it in memory: the JSON log lines of a test. */
export const memoryLog = () => {
  let text = ''
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString()
      done()
    },
  })
  return { stream, text: () => text }
}
