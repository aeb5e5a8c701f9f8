#!/usr/bin/env node
// The history read alone (`readHistory` of HEAD: every commit with its diffs, as a full build mines
// it, without the patch store and the documents a build makes beside it), for one or more builds
// of gitwhy, interleaved round by round: wall time, and a hash of what was read (two builds that
// read the same history print the same hash).
//
//   node bench/history-read.mjs <repo> [<project dir> ...] [--rounds 2] [--tmp DIR]
//
// Each project dir holds a built gitwhy (dist/), e.g. a git worktree of an earlier commit after
// `npm run build`; the default is this project. Each read runs in a process of its own.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ROOT } from './lib.mjs'

const args = process.argv.slice(2)
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback)

if (args[0] === '--child') {
  // one read: [--child, dist, repo, workDir]
  const [, dist, repo, workDir] = args
  const { createHash } = await import('node:crypto')
  const { readHistory } = await import(join(dist, 'git', 'history-reader.js'))
  const t0 = performance.now()
  const commits = await readHistory(repo, { range: ['HEAD'], workDir })
  const ms = performance.now() - t0
  const hash = createHash('sha256')
  for (const c of commits) hash.update(JSON.stringify(c))
  process.stdout.write(JSON.stringify({ ms: Math.round(ms), commits: commits.length, hash: hash.digest('hex').slice(0, 16) }))
  process.exit(0)
}

const positional = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'))
const [repo, ...projects] = positional
if (!repo) {
  process.stderr.write('usage: node bench/history-read.mjs <repo> [<project dir> ...] [--rounds 2] [--tmp DIR]\n')
  process.exit(1)
}
const builds = (projects.length > 0 ? projects : [ROOT]).map((p) => resolve(p))
const rounds = Number(opt('rounds', 2))
const work = mkdtempSync(join(resolve(opt('tmp', tmpdir())), 'gitwhy-history-read-'))
const self = fileURLToPath(import.meta.url)
try {
  for (let r = 1; r <= rounds; r++) {
    for (const project of builds) {
      const out = JSON.parse(execFileSync(process.execPath, ['--max-old-space-size=8000', self, '--child', join(project, 'dist'), resolve(repo), work], { maxBuffer: 1 << 20 }).toString())
      console.log(`round ${r} ${project}: ${(out.ms / 1000).toFixed(1)} s, ${out.commits} commits, hash ${out.hash}`)
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
