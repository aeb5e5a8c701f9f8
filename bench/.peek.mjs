import { join } from 'node:path'
const ROOT='/work/wt/agent'
const { Client } = await import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js'))
const { StdioClientTransport } = await import(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js'))
const [cli, name, args] = process.argv.slice(2)
const client = new Client({ name: 'x', version: '1' })
await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp'], cwd: '/tmp/agent-core', stderr: 'ignore' }))
if (name.startsWith('gitwhy://')) { const r = await client.readResource({ uri: name }); console.log(r.contents[0].text.slice(0, 3000)) }
else { const r = await client.callTool({ name, arguments: JSON.parse(args) }); console.log(r.content[0].text.slice(0, 1500)); console.log('----'); console.log(JSON.stringify(r.structuredContent).slice(0, 2500)) }
await client.close()
