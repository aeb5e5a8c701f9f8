/**
 * The optional LLM from the outside (issue 15), against the built CLI and MCP server and fake
 * model servers on 127.0.0.1: `.gitwhy/config.json` turns it on, `why` prints the model's cited
 * sentences and says who answered, `--no-llm` and `--estimate` make no call, an unreachable
 * server is one warning and exit 0, a bad configuration names the key and its fix, `doctor`
 * checks the provider (the key never printed), the MCP `why` takes the same path, and nothing
 * of the AI SDK is loaded unless a provider is configured.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { citingFirst, deadBaseUrl, fakeOpenAI, type FakeLlm } from '../helpers/fake-llm.js'
import { createRepo, type TestRepo } from '../helpers/repo.js'
import { connectStdio, structured, text } from '../mcp/client.js'
import { expectShape, runCli, runJson, WHY_DOC, type CliOptions } from './cli.js'

let repo: TestRepo
let opts: CliOptions
let fake: FakeLlm
let memo: string
const KEY = 'test-llm-key-Zq8rT2vW9xKm4Lp7'

const configure = (llm: Record<string, unknown> | null) => {
  const file = join(repo.dir, '.gitwhy', 'config.json')
  if (llm) writeFileSync(file, JSON.stringify({ llm }, null, 2))
  else rmSync(file, { force: true })
}
const fakeConfig = (extra: Record<string, unknown> = {}) => ({ provider: 'openai-compatible', model: 'fake-model', baseUrl: fake.baseUrl, apiKeyEnv: 'FAKE_LLM_KEY', ...extra })

beforeAll(async () => {
  repo = createRepo()
  repo.write('src/router.ts', 'export function match(path: string): boolean {\n  return new RegExp(path).test(path)\n}\n').commit('Add the router')
  repo.write('src/router.ts', 'const seen = new Map<string, RegExp>()\n\nexport function match(path: string): boolean {\n  let re = seen.get(path)\n  if (!re) seen.set(path, (re = new RegExp(path)))\n  return re.test(path)\n}\n')
  memo = repo.commit('Memoize compiled route patterns\n\nThe router compiled every pattern on each request, which dominated the profile of apps with large route tables.').slice(0, 7)
  opts = { cwd: repo.dir, env: { ...repo.env(), FAKE_LLM_KEY: KEY } }
  await runJson(['analyze'], opts)
  fake = await fakeOpenAI(({ ids }) => `Route patterns are memoized because compiling them on each request dominated the profile [${ids[0]}].`)
})
afterAll(async () => {
  await fake?.close()
  repo?.cleanup()
})
beforeEach(() => {
  configure(null)
  rmSync(join(repo.dir, '.gitwhy', 'llm-cache'), { recursive: true, force: true })
  fake.requests.length = 0
})

describe('gitwhy why with an LLM configured', () => {
  test('the model writes the sentences, cited; the text says who answered; --json has the documented shape', async () => {
    configure(fakeConfig())
    const r = await runCli(['why', 'match'], opts)
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toBe(`Route patterns are memoized because compiling them on each request dominated the profile [${memo}].`)
    expect(lines[1]).toMatch(/^answered by llm openai-compatible:fake-model \(\d+ input \+ \d+ output tokens, \d+ ms\)$/)
    expect(r.stderr).toBe('')
    expect(fake.calls()).toHaveLength(1)
    expect(fake.calls()[0].headers.authorization).toBe(`Bearer ${KEY}`)
    const { json } = await runJson(['why', 'match'], opts)
    expectShape(json, WHY_DOC, 'why --json with an LLM')
    expect(json.answer.answerer).toBe('llm (openai-compatible:fake-model)')
    expect(json.llm).toMatchObject({ status: 'answered', cached: true })
    // the cache: the second run made no request
    expect(fake.calls()).toHaveLength(1)
    const log = readFileSync(join(repo.dir, '.gitwhy', 'llm-usage.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(log.slice(-2).map((l) => l.cache_hit)).toEqual([false, true])
    expect(JSON.stringify(log)).not.toContain(KEY)
  })

  test('--no-llm: no call, and the very bytes of an unconfigured why', async () => {
    const plain = await runCli(['why', 'match'], opts)
    configure(fakeConfig())
    for (const env of [opts.env, { ...opts.env, GITWHY_FAST_CLI: '0' }]) {
      const off = await runCli(['why', 'match', '--no-llm'], { ...opts, env })
      expect(off.code).toBe(0)
      expect(off.stdout).toBe(plain.stdout)
      const offJson = await runJson(['why', 'match', '--no-llm'], { ...opts, env })
      expect(offJson.json).not.toHaveProperty('llm')
      expect(offJson.json.answer.answerer).toBe('extractive')
    }
    expect(fake.calls()).toHaveLength(0)
  })

  test('--estimate: the tokens and the cost first, no call (fast path and oclif alike)', async () => {
    configure(fakeConfig({ price: { inputPerMTok: 0.15, outputPerMTok: 0.6 } }))
    const fast = await runCli(['why', 'match', '--estimate'], opts)
    const slow = await runCli(['why', 'match', '--estimate'], { ...opts, env: { ...opts.env, GITWHY_FAST_CLI: '0' } })
    expect(fast.code).toBe(0)
    expect(fast.stdout).toBe(slow.stdout)
    expect(fast.stdout.split('\n')[0]).toMatch(/^llm estimate, no call made: ~\d+ input \+ up to 400 output tokens, cost ~0\.000\d+ \(openai-compatible:fake-model\)$/)
    expect(fast.stdout).toContain(`[${memo}]`)
    const { json } = await runJson(['why', 'match', '--estimate'], opts)
    expectShape(json, WHY_DOC, 'why --estimate --json')
    expect(json.llm.estimate).toMatchObject({ synthesizer: 'openai-compatible:fake-model', output_tokens: 400, cached: false, budget: null })
    expect(fake.calls()).toHaveLength(0)
  })

  test('the server is down: one warning on stderr, the extractive answer, exit 0', async () => {
    configure(fakeConfig({ baseUrl: await deadBaseUrl() }))
    const plain = await runCli(['why', 'match', '--no-llm'], opts)
    const r = await runCli(['why', 'match'], opts)
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/^warning: llm openai-compatible:fake-model failed: cannot reach the server \(ECONNREFUSED\); answering extractively\n$/)
    expect(r.stdout.split('\n')[0]).toBe(plain.stdout.split('\n')[0])
    expect(r.stdout).toContain('answered extractively: llm declined (error: cannot reach the server (ECONNREFUSED))')
    const { json, result } = await runJson(['why', 'match'], opts)
    expect(json.answer.answerer).toBe('extractive (llm declined: error: cannot reach the server (ECONNREFUSED))')
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
  })

  test('a bad configuration: why fails naming the key and the fix; the environment alone can configure it', async () => {
    configure({ provider: 'openai-compatible', model: 'm', bugdet: { runTokens: 10 } })
    const r = await runCli(['why', 'match', '--json'], opts)
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'bad_config', message: expect.stringContaining('llm.bugdet is not a setting'), remedy: expect.stringContaining('budget') })
    configure(null)
    const { json } = await runJson(['why', 'match'], { ...opts, env: { ...opts.env, GITWHY_LLM_PROVIDER: 'ollama', GITWHY_LLM_MODEL: 'fake-model', GITWHY_LLM_BASE_URL: fake.baseUrl } })
    expect(json.answer.answerer).toBe('llm (ollama:fake-model)')
    expect(fake.calls()[0].headers.authorization).toBeUndefined()
  })
})

describe('gitwhy doctor with an LLM configured', () => {
  const checks = (json: any) => Object.fromEntries(json.checks.map((c: any) => [c.id, c]))
  const doctor = async (env = opts.env) => {
    const r = await runCli(['doctor', '--json'], { ...opts, env })
    return { r, json: JSON.parse(r.stdout) }
  }

  test('configured and reachable: provider, key (its variable named, never shown), server and model', async () => {
    configure(fakeConfig({ budget: { dayTokens: 100000 } }))
    const { r, json } = await doctor()
    const c = checks(json)
    expect(c.llm).toMatchObject({ status: 'ok', message: expect.stringMatching(/^openai-compatible:fake-model at http:\/\/127\.0\.0\.1:\d+\/v1 \(from \.gitwhy\/config\.json\); token budget: day 100000 \(\d+ used today\); no price set$/) })
    expect(c['llm-key']).toMatchObject({ status: 'ok', message: 'API key from $FAKE_LLM_KEY (not shown)' })
    expect(c['llm-server']).toMatchObject({ status: 'ok', message: expect.stringMatching(/answered in \d+ ms and serves fake-model$/) })
    expect(r.stdout).not.toContain(KEY)
    expect(fake.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/models'])
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${KEY}`)
  })

  test('a model the server does not serve, a server that is down: warnings with the fix; a bad configuration fails', async () => {
    configure(fakeConfig({ model: 'llama-missing', provider: 'ollama' }))
    let c = checks((await doctor()).json)
    expect(c['llm-server']).toMatchObject({ status: 'warn', message: expect.stringContaining('does not serve llama-missing (it serves fake-model)'), fix: expect.stringContaining('ollama pull llama-missing') })
    configure(fakeConfig({ baseUrl: await deadBaseUrl() }))
    const down = await doctor()
    expect(checks(down.json)['llm-server']).toMatchObject({ status: 'warn', message: expect.stringContaining('ECONNREFUSED') })
    configure({ provider: 'anthropic', model: 'claude-x', baseUrl: fake.baseUrl })
    c = checks((await doctor({ ...opts.env, ANTHROPIC_API_KEY: 'only-for-api.anthropic.com' })).json)
    expect(c['llm-key']).toMatchObject({ status: 'warn', message: 'anthropic needs an API key and none is set' })
    configure({ provider: 'chatgpt' })
    const bad = await doctor()
    expect(bad.r.code).toBe(1)
    expect(checks(bad.json).llm).toMatchObject({ status: 'fail', message: expect.stringContaining('llm.provider must be one of') })
  })

  test('not configured: no LLM check at all', async () => {
    const { json } = await doctor()
    expect(json.checks.map((x: any) => x.id).filter((id: string) => id.startsWith('llm'))).toEqual([])
    expect(fake.requests).toHaveLength(0)
  })
})

test('the MCP why takes the same path: the model answers, and --no-llm is not needed to stay extractive without a config', async () => {
  configure(fakeConfig())
  const { client } = await connectStdio({ cwd: repo.dir, env: opts.env })
  try {
    const r = await client.callTool({ name: 'why', arguments: { target: 'match' } })
    expect(structured(r).answer.answerer).toBe('llm (openai-compatible:fake-model)')
    expect(structured(r).llm).toMatchObject({ status: 'answered' })
    expect(text(r)).toContain(`dominated the profile [${memo}]`)
    configure(null)
    const plain = await client.callTool({ name: 'why', arguments: { target: 'match' } })
    expect(structured(plain).answer.answerer).toBe('extractive')
  } finally {
    await client.close()
  }
  expect(fake.calls()).toHaveLength(1)
})

test('start-up: nothing of the AI SDK loads unless a provider is configured (fast path and oclif)', async () => {
  const loaded = join(tmpdir(), `gitwhy-loaded-${process.pid}.txt`)
  const hook = join(tmpdir(), `gitwhy-load-hook-${process.pid}.mjs`)
  const loader = `import { appendFileSync } from 'node:fs'\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(loaded)}, url + '\\n'); return next(url, context) }\n`
  writeFileSync(hook, `import { register } from 'node:module'\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(loader)}))\n`)
  const sdkLoaded = () => {
    const urls = readFileSync(loaded, 'utf8').split('\n').filter((u) => u.startsWith('file://'))
    // the SDK's own code, bundled (dist/bundle/*.mjs) or not (node_modules/ai, @ai-sdk/*)
    return urls.some((u) => /node_modules\/(ai|@ai-sdk)\//.test(u) || readFileSync(new URL(u), 'utf8').includes('AI SDK Warning System'))
  }
  const run = async (args: string[], env: NodeJS.ProcessEnv) => {
    writeFileSync(loaded, '')
    const r = await runCli(args, { ...opts, env: { ...env, NODE_OPTIONS: `--import ${hook}` } })
    expect(r.code, r.stderr).toBe(0)
    return sdkLoaded()
  }
  try {
    for (const env of [opts.env!, { ...opts.env, GITWHY_FAST_CLI: '0' }]) {
      configure(null)
      expect(await run(['why', 'match'], env)).toBe(false)
      configure(fakeConfig())
      expect(await run(['why', 'match', '--no-llm'], env)).toBe(false)
      expect(await run(['why', 'match', '--estimate'], env)).toBe(false)
      rmSync(join(repo.dir, '.gitwhy', 'llm-cache'), { recursive: true, force: true })
      // the control: a configured call does load it
      expect(await run(['why', 'match'], env)).toBe(true)
    }
  } finally {
    rmSync(loaded, { force: true })
    rmSync(hook, { force: true })
  }
})
