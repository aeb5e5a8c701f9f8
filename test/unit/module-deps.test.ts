import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const mcp = path.resolve(__dirname, '../../src/mcp')
const imports = (file: string) => [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1])

describe('MCP module dependencies run one way', () => {
  it('tools and resources take the server context from context.ts, never from server.ts (which imports them)', () => {
    const registrars = [
      ...readdirSync(path.join(mcp, 'tools')).map((f) => path.join(mcp, 'tools', f)),
      path.join(mcp, 'resources/index.ts'),
      path.join(mcp, 'prompts/index.ts'),
    ]
    for (const file of registrars) expect(imports(file), file).not.toContain('../server.js')
    expect(imports(path.join(mcp, 'context.ts')).some((i) => i.includes('server') || i.includes('tools'))).toBe(false)
    expect(imports(path.join(mcp, 'server.ts'))).toContain('./tools/index.js')
  })
})
