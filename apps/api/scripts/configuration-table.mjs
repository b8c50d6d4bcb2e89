// Prints the README's table "Configuration" as the built service's table of environment variables
// (src/environment/variables.ts) writes it; with --write, puts it in README.md in place of the old
// one. test/readme-configuration.test.ts fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs'

const { configurationTable } = await import(new URL('../dist/config.js', import.meta.url).href)
const table = configurationTable()
if (!process.argv.includes('--write')) {
  console.log(table)
  process.exit(0)
}
const readme = new URL('../../../README.md', import.meta.url)
const lines = readFileSync(readme, 'utf8').split('\n')
const section = lines.indexOf('## Configuration')
const header = lines.findIndex((line, i) => i > section && line.startsWith('| Variable |'))
if (section === -1 || header === -1) throw new Error('README.md has no table under "## Configuration"')
const end = lines.findIndex((line, i) => i > header && !line.startsWith('|'))
lines.splice(header, end - header, ...table.split('\n'))
writeFileSync(readme, lines.join('\n'))
console.log('README.md: the table under "## Configuration" is written')
