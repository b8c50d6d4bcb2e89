// The workspace packages, read from pnpm-workspace.yaml's `packages` list ("dir/*" or "dir").
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

export const root = resolve(dirname(new URL(import.meta.url).pathname), '..')

const patterns = () => {
  const lines = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8').split('\n')
  const start = lines.findIndex((line) => /^packages:\s*$/.test(line))
  const found = []
  for (const line of lines.slice(start + 1)) {
    const item = /^\s+-\s+['"]?([^'"\s]+)['"]?\s*$/.exec(line)
    if (item === null) break
    found.push(item[1])
  }
  return found
}

/** Absolute paths of every workspace package (each holds a package.json). */
export const workspaceDirs = () =>
  patterns()
    .flatMap((pattern) => {
      if (!pattern.endsWith('/*')) return [join(root, pattern)]
      const parent = join(root, pattern.slice(0, -2))
      return existsSync(parent) ? readdirSync(parent).map((name) => join(parent, name)) : []
    })
    .filter((dir) => existsSync(join(dir, 'package.json')))
