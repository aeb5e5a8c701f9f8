import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { describeSchema, formatSchema, FTS_INDEXES, renderDDL, SCHEMA_VERSION, TABLES, VECTOR_INDEX } from '../../src/graph/schema.js'
import { trickyGraph } from './fixtures.js'

describe('schema', () => {
  // An index records the version it was built with and is rebuilt when it differs. A table added
  // without a bump (SIMILAR_TO once was) leaves older indexes without it, and their next update
  // fails. Changing the DDL changes this fingerprint: bump SCHEMA_VERSION, then pin the new one.
  it('pins the DDL to SCHEMA_VERSION: a schema change must bump the version', () => {
    const ddl = createHash('sha256').update(`${renderDDL().join('\n')}\n${JSON.stringify(FTS_INDEXES)}${JSON.stringify(VECTOR_INDEX)}`).digest('hex').slice(0, 16)
    expect({ version: SCHEMA_VERSION, ddl }).toEqual({ version: 16, ddl: '881823875169dc62' })
  })

  it('renders node tables before the relationship tables that use them', () => {
    const ddl = renderDDL()
    // definitions sharing a name (CO_CHANGED: File→File, Symbol→Symbol; SNAPSHOT_TOUCHED; GOVERNS; EVIDENCED_BY) are one table with several pairs
    expect(ddl).toHaveLength(new Set(TABLES.map((t) => t.name)).size)
    expect(ddl).toContain('CREATE REL TABLE GOVERNS(FROM Decision TO Symbol, FROM Decision TO File, FROM Decision TO Community, applies_to STRING)')
    expect(ddl[0]).toBe(
      'CREATE NODE TABLE File(path STRING, language STRING, lines INT64, is_test BOOLEAN, present BOOLEAN, revisions INT64, recent_revisions INT64, churn INT64, authors INT64, first_change TIMESTAMP, last_change TIMESTAMP, hotspot DOUBLE, hotspot_percentile DOUBLE, cochange_partners INT64, PRIMARY KEY (path))',
    )
    expect(ddl).toContain(
      'CREATE REL TABLE CO_CHANGED(FROM File TO File, FROM Symbol TO Symbol, shared INT64, degree DOUBLE, confidence DOUBLE, reverse_confidence DOUBLE)',
    )
    expect(ddl).toContain('CREATE REL TABLE TOUCHED(FROM Commit TO File, additions INT64, deletions INT64, change STRING, old_path STRING)')
    const firstRel = TABLES.findIndex((t) => t.kind === 'rel')
    expect(TABLES.slice(firstRel).every((t) => t.kind === 'rel')).toBe(true)
  })

  it('maps every column and endpoint to a field of the GraphData rows', () => {
    const data = trickyGraph() as unknown as Record<string, Array<Record<string, unknown>>>
    for (const def of TABLES) {
      const sample = data[def.rows][0]
      expect(sample, `${def.name} has sample rows`).toBeDefined()
      const fields = def.columns.map((c) => c.field ?? c.name)
      if (def.kind === 'rel') fields.push(def.from.field, def.to.field)
      expect(Object.keys(sample).sort(), def.name).toEqual([...fields].sort())
    }
  })

  it('describes itself as JSON for `gitwhy schema --json`', () => {
    const schema = describeSchema()
    expect(schema.version).toBe(SCHEMA_VERSION)
    expect(schema.nodes.map((n) => n.name)).toEqual(['File', 'Symbol', 'Commit', 'Author', 'PullRequest', 'Issue', 'Community', 'Process', 'Snapshot', 'Doc', 'DocVector', 'Decision'])
    expect(schema.relationships.find((r) => r.name === 'BLAMED_ON')).toMatchObject({ from: 'Symbol', to: 'Commit' })
    expect(schema.nodes.find((n) => n.name === 'Commit')?.primary_key).toBe('sha')
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema)
    const text = formatSchema(schema)
    expect(text).toContain('(:Commit)-[:TOUCHED]->(:File)')
    expect(text).toContain('author_date TIMESTAMP')
  })
})
