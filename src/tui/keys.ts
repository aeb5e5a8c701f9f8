/** Every key of the explorer, as `?` lists them and the README documents them. */
export const KEYS: ReadonlyArray<readonly [keys: string, what: string]> = [
  ['↑ ↓  k j', 'move in the list'],
  ['PgUp PgDn  Home End', 'move by a page, to the first or last row'],
  ['tab  shift-tab', 'next or previous pane (Files, Symbols, Evidence)'],
  ['← →  h l', 'Files: close or open a directory; otherwise the pane to the left or right'],
  ['enter', 'open: a directory, a file, a symbol, a commit; in a side view jump to the row'],
  ['esc  backspace', 'back: close the view (in Files: clear the filter)'],
  ['f', 'filter the files (fuzzy; enter keeps it, esc clears it)'],
  ['/', 'search files and symbols by name, commits, PRs and issues by words (search service)'],
  ['r', 'risk of the file or symbol, with its reasons and the people to ask'],
  ['o', 'ownership: who owns its lines at HEAD, and the bus factor'],
  ['c', 'co-change: what changes with it (enter jumps to the partner)'],
  ['H', 'hotspots of the repository (enter jumps)'],
  ['C', 'communities and their members (enter opens, enter on a member jumps)'],
  ['g', 'code graph: callers and callees (enter jumps)'],
  ['?', 'this help'],
  ['q  ctrl-c', 'quit'],
]
