/**
 * One person is one author, and bots own nothing, on a repository built to show it: Evan commits
 * under two emails (the old one for years, the new one lately), José signs with and without
 * accents, a GitHub user commits through both noreply forms, renovate[bot] writes most of one file,
 * and Gus stopped committing long ago. Ownership, risk, ghosts, community owners, context-for-pr
 * and evidence all see one Evan, active; `--no-identity-merge` shows the old split;
 * `.gitwhy/config.json` merges and splits by hand.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { resolveIdentities, normaliseName, githubLogin } from '../../src/history/identity.js'
import { analyze } from '../../src/services/analyze.js'
import { communities, community, ghosts, ownership } from '../../src/services/analytics.js'
import { contextForPr } from '../../src/services/context-for-pr.js'
import { evidence } from '../../src/services/evidence.js'
import { risk } from '../../src/services/risk.js'
import { readMeta } from '../../src/services/workspace.js'
import { createRepo, type Identity, type TestRepo } from '../helpers/repo.js'

const DAY = 86_400
const T0 = 1_600_000_000
const EVAN_OLD: Identity = { name: 'Evan You', email: 'yyx990803@gmail.com' }
const EVAN_NEW: Identity = { name: 'Evan You', email: 'evan@vuejs.org' }
const JOSE_A: Identity = { name: 'José Núñez', email: 'jose@work.test' }
const JOSE_B: Identity = { name: 'jose  nunez', email: 'jnunez@home.test' }
const OCTO_A: Identity = { name: 'octocat', email: '583231+octocat@users.noreply.github.com' }
const OCTO_B: Identity = { name: 'The Octocat', email: 'octocat@users.noreply.github.com' }
const BOT: Identity = { name: 'renovate[bot]', email: '29139614+renovate[bot]@users.noreply.github.com' }
const GUS: Identity = { name: 'Gus Gone', email: 'gus@example.test' }

const block = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `export const ${tag}${i} = ${i}`).join('\n') + '\n'
const fn = (name: string, body: string[]) => `export function ${name}(v: number): number {\n${body.map((b) => `  ${b}\n`).join('')}  return v\n}\n`

function build(repo: TestRepo): void {
  const at = (days: number) => T0 + days * DAY
  // Evan writes the reactive core under his old email, then edits a little under the new one
  repo.write('src/effect.ts', fn('run', Array.from({ length: 30 }, (_, i) => `v = v + ${i} // evan ${i}`)))
  repo.write('src/deps.json', block('dep', 20))
  repo.write('src/ghost.ts', block('gus', 12))
  repo.commit('Reactive core', { date: at(0), author: EVAN_OLD })
  repo.write('src/ghost.ts', block('gus', 12).replace('gus0 = 0', 'gus0 = 100'))
  repo.commit('Gus tweaks his module', { date: at(1), author: GUS })
  repo.write('src/ghost.ts', block('gusx', 12))
  repo.commit('Gus rewrites his module', { date: at(2), author: GUS })
  repo.write('src/effect.ts', fn('run', Array.from({ length: 30 }, (_, i) => (i < 4 ? `v = v * ${i} // evan new ${i}` : `v = v + ${i} // evan ${i}`))))
  repo.commit('Tune the effect runner', { date: at(700), author: EVAN_NEW })
  // José, both spellings
  repo.write('src/jose.ts', block('jose', 6))
  repo.commit('José adds a module', { date: at(710), author: JOSE_A })
  repo.write('src/jose.ts', block('jose', 6) + block('nunez', 6))
  repo.commit('jose extends it', { date: at(711), author: JOSE_B })
  // a GitHub user through both noreply forms
  repo.write('src/octo.ts', block('octo', 5))
  repo.commit('octo adds', { date: at(712), author: OCTO_A })
  repo.write('src/octo.ts', block('octo', 5) + block('cat', 5))
  repo.commit('octo extends', { date: at(713), author: OCTO_B })
  // renovate owns most of deps.json
  repo.write('src/deps.json', block('dep', 20).replace(/= (\d+)$/gm, '= $1.1'))
  repo.commit('chore(deps): update everything', { date: at(720), author: BOT })
  // Evan is active: one more commit, recently
  repo.write('README.md', 'reactivity\n')
  repo.commit('docs: readme', { date: at(800), author: EVAN_NEW })
}

describe('identities', () => {
  let repo: TestRepo
  beforeAll(async () => {
    repo = createRepo()
    build(repo)
    await analyze({ repo: repo.dir })
  })
  afterAll(() => repo?.cleanup())

  test('the rules: normalised names, GitHub logins, placeholders, bots, overrides', () => {
    expect(normaliseName('  José\tNÚÑEZ ')).toBe('jose nunez')
    expect(githubLogin('583231+octocat@users.noreply.github.com')).toBe('octocat')
    expect(githubLogin('octocat@users.noreply.github.com')).toBe('octocat')
    const sig = (name: string, email: string, day: number) => ({ authorName: name, authorEmail: email, authorDate: new Date((T0 + day * DAY) * 1000).toISOString() })
    const m = resolveIdentities([sig('Evan You', 'yyx@gmail.com', 0), sig('Evan You', 'evan@vuejs.org', 5), sig('root', 'a@x', 1), sig('root', 'b@y', 2), sig('Evan You[bot]', 'bot@x', 3)])
    expect(m.get('yyx@gmail.com')).toEqual({ email: 'evan@vuejs.org', name: 'Evan You', emails: ['evan@vuejs.org', 'yyx@gmail.com'] })
    expect(m.get('a@x')!.email).toBe('a@x')
    expect(m.get('b@y')!.email).toBe('b@y')
    expect(m.get('bot@x')!.emails).toEqual(['bot@x'])
    const hand = resolveIdentities([sig('A', 'a@x', 0), sig('B', 'b@y', 1), sig('Evan You', 'yyx@gmail.com', 0), sig('Evan You', 'evan@vuejs.org', 5)], { merge: [['a@x', 'b@y']], split: ['yyx@gmail.com'] })
    expect(hand.get('a@x')!.email).toBe('b@y')
    expect(hand.get('yyx@gmail.com')!.email).toBe('yyx@gmail.com')
    expect(resolveIdentities([sig('Evan You', 'yyx@gmail.com', 0), sig('Evan You', 'evan@vuejs.org', 5)], undefined, false).get('yyx@gmail.com')!.email).toBe('yyx@gmail.com')
  })

  test('ownership lists Evan once, with both emails; José and the octocat once each', async () => {
    const o = await ownership({ repo: repo.dir, target: 'src/', limit: 0 })
    const evan = o.owners.filter((x) => x.name === 'Evan You')
    expect(evan).toHaveLength(1)
    expect(evan[0].email).toBe('evan@vuejs.org')
    expect(evan[0].emails).toEqual(['evan@vuejs.org', 'yyx990803@gmail.com'])
    expect(evan[0].lines).toBe(33) // all of effect.ts; every line of deps.json is the bot's
    expect(o.owners.filter((x) => x.emails.includes('jose@work.test'))).toHaveLength(1)
    expect(o.owners.find((x) => x.emails.includes('jose@work.test'))!.emails).toEqual(['jnunez@home.test', 'jose@work.test'])
    expect(o.owners.filter((x) => x.emails.some((e) => e.includes('octocat')))).toHaveLength(1)
    expect(o.owners.find((x) => x.emails.some((e) => e.includes('octocat')))!.lines).toBe(10)
  })

  test('risk: the owner of the effect runner is active, not gone; ghosts list only Gus', async () => {
    const r = await risk({ repo: repo.dir, target: 'src/effect.ts' })
    expect(r.contributors).toHaveLength(1)
    expect(r.contributors[0].email).toBe('evan@vuejs.org')
    expect(r.reasons.join(' ')).not.toMatch(/inactive|ghost|left/i)
    const g = await ghosts({ repo: repo.dir, days: 180 })
    expect(g.ghosts.map((x) => x.path)).toEqual(['src/ghost.ts'])
  })

  test('bots are never owners, people to ask, ghosts or community owners', async () => {
    const o = await ownership({ repo: repo.dir, target: 'src/deps.json', limit: 0 })
    expect(o.owners).toEqual([])
    const all = await ownership({ repo: repo.dir, target: 'src/', limit: 0 })
    expect(all.owners.some((x) => /bot/.test(x.name + x.email))).toBe(false)
    const r = await risk({ repo: repo.dir, target: 'src/deps.json' })
    expect(r.contributors).toEqual([])
    const pr = await contextForPr({ repo: repo.dir, files: ['src/deps.json', 'src/effect.ts'] })
    expect(pr.owners_to_ask.map((x) => x.email)).toEqual(['evan@vuejs.org'])
    const g = await ghosts({ repo: repo.dir, days: 0 })
    expect(g.ghosts.some((x) => /bot/.test(x.owner.name))).toBe(false)
    for (const c of (await communities({ repo: repo.dir, limit: 0 })).communities) {
      const one = await community({ repo: repo.dir, name: c.id, limit: 0 })
      expect(one.owners.some((x) => /bot/.test(x.name + x.email))).toBe(false)
      expect(new Set(one.owners.map((x) => x.name)).size).toBe(one.owners.length)
    }
  })

  test('evidence names the identity: one canonical author for both of Evan\'s emails', async () => {
    const e = await evidence({ repo: repo.dir, path: 'src/effect.ts', limit: 0 })
    expect(new Set(e.evidence.map((x) => x.commit.email))).toEqual(new Set(['evan@vuejs.org']))
  })

  test('--no-identity-merge: one author per email again, recorded in meta (a change rebuilds)', async () => {
    const s = await analyze({ repo: repo.dir, identityMerge: false })
    expect(s.mode).toBe('full')
    expect(readMeta(repo.dir)!.options.identityMerge).toBe(false)
    const o = await ownership({ repo: repo.dir, target: 'src/', limit: 0 })
    expect(o.owners.filter((x) => x.name === 'Evan You')).toHaveLength(2)
    const r = await risk({ repo: repo.dir, target: 'src/effect.ts' })
    expect(r.contributors[0].email).toBe('yyx990803@gmail.com')
    expect(r.reasons.join(' ')).toMatch(/inactive/)
    expect((await analyze({ repo: repo.dir })).mode).toBe('full')
  })

  test('.gitwhy/config.json identities: merge by hand, split by hand', async () => {
    mkdirSync(join(repo.dir, '.gitwhy'), { recursive: true })
    writeFileSync(join(repo.dir, '.gitwhy', 'config.json'), JSON.stringify({ identities: { merge: [['gus@example.test', 'jose@work.test']], split: ['yyx990803@gmail.com'] } }))
    try {
      await analyze({ repo: repo.dir })
      const o = await ownership({ repo: repo.dir, target: 'src/', limit: 0 })
      expect(o.owners.filter((x) => x.name === 'Evan You')).toHaveLength(2)
      expect(o.owners.find((x) => x.emails.includes('gus@example.test'))!.emails).toEqual(['gus@example.test', 'jnunez@home.test', 'jose@work.test'])
    } finally {
      writeFileSync(join(repo.dir, '.gitwhy', 'config.json'), '{}')
    }
  })

  test('an update regroups: a new email of a known name joins its identity', async () => {
    await analyze({ repo: repo.dir })
    repo.write('src/late.ts', block('late', 3))
    repo.commit('late work', { date: T0 + 900 * DAY, author: { name: 'José Núñez', email: 'jose@new.test' } })
    await analyze({ repo: repo.dir })
    const o = await ownership({ repo: repo.dir, target: 'src/', limit: 0 })
    const jose = o.owners.filter((x) => x.emails.includes('jose@work.test'))
    expect(jose).toHaveLength(1)
    expect(jose[0].email).toBe('jose@new.test')
  })
})
