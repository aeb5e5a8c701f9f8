/**
 * A terminal for Ink components in tests: a stdout of a chosen size that keeps every frame (and
 * can be resized), a stdin that takes keystrokes, and waits on what the screen shows. Ink runs in
 * debug mode, so each frame is written whole.
 */
import { EventEmitter } from 'node:events'
import type { ReactElement } from 'react'

export class FakeStdout extends EventEmitter {
  readonly isTTY = true
  readonly frames: string[] = []
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super()
  }
  write = (frame: string): boolean => {
    this.frames.push(frame)
    return true
  }
  resize(columns: number, rows: number): void {
    this.columns = columns
    this.rows = rows
    this.emit('resize')
  }
}

export class FakeStdin extends EventEmitter {
  readonly isTTY = true
  private data: string | null = null
  write = (data: string): void => {
    this.data = data
    this.emit('readable')
    this.emit('data', data)
  }
  read = (): string | null => {
    const d = this.data
    this.data = null
    return d
  }
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

export const KEY = { up: '\u001b[A', down: '\u001b[B', right: '\u001b[C', left: '\u001b[D', enter: '\r', tab: '\t', shiftTab: '\u001b[Z', esc: '\u001b', backspace: '\u007f', pageDown: '\u001b[6~' } as const

/** Frame text without ANSI styling (what a reader sees). */
export const plain = (frame: string): string => frame.replace(/\u001b\[[0-9;]*m/g, '')

export interface Terminal {
  stdout: FakeStdout
  stdin: FakeStdin
  frame(): string
  /** Type keys one by one, giving Ink a turn between them. */
  press(...keys: string[]): Promise<void>
  /** Wait until the visible frame satisfies `test` (a substring or a predicate); fails with the last frame. */
  waitFor(test: string | RegExp | ((frame: string) => boolean), timeoutMs?: number): Promise<string>
  exited: Promise<void>
  unmount(): void
}

export async function renderTerminal(element: ReactElement, size: { columns: number; rows: number }): Promise<Terminal> {
  const { render } = await import('ink')
  const stdout = new FakeStdout(size.columns, size.rows)
  const stdin = new FakeStdin()
  const instance = render(element, { stdout: stdout as never, stderr: new FakeStdout(size.columns, size.rows) as never, stdin: stdin as never, debug: true, exitOnCtrlC: false, patchConsole: false })
  const frame = () => plain(stdout.frames.at(-1) ?? '')
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
  return {
    stdout,
    stdin,
    frame,
    async press(...keys) {
      for (const k of keys) {
        stdin.write(k)
        // a lone ESC waits for what may follow it before Ink reports it
        await sleep(k === KEY.esc ? 60 : 15)
      }
    },
    async waitFor(test, timeoutMs = 10_000) {
      const ok = typeof test === 'function' ? test : (f: string) => (typeof test === 'string' ? f.includes(test) : test.test(f))
      const until = Date.now() + timeoutMs
      while (Date.now() < until) {
        if (ok(frame())) return frame()
        await sleep(10)
      }
      throw new Error(`the screen never showed ${String(test)}; last frame:\n${frame()}`)
    },
    exited: instance.waitUntilExit().then(() => undefined),
    unmount: () => instance.unmount(),
  }
}
