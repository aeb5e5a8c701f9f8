import { Box, Text, useApp, useInput, useStdin, useStdout, type Key } from 'ink'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore, type Dispatch, type ReactElement, type SetStateAction } from 'react'
import type { ExploreFile, ExploreSymbol } from '../services/explore.js'
import type { EvidenceResult } from '../services/types.js'
import {
  blameBar,
  cochangePage,
  commitPage,
  communitiesPage,
  communityPage,
  graphPage,
  helpPage,
  hotspotsPage,
  levelTone,
  ownershipPage,
  riskPage,
  searchPage,
  type Go,
  type Line,
  type Page,
  type Tone,
} from './pages.js'
import { targetKey, type ExploreSource, type ExploreTarget, type Load } from './source.js'
import { day, cell, clip, width as textWidth } from './text.js'
import { ancestors, rowIndexOf, treeRows, windowStart, type TreeRow } from './tree.js'

/** Where `gitwhy explore PATH[:LINE]` opens: a file, and the symbol (by id) to select in it. */
export interface ExploreStart {
  path: string
  symbol: string | null
}

export interface AppProps {
  source: ExploreSource
  /** The repository's name, for the status bar. */
  repoName: string
  /** false: NO_COLOR (styles such as bold and inverse stay; no colour is emitted). */
  color: boolean
  start?: ExploreStart | null
}

type Pane = 'files' | 'symbols' | 'evidence'
const PANES: Pane[] = ['files', 'symbols', 'evidence']

type View =
  | { kind: 'commit'; sha: string; target: ExploreTarget | null }
  | { kind: 'risk' | 'owners' | 'cochange' | 'graph'; target: ExploreTarget }
  | { kind: 'hotspots' | 'communities' | 'help' | 'search' }
  | { kind: 'community'; id: string }

type SideView = 'risk' | 'owners' | 'cochange' | 'graph' | 'hotspots' | 'communities' | 'help'

/** The views one key opens (the same key closes them). */
const SIDE_VIEWS: Record<string, SideView> = { r: 'risk', o: 'owners', c: 'cochange', g: 'graph', H: 'hotspots', C: 'communities', '?': 'help' }

/** A view on the stack with its cursor: a row of its picks, or for a view without picks its scroll. */
type Opened = View & { cursor: number }

/** How long the highlighted file or symbol must stay before its evidence is asked for: holding j does not queue a walk per row. */
const SETTLE_MS = 60
/** How long the search text must stay before the search service is asked. */
const SEARCH_SETTLE_MS = 200
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

const TONES: Record<Tone, string> = { accent: 'cyan', dim: 'gray', add: 'green', del: 'red', high: 'red', medium: 'yellow', low: 'green', title: 'blue' }

/** The terminal's size, following resizes (Ink redraws on them; this re-lays out). */
function useTerminalSize(): { cols: number; rows: number } {
  const { stdout } = useStdout()
  const read = () => ({ cols: Math.max(20, stdout.columns || 80), rows: Math.max(8, stdout.rows || 24) })
  const [size, setSize] = useState(read)
  useEffect(() => {
    const onResize = () => setSize(read())
    stdout.on('resize', onResize)
    return () => {
      stdout.off('resize', onResize)
    }
  }, [stdout])
  return size
}

const KIND: Record<string, string> = { function: 'fn', method: 'meth', class: 'class', interface: 'iface', type: 'type', enum: 'enum', module: 'mod', struct: 'struct', trait: 'trait' }
const HEAT = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█']

