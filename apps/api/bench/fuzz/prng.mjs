// A small seeded PRNG (sfc32, seeded through splitmix32) with the helpers the generators use. Every case of the
// fuzzer has a 32-bit seed of its own, so one case replays alone (run.mjs replay SEED).

const splitmix32 = (seed) => () => {
  seed = (seed + 0x9e3779b9) | 0
  let z = seed
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return (z ^ (z >>> 16)) >>> 0
}

/** The seed of case `index` of a run started with `master`. */
export const caseSeed = (master, index) => {
  const next = splitmix32((Math.imul(master >>> 0, 0x27d4eb2d) ^ index) | 0)
  next()
  return next()
}

export const prng = (seed) => {
  const init = splitmix32(seed >>> 0)
  let [a, b, c, d] = [init(), init(), init(), init()]
  const u32 = () => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return t >>> 0
  }
  for (let i = 0; i < 12; i++) u32()
  const float = () => u32() / 4294967296
  const int = (lo, hi) => lo + Math.floor(float() * (hi - lo + 1))
  const chance = (p) => float() < p
  const pick = (list) => list[Math.floor(float() * list.length)]
  // weighted([[value, weight], …])
  const weighted = (entries) => {
    const total = entries.reduce((s, [, w]) => s + w, 0)
    let x = float() * total
    for (const [value, w] of entries) if ((x -= w) < 0) return value
    return entries[entries.length - 1][0]
  }
  // Sizes spread over orders of magnitude: mostly small, now and then near a limit.
  const size = (max) => Math.min(max, Math.floor(Math.exp(float() * Math.log(max + 1))))
  const bytes = (n, from = 0, to = 255) => {
    let s = ''
    for (let i = 0; i < n; i++) s += String.fromCharCode(int(from, to))
    return s
  }
  const hex = (n) => {
    let s = ''
    for (let i = 0; i < n; i++) s += (u32() & 15).toString(16)
    return s
  }
  return { u32, float, int, chance, pick, weighted, size, bytes, hex }
}
