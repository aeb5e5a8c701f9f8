import { describe, expect, it } from 'vitest'
import { ProgressDisplay } from '../../src/progress.js'

/** A display writing into an array, on a clock the test moves. */
function display(tty: boolean) {
  const out: string[] = []
  let now = 1_000_000
  const d = new ProgressDisplay((s) => out.push(s), tty, () => now, () => 200)
  return { d, out, tick: (ms: number) => (now += ms), text: () => out.join('') }
}

describe('analyze progress display', () => {
  it('on a TTY redraws one live line with counts, rate and ETA, and prints a line per finished phase', () => {
    const { d, out, tick, text } = display(true)
    d.report('history', 0, 0)
    d.report('parse', 0, 400)
    tick(2000)
    d.report('history', 1000, 4000)
    const live = out.at(-1)!
    expect(live.startsWith('\r\x1b[K')).toBe(true)
    expect(live).toContain('history 1,000/4,000 commits · 500/s · ETA 6.0 s')
    expect(live).toContain('parse 0/400 files')
    tick(1000)
    d.report('parse', 400, 400)
    expect(text()).toContain('gitwhy: parse       400 files in 3.0 s\n')
    tick(5000)
    d.report('history', 4000, 4000)
    expect(text()).toContain('gitwhy: history     4,000 commits in 8.0 s\n')
    // finished lines are never drawn over: each follows a clear of the live line
    const permanent = text().split('\n').filter((l) => l.includes('gitwhy: '))
    expect(permanent.map((l) => l.replace(/^[\s\S]*\r\x1b\[K/, ''))).toEqual(['gitwhy: parse       400 files in 3.0 s', 'gitwhy: history     4,000 commits in 8.0 s'])
  })

  it('folds the graph load tables into one phase counting steps, not a bar per table', () => {
    const { d, tick, text } = display(true)
    for (const t of ['schema', 'Commit', 'File', 'Symbol', 'checkpoint']) {
      d.report(`load ${t}`, 0, 1)
      tick(200)
    }
    d.end()
    const lines = text().split('\n').filter(Boolean)
    expect(lines.filter((l) => /gitwhy: /.test(l))).toHaveLength(1)
    expect(text()).toContain('gitwhy: graph load  5 steps in 1.0 s\n')
    expect(text()).toContain('graph load Symbol (step 4)')
    expect(text()).not.toMatch(/\[[#-]+\]/)
  })

  it('in a log prints a line per finished phase and a line every 10 s for a long one, never a carriage return', () => {
    const { d, tick, text } = display(false)
    d.report('history', 0, 0)
    for (let i = 1; i <= 30; i++) {
      tick(1000)
      d.report('history', i * 100, 3000)
    }
    d.report('history', 3000, 3000) // the reader's final report may repeat the last one: no second phase
    const lines = text().split('\n').filter(Boolean)
    expect(text()).not.toContain('\r')
    expect(lines).toEqual([
      'gitwhy: history 1,000/3,000 commits · 100/s · ETA 20 s',
      'gitwhy: history 2,000/3,000 commits · 100/s · ETA 10 s',
      'gitwhy: history     3,000 commits in 30 s',
    ])
  })

  it('in a log a phase with no count yet says how long it has run, not an empty line', () => {
    const { d, tick, text } = display(false)
    d.report('history', 0, 0)
    tick(12_000)
    d.report('parse', 10, 400)
    expect(text()).toContain('gitwhy: history running for 12 s\n')
    expect(text()).not.toMatch(/gitwhy: history \n/)
  })

  it('a warning is printed above the live line, and end() closes what still runs', () => {
    const { d, tick, text } = display(true)
    d.report('hunk map', 0, 1)
    d.note('warning: something')
    tick(1500)
    d.end()
    expect(text()).toMatch(/\r\x1b\[Kwarning: something\n/)
    expect(text()).toMatch(/gitwhy: hunk map    in 1\.5 s\n$/)
  })
})

describe('analyze progress display, graph load', () => {
  it('counts its last step whether the run ends or another phase starts', () => {
    for (const next of ['end', 'manifest']) {
      const out: string[] = []
      const d = new ProgressDisplay((s) => out.push(s), false, () => 0)
      for (const t of ['schema', 'Commit', 'checkpoint']) d.report(`load ${t}`, 0, 1)
      if (next === 'end') d.end()
      else d.report(next, 0, 0)
      expect(out.join(''), next).toContain('gitwhy: graph load  3 steps in 0.0 s\n')
    }
  })
})
