import { printable } from '../render.js'

/**
 * Text for the explorer's cells: every string from the repository shown with its control
 * characters escaped (DESIGN.md "Untrusted text": a commit subject can hold terminal escapes),
 * and cut or padded to a number of terminal columns.
 */

/** Columns a code point takes: 2 for East Asian wide and full-width characters and emoji, else 1. */
function columns(cp: number): number {
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2
  // combining marks take none
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || cp === 0xfe0f) return 0
  return 1
}

export function width(text: string): number {
  let n = 0
  for (const ch of text) n += columns(ch.codePointAt(0)!)
  return n
}

/** `text` made printable and cut to `max` columns (an ellipsis marks the cut). */
export function clip(text: string, max: number): string {
  const safe = printable(text)
  if (max <= 0) return ''
  if (width(safe) <= max) return safe
  let out = ''
  let n = 0
  for (const ch of safe) {
    const w = columns(ch.codePointAt(0)!)
    if (n + w > max - 1) break
    out += ch
    n += w
  }
  return out + '…'
}

/** `text` made printable, cut and padded to exactly `size` columns. */
export function cell(text: string, size: number, align: 'left' | 'right' = 'left'): string {
  const c = clip(text, size)
  const pad = ' '.repeat(Math.max(0, size - width(c)))
  return align === 'left' ? c + pad : pad + c
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉']

/** A share 0..1 as a bar of `size` columns (eighths of a block at its end). */
export function bar(share: number, size: number): string {
  const eighths = Math.round(Math.max(0, Math.min(1, share)) * size * 8)
  const full = Math.floor(eighths / 8)
  const s = '█'.repeat(full) + EIGHTHS[eighths % 8]
  return s + ' '.repeat(Math.max(0, size - width(s)))
}

/** An ISO date as YYYY-MM-DD ('' for none). */
export const day = (iso: string | null | undefined): string => (iso ? iso.slice(0, 10) : '')

export const percent = (share: number): string => `${Math.round(share * 100)}%`
