import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { isIP } from 'node:net'
import { instant } from './codecs.js'

// The codecs of HOST and CLOCK_NOW: what a listener and a calendar accept, checked before the service starts.

const isDigit = (c: string) => c >= '0' && c <= '9'
const isLetterDigitOrHyphen = (c: string) =>
  (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c === '-'

// RFC 1123. Character loops, no regular expression: the text comes from outside.
const isHostLabel = (label: string): boolean =>
  label.length >= 1 &&
  label.length <= 63 &&
  !label.startsWith('-') &&
  !label.endsWith('-') &&
  [...label].every(isLetterDigitOrHyphen)

const isHexDigit = (c: string) => isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
// A part of an IPv4 address as inet_aton reads one: decimal or octal digits, or 0x and hex digits.
const isNumberPart = (label: string): boolean =>
  label[0] === '0' && (label[1] === 'x' || label[1] === 'X')
    ? [...label.slice(2)].every(isHexDigit)
    : [...label].every(isDigit)

/**
 * A host name by RFC 1123. One whose every label is a number (digits, or 0x and hex digits) is an IPv4
 * address to getaddrinfo (999.1.1.1 failed only when the service listened; 0x10 listened on 0.0.0.16), so
 * it is a name only if isIP reads it as an address.
 */
export const isHostName = (text: string): boolean => {
  const labels = text.split('.')
  return text.length <= 253 && labels.every(isHostLabel) && !labels.every(isNumberPart)
}

/** HOST: an IPv4 or IPv6 address, or a host name; whether a name resolves is known only when listening. */
export const listenHost = new t.Type<string, string, unknown>(
  'Host',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && (isIP(u) !== 0 || isHostName(u))
      ? t.success(u)
      : t.failure(u, c, 'must be an IPv4 or IPv6 address or a host name, such as 0.0.0.0, :: or localhost'),
  String,
)

// The date and time as written, up to the seconds: `2030-02-30T00:00:00`, or `2030-02-30T00:00` without them.
const writtenFields = (text: string) => text.slice(0, text[16] === ':' ? 19 : 16)

/** Whether the date and time written exist: `new Date` rolls 2030-02-30 over to 2 March, and T24:00 to the next day. */
export const existsOnCalendar = (text: string): boolean => {
  const fields = writtenFields(text)
  const read = new Date(`${fields}Z`)
  return !Number.isNaN(read.getTime()) && read.toISOString().startsWith(fields)
}

/** CLOCK_NOW: an ISO 8601 instant with a time zone, on a date and at a time that exist. */
export const calendarInstant = new t.Type<Date, string, unknown>(
  'CalendarInstant',
  instant.is,
  (u, c) => {
    const read = instant.validate(u, c)
    return E.isLeft(read) || (typeof u === 'string' && existsOnCalendar(u))
      ? read
      : t.failure(u, c, 'must be a date and time that exist on the calendar, such as 2030-12-05T00:00:00Z')
  },
  instant.encode,
)
