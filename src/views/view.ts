/**
 * A read command's answer and its text, free of oclif: the oclif command (BaseCommand.show) and
 * the fast path that answers before oclif loads (src/fast/cli.ts) run the same view, so both
 * print the same bytes.
 */
export interface ViewInput {
  args: Record<string, unknown>
  flags: { repo?: string; json?: boolean }
}

export interface ViewText {
  /** stdout lines, unescaped (the caller shows control characters escaped) */
  lines: string[]
  /** stderr lines (the stale-index note) */
  notes: string[]
}

export interface View<I extends ViewInput, R> {
  answer(input: I): Promise<R>
  text(result: R, input: I): ViewText
}

/** A view's text: stdout lines, then the stderr notes that are not null. */
export function viewText(lines: string[], ...notes: Array<string | null | undefined>): ViewText {
  return { lines, notes: notes.filter((n): n is string => typeof n === 'string' && n.length > 0) }
}
