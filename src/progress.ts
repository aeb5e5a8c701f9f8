/**
 * Progress of analyze (and of `brief --all`, its one phase "cards") on stderr, never on stdout (that is for data).
 *
 * Analyze reports `(phase, done, total)`; phases may overlap (history and parse run concurrently)
 * and the graph load reports one phase per table (`load <table>`), which this display folds into
 * one "graph load" phase counting its steps. On a TTY: one live line, redrawn, naming every running
 * phase with its count, rate and ETA, and one permanent line per phase as it ends. Otherwise (a
 * log, CI): a line per phase as it ends, and a line every 10 s for a phase still running.
 */

import type { ProgressFn } from './services/analyze.js'

interface Phase {
  name: string
  unit: string
  done: number
  total: number
  start: number
  lastLog: number
  /** The graph load's current table. */
  detail?: string
}

const UNITS: Record<string, string> = {
  history: 'commits',
  parse: 'files',
  'graph load': 'steps',
  'hunk map': 'commits',
  embeddings: 'texts',
  // gitwhy enrich
  'pull requests': 'pages',
  issues: 'pages',
  'review comments': 'pages',
  'single items': 'items',
  'rate limit wait': 's',
  // gitwhy brief --all
  cards: 'symbols',
}
const LOAD = 'load '
const REDRAW_MS = 100
const LOG_EVERY_MS = 10_000
const TICK_MS = 1000

const count = (n: number) => n.toLocaleString('en-US')

export function seconds(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`
}

/** "34,500/81,966 commits · 2,300/s · ETA 21 s"; only the count until a rate is meaningful. */
export function describe(p: Phase, now: number): string {
  if (p.name === 'graph load') return `${p.detail ?? ''} (step ${p.done + 1})`
  if (p.total <= 1) return ''
  const parts = [`${count(p.done)}/${count(p.total)} ${p.unit}`]
  const elapsed = now - p.start
  if (elapsed >= 1000 && p.done > 0 && p.done < p.total) {
    const rate = p.done / (elapsed / 1000)
    parts.push(`${count(Math.round(rate))}/s`, `ETA ${seconds(((p.total - p.done) / rate) * 1000)}`)
  }
  return parts.join(' · ')
}

/** The finished line of a phase: "history  7,157 commits in 3.2 s". */
export function finished(p: Phase, now: number): string {
  const what = p.name === 'graph load' ? `${p.done} steps` : p.total > 1 ? `${count(p.total)} ${p.unit}` : ''
  return `${p.name.padEnd(11)} ${what ? `${what} ` : ''}in ${seconds(now - p.start)}`
}

export class ProgressDisplay {
  private readonly running = new Map<string, Phase>()
  /** Phases that ended; a repeat of their last report (done = total) does not start them again. */
  private readonly ended = new Set<string>()
  private readonly started: number
  private lastDraw = 0
  private drawn = false
  /** Redraws while a phase runs silently (git spooling its output), so the clock never stops. */
  private ticker: NodeJS.Timeout | null = null

  constructor(
    private readonly write: (s: string) => void,
    private readonly tty: boolean,
    private readonly clock: () => number = Date.now,
    private readonly columns: () => number = () => process.stderr.columns ?? 0,
    /** The command the live line names (`brief --all` draws its own). */
    private readonly label = 'analyze',
  ) {
    this.started = clock()
  }

  readonly report: ProgressFn = (phase, done, total) => {
    const now = this.clock()
    this.ticker ??= setInterval(() => this.draw(this.clock()), TICK_MS).unref()
    if (phase.startsWith(LOAD)) {
      const table = phase.slice(LOAD.length)
      const load = this.phase('graph load', now)
      if (load.detail !== undefined) load.done++
      load.detail = table
    } else {
      const complete = total > 0 && done >= total
      if (complete && this.ended.has(phase) && !this.running.has(phase)) return
      const p = this.phase(phase, now)
      p.done = done
      p.total = total
      if (complete) this.finish(p, now)
      // any other phase's report ends the graph load (the last step it reports is its checkpoint)
      this.endLoad(now)
    }
    this.draw(now)
  }

  /** A line that must not be drawn over (a warning): printed above the live line. */
  note(text: string): void {
    this.clear()
    this.write(`${text}\n`)
  }

  /** Closes every running phase (the run is over) and clears the live line. */
  end(): void {
    if (this.ticker) clearInterval(this.ticker)
    this.ticker = null
    const now = this.clock()
    this.endLoad(now)
    for (const p of [...this.running.values()]) this.finish(p, now)
    this.clear()
  }

  /** The graph load ends with its last step done. */
  private endLoad(now: number): void {
    const load = this.running.get('graph load')
    if (!load) return
    if (load.detail !== undefined) load.done++
    this.finish(load, now)
  }

  private phase(name: string, now: number): Phase {
    let p = this.running.get(name)
    if (!p) {
      p = { name, unit: UNITS[name] ?? 'items', done: 0, total: 0, start: now, lastLog: now }
      this.running.set(name, p)
    }
    return p
  }

  private finish(p: Phase, now: number): void {
    this.running.delete(p.name)
    this.ended.add(p.name)
    this.clear()
    this.write(`gitwhy: ${finished(p, now)}\n`)
  }

  private clear(): void {
    if (this.tty && this.drawn) this.write('\r\x1b[K')
    this.drawn = false
  }

  private draw(now: number): void {
    if (this.running.size === 0) return
    if (!this.tty) {
      for (const p of this.running.values()) {
        if (now - p.lastLog < LOG_EVERY_MS) continue
        p.lastLog = now
        // before its first count a phase still says that it runs, and for how long
        this.write(`gitwhy: ${p.name} ${describe(p, now) || `running for ${seconds(now - p.start)}`}\n`)
      }
      return
    }
    if (this.drawn && now - this.lastDraw < REDRAW_MS) return
    this.lastDraw = now
    const phases = [...this.running.values()].map((p) => `${p.name} ${describe(p, now)}`.trim())
    const line = `${this.label} ${seconds(now - this.started)} · ${phases.join(' | ')}`
    const width = Math.max(this.columns(), 80) - 1
    this.write(`\r\x1b[K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`)
    this.drawn = true
  }
}

/** The progress callback of `gitwhy analyze` and the function that ends it; silent when disabled. */
export function stderrProgress(enabled: boolean, label = 'analyze'): Pick<ProgressDisplay, 'report' | 'note' | 'end'> {
  const display = new ProgressDisplay((s) => process.stderr.write(s), process.stderr.isTTY === true, Date.now, () => process.stderr.columns ?? 0, label)
  return enabled ? display : { report: () => {}, note: (text) => process.stderr.write(`${text}\n`), end: () => {} }
}
