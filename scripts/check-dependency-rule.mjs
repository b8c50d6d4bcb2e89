// Fails when an import breaks the dependency rule: domain ← adapters ← apps.
// It reads every source file of every workspace package and checks each import specifier against
// the package's layer and against the dependencies its package.json declares.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, relative, resolve, dirname } from 'node:path'
import { root, workspaceDirs } from './workspaces.mjs'

const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]))

const workspaces = workspaceDirs().map((dir) => ({
  dir,
  manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')),
}))

const layerOf = (dir) => {
  const rel = relative(root, dir)
  if (rel === 'packages/domain') return 'domain'
  if (rel === 'packages/wire') return 'wire'
  if (rel.startsWith('packages/adapters-')) return 'adapter'
  if (rel.startsWith('packages/')) return 'library'
  return 'app'
}

// What each layer may import, beyond the rule that every bare import must be declared.
const rules = {
  domain: (spec, file) =>
    ['io-ts', 'fp-ts'].includes(packageName(spec)) ||
    (file.includes('/src/testing/') && packageName(spec) === 'vitest') ||
    'the domain imports only io-ts and fp-ts (and vitest in its testing entry)',
  wire: (spec) =>
    ['io-ts', 'fp-ts', '@pets/domain'].includes(packageName(spec)) ||
    'the wire contract imports only @pets/domain, io-ts and fp-ts: no server, no client, no I/O',
  adapter: (spec) =>
    !(spec.startsWith('@pets/') && !['@pets/domain', '@pets/wire'].includes(packageName(spec))) ||
    'an adapter imports @pets/domain, @pets/wire and its own technology, never another adapter or an app',
  library: (spec) =>
    !(spec.startsWith('@pets/adapters-') || spec.startsWith('@pets/api')) ||
    'a library package imports no adapter and no app',
  app: () => true,
}

// Floors inside a package (folders under src/, highest first): a floor imports its own folder and, of the floor
// beneath, only that folder's index; the floor beneath never imports back up.
const floors = { 'packages/adapters-postgres': ['stores', 'runner'] }

const floorViolation = (pkg, file, spec) => {
  const order = floors[pkg]
  if (order === undefined) return undefined
  const floorOf = (path) => order.indexOf(relative(join(root, pkg, 'src'), path).split('/')[0])
  const from = floorOf(file)
  const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'))
  const to = floorOf(target)
  if (from < 0 || to < 0 || from === to) return undefined
  if (to < from) return `the ${order[from]} floor never imports the ${order[to]} floor above it`
  if (to > from + 1) return `the ${order[from]} floor imports only the floor right beneath it`
  if (relative(join(root, pkg, 'src', order[to]), target) !== 'index.ts')
    return `the ${order[from]} floor imports the ${order[to]} floor through its index.ts only`
  return undefined
}

// Folders that stand apart inside a package: a file in one imports its own folder, the files listed and,
// by name, only the packages listed (node's own modules are always allowed).
const confined = {
  'packages/adapters-http': {
    connection: {
      files: ['problems.ts', 'body/read-body-bytes.ts'],
      packages: [],
      why:
        "node:http's edges sit beneath Koa: they import node, their own folder, problems.ts (Error bodies) and " +
        'body/read-body-bytes.ts (whether a body being read is over its limit) only',
    },
    body: {
      files: ['problems.ts', 'header-lines.ts', 'connection/continue-on-read.ts'],
      packages: ['@pets/domain', 'fp-ts', 'koa'],
      why: 'the body reader knows no route and no app: its folder, problems.ts, header-lines.ts, continue-on-read.ts',
    },
  },
}

const confinementViolation = (pkg, file, spec) => {
  const src = join(root, pkg, 'src')
  const folder = relative(src, file).split('/')[0]
  const rule = confined[pkg]?.[folder]
  if (rule === undefined || typeof rule !== 'object') return undefined
  if (!spec.startsWith('.')) return rule.packages.includes(packageName(spec)) ? undefined : rule.why
  const target = relative(src, resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
  return target.startsWith(`${folder}/`) || rule.files.includes(target) ? undefined : rule.why
}

const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/')

const sourceFiles = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })

const importPattern =
  /(?:^|[\s;])(?:import|export)\s[^'"`;=]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

const violations = []
for (const { dir, manifest } of workspaces) {
  const layer = layerOf(dir)
  const declared = new Set(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }))
  const src = join(dir, 'src')
  if (!existsSync(src)) continue
  for (const file of sourceFiles(src)) {
    const text = readFileSync(file, 'utf8')
    for (const match of text.matchAll(importPattern)) {
      const spec = match[1] ?? match[2] ?? match[3]
      const where = relative(root, file)
      if (spec.startsWith('.')) {
        if (!resolve(dirname(file), spec).startsWith(dir + '/'))
          violations.push(`${where}: '${spec}' reaches outside its package; import the package by name`)
        const floor = floorViolation(relative(root, dir), file, spec)
        if (floor !== undefined) violations.push(`${where}: '${spec}': ${floor}`)
        const apart = confinementViolation(relative(root, dir), file, spec)
        if (apart !== undefined) violations.push(`${where}: '${spec}': ${apart}`)
        if (layer === 'wire' && spec.includes('api-key-secret'))
          violations.push(
            `${where}: '${spec}': the api-key-secret entry stays out of the wire's other modules`,
          )
        continue
      }
      if (builtins.has(spec)) {
        if (layer === 'domain') violations.push(`${where}: '${spec}': the domain does no I/O`)
        if (layer === 'wire' && !file.endsWith('/src/api-key-secret.ts'))
          violations.push(
            `${where}: '${spec}': the wire contract loads Node built-ins only in its api-key-secret ` +
              'entry, which its index leaves out, so the fetch-only client never loads them',
          )
        continue
      }
      const apart = confinementViolation(relative(root, dir), file, spec)
      if (apart !== undefined) violations.push(`${where}: '${spec}': ${apart}`)
      const verdict = rules[layer](spec, file)
      if (verdict !== true) violations.push(`${where}: '${spec}': ${verdict}`)
      else if (!declared.has(packageName(spec)) && packageName(spec) !== manifest.name)
        violations.push(`${where}: '${spec}' is not declared in ${relative(root, dir)}/package.json`)
    }
  }
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    const verdict = rules[layer](dep, '')
    if (verdict !== true) violations.push(`${relative(root, dir)}/package.json depends on ${dep}: ${verdict}`)
  }
}

if (violations.length > 0) {
  console.error(`The dependency rule (domain ← adapters ← apps) is broken:\n- ${violations.join('\n- ')}`)
  process.exit(1)
}
console.log(`dependency rule holds across ${workspaces.length} packages`)
