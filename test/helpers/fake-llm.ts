/**
 * Fake model servers on 127.0.0.1 speaking the real protocols, for the LLM tests (issue 15):
 *  - OpenAI-compatible: `POST /v1/chat/completions` answering a `chat.completion` with `usage`,
 *    `GET /v1/models` listing the model (what llama.cpp, vLLM, LM Studio and Ollama's /v1 serve);
 *  - Anthropic: `POST /v1/messages` answering a `message` with `usage`, `GET /v1/models`.
 * Every request is recorded (method, path, headers, raw body) so that a test can count calls and
 * look for what must never leave the machine. The reply is a function of the request's prompt.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
}

/** What the fake model is asked: the system text, the user text, and the evidence ids its fences name. */
export interface Asked {
  system: string
  prompt: string
  nonce: string | null
  ids: string[]
  body: any
}

/** The answer's text; or an HTTP error; or `stall`: never answer (the client's timeout must end the call). */
export type Reply = (asked: Asked) => string | { status: number; body: unknown } | { stall: true }

export interface FakeLlm {
  /** The base URL to configure: http://127.0.0.1:PORT/v1 */
  baseUrl: string
  requests: RecordedRequest[]
  /** Only the model calls (not GET /v1/models). */
  calls(): RecordedRequest[]
  reply: Reply
  close(): Promise<void>
}

/** The evidence ids named by the fences of a prompt, in order. */
export function fencedIds(prompt: string): { nonce: string | null; ids: string[] } {
  const ids = [...prompt.matchAll(/^<<<EVIDENCE ([0-9a-f]+) id=(.+?)>>>$/gm)]
  return { nonce: ids[0]?.[1] ?? /<<<SUBJECT ([0-9a-f]+)>>>/.exec(prompt)?.[1] ?? null, ids: ids.map((m) => m[2]) }
}

const words = (s: string) => Math.max(1, Math.ceil(s.length / 4))

async function start(kind: 'openai' | 'anthropic', model: string, reply: Reply): Promise<FakeLlm> {
  const requests: RecordedRequest[] = []
  const fake: FakeLlm = {
    baseUrl: '',
    requests,
    calls: () => requests.filter((r) => r.method === 'POST'),
    reply,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
  const server: Server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (d: string) => (body += d))
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body })
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(json))
      }
      if (req.method === 'GET' && req.url === '/v1/models') {
        return send(
          200,
          kind === 'openai'
            ? { object: 'list', data: [{ id: model, object: 'model', created: 1704067200, owned_by: 'fake' }] }
            : { data: [{ type: 'model', id: model, display_name: 'Fake', created_at: '2025-01-01T00:00:00Z' }], has_more: false, first_id: model, last_id: model },
        )
      }
      const path = kind === 'openai' ? '/v1/chat/completions' : '/v1/messages'
      if (req.method !== 'POST' || req.url !== path) return send(404, { error: { message: `no route ${req.method} ${req.url}` } })
      const json = JSON.parse(body)
      const system = kind === 'openai' ? (json.messages.find((m: any) => m.role === 'system')?.content ?? '') : (json.system?.map?.((b: any) => b.text).join('\n') ?? json.system ?? '')
      const user = kind === 'openai' ? json.messages.filter((m: any) => m.role === 'user').map((m: any) => (typeof m.content === 'string' ? m.content : m.content.map((c: any) => c.text).join(''))).join('\n') : json.messages.map((m: any) => (typeof m.content === 'string' ? m.content : m.content.map((c: any) => c.text).join(''))).join('\n')
      const out = fake.reply({ system, prompt: user, body: json, ...fencedIds(user) })
      if (typeof out !== 'string') return 'stall' in out ? undefined : send(out.status, out.body)
      const input = words(system) + words(user)
      const output = words(out)
      if (kind === 'openai') {
        return send(200, {
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 1704067200,
          model: json.model,
          system_fingerprint: 'fp_fake',
          choices: [{ index: 0, message: { role: 'assistant', content: out, refusal: null }, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
        })
      }
      return send(200, {
        id: `msg_fake${requests.length}`,
        type: 'message',
        role: 'assistant',
        model: json.model,
        content: [{ type: 'text', text: out }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  return fake
}

export const fakeOpenAI = (reply: Reply, model = 'fake-model') => start('openai', model, reply)
export const fakeAnthropic = (reply: Reply, model = 'claude-fake') => start('anthropic', model, reply)

/** A base URL nothing listens on: a port opened and closed again. */
export async function deadBaseUrl(): Promise<string> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as AddressInfo).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return `http://127.0.0.1:${port}/v1`
}

/** A fake model that answers from the first evidence piece, citing it (and whatever else `extra` adds). */
export const citingFirst = (extra = ''): Reply => ({ ids }) => `The code exists because of the change recorded in the first piece of evidence [${ids[0]}].${extra}`
