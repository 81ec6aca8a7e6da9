// Measures the emulator on a big place: 50,000 instances of which 10,000 are scripts of
// about 4 KB. It starts the emulator as the host does, then times from the host's side of
// the WebSocket: a full snapshot, a second one without and with `reuse` (sourceFrom for
// unchanged scripts) and with `knownSources` (sourceHash for the texts the host holds), repeated snapshots answered "unchanged" (allowUnchanged), the cost of
// connecting the change signals of 50,000 instances, an apply of 1,000 script edits, and a
// snapshot with reuse after it.
// Not part of npm test.
//
//   node emulator/bench.mjs [--instances 50000] [--scripts 10000] [--script-bytes 4096]

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { WebSocketServer } from 'ws';

const here = dirname(fileURLToPath(import.meta.url));

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
const INSTANCES = arg('--instances', 50_000);
const SCRIPTS = arg('--scripts', 10_000);
const SCRIPT_BYTES = arg('--script-bytes', 4096);

function source(i) {
  const lines = [`--!strict`, `-- module ${i}: generated for the benchmark`, `local M = {}`, ''];
  let n = 0;
  while (lines.join('\n').length < SCRIPT_BYTES - 80) {
    lines.push(`function M.f${n}(a: number, b: string): string`);
    lines.push(`\tif a > ${n} and b ~= "<${n}>" then return b .. "\\t" .. tostring(a) end`);
    lines.push(`\treturn 'x & y ${i}'`);
    lines.push('end');
    n++;
  }
  lines.push('return M', '');
  return lines.join('\n');
}

function blob(text) {
  const b = Buffer.from(text, 'utf8');
  return createHash('sha1').update(Buffer.concat([Buffer.from(`blob ${b.length}\0`), b])).digest('hex');
}

