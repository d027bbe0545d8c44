// Live-client check: a handshake-only client, the TypeScript SDK 1.x (@modelcontextprotocol/sdk,
// pinned in package.json), which always opens with the 2025 `initialize` handshake.
// Usage: node legacy_client.mjs <calls.json> <cmd> [args...]; prints one JSON object on stdout.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [callsPath, command, ...args] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(callsPath, 'utf8'));
const client = new Client({ name: 'nuif-live-legacy-client', version: '0.0.0' });
const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
const out = { client: '@modelcontextprotocol/sdk', mode: 'default', calls: [] };
try {
  await client.connect(transport, { timeout: 20000 });
  out.protocolVersion = transport._protocolVersion ?? null;
  const listed = await client.listTools(undefined, { timeout: 20000 });
  out.tools = listed.tools.map((t) => ({
    name: t.name,
    title: t.title,
    annotations: t.annotations,
    hasOutputSchema: Boolean(t.outputSchema),
  }));
  for (const call of calls) {
    const result = await client.callTool({ name: call.name, arguments: call.arguments }, undefined, { timeout: 20000 });
    out.calls.push({
      name: call.name,
      isError: Boolean(result.isError),
      structuredContent: result.structuredContent ?? null,
      text: result.content?.[0]?.text ?? null,
    });
  }
} catch (err) {
  out.error = { message: String(err?.message ?? err), code: err?.code ?? null };
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(out.error ? 1 : 0);
