// Writes dist/fast/spec.json: the arguments and flags of each command that src/fast/cli.ts
// answers before oclif loads, read from the oclif classes themselves so that the two can never
// disagree. A flag the fast parser cannot mirror (a custom parser, options on a number, dependencies,
// multiple values, an env fallback) fails the build rather than being read differently.
import { writeFileSync } from 'node:fs'

const { FAST_VIEWS } = await import('../dist/fast/cli.js')
const spec = {}
const mirrorable = new Set(['name', 'char', 'description', 'summary', 'default', 'allowNo', 'type', 'parse', 'input', 'helpValue', 'helpGroup', 'hasDynamicHelp', 'multiple', 'min', 'max', 'options', 'required', 'noCacheDefault', 'deprecateAliases', 'aliases', 'charAliases', 'hidden'])
for (const id of Object.keys(FAST_VIEWS).sort()) {
  const { default: C } = await import(`../dist/commands/${id}.js`)
  const flags = {}
  const all = { ...C.baseFlags, ...(C.enableJsonFlag ? { json: { type: 'boolean', name: 'json' } } : {}), ...C.flags }
  for (const [name, f] of Object.entries(all)) {
    const odd = Object.keys(f).filter((k) => !mirrorable.has(k) && f[k] !== undefined)
    if (odd.length || f.multiple || f.required || f.aliases?.length || f.charAliases?.length || typeof f.default === 'function') throw new Error(`${id} --${name}: the fast path cannot mirror ${odd.join(', ') || 'this flag'}; teach src/fast/cli.ts or drop ${id} from FAST_VIEWS`)
    if (f.type === 'boolean') {
      flags[name] = { type: 'boolean', ...(f.char ? { char: f.char } : {}), ...(f.allowNo ? { allowNo: true } : {}), ...(f.default !== undefined ? { default: f.default } : {}) }
      continue
    }
    const probe = f.parse ? await f.parse('7', {}, f) : '7'
    const type = probe === 7 ? 'integer' : probe === '7' ? 'string' : null
    if (!type) throw new Error(`${id} --${name}: a custom parser; the fast path cannot mirror it`)
    if (f.options && type !== 'string') throw new Error(`${id} --${name}: options on a number; the fast path cannot mirror it`)
    flags[name] = { type, ...(f.char ? { char: f.char } : {}), ...(f.options ? { options: [...f.options] } : {}), ...(f.default !== undefined ? { default: f.default } : {}), ...(f.min !== undefined ? { min: f.min } : {}), ...(f.max !== undefined ? { max: f.max } : {}) }
  }
  const args = Object.entries(C.args ?? {}).map(([name, a]) => {
    if (a.default !== undefined || a.options) throw new Error(`${id} ${name}: an argument with a default or options; the fast path cannot mirror it`)
    return { name, required: a.required === true }
  })
  spec[id] = { args, flags }
}
writeFileSync(new URL('../dist/fast/spec.json', import.meta.url), JSON.stringify(spec, null, 1) + '\n')