export function App({ source, repoName, color, start }: AppProps) {
  const { exit } = useApp()
  const { isRawModeSupported } = useStdin()
  useSyncExternalStore(source.subscribe, source.getVersion)
  const { cols, rows } = useTerminalSize()
  const tone = useCallback((t: Tone | undefined): string | undefined => (color && t ? TONES[t] : undefined), [color])

  // The state keys change: each setter computes the new value from this frame's (keys are handled
  // one at a time on the committed frame, see below) and says whether anything changed.
  const changed = useRef(false)
  const tracked = <T,>([value, set]: [T, Dispatch<SetStateAction<T>>]): [T, (next: SetStateAction<T>) => void] => [
    value,
    (next) => {
      const v = typeof next === 'function' ? (next as (previous: T) => T)(value) : next
      if (Object.is(v, value)) return
      changed.current = true
      set(v)
    },
  ]
  const [focus, setFocus] = tracked(useState<Pane>('files'))
  const [expanded, setExpanded] = tracked(useState<ReadonlySet<string>>(() => new Set()))
  const [fileKey, setFileKey] = tracked(useState<string | null>(null))
  const [filter, setFilter] = tracked(useState(''))
  const [editing, setEditing] = tracked(useState(false))
  const [symCursor, setSymCursor] = tracked(useState(0))
  const [evCursor, setEvCursor] = tracked(useState(0))
  const [views, setViews] = tracked(useState<Opened[]>([]))
  const [query, setQuery] = tracked(useState(''))
  const [settledQuery, setSettledQuery] = tracked(useState(''))
  const [settledKey, setSettledKey] = tracked(useState<string | null>(null))
  const [tick, setTick] = useState(0)
  const [started, setStarted] = useState(false)

  const filesLoad = source.files()
  const files: ExploreFile[] = filesLoad.state === 'ok' ? filesLoad.value : []
  const byPath = useMemo(() => new Map(files.map((f) => [f.path, f])), [files])
  const paths = useMemo(() => files.map((f) => f.path), [files])
  const tree = useMemo(() => treeRows(paths, expanded, filter), [paths, expanded, filter])
  const fileCursor = Math.min(rowIndexOf(tree, fileKey), Math.max(0, tree.length - 1))
  const row: TreeRow | undefined = tree[fileCursor]
  const path = row && !row.dir ? row.key : null
  const symbols: ExploreSymbol[] = path ? source.symbols(path) : []
  const symbol = symCursor > 0 ? (symbols[symCursor - 1] ?? null) : null
  const target: ExploreTarget | null = path ? { path, symbol } : null
  const key = target ? targetKey(target) : null
  const settled = key !== null && key === settledKey
  const view = views.at(-1) ?? null

  // the highlighted file or symbol gets its evidence once it stays put
  useEffect(() => {
    if (key === settledKey) return
    const timer = setTimeout(() => setSettledKey(key), SETTLE_MS)
    return () => clearTimeout(timer)
  }, [key, settledKey])
  useEffect(() => setEvCursor(0), [key])
  useEffect(() => {
    if (query === settledQuery) return
    const timer = setTimeout(() => setSettledQuery(query), SEARCH_SETTLE_MS)
    return () => clearTimeout(timer)
  }, [query, settledQuery])

  // the working HEAD moves while the explorer is open (a commit, a pull), and analyze may swap in a new index
  useEffect(() => {
    const timer = setInterval(() => source.refresh(), 5000)
    return () => clearInterval(timer)
  }, [source])

  const busy = source.busy()
  useEffect(() => {
    if (!busy) return
    const timer = setInterval(() => setTick((t) => t + 1), 100)
    return () => clearInterval(timer)
  }, [busy])
  const spin = SPINNER[tick % SPINNER.length]

  /** Select a file (opening the directories it is in) and one of its symbols. */
  const jump = (to: { path: string; symbol: string | null }) => {
    if (!byPath.has(to.path)) return
    setFilter('')
    setEditing(false)
    setExpanded((e) => new Set([...e, ...ancestors(to.path)]))
    setFileKey(to.path)
    const list = source.symbols(to.path)
    const i = to.symbol ? list.findIndex((s) => s.id === to.symbol) : -1
    setSymCursor(i + 1)
    setFocus('symbols')
    setSettledKey(i >= 0 ? list[i].id : to.path)
    setViews([])
  }

  // once, when the file list has come: at the start target, else a small repository with its
  // top-level directories open (a large one closed)
  useEffect(() => {
    if (started || filesLoad.state !== 'ok') return
    setStarted(true)
    if (start) jump(start)
    else if (paths.length <= 60) setExpanded(new Set(paths.filter((p) => p.split('/').length === 2).map((p) => ancestors(p)[0])))
  }, [filesLoad.state, started])

  // the answers the screen shows: asked for once the cursor rests, shown at once when kept
  const evidence: Load<EvidenceResult> | null = target ? source.evidence(target, settled) : null
  const risks = path ? source.risks(path, settled) : null
  const info = source.indexInfo()

  const open = (v: View) => setViews((s) => [...s, { ...v, cursor: 0 }])
  const back = () => setViews((s) => s.slice(0, -1))
  const toggle = (kind: SideView) => {
    if (view?.kind === kind) return back()
    if (kind === 'hotspots' || kind === 'communities' || kind === 'help') return open({ kind })
    const t = view && 'target' in view && view.target ? view.target : target
    if (t) open({ kind, target: t })
  }
  const follow = (go: Go) => {
    if (go.kind === 'target') jump({ path: go.path, symbol: go.symbol })
    else if (go.kind === 'commit') open({ kind: 'commit', sha: go.sha, target: null })
    else open({ kind: 'community', id: go.id })
  }

  // ---- layout
  const height = rows - 1 // one line short of the screen: a full screen makes Ink clear it at every frame
  const bodyH = height - 1
  const narrow = cols < 60
  const leftW = narrow ? cols : cols < 100 ? Math.max(24, Math.floor(cols / 3)) : Math.min(60, Math.floor(cols * 0.4))
  const rightW = narrow ? cols : cols - leftW
  const symH = narrow ? bodyH : Math.max(5, Math.floor(bodyH * 0.4))
  const evH = narrow ? bodyH : bodyH - symH

  const page: Page | null = view ? pageOf(view) : null
  function pageOf(v: Opened): Page {
    const w = cols - 4
    switch (v.kind) {
      case 'commit':
        return commitPage(source.commit(v.sha), v.target ? source.evidence(v.target) : null, v.target, w)
      case 'risk':
        return riskPage(v.target, source.risk(v.target), w)
      case 'owners':
        return ownershipPage(v.target, source.ownership(v.target), w)
      case 'cochange':
        return cochangePage(v.target, source.related(v.target), w)
      case 'graph':
        return graphPage(v.target, source.context(v.target), w)
      case 'hotspots':
        return hotspotsPage(source.hotspots(), w)
      case 'communities':
        return communitiesPage(source.communities(), w)
      case 'community':
        return communityPage(v.id, source.community(v.id), w)
      case 'search':
        return searchPage(query, paths, source.symbolIndex(), settledQuery.trim() && settledQuery === query ? source.search(settledQuery) : null, w)
      case 'help':
        return helpPage(w)
    }
  }
  const pageH = bodyH - 3

  const evItems = evidence?.state === 'ok' ? evidence.value.evidence : []

  // ---- keys
  const move = (delta: number | 'home' | 'end') => {
    const step = (cursor: number, count: number) => (delta === 'home' ? 0 : delta === 'end' ? count - 1 : Math.max(0, Math.min(count - 1, cursor + delta)))
    if (page && view) {
      const count = page.picks.length > 0 ? page.picks.length : Math.max(1, page.lines.length - pageH + 1)
      setViews((s) => s.map((v, i) => (i === s.length - 1 ? { ...v, cursor: step(v.cursor, count) } : v)))
      return
    }
    if (focus === 'files' && tree.length) {
      const next = tree[step(fileCursor, tree.length)]
      setFileKey(next.key)
      setSymCursor(0)
    } else if (focus === 'symbols') setSymCursor((c) => step(c, symbols.length + 1))
    else if (focus === 'evidence' && evItems.length) setEvCursor((c) => step(c, evItems.length))
  }
  const page1 = Math.max(1, (view ? pageH : focus === 'files' ? bodyH - 3 : focus === 'symbols' ? symH - 3 : evH - 3) - 1)

  const enter = () => {
    if (page && view) {
      const pick = page.picks[view.cursor]
      if (pick) follow(pick.go)
      return
    }
    if (focus === 'files' && row) {
      if (row.dir) setExpanded((e) => toggled(e, row.key))
      else setFocus('symbols')
    } else if (focus === 'symbols') setFocus('evidence')
    else if (focus === 'evidence' && evItems[evCursor] && target) open({ kind: 'commit', sha: evItems[evCursor].commit.sha, target })
  }
  const left = () => {
    if (view) return back()
    if (focus === 'files' && row) {
      if (row.dir && expanded.has(row.key) && !filter) setExpanded((e) => toggled(e, row.key))
      else {
        const parent = ancestors(row.key.replace(/\/$/, '')).at(-1)
        if (parent) setFileKey(parent)
      }
    } else setFocus(PANES[Math.max(0, PANES.indexOf(focus) - 1)])
  }
  const right = () => {
    if (view) return enter()
    if (focus === 'files' && row?.dir) {
      if (!expanded.has(row.key)) setExpanded((e) => toggled(e, row.key))
      return
    }
    if (focus === 'files' && !path) return
    setFocus(PANES[Math.min(PANES.length - 1, PANES.indexOf(focus) + 1)])
  }

  const onKey = (input: string, k: Key) => {
    if (k.ctrl && input === 'c') return exit()
    const navigation = k.upArrow || k.downArrow || k.pageUp || k.pageDown || k.home || k.end
    if (editing || view?.kind === 'search') {
      // typing: letters are text, the arrows still move
      if (k.escape) {
        if (view?.kind === 'search') back()
        else setFilter('')
        setEditing(false)
        return
      }
      if (k.return) {
        if (view?.kind === 'search') return enter()
        setEditing(false)
        return
      }
      if (k.backspace || k.delete) {
        if (view?.kind === 'search') setQuery((q) => q.slice(0, -1))
        else setFilter((f) => f.slice(0, -1))
        return
      }
      if (!navigation && input && !k.ctrl && !k.meta && !k.tab) {
        const text = input.replace(/[\x00-\x1f\x7f]/g, '')
        if (view?.kind === 'search') {
          setQuery((q) => q + text)
          setViews((s) => s.map((v, i) => (i === s.length - 1 ? { ...v, cursor: 0 } : v)))
        } else {
          setFilter((f) => f + text)
          setFileKey(null)
        }
        return
      }
    }
    if (k.upArrow || (!editing && input === 'k')) return move(-1)
    if (k.downArrow || (!editing && input === 'j')) return move(1)
    if (k.pageUp) return move(-page1)
    if (k.pageDown) return move(page1)
    if (k.home) return move('home')
    if (k.end) return move('end')
    if (k.return) return enter()
    if (k.escape || k.backspace || k.delete) {
      if (view) return back()
      if (filter) setFilter('')
      return
    }
    if (k.leftArrow || input === 'h') return left()
    if (k.rightArrow || input === 'l') return right()
    if (k.tab) {
      if (view) return
      setFocus(PANES[(PANES.indexOf(focus) + (k.shift ? PANES.length - 1 : 1)) % PANES.length])
      return
    }
    switch (input) {
      case 'q':
        return exit()
      case '/':
        setQuery('')
        setSettledQuery('')
        return open({ kind: 'search' })
      case 'f':
        setViews([])
        setFocus('files')
        setEditing(true)
        return
    }
    if (Object.hasOwn(SIDE_VIEWS, input)) toggle(SIDE_VIEWS[input])
  }
  // Keys are handled one at a time, each on the frame the one before left: React renders a key's
  // update a little later (after the effects it has pending, or a load running), and a key read
  // before then would act on the previous frame (two moves down would move once); several keys in
  // one read (typed ahead, a slow link, tmux send-keys) reach Ink as one input. So keys wait in a
  // queue, and the next is handled once the frame of the last one that changed something is
  // committed.
  const latest = useRef(onKey)
  latest.current = onKey
  const queue = useRef<Array<{ input: string; key: Key }>>([])
  const waiting = useRef(false)
  const drain = useCallback(() => {
    while (queue.current.length > 0 && !waiting.current) {
      const { input, key } = queue.current.shift()!
      changed.current = false
      latest.current(input, key)
      if (!changed.current) continue
      waiting.current = true
      // a frame that never comes (the app exited) does not hold the keys after it forever
      setTimeout(() => {
        if (!waiting.current) return
        waiting.current = false
        drain()
      }, 1000)
    }
  }, [])
  useLayoutEffect(() => {
    if (!waiting.current) return
    waiting.current = false
    if (queue.current.length > 0) setImmediate(drain)
  })
  const stable = useCallback(
    (input: string, k: Key) => {
      queue.current.push(...splitKeys(input, k))
      drain()
    },
    [drain],
  )
  useInput(stable, { isActive: isRawModeSupported === true })

  // ---- drawing
  // a row of a list starts with the cursor column: `›` on the selected row (visible without colour or inverse too)
  const draw = (line: Line, key: string | number, selected?: boolean, active = true) => (
    <Text key={key} wrap="truncate-end" inverse={selected === true && active}>
      {selected !== undefined && <Text color={tone('accent')} bold>{selected ? '›' : ' '}</Text>}
      {line.length === 0 ? ' ' : line.map((s, i) => (
        <Text key={i} color={tone(s.tone)} bold={s.bold} dimColor={!color && s.tone === 'dim'}>
          {s.text}
        </Text>
      ))}
    </Text>
  )

  const frame = (title: Line, focused: boolean, w: number, h: number, body: ReactElement[], loading = false) => (
    <Box flexDirection="column" width={w} height={h} borderStyle={focused ? 'double' : 'single'} borderColor={focused ? tone('accent') : tone('dim')} paddingX={0}>
      {draw([...title.map((s) => ({ ...s, bold: focused || s.bold })), ...(loading ? [{ text: ` ${spin}`, tone: 'accent' as Tone }] : [])], 'title')}
      {body}
    </Box>
  )

  const listH = (h: number) => Math.max(1, h - 3)

  const filesPane = (w: number, h: number) => {
    const inner = w - 2
    const lh = listH(h) - (editing || filter ? 1 : 0)
    const startAt = windowStart(tree.length, fileCursor, lh)
    const showOwner = inner >= 36
    const ownerW = inner >= 54 ? 14 : 9
    const nameW = inner - 1 - 2 - 6 - (showOwner ? ownerW + 1 : 0)
    const body: ReactElement[] = []
    if (editing || filter) body.push(draw([{ text: 'filter: ', tone: 'dim' }, { text: clip(filter, inner - 10), tone: 'accent' }, ...(editing ? [{ text: '▏', tone: 'accent' as Tone }] : [])], 'filter'))
    if (filesLoad.state === 'error') body.push(draw([{ text: clip(filesLoad.message, inner), tone: 'del' }], 'err'))
    for (let i = startAt; i < Math.min(tree.length, startAt + lh); i++) {
      const r = tree[i]
      const f = r.dir ? undefined : byPath.get(r.key)
      const prefix = `${' '.repeat(r.depth)}${r.dir ? (filter || expanded.has(r.key) ? '▾ ' : '▸ ') : '  '}`
      const sel = i === fileCursor
      const heat = f ? HEAT[Math.round(f.heat * 8)] : ' '
      body.push(
        draw(
          [
            ...nameSegs(prefix, r, nameW),
            { text: ` ${heat}`, tone: f && f.heat >= 0.9 ? 'high' : f && f.heat >= 0.6 ? 'medium' : 'dim' },
            { text: f ? String(f.revisions).padStart(5) : '     ', tone: 'dim' },
            ...(showOwner ? [{ text: ` ${cell(f?.owner ? f.owner.name : '', ownerW)}`, tone: 'dim' as Tone }] : []),
          ],
          r.key,
          sel,
          focus === 'files',
        ),
      )
    }
    if (filesLoad.state === 'ok' && tree.length === 0) body.push(draw([{ text: filter ? 'no file matches' : 'no indexed files', tone: 'dim' }], 'none'))
    const count = filesLoad.state === 'ok' ? ` ${tree.filter((t) => !t.dir).length}/${files.length}` : ''
    return frame([{ text: `Files${count}`, tone: 'title' }, { text: showOwner ? '   heat rev owner' : '', tone: 'dim' }], focus === 'files', w, h, body, filesLoad.state === 'loading')
  }

  const symbolsPane = (w: number, h: number) => {
    const inner = w - 2
    const lh = listH(h)
    const body: ReactElement[] = []
    const riskMap = risks?.state === 'ok' ? risks.value : null
    const f = path ? byPath.get(path) : undefined
    const items: Line[] = [[{ text: cell(path ? `(whole file, ${f?.lines ?? 0} lines)` : 'select a file', inner - 24), tone: 'dim' }, { text: cell(f ? `${f.revisions} rev` : '', 10, 'right'), tone: 'dim' }, { text: cell(f ? day(f.last_change) : '', 12, 'right'), tone: 'dim' }]]
    for (const s of symbols) {
      const r = riskMap?.get(s.id)
      items.push([
        { text: cell(`${'  '.repeat(s.depth)}${s.name}`, inner - 30) },
        { text: ` ${cell(KIND[s.kind] ?? s.kind, 5)}`, tone: 'dim' },
        { text: cell(r ? r.level : risks?.state === 'loading' ? '…' : '', 7, 'right'), tone: r ? levelTone(r.level) : 'dim' },
        { text: cell(r ? day(r.last_change) : '', 12, 'right'), tone: 'dim' },
      ])
    }
    const startAt = windowStart(items.length, symCursor, lh)
    for (let i = startAt; i < Math.min(items.length, startAt + lh); i++) body.push(draw(items[i], i, i === symCursor, focus === 'symbols'))
    return frame([{ text: 'Symbols', tone: 'title' }, { text: path ? ` · ${clip(path, inner - 12)}` : '', tone: 'dim' }], focus === 'symbols', w, h, body, risks?.state === 'loading')
  }

  const evidencePane = (w: number, h: number) => {
    const inner = w - 2
    const lh = listH(h)
    const body: ReactElement[] = []
    let title: Line = [{ text: 'Evidence', tone: 'title' }]
    if (!target) body.push(draw([{ text: 'select a file or a symbol', tone: 'dim' }], 'none'))
    else if (!evidence || evidence.state === 'loading') body.push(draw([{ text: `${spin} loading evidence…`, tone: 'dim' }], 'loading'))
    else if (evidence.state === 'error') body.push(draw([{ text: clip(evidence.message, inner), tone: 'del' }], 'err'))
    else {
      const e = evidence.value
      const span = e.target.line_end - e.target.line_start + 1
      const blamed = e.evidence.filter((x) => x.source === 'blame').length
      title = [{ text: 'Evidence', tone: 'title' }, { text: clip(` · ${target.symbol ? target.symbol.name : target.path.slice(target.path.lastIndexOf('/') + 1)}:${e.target.line_start}-${e.target.line_end} · ${e.total} commits, ${blamed} in blame`, inner - 9), tone: 'dim' }]
      // the subject keeps most of the room: the date in full, the category and the issues only when there is plenty
      const wide = inner >= 70
      const roomy = inner >= 100
      const authorW = roomy ? 14 : wide ? 11 : 8
      const barW = wide ? 5 : 4
      const startAt = windowStart(e.evidence.length, evCursor, lh)
      for (let i = startAt; i < Math.min(e.evidence.length, startAt + lh); i++) {
        const x = e.evidence[i]
        // the PR before the subject; issues too when the pane is wide (the commit view has them all)
        const refs = [...x.pull_requests.slice(0, 1).map((p) => `#${p.number}`), ...(roomy ? x.issues.slice(0, 2).map((s) => `${s.closes ? 'fixes ' : ''}#${s.number}`) : [])].join(' ')
        const fixed = 9 + (wide ? 11 : 6) + authorW + 1 + (roomy ? 7 : 0) + barW + 1
        body.push(
          draw(
            [
              { text: `${x.commit.short.slice(0, 7)} `, tone: 'accent' },
              { text: wide ? `${day(x.commit.date)} ` : `${x.commit.date.slice(2, 7)} `, tone: 'dim' },
              { text: `${cell(x.commit.author, authorW)} ` },
              ...(roomy ? [{ text: cell(x.commit.category, 6) + ' ', tone: 'dim' as Tone }] : []),
              { text: blameBar(x.lines, span, barW) + ' ', tone: 'accent' },
              ...(refs ? [{ text: clip(refs, 24) + ' ', tone: 'medium' as Tone }] : []),
              { text: clip(x.commit.subject, Math.max(4, inner - fixed - (refs ? Math.min(24, textWidth(refs)) + 1 : 0))) },
            ],
            x.commit.sha,
            i === evCursor,
            focus === 'evidence',
          ),
        )
      }
      if (e.evidence.length === 0) body.push(draw([{ text: 'no commit in the indexed history', tone: 'dim' }], 'none'))
    }
    return frame(title, focus === 'evidence', w, h, body, evidence?.state === 'loading')
  }

  const pagePane = (p: Page, v: Opened) => {
    const selected = p.picks.length > 0 ? p.picks[Math.min(v.cursor, p.picks.length - 1)]?.line : -1
    const startAt = p.picks.length > 0 ? windowStart(p.lines.length, selected, pageH) : Math.min(v.cursor, Math.max(0, p.lines.length - pageH))
    const body = p.lines.slice(startAt, startAt + pageH).map((l, i) => draw(l, startAt + i, p.picks.length > 0 ? startAt + i === selected : undefined))
    return frame([{ text: clip(p.title, cols - 8), tone: 'title' }], true, cols, bodyH, body, p.loading)
  }

  // ---- status bar: the index head, its staleness, the keys
  const head = info.state === 'ok' ? info.value.head.slice(0, 7) : '…'
  const stale = info.state !== 'ok' ? '' : !info.value.stale ? 'fresh' : info.value.commits_behind === null ? 'stale: history rewritten' : `stale: ${info.value.commits_behind} behind`
  // the way out first: a narrow terminal cuts the end of the line
  const hints = editing ? 'type to filter · enter keep · esc clear' : view?.kind === 'search' ? 'type to search · ↑↓ pick · enter open · esc back' : view ? `esc back · ? help · q quit · ↑↓ move${page?.picks.length ? ' · enter open' : ''}` : '? help · q quit · tab pane · enter open · f filter · / search · r o c H C g views'
  const status: Line = [
    { text: ` ${busy ? spin : '●'} `, tone: busy ? 'accent' : 'dim' },
    { text: `${clip(repoName, 30)} @ ${head}`, bold: true },
    { text: stale ? ` · ${stale}` : '', tone: info.state === 'ok' && info.value.stale ? 'medium' : 'low' },
    { text: '  ' },
    { text: hints, tone: 'dim' },
  ]

  let body: ReactElement
  if (page && view) body = pagePane(page, view)
  else if (narrow) body = focus === 'files' ? filesPane(cols, bodyH) : focus === 'symbols' ? symbolsPane(cols, bodyH) : evidencePane(cols, bodyH)
  else
    body = (
      <Box flexDirection="row" height={bodyH}>
        {filesPane(leftW, bodyH)}
        <Box flexDirection="column" width={rightW} height={bodyH}>
          {symbolsPane(rightW, symH)}
          {evidencePane(rightW, evH)}
        </Box>
      </Box>
    )
  return (
    <Box flexDirection="column" width={cols} height={height}>
      {body}
      {draw(status, 'status')}
    </Box>
  )
}

