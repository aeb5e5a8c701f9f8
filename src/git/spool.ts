import { closeSync, openSync, readSync } from 'node:fs'

/**
 * Read `file` while `writer` (a git process spooling its stdout there) is still writing it:
 * `onChunk` gets each new piece as it lands, so parsing keeps pace with git on another core and
 * memory holds one chunk, never the whole output. Resolves once the writer is done and everything
 * it wrote was read; rejects with the writer's error.
 */
export async function readSpool(file: string, writer: Promise<unknown>, onChunk: (chunk: Buffer) => void, chunkSize = 1 << 20): Promise<void> {
  let done = false
  let failure: unknown = null
  const settled = writer.then(
    () => {
      done = true
    },
    (error: unknown) => {
      done = true
      failure = error
    },
  )
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.alloc(chunkSize)
    let position = 0
    for (;;) {
      const finished = done
      // git has just written what is there (the page cache holds it): a synchronous read is a
      // copy, and costs less than a round trip through the thread pool for each chunk
      const bytesRead = readSync(fd, buf, 0, chunkSize, position)
      if (bytesRead > 0) {
        position += bytesRead
        onChunk(buf.subarray(0, bytesRead))
      } else if (finished) break
      else await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 20))])
    }
  } finally {
    closeSync(fd)
  }
  if (failure) throw failure
}
