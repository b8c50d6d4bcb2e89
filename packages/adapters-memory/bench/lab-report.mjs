// What the memory store's labs (scale.mjs, http-scale.mjs) share: their options, their quantiles, the
// alternation of builds A/B over rounds, and the tables they print (median of the rounds, and the range).

/** The value of `--name=value` on the command line, or `fallback`. */
export const option = (name, fallback) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback

/** The q-quantile of values (0 when there are none). */
export const quantile = (values, q) => {
  const sorted = Float64Array.from(values).sort()
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

const range = (values, digits) => {
  const sorted = Float64Array.from(values).sort()
  const f = (v) => v.toFixed(digits)
  return sorted.length === 1
    ? f(sorted[0])
    : `${f(quantile(sorted, 0.5))} (${f(sorted[0])}–${f(sorted[sorted.length - 1])})`
}

/**
 * Runs each build (`sides`: name → what `run` takes) once a round, in alternating order, `run` giving one
 * result per checkpoint; `said` makes a line for stderr of a round's last result. Then prints, for each
 * checkpoint, a table of `rows` ([title, pick, digits]): each side's median over the rounds and range.
 */
export const alternateAndReport = async ({ sides, rounds, checkpoints, run, said, rows }) => {
  const names = Object.keys(sides)
  const results = Object.fromEntries(names.map((s) => [s, []]))
  for (let round = 0; round < rounds; round++)
    for (const [i, side] of (round % 2 === 0 ? names : [...names].reverse()).entries()) {
      const lines = await run(sides[side], i)
      results[side].push(lines)
      console.error(`round ${round + 1} ${side}: ${said(lines[lines.length - 1])}`)
    }
  for (const [i, pets] of checkpoints.entries()) {
    console.log(`\n${pets.toLocaleString('en')} pets (median of ${rounds} rounds, range)`)
    console.log(`| measure | ${names.join(' | ')} |`)
    console.log(`|---|${names.map(() => '---').join('|')}|`)
    for (const [title, pick, digits] of rows)
      console.log(
        `| ${title} | ${names
          .map((s) =>
            range(
              results[s].map((r) => pick(r[i])),
              digits,
            ),
          )
          .join(' | ')} |`,
      )
  }
}
