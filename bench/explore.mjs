// How quickly `gitwhy explore` answers a person: the explorer driven programmatically (Ink into a
// fake 100×24 terminal, the same bundle, App and services as the command):
//
//   - first frame: from loading the explorer's modules (Ink, React, the services) and opening the
//     index to the first frame written, and to the first frame showing the file tree and the
//     index's freshness (the target is 500 ms);
//   - navigation: a scripted walk (down the tree, into directories and files, through symbols and
//     the evidence timeline, a commit and back, the side views, a search), one key every --gap ms;
//     a step is the time from the key to the frame that shows it (the target is 50 ms at p95).
//     A step never waits for a service: what is not cached shows a spinner and fills in later;
//     `answer` is the time until the screen had every answer it asked for;
//   - the command itself in a pseudo-terminal (`script`), when there is one: from starting
//     `node bin/run.js explore` to the first frame with the tree, and `q` to the exit.
//
//   node bench/explore.mjs <indexed repo> [--steps 300] [--gap 30] [--json]
import { spawn, spawnSync } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { existsSync } from 'node:fs'
import { BIN, benchArgs, percentiles } from './lib.mjs'

const { opt, repo, json } = benchArgs('node bench/explore.mjs <indexed repo> [--steps 300] [--gap 30] [--json]')
const STEPS = Number(opt('steps', '300'))
const GAP = Number(opt('gap', '30'))
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