function makePlace() {
  const perPackage = 100; // 1 folder + scripts + values
  const packages = Math.ceil(INSTANCES / perPackage);
  const scriptsPer = Math.ceil(SCRIPTS / packages);
  let scripts = 0;
  let count = 0;
  const children = [];
  for (let p = 0; p < packages && count < INSTANCES; p++) {
    const kids = [];
    count++;
    for (let k = 0; k < perPackage - 1 && count < INSTANCES; k++) {
      if (k < scriptsPer && scripts < SCRIPTS) {
        kids.push({ name: `Mod${k}`, className: 'ModuleScript', properties: { Source: { String: source(scripts) } }, children: [] });
        scripts++;
      } else {
        kids.push({ name: `Value${k}`, className: 'StringValue', properties: { Value: { String: `value ${p}/${k}` } }, children: [] });
      }
      count++;
    }
    children.push({ name: `Pkg${p}`, className: 'Folder', properties: {}, children: kids });
  }
  return {
    place: {
      placeId: 1,
      placeName: 'Bench',
      root: {
        name: 'Game',
        className: 'DataModel',
        properties: {},
        children: [{ name: 'ReplicatedStorage', className: 'ReplicatedStorage', properties: {}, children }],
      },
    },
    count,
    scripts,
  };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'atlas-bench-'));
  const { place, count, scripts } = makePlace();
  const placeText = JSON.stringify(place);
  const placeFile = join(dir, 'place.json');
  writeFileSync(placeFile, placeText);
  console.log(`place: ${count} instances, ${scripts} scripts, ${(placeText.length / 1e6).toFixed(1)} MB of JSON`);

  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/plugin' });
  await new Promise((r) => wss.once('listening', r));
  const url = `ws://127.0.0.1:${wss.address().port}/plugin`;
  const connected = new Promise((resolve) => wss.once('connection', (ws) => resolve(ws)));

  const t0 = performance.now();
  const child = spawn(process.execPath, [join(here, 'run.mjs'), '--url', url, '--place', placeFile], { stdio: ['ignore', 'inherit', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d.toString()));
  child.on('exit', (code) => {
    if (code !== 0 && code !== null) {
      console.error(stderr);
      process.exit(1);
    }
  });
  const ws = await connected;
  const tConnected = performance.now();
  const frames = [];
  let waiting = null;
  ws.on('message', (data) => {
    const text = data.toString('utf8');
    const f = JSON.parse(text);
    f._bytes = text.length;
    frames.push(f);
    if (waiting) waiting(f);
  });
  const until = (pred) =>
    new Promise((resolve) => {
      const found = frames.find(pred);
      if (found) return resolve(found);
      waiting = (f) => pred(f) && resolve(f);
    });
  await until((f) => f.type === 'hello');
  ws.send(JSON.stringify({ type: 'welcome', protocol: 1, hostVersion: 'bench', project: 'Bench' }));
  console.log(`emulator start (load place, start plugin, connect): ${((tConnected - t0) / 1000).toFixed(2)} s`);
  const loadLine = stderr.match(/loaded .* in (\d+) ms/);
  if (loadLine) console.log(`  of which place load: ${(Number(loadLine[1]) / 1000).toFixed(2)} s`);

  ws.send(JSON.stringify({ type: 'request', id: 'count', method: 'exec', params: { code: 'return #game.ReplicatedStorage:GetDescendants(), math.floor(gcinfo() / 1024)' } }));
  const counted = await until((f) => f.type === 'response' && f.id === 'count');
  if (!counted.result?.success) console.log(JSON.stringify(counted));
  console.log(`instances in the emulator: ${counted.result.returns?.[0]} (+ game and ReplicatedStorage), Luau heap ${counted.result.returns?.[1]} MB`);

  // snapshots: the first, a second without reuse, one with every Source known by hash, a
  // third reusing the one before's sources
  const snapshot = async (id, extra = {}) => {
    const s0 = performance.now();
    ws.send(JSON.stringify({
      type: 'request', id, method: 'snapshot',
      params: { roots: [['ReplicatedStorage']], properties: { StringValue: { Value: 'String' } }, chunkSize: 2000, ...extra },
    }));
    const final = await until((f) => f.type === 'response' && f.id === id);
    const s1 = performance.now();
    const parts = frames.filter((f) => f.type === 'partial' && f.id === id);
    const all = [...parts.flatMap((p) => p.result.instances), ...final.result.instances];
    const bytes = parts.reduce((n, p) => n + p._bytes, 0) + final._bytes;
    const seqs = parts.map((p) => p.seq);
    if (seqs.some((q, i) => q !== i)) console.log(`partial seqs out of order or missing: ${seqs.join(',')}`);
    const sources = all.filter((i) => i.properties.Source).length;
    const reused = all.filter((i) => i.sourceFrom).length;
    const byHash = all.filter((i) => i.sourceHash).length;
    return { all, final, ms: s1 - s0, bytes, parts: parts.length, sources, reused, byHash };
  };
  const report = (what, s) =>
    console.log(`${what}: ${s.all.length} instances in ${s.parts} partials + final, ${s.sources} Source, ${s.reused} sourceFrom, ${s.byHash} sourceHash, ${(s.bytes / 1e6).toFixed(1)} MB, ${(s.ms / 1000).toFixed(2)} s`);
  // sources by handle, resolving sourceFrom through the previous snapshot's table
  const sourcesOf = (s, previous) =>
    new Map(s.all.filter((i) => i.properties.Source || i.sourceFrom).map((i) => [i.handle, i.sourceFrom ? previous.get(i.sourceFrom) : i.properties.Source.String]));

  const first = await snapshot('snap1');
  report('snapshot', first);
  const second = await snapshot('snap2');
  report('second snapshot, no reuse', second);
  const knownSources = [...new Set(second.all.filter((i) => i.properties.Source).map((i) => blob(i.properties.Source.String)))];
  report('whole snapshot, every Source known to the host', await snapshot('known', { knownSources }));
  const again = await snapshot('snap2b');
  report('whole snapshot again', again);
  const third = await snapshot('snap3', { reuse: again.final.result.snapshotId });
  report('second snapshot, reuse', third);
  const thirdSources = sourcesOf(third, sourcesOf(again, new Map()));

  // repeated snapshots with nothing changed: answered "unchanged"
  for (let i = 1; i <= 3; i++) {
    const u = await snapshot(`unchanged${i}`, { reuse: third.final.result.snapshotId, allowUnchanged: true });
    const ok = u.final.result.unchanged === true && u.final.result.snapshotId === third.final.result.snapshotId;
    console.log(`repeated snapshot, allowUnchanged: ${ok ? 'unchanged' : 'FULL (unexpected)'}, ${u.bytes} bytes, ${(u.ms).toFixed(1)} ms`);
  }
  // what the watch of a full snapshot costs: Changed and AttributeChanged of every instance
  ws.send(JSON.stringify({
    type: 'request', id: 'connect', method: 'exec', params: {
      code: `local all = game.ReplicatedStorage:GetDescendants()
local f = function() end
local t0 = os.clock()
local cs = table.create(2 * #all)
for i, d in all do cs[2 * i - 1] = d.Changed:Connect(f) cs[2 * i] = d.AttributeChanged:Connect(f) end
local t1 = os.clock()
for _, c in cs do c:Disconnect() end
return #cs, math.floor((t1 - t0) * 1000), math.floor((os.clock() - t1) * 1000)`,
    },
  }));
  const connected2 = await until((f) => f.type === 'response' && f.id === 'connect');
  const [nc, connectMs, disconnectMs] = connected2.result?.returns ?? [];
  console.log(`connections of a snapshot's watch: ${nc} made in ${connectMs} ms, disconnected in ${disconnectMs} ms (Luau os.clock)`);

  // apply 1,000 script edits with their preconditions
  const mods = third.all.filter((i) => i.className === 'ModuleScript').slice(0, 1000);
  const ops = mods.map((m) => ({
    op: 'edit', handle: m.handle,
    expect: { sourceSha1: blob(thirdSources.get(m.handle)) },
    set: { Source: { String: thirdSources.get(m.handle) + '-- edited\n' } },
  }));
  const a0 = performance.now();
  ws.send(JSON.stringify({ type: 'request', id: 'apply', method: 'apply', params: { txId: 'bench', ops } }));
  const applied = await until((f) => f.type === 'response' && f.id === 'apply');
  const a1 = performance.now();
  console.log(`apply: ${ops.length} script edits (hash check + set) ${applied.ok ? 'ok' : 'FAILED ' + JSON.stringify(applied.error)} in ${((a1 - a0) / 1000).toFixed(2)} s`);

  const fourth = await snapshot('snap4', { reuse: third.final.result.snapshotId });
  report('snapshot after the apply, reuse', fourth);
  const fifth = await snapshot('snap5', { reuse: fourth.final.result.snapshotId, allowUnchanged: true });
  console.log(`repeated snapshot after it, allowUnchanged: ${fifth.final.result.unchanged ? 'unchanged' : 'FULL (unexpected)'}, ${(fifth.ms).toFixed(1)} ms`);

  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  wss.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
