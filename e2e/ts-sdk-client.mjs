// An MCP client on the official TypeScript SDK (pinned in package.json), the SDK
// most agent hosts embed. cmd/atlas/mcp_e2e_test.go runs it against a real
// `atlas mcp --emulate`:
//
//   node ts-sdk-client.mjs ATLAS_BINARY PROJECT_DIR
//
// It lists the tools, then plans, reads the changed script in Studio, and applies
// with an override carrying the studioHash it read; then it queries Studio, reads the
// Output log and the run mode, reads the journal's resources, and undoes the apply. The SDK validates every
// structuredContent against the tool's outputSchema (it rejects the call
// otherwise); the validator is wrapped to count that it ran. The report goes to
// stdout as one JSON object; any failure exits 1 with the reason on stderr.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { readFileSync } from "node:fs";

const [atlas, project] = process.argv.slice(2);
if (!atlas || !project) {
  console.error("usage: node ts-sdk-client.mjs ATLAS_BINARY PROJECT_DIR");
  process.exit(2);
}

// Counts the structured results the SDK validated against an outputSchema.
class CountingValidator {
  constructor() {
    this.inner = new AjvJsonSchemaValidator();
    this.schemas = 0;
    this.validated = 0;
  }
  getValidator(schema) {
    this.schemas++;
    const validate = this.inner.getValidator(schema);
    return (value) => {
      this.validated++;
      return validate(value);
    };
  }
}

function fail(message) {
  throw new Error(message);
}

const sdkVersion = JSON.parse(
  readFileSync(new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url), "utf8"),
).version;
const validator = new CountingValidator();
const client = new Client({ name: "atlas-e2e-ts-sdk", version: "1" }, { jsonSchemaValidator: validator });
const transport = new StdioClientTransport({
  command: atlas,
  args: ["mcp", "--emulate", "--port", "0"],
  cwd: project,
  env: { ...process.env },
  stderr: "inherit",
});

const report = { sdkVersion, node: process.version, protocolVersion: null, calls: [] };
// The client hands the negotiated revision to a transport that takes it.
transport.setProtocolVersion = (v) => {
  report.protocolVersion = v;
};

// call calls a tool and returns its envelope; the SDK has validated it already.
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  const env = res.structuredContent;
  if (!env || env.schemaVersion !== 1) fail(`${name}: structuredContent is not the envelope: ${JSON.stringify(res)}`);
  if (res.isError === env.ok) fail(`${name}: isError=${res.isError} but ok=${env.ok}`);
  const text = res.content?.[0]?.text ?? "";
  const json = text.includes("<json>") ? text.slice(text.indexOf("<json>") + 6, text.lastIndexOf("</json>")) : text;
  if (JSON.stringify(JSON.parse(json)) !== JSON.stringify(env)) fail(`${name}: text and structuredContent differ`);
  report.calls.push({ name, ok: env.ok, code: env.errors[0]?.code ?? null });
  return env;
}

