/**
 * Poll `probe` until it returns something truthy (returned), or fail naming what was awaited. The
 * default wait is long: under a full test run on two cores a recorder's snapshot took over 8 s.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = probe()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}
