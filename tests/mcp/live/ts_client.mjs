// Live-client check: the TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in
// package.json) against a stdio server. Usage: node ts_client.mjs <mode> <calls.json> <cmd> [args...]
// mode: "default" (no versionNegotiation option: the client's default, the 2025 initialize handshake),
// "pin" (versionNegotiation {pin: "2026-07-28"}) or "auto". calls.json: [{name, arguments}].
// Prints one JSON object on stdout: {protocolVersion, tools: [...], calls: [{name, isError, ...}]}.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, callsPath, command, ...args] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(callsPath, 'utf8'));
const options = {
  default: {},
  auto: { versionNegotiation: { mode: 'auto' } },
  pin: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
}[mode];
if (!options) throw new Error(`unknown mode ${mode}`);
const client = new Client({ name: 'nuif-live-ts-client', version: '0.0.0' }, options);
const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
const out = { client: '@modelcontextprotocol/client', mode, calls: [] };
try {
  await client.connect(transport, { timeout: 20000 });
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? null;
  const listed = await client.listTools(undefined, { timeout: 20000 });
  out.tools = listed.tools.map((t) => ({
    name: t.name,
    title: t.title,
    annotations: t.annotations,
    hasOutputSchema: Boolean(t.outputSchema),
  }));
  for (const call of calls) {
    const result = await client.callTool({ name: call.name, arguments: call.arguments }, { timeout: 20000 });
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
