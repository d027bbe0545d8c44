// Live-client check: the AI SDK's MCP client (@ai-sdk/mcp, pinned in package.json) over its stdio
// transport. Usage: node ai_sdk_client.mjs <mode> <calls.json> <cmd> [args...]
// mode: "default" (protocolVersionDiscovery on: probes server/discover, the 2026-07-28 era) or
// "handshake" (protocolVersionDiscovery: false: the 2025 initialize handshake).
// Tools are listed with listTools() (annotations, output schemas) and called as an agent calls
// them: through the AI SDK tool set from tools(), whose execute() an AI SDK agent runs.
import { readFileSync } from 'node:fs';
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

const [mode, callsPath, command, ...args] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(callsPath, 'utf8'));
if (!['default', 'handshake'].includes(mode)) throw new Error(`unknown mode ${mode}`);
const out = { client: '@ai-sdk/mcp', mode, calls: [] };
let client;
const timer = setTimeout(() => {
  out.error = { message: 'timed out after 60 s', code: null };
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(1);
}, 60000);
try {
  client = await createMCPClient({
    name: 'nuif-live-ai-sdk',
    transport: new Experimental_StdioMCPTransport({ command, args, stderr: 'inherit' }),
    ...(mode === 'handshake' ? { protocolVersionDiscovery: false } : {}),
  });
  out.protocolVersion = client.initializeResult?.protocolVersion ?? null;
  const listed = await client.listTools();
  out.tools = listed.tools.map((t) => ({
    name: t.name,
    title: t.title,
    annotations: t.annotations,
    hasOutputSchema: Boolean(t.outputSchema),
  }));
  const tools = await client.tools();
  for (const [i, call] of calls.entries()) {
    const result = await tools[call.name].execute(call.arguments, { toolCallId: `c${i}`, messages: [] });
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
  clearTimeout(timer);
  await client?.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(out.error ? 1 : 0);
