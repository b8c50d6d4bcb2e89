// A strict parser of HTTP/1.1 responses as a server sends them (RFC 9112, RFC 9110): a status line of HTTP/1.1,
// field lines of a token, a colon and a value of visible characters (no obs-fold, no bare CR or LF, no NUL),
// one framing (Content-Length of digits, or chunked last), no Content-Length on a 1xx or 204, chunked bodies
// read exactly. It works on bytes as they arrive; a violation stops it with `error`.
import { Buffer } from 'node:buffer'

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const STATUS_LINE = /^HTTP\/1\.1 ([0-9]{3}) ([\t\x20-\x7e\x80-\xff]*)$/
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/
const CHUNK_LINE =
  /^([0-9A-Fa-f]+)((?:[ \t]*;[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:[ \t]*=[ \t]*(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*"))?)*)$/

const crlfLine = (buf, from) => {
  const lf = buf.indexOf(10, from)
  if (lf < 0) return undefined
  if (lf === from || buf[lf - 1] !== 13) return { error: 'bare LF in a line' }
  const text = buf.toString('latin1', from, lf - 1)
  if (text.includes('\r')) return { error: 'bare CR in a line' }
  return { text, next: lf + 1 }
}

export class ResponseParser {
  /** isHead(i): whether the i-th final response answers a HEAD (no body, whatever its framing says). */
  constructor(isHead = () => false) {
    this.isHead = isHead
    this.chunks = []
    this.buf = Buffer.alloc(0)
    this.pos = 0
    this.responses = []
    this.finals = 0
    this.error = undefined
    this.current = undefined
  }

  push(chunk) {
    if (this.error) return
    this.buf =
      this.pos > 0 ? Buffer.concat([this.buf.subarray(this.pos), chunk]) : Buffer.concat([this.buf, chunk])
    this.pos = 0
    while (!this.error && this.step());
  }

  /** The peer closed: a close-delimited body ends here; anything else left over is a cut response. */
  end() {
    if (this.error) return
    if (this.current?.closeDelimited) {
      this.current.body = this.buf.subarray(this.pos)
      this.finish()
    } else if (this.current || this.pos < this.buf.length)
      this.fail(`connection closed inside a response (${this.buf.length - this.pos} bytes left)`)
  }

  fail(message) {
    this.error = `${message} at byte ${this.pos} of response ${this.responses.length}`
  }

  step() {
    if (!this.current) return this.readHead()
    const r = this.current
    if (r.closeDelimited) return false
    if (r.chunked) return this.readChunk()
    if (this.buf.length - this.pos < r.length) return false
    r.body = this.buf.subarray(this.pos, this.pos + r.length)
    this.pos += r.length
    this.finish()
    return true
  }

  finish() {
    const r = this.current
    this.current = undefined
    delete r.length
    delete r.chunked
    delete r.parts
    this.responses.push(r)
    if (r.status >= 200) this.finals++
  }

  readHead() {
    const end = this.buf.indexOf('\r\n\r\n', this.pos, 'latin1')
    if (end < 0) {
      if (this.buf.length - this.pos > 65536) this.fail('a response head over 64 KiB')
      return false
    }
    const start = this.pos
    const status = crlfLine(this.buf, this.pos)
    if (status.error) return this.fail(`status line: ${status.error}`)
    const m = STATUS_LINE.exec(status.text)
    if (!m)
      return this.fail(`status line not HTTP/1.1 DDD reason: ${JSON.stringify(status.text.slice(0, 80))}`)
    const headers = []
    let at = status.next
    while (at < end + 2) {
      const line = crlfLine(this.buf, at)
      if (line.error) return this.fail(`field line: ${line.error}`)
      at = line.next
      if (/^[ \t]/.test(line.text)) return this.fail('obs-fold or a field line that starts with white space')
      const colon = line.text.indexOf(':')
      const name = line.text.slice(0, colon)
      if (colon < 1 || !TOKEN.test(name))
        return this.fail(`field name not a token: ${JSON.stringify(line.text.slice(0, 60))}`)
      const value = line.text.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '')
      if (!FIELD_VALUE.test(value)) return this.fail(`field value of ${name} holds a control character`)
      headers.push([name.toLowerCase(), value])
    }
    this.pos = end + 4
    const code = Number(m[1])
    const r = { status: code, reason: m[2], headers, rawHead: this.buf.toString('latin1', start, end) }
    this.current = r
    const all = (n) => headers.filter(([k]) => k === n).map(([, v]) => v)
    const lengths = all('content-length')
    const codings = all('transfer-encoding')
    if (code < 100 || code > 599) return this.fail(`status ${code} out of range`)
    if ((code < 200 || code === 204) && (lengths.length || codings.length))
      return this.fail(`a ${code} with Content-Length or Transfer-Encoding`)
    if (lengths.length && codings.length) return this.fail('both Content-Length and Transfer-Encoding')
    if (lengths.length > 1) return this.fail('Content-Length given twice')
    if (lengths.length && !/^[0-9]{1,15}$/.test(lengths[0])) return this.fail(`Content-Length ${lengths[0]}`)
    const bodiless = code < 200 || code === 204 || code === 304 || this.isHead(this.finals)
    if (bodiless) {
      r.body = Buffer.alloc(0)
      this.finish()
      return true
    }
    if (codings.length) {
      const list = codings
        .join(',')
        .split(',')
        .map((s) => s.trim().toLowerCase())
      if (list[list.length - 1] !== 'chunked')
        return this.fail(`Transfer-Encoding ${codings.join(',')} not chunked last`)
      r.chunked = true
      r.parts = []
      r.state = 'size'
      return true
    }
    if (lengths.length) r.length = Number(lengths[0])
    else r.closeDelimited = true
    return true
  }

  readChunk() {
    const r = this.current
    if (r.state === 'size') {
      const line = crlfLine(this.buf, this.pos)
      if (!line) return false
      if (line.error) return this.fail(`chunk size line: ${line.error}`)
      const m = CHUNK_LINE.exec(line.text)
      if (!m) return this.fail(`chunk size line ${JSON.stringify(line.text.slice(0, 40))}`)
      this.pos = line.next
      r.size = parseInt(m[1], 16)
      r.state = r.size === 0 ? 'trailers' : 'data'
      return true
    }
    if (r.state === 'data') {
      if (this.buf.length - this.pos < r.size + 2) return false
      if (this.buf[this.pos + r.size] !== 13 || this.buf[this.pos + r.size + 1] !== 10)
        return this.fail('chunk data not followed by CRLF')
      r.parts.push(this.buf.subarray(this.pos, this.pos + r.size))
      this.pos += r.size + 2
      r.state = 'size'
      return true
    }
    const line = crlfLine(this.buf, this.pos)
    if (!line) return false
    if (line.error) return this.fail(`trailer: ${line.error}`)
    this.pos = line.next
    if (line.text === '') {
      r.body = Buffer.concat(r.parts)
      delete r.state
      delete r.size
      this.finish()
      return true
    }
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*$/.test(line.text))
      return this.fail('trailer field line')
    return true
  }
}

export const header = (r, name) => r.headers.find(([k]) => k === name)?.[1]
export const headers = (r, name) => r.headers.filter(([k]) => k === name).map(([, v]) => v)
