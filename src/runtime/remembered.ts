/**
 * `fn` remembering its answers, for keys many callers share (a commit's subject, a file's path):
 * each worked out once. Forgotten whole past `max` keys, so that a long-lived process does not keep
 * every key it saw.
 */
export function remembered<T>(fn: (key: string) => T, max: number): (key: string) => T {
  const known = new Map<string, T>()
  return (key) => {
    let out = known.get(key)
    if (out === undefined && !known.has(key)) {
      if (known.size >= max) known.clear()
      known.set(key, (out = fn(key)))
    }
    return out as T
  }
}
