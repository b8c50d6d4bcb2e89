import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { closeAfterLinger, lingeringRefusal } from './linger.js'

// RFC 9113: frames are a 9-byte header (a length of 24 bits, a type, flags, a stream id of 31 bits), then
// the payload. HTTP_1_1_REQUIRED (0xd, section 7): "The endpoint requires that HTTP/1.1 be used instead".
const FRAME_HEADER = 9
const HEADERS = 0x1
const RST_STREAM = 0x3
const SETTINGS = 0x4
const GOAWAY = 0x7
const HTTP_1_1_REQUIRED = 0xd

const frame = (type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer => {
  const header = Buffer.alloc(FRAME_HEADER)
  header.writeUIntBE(payload.length, 0, 3)
  header[3] = type
  header[4] = flags
  header.writeUInt32BE(stream, 5)
  return Buffer.concat([header, payload])
}
const codeOf = (code: number): Buffer => {
  const payload = Buffer.alloc(4)
  payload.writeUInt32BE(code, 0)
  return payload
}
// The server's connection preface (section 3.4): a SETTINGS frame, first of all it sends; empty here.
const SERVER_PREFACE = frame(SETTINGS, 0, 0)
// What each SETTINGS of the client's gets at once (section 6.5.3): a SETTINGS with the ACK flag.
const SETTINGS_ACK = frame(SETTINGS, 0x1, 0)
// Its last frame: no stream was processed (the last stream id 0), HTTP_1_1_REQUIRED, and why in its debug data.
const GOING_AWAY = frame(
  GOAWAY,
  0,
  0,
  Buffer.concat([codeOf(0), codeOf(HTTP_1_1_REQUIRED), Buffer.from('This server speaks HTTP/1.1 only.')]),
)
const resetOf = (stream: number): Buffer => frame(RST_STREAM, 0, stream, codeOf(HTTP_1_1_REQUIRED))

/**
 * How many of the client's frames are read for the streams they open; those after are dropped unread. A
 * payload is skipped whole, whatever its length (a body's DATA before the next stream's HEADERS: a bound of
 * 16 KiB read left node's client, reusing its session after a 32 KiB body, without a reset for LINGER_MS);
 * the answers, 13 bytes at most each, stay under 14 KiB for a client that does not read them.
 */
export const MOST_FRAMES = 1024

// Where the reading of a connection's frames is: the header being put together, the payload being skipped.
type Scan = { readonly header: Buffer; had: number; skip: number; frames: number; lastStream: number }
const scans = new WeakMap<Duplex, Scan>()

// What a frame's header calls for: an RST_STREAM for a stream a HEADERS frame opens (a client's streams are
// odd, each above the one before: section 5.1.1), an ACK for a SETTINGS of the client's.
const answerTo = (scan: Scan): Buffer | undefined => {
  const { header } = scan
  const stream = header.readUInt32BE(5) & 0x7fffffff
  if (header[3] === HEADERS && stream % 2 === 1 && stream > scan.lastStream) {
    scan.lastStream = stream
    return resetOf(stream)
  }
  return header[3] === SETTINGS && stream === 0 && (header[4]! & 0x1) === 0 ? SETTINGS_ACK : undefined
}

// Walks the frames of `bytes` (a step a header or a payload: linear in the frames, not the bytes) and answers
// them (answerTo) in one write: on an RST_STREAM with HTTP_1_1_REQUIRED, curl sends the request again over
// HTTP/1.1, and node's client names the code.
const answerFramesIn = (scan: Scan, bytes: Buffer, socket: Socket): void => {
  const answers: Array<Buffer> = []
  let at = 0
  while (at < bytes.length && scan.frames < MOST_FRAMES) {
    const take = Math.min(scan.skip > 0 ? scan.skip : FRAME_HEADER - scan.had, bytes.length - at)
    if (scan.skip > 0) scan.skip -= take
    else {
      bytes.copy(scan.header, scan.had, at, at + take)
      scan.had += take
      if (scan.had === FRAME_HEADER) {
        scan.had = 0
        scan.frames++
        scan.skip = scan.header.readUIntBE(0, 3)
        const answer = answerTo(scan)
        if (answer !== undefined) answers.push(answer)
      }
    }
    at += take
  }
  if (answers.length > 0 && !socket.writableEnded) socket.write(Buffer.concat(answers))
}

type Refusal = Error & { code?: string; rawPacket?: unknown; bytesParsed?: unknown }

/**
 * A client that speaks HTTP/2 with prior knowledge (`curl --http2-prior-knowledge`, a proxy set up for h2c)
 * begins with HTTP/2's connection preface, which node's HTTP/1 parser refuses whole (`HPE_PAUSED_H2_UPGRADE`).
 * It gets HTTP/2's own answer, not an HTTP/1.1 400 that it reads as a broken frame ("Empty reply from server",
 * node's "Protocol error"): the server's preface (an empty SETTINGS frame), an RST_STREAM with
 * HTTP_1_1_REQUIRED for each stream it opens and an ACK of its SETTINGS (read from its first MOST_FRAMES
 * frames, whatever their payloads), and, once it has ended its side or at LINGER_MS, a GOAWAY with that code
 * (closeAfterLinger: what it sends meanwhile is dropped, LINGER_BYTES at most). A GOAWAY sent at once made
 * curl give up ("Error in the HTTP2 framing layer") where the RST_STREAM alone has it send the request again
 * over HTTP/1.1. No request reaches the app: no log line.
 * True when the refusal is such a preface, or comes after one on the same connection.
 */
export const answerHttp2Preface = (error: Refusal, stream: Duplex): boolean => {
  const socket = stream as Socket & { _httpMessage?: unknown }
  const scan = scans.get(socket)
  if (scan !== undefined) {
    if (Buffer.isBuffer(error.rawPacket)) answerFramesIn(scan, error.rawPacket, socket)
    lingeringRefusal(error, socket)
    return true
  }
  // Behind an answer under way, it is no client's first word: later-refusals.ts closes after that answer.
  const under = socket._httpMessage
  if (error.code !== 'HPE_PAUSED_H2_UPGRADE' || !socket.writable || (under !== undefined && under !== null))
    return false
  const opened: Scan = { header: Buffer.alloc(FRAME_HEADER), had: 0, skip: 0, frames: 0, lastStream: 0 }
  scans.set(socket, opened)
  socket.write(SERVER_PREFACE)
  // The frames that came in the preface's packet, after it (node's parser stopped at its end).
  const raw = error.rawPacket
  const at = error.bytesParsed
  if (Buffer.isBuffer(raw) && typeof at === 'number') answerFramesIn(opened, raw.subarray(at), socket)
  closeAfterLinger(socket, { parserReads: true, lastWords: GOING_AWAY })
  return true
}
