import { render } from 'ink'
import type { IndexReader } from '../services/index-reader.js'
import { App, type ExploreStart } from './app.js'
import { ExploreSource } from './source.js'

/**
 * The explorer on the terminal: drawn until `q` (or ctrl-c), then the index is closed. Only the
 * `explore` command imports this module, so Ink and React load for it alone.
 */
export async function runExplorer(reader: IndexReader, options: { repoName: string; color: boolean; start: ExploreStart | null }): Promise<void> {
  const source = new ExploreSource(reader)
  const app = render(<App source={source} repoName={options.repoName} color={options.color} start={options.start} />, { exitOnCtrlC: true, patchConsole: true })
  try {
    await app.waitUntilExit()
  } finally {
    app.cleanup()
    await source.idle()
    await reader.close()
  }
}