/** One input of several characters (and no special key) as the keys it is made of; anything else as it is. */
export function splitKeys(input: string, key: Key): Array<{ input: string; key: Key }> {
  const special = key.upArrow || key.downArrow || key.leftArrow || key.rightArrow || key.pageUp || key.pageDown || key.home || key.end || key.escape || key.ctrl || key.meta
  const chars = [...input]
  if (special || chars.length < 2 || chars.length > 256) return [{ input, key }]
  const plain: Key = { ...key, return: false, tab: false, backspace: false, delete: false, shift: false }
  return chars.map((ch) =>
    ch === '\t' ? { input: '', key: { ...plain, tab: true } }
    : ch === '\r' || ch === '\n' ? { input: '', key: { ...plain, return: true } }
    : ch === '\x7f' || ch === '\b' ? { input: '', key: { ...plain, backspace: true } }
    : { input: ch, key: { ...plain, shift: /[A-Z]/.test(ch) } },
  )
}

/** A tree row's name cut to `size` columns, the characters the filter matched in bold. */
function nameSegs(prefix: string, row: TreeRow, size: number): Line {
  const text = cell(prefix + row.name, size)
  if (row.marks.length === 0) return [{ text, tone: row.dir ? 'title' : undefined, bold: row.dir }]
  const marked = new Set(row.marks.map((m) => m + prefix.length))
  const out: Line = []
  let i = 0
  for (const ch of text) {
    const bold = marked.has(i++)
    const last = out.at(-1)
    if (last && (last.bold === true) === bold) last.text += ch
    else out.push({ text: ch, bold, tone: bold ? 'medium' : undefined })
  }
  return out
}

function toggled(set: ReadonlySet<string>, key: string): Set<string> {
  const next = new Set(set)
  if (next.has(key)) next.delete(key)
  else next.add(key)
  return next
}

