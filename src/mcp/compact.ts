/**
 * Structured content as a program needs it, not as the CLI's --json spells it out: an agent pays
 * for every character of a tool answer (text and structured content both go into its context), and
 * most of a list answer is repeated fields that say nothing. Dropped:
 *
 *   - a field the output schema declares optional, when it is null, "" or [] (absent = none);
 *   - inside the free-form records (commit refs, PRs, issues: objects the schema does not spell
 *     out): [] and "", a null `url`, `short` beside `sha` (its first 7+ characters) and
 *     `category: "normal"` (absent = normal);
 *
 * and shortened everywhere: fractions to 3 decimals (a score of 0.5892517068987657 is 0.589), and
 * whole-second ISO times without their `.000` (`2024-08-15T07:18:19Z`).
 *
 * Driven by the tool's output schema as listed (JSON Schema), so a field the schema requires is
 * never dropped and a client that validates against tools/list accepts the answer. Resources have
 * no schema: every top-level key of their documents stays, and what is under them is compacted as
 * free-form records (compactDocument).
 */

export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
}

const WHOLE_SECOND = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.000Z$/
const isEmpty = (v: unknown) => v === null || v === '' || (Array.isArray(v) && v.length === 0)

/** `value` with the fields no program needs left out (see above); `schema` undefined: free-form. */
export function compactData(value: unknown, schema?: JsonSchema): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value : Math.round(value * 1000) / 1000
  if (typeof value === 'string') return WHOLE_SECOND.test(value) ? value.replace(WHOLE_SECOND, '$1Z') : value
  if (value === null || typeof value !== 'object') return value
  const branches = schema?.anyOf ?? schema?.oneOf
  if (branches) return compactData(value, branches.find((b) => b.type !== 'null'))
  if (Array.isArray(value)) return value.map((v) => compactData(v, schema?.items))
  const record = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  if (schema?.properties) {
    const required = new Set(schema.required ?? [])
    for (const [k, v] of Object.entries(record)) {
      if (v === undefined || (isEmpty(v) && !required.has(k))) continue
      out[k] = k in schema.properties ? compactData(v, schema.properties[k]) : v
    }
    return out
  }
  for (const [k, v] of Object.entries(record)) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue
    if (k === 'url' && v === null) continue
    if (k === 'short' && typeof record.sha === 'string') continue
    if (k === 'category' && v === 'normal') continue
    out[k] = compactData(v)
  }
  return out
}

/** A resource document: its top-level keys all kept, their values compacted as free-form records. */
export function compactDocument(doc: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, compactData(v)]))
}