// the command's way: the index opened by the unbundled services, the explorer from its bundle
class Terminal extends EventEmitter {
  isTTY = true
  columns = 100
  rows = 24
  data = null
  write = (text) => (this.onWrite?.(text), true)
  read = () => ((d) => ((this.data = null), d))(this.data)
  press = (key) => ((this.data = key), this.emit('readable'), this.emit('data', key))
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

const t0 = performance.now()
const bundled = new URL('../dist/bundle/explore.mjs', import.meta.url)
const [{ IndexReader }, { mountExplorer }] = await Promise.all([import('../dist/services/index-reader.js'), import(existsSync(bundled) ? bundled.href : '../dist/tui/run.js')])
const loaded = performance.now() - t0
const reader = IndexReader.openRoot(repo)
reader.pathsFromRoot = true

let frames = 0
let waiter = null
let firstFrame = null
let fullFrame = null
const stdout = new Terminal()
const stdin = new Terminal()
stdout.onWrite = (frame) => {
  frames++
  const now = performance.now()
  firstFrame ??= now - t0
  if (fullFrame === null && frame.includes('fresh') && /[▸▾]/.test(frame)) fullFrame = now - t0
  if (waiter) {
    const w = waiter
    waiter = null
    w(now)
  }
}
const { instance, source } = mountExplorer(reader, { repoName: 'bench', color: true, start: null }, { stdout, stdin, stderr: new Terminal(), debug: true })
while (fullFrame === null) await sleep(1)

/** Press a key and wait for the frame that shows it; its latency in ms. */
async function step(key) {
  const before = frames
  const start = performance.now()
  const drawn = new Promise((r) => (waiter = r))
  stdin.press(key)
  const at = await Promise.race([drawn, sleep(300).then(() => null)])
  if (at === null) {
    waiter = null
    return frames > before ? performance.now() - start : null // the key changed nothing on screen
  }
  return at - start
}

// a walk a person might take, repeated until --steps keys were pressed
const DOWN = 'j'
const walk = [
  ...'jjjjj', 'l', ...'jjj', 'l', ...'jjjjjjjj', '\r', ...'jjjjjj', '\t', ...'jjjj', '\r', 'j', 'j', '\u001b', 'k', '\t', 'r', '\u001b', 'o', '\u001b', 'c', 'j', '\u001b', 'g', 'j', '\u001b',
  '\t', ...'jjjjjjjj', 'l', ...'jjjj', '\r', ...'kkk', 'H', 'j', 'j', '\u001b', 'C', '\u001b', '/', ...'render', '\u001b', '?', '\u001b', '\t', '\t', ...'kkkkk',
]
const latencies = []
const answers = []
const byKey = new Map()
/** Keys after which no frame came (the end of a list, a key with nothing to do there). */
const unchanged = new Map()
let pressed = 0
while (pressed < STEPS) {
  for (const key of walk) {
    if (pressed >= STEPS) break
    const ms = await step(key)
    pressed++
    const name = key === '\r' ? 'enter' : key === '\t' ? 'tab' : key === '\u001b' ? 'esc' : key === DOWN ? 'j' : key
    if (ms !== null) {
      latencies.push(ms)
      byKey.set(name, [...(byKey.get(name) ?? []), ms])
    } else unchanged.set(name, (unchanged.get(name) ?? 0) + 1)
    if (source.busy()) {
      const start = performance.now()
      await source.idle()
      answers.push(performance.now() - start)
    }
    await sleep(key === '\u001b' ? GAP + 60 : GAP) // a lone ESC waits for what may follow it
  }
}
instance.unmount()
await source.close()

/** The command in a pseudo-terminal: start to the first frame with the tree, then `q`. */
async function command() {
  if (spawnSync('script', ['--version'], { encoding: 'utf8' }).status !== 0) return null
  const start = performance.now()
  const child = spawn('script', ['-qfec', `${process.execPath} ${BIN} explore`, '/dev/null'], { cwd: repo, env: { ...process.env, CI: 'false', CONTINUOUS_INTEGRATION: 'false' }, stdio: ['pipe', 'pipe', 'ignore'] })
  let out = ''
  const tree = await new Promise((resolveTree) => {
    const timer = setTimeout(() => resolveTree(null), 15_000)
    child.stdout.on('data', (d) => {
      out += d
      if (/fresh|behind|rewritten/.test(out) && /[▸▾]/.test(out)) {
        clearTimeout(timer)
        resolveTree(performance.now() - start)
      }
    })
  })
  const quit = performance.now()
  child.stdin.write('q')
  const code = await new Promise((r) => child.on('exit', r))
  return { first_frame_ms: tree === null ? null : +tree.toFixed(0), quit_ms: +(performance.now() - quit).toFixed(0), exit: code }
}

const result = {
  repo,
  terminal: '100x24',
  modules_ms: +loaded.toFixed(1),
  first_frame_ms: +firstFrame.toFixed(1),
  first_full_frame_ms: +fullFrame.toFixed(1),
  steps: percentiles(latencies),
  steps_by_key: Object.fromEntries([...byKey].map(([k, xs]) => [k, percentiles(xs)])),
  unchanged: Object.fromEntries(unchanged),
  answers: answers.length ? percentiles(answers) : null,
  frames,
  command: await command(),
}
if (json) process.stdout.write(JSON.stringify(result, null, 2) + '\n')
else {
  const ok = (v, target) => (v <= target ? 'ok' : 'OVER')
  console.log(`explore on ${repo} (${result.terminal}, a key every ${GAP} ms)`)
  console.log(`  modules loaded ${result.modules_ms} ms · first frame ${result.first_frame_ms} ms · first frame with the tree ${result.first_full_frame_ms} ms (target 500: ${ok(result.first_full_frame_ms, 500)})`)
  console.log(`  navigation: ${result.steps.n} steps, p50 ${result.steps.p50} ms, p95 ${result.steps.p95} ms, max ${result.steps.max} ms (target p95 50: ${ok(result.steps.p95, 50)})`)
  console.log(`  by key: ${Object.entries(result.steps_by_key).map(([k, s]) => `${k} ${s.p50}/${s.p95}`).join(' · ')} (p50/p95 ms)`)
  console.log(`  keys that changed nothing on screen (not counted): ${Object.entries(result.unchanged).map(([k, n]) => `${k} ×${n}`).join(', ') || 'none'}`)
  if (result.answers) console.log(`  answers after a step (services, in the background): p50 ${result.answers.p50} ms, p95 ${result.answers.p95} ms, max ${result.answers.max} ms`)
  if (result.command) console.log(`  the command in a pseudo-terminal: first frame with the tree ${result.command.first_frame_ms} ms after start; q exits in ${result.command.quit_ms} ms (exit ${result.command.exit})`)
}
