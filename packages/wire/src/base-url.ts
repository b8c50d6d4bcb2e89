/**
 * `text` without the slashes it ends with (`https://pets.internal/v1/` → `https://pets.internal/v1`,
 * `/v1//` → `/v1`): how a base URL or a prefix is written before a path is appended to it. A loop, not
 * `/\/+$/`, which tries every slash of a long run as a start (quadratic), nor a lookbehind that only a
 * fuzzer can check.
 */
export const withoutTrailingSlashes = (text: string): string => {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--
  return end === text.length ? text : text.slice(0, end)
}
