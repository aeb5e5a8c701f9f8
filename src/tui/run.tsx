import { render, type Instance, type RenderOptions } from 'ink'
import type { IndexReader } from '../services/index-reader.js'
import { App, type ExploreStart } from './app.js'
import { ExploreSource } from './source.js'

/**
 * The explorer mounted with Ink. Only the `explore` command (through dist/bundle/explore.mjs,
 * see scripts/bundle.mjs) and bench/explore.mjs import this module, so Ink and React load for
 * them alone.
 */

export interface ExplorerOptions {
  repoName: string
  color: boolean
  start: ExploreStart | null
}

/** Draw the explorer on `io` (the process's terminal by default); the benchmark passes its own streams. */
export function mountExplorer(reader: IndexReader, options: ExplorerOptions, io: Pick<RenderOptions, 'stdout' | 'stdin' | 'stderr' | 'debug'> = {}): { instance: Instance; source: ExploreSource } {
  const source = new ExploreSource(reader)
  const instance = render(<App source={source} repoName={options.repoName} color={options.color} start={options.start} />, { exitOnCtrlC: true, patchConsole: io.stdout === undefined, ...io })
  return { instance, source }
}

/** The explorer on the terminal until `q` (or ctrl-c); then the index it reads is closed. */
export async function runExplorer(reader: IndexReader, options: ExplorerOptions): Promise<void> {
  const { instance, source } = mountExplorer(reader, options)
  try {
    await instance.waitUntilExit()
  } finally {
    instance.cleanup()
    // the index in use now: another one when analyze swapped it meanwhile
    await source.close()
  }
}