try {
  await client.connect(transport);
  report.server = client.getServerVersion();

  const { tools } = await client.listTools();
  report.tools = tools.map((t) => t.name).sort();
  for (const t of tools) {
    if (t.outputSchema?.type !== "object") fail(`${t.name}: no object outputSchema`);
  }
  if (validator.schemas !== tools.length) fail(`the SDK compiled ${validator.schemas} output schemas for ${tools.length} tools`);

  // Wait for the emulated Studio.
  const deadline = Date.now() + 40000;
  for (;;) {
    const st = await call("studio_status", {});
    if (st.data.sessions.length === 1) break;
    if (Date.now() > deadline) fail(`no Studio session: ${JSON.stringify(st.data)}`);
    await new Promise((r) => setTimeout(r, 200));
  }

  // The project's disk edit plans as one push.
  const plan = await call("sync_plan", {});
  if (!plan.ok || plan.data.changes.length !== 1) fail(`sync_plan: ${JSON.stringify(plan)}`);
  const change = plan.data.changes[0];
  report.change = change;

  // Studio's version of the script, and the hash to prove what is overwritten.
  const script = await call("get_script", { id: change.id });
  if (!script.ok || script.data.studioHash !== change.studioHash) fail(`get_script: ${JSON.stringify(script)}`);
  report.script = script.data;

  // Refusals are results too, validated like the rest.
  const refused = await call("sync_apply", { confirmToken: plan.data.confirmToken });
  if (refused.ok || refused.errors[0].code !== "E_CONFIRM_REQUIRED" || refused.data !== null) fail(`sync_apply without yes: ${JSON.stringify(refused)}`);
  const invalid = await call("atlas_sync", { mode: "sometimes" });
  if (invalid.ok || invalid.errors[0].code !== "E_BAD_REQUEST") fail(`atlas_sync with a bad mode: ${JSON.stringify(invalid)}`);

  const applied = await call("sync_apply", {
    confirmToken: plan.data.confirmToken,
    yes: true,
    overrides: [{ id: change.id, direction: "push", studioHash: script.data.studioHash }],
  });
  if (!applied.ok) fail(`sync_apply: ${JSON.stringify(applied)}`);
  report.applied = applied.data;

  const after = await call("get_script", { fsPath: change.fsPath });
  report.studioSourceAfter = after.data.source;
  const sync = await call("atlas_sync", {});
  report.atlasSync = { status: sync.data.status, mode: sync.data.mode };

  // The Studio inspection tools: typed values, the Output log, the run mode.
  const query = await call("studio_query", { path: "ServerScriptService/Main", properties: ["Disabled"], children: true });
  if (!query.ok || query.data.instances[0].className !== "Script") fail(`studio_query: ${JSON.stringify(query)}`);
  report.query = query.data.instances[0];
  const ran = await call("run_code", { code: 'print("from-ts-sdk") return Vector3.new(0, 5, 0)' });
  report.runValues = ran.data.values;
  const logs = await call("studio_logs", { count: 1 });
  report.logs = logs.data.entries.map((e) => e.text);
  // Results near and past the size a message may have (the SDK drops a message over
  // 10 MiB, and the connection with it): a 6 MB output comes in structuredContent
  // alone, a 9 MB one is refused; the session goes on.
  const sized = async (mb) => {
    const res = await client.callTool({ name: "run_code", arguments: { code: `print(string.rep("x", ${mb} * 1024 * 1024))` } });
    const env = res.structuredContent;
    if (!env || env.schemaVersion !== 1) fail(`run_code of ${mb} MB: structuredContent is not the envelope`);
    report.calls.push({ name: "run_code", ok: env.ok, code: env.errors[0]?.code ?? null });
    return { ok: env.ok, code: env.errors[0]?.code ?? null, printed: (env.data?.output ?? []).reduce((n, l) => n + l.text.length, 0), text: res.content?.[0]?.text?.length ?? 0,
      ran: env.errors[0]?.details?.result?.success ?? null, message: env.errors[0]?.message ?? "" };
  };
  report.bigOutput = await sized(6);
  report.hugeOutput = await sized(9);
  const state = await call("studio_state", {});
  report.state = { runMode: state.data.runMode, contexts: state.data.sessions.map((s) => s.context) };

  // The journal as resources, then sync_undo of the apply above.
  const { resources } = await client.listResources();
  report.resources = resources.map((r) => r.uri).sort();
  const { resourceTemplates } = await client.listResourceTemplates();
  report.resourceTemplates = resourceTemplates.map((r) => r.uriTemplate);
  const read = async (uri) => {
    const r = await client.readResource({ uri });
    if (r.contents.length !== 1 || r.contents[0].mimeType !== "application/json") fail(`${uri}: ${JSON.stringify(r)}`);
    return JSON.parse(r.contents[0].text);
  };
  const txs = await read("atlas://transactions");
  report.transactions = txs.data.transactions.map((t) => ({ txId: t.txId, state: t.state, counts: t.counts }));
  const tx = await read(`atlas://transactions/${applied.data.txId}`);
  report.transaction = { changes: tx.data.changes.map((c) => c.id), files: tx.data.files.map((f) => f.path), studioOps: tx.data.studioOps.length, outcome: tx.data.outcome };
  const status = await read("atlas://status");
  report.statusSessions = status.data.sessions.length;
  const undone = await call("sync_undo", { txId: applied.data.txId, yes: true });
  if (!undone.ok) fail(`sync_undo: ${JSON.stringify(undone)}`);
  report.undone = { txId: undone.data.txId, studioOps: undone.data.studioOps };
  const afterUndo = await read(`atlas://transactions/${applied.data.txId}`);
  report.stateAfterUndo = afterUndo.data.state;

  report.validated = validator.validated;
  if (report.validated !== report.calls.length) fail(`the SDK validated ${report.validated} of ${report.calls.length} results`);
  await client.close();
  process.stdout.write(JSON.stringify(report) + "\n");
} catch (err) {
  console.error(`ts-sdk-client: ${err?.stack ?? err}`);
  console.error(`ts-sdk-client: report so far: ${JSON.stringify(report)}`);
  await client.close().catch(() => {});
  process.exit(1);
}
