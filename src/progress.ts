/**
 * Progress on stderr: a redrawn bar per phase on a TTY, one line per phase otherwise. Never on
 * stdout (that is for data).
 */
export function stderrProgress(enabled: boolean): (phase: string, done: number, total: number) => void {
  const tty = process.stderr.isTTY === true
  let lastPhase = ''
  let lastDraw = 0
  return (phase, done, total) => {
    if (!enabled) return
    const now = Date.now()
    if (!tty) {
      if (phase !== lastPhase) process.stderr.write(`gitwhy: ${phase}…\n`)
      lastPhase = phase
      return
    }
    if (phase === lastPhase && done < total && now - lastDraw < 80) return
    lastDraw = now
    if (phase !== lastPhase && lastPhase) process.stderr.write('\n')
    lastPhase = phase
    const width = 28
    const ratio = total > 0 ? Math.min(1, done / total) : 1
    const filled = Math.round(ratio * width)
    const count = total > 1 ? ` ${done}/${total}` : ''
    process.stderr.write(`\r${phase.padEnd(18)} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}]${count}   `)
  }
}

export function endProgress(): void {
  if (process.stderr.isTTY) process.stderr.write('\n')
}
