/**
 * Every tool answer has a size budget: an agent pays for each character in context, and a
 * `limit: 0` over a whole repository is millions of them. A tool whose answer is a list says which
 * keys of its data hold the list; an answer over budget keeps as many items as fit (in order,
 * across the listed keys), and says where the next page starts (`page.next_offset`, passed back as
 * `offset`).
 */
import { z } from 'zod'
import { answerText } from './text.js'

/** Characters of text, and of structured content (JSON), one answer may take. */
export const TEXT_BUDGET = 20_000
export const DATA_BUDGET = 60_000

export interface PageInfo {
  offset: number
  returned: number
  total: number
  /** Where the next page starts, or null on the last page. */
  next_offset: number | null
}

/** A list answer: the data, which keys of it are the (paged) list, and how to render any page of it. */
interface ListAnswer {
  data: object
  list: string[]
  render: (data: never) => string[]
}

/** A tool's answer: text lines (made printable here) and the structured data. */
export type ToolAnswer = { lines: string[]; data: object } | ListAnswer

/** A list answer (typed: the keys must be keys of data, render takes data's type). */
export function listAnswer<D extends object>(data: D, list: Array<keyof D & string>, render: (data: D) => string[]): ToolAnswer {
  return { data, list, render }
}

export const offsetArg = z.number().int().min(0).max(10_000_000).optional().describe('page.next_offset of a cut answer')

export const pageInfo = z
  .record(z.string(), z.unknown())
  .optional()
  .describe('{offset, returned, total, next_offset}')

/** Fit an answer into the budget, starting at `offset` of its list. */
export function fitAnswer(answer: ToolAnswer, offset = 0): { text: string; data: object } {
  if (!('list' in answer)) return { text: cutText(answerText(answer.lines)), data: answer.data }
  const { data, list, render } = answer
  const items: Array<{ key: string; item: unknown }> = []
  for (const key of list) for (const item of (data as Record<string, unknown[]>)[key] ?? []) items.push({ key, item })
  const total = items.length
  const start = Math.min(offset, total)
  const pageOf = (n: number) => {
    const page = Object.fromEntries(list.map((key) => [key, [] as unknown[]]))
    for (const { key, item } of items.slice(start, start + n)) page[key].push(item)
    const next = start + n < total ? start + n : null
    const paged = { ...data, ...page, ...(start > 0 || next !== null ? { page: { offset: start, returned: n, total, next_offset: next } satisfies PageInfo } : {}) }
    const lines = (render as (data: object) => string[])(paged)
    if (next !== null) lines.push(`… ${total - next} more not shown (answer size budget): call again with offset: ${next}`)
    return { text: answerText(lines), data: paged }
  }
  const fits = (page: { text: string; data: object }) => page.text.length <= TEXT_BUDGET && JSON.stringify(page.data).length <= DATA_BUDGET
  const all = pageOf(total - start)
  if (fits(all)) return all
  // the largest page that fits (at least one item, whose text is then cut)
  let lo = 1
  let hi = total - start
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2)
    if (fits(pageOf(mid))) lo = mid
    else hi = mid - 1
  }
  const page = pageOf(lo)
  return { text: cutText(page.text), data: page.data }
}

function cutText(text: string): string {
  if (text.length <= TEXT_BUDGET) return text
  return `${text.slice(0, TEXT_BUDGET)}\n… (answer cut at ${TEXT_BUDGET} characters; narrow the question)`
}
