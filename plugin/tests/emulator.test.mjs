// End-to-end tests of the emulator: a tiny host (a `ws` server on 127.0.0.1, port 0)
// drives the real plugin over a real WebSocket, as the Go host does. Run by tests/run.mjs.

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { WebSocketServer } from 'ws';
import { createRuntime, readSources, srcDir } from '../emulator/runtime.mjs';
import { pack } from '../emulator/pack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const runScript = join(here, '..', 'emulator', 'run.mjs');
const SESSION = '00112233445566778899aabbccddeeff';
const TIMEOUT = 60_000;

function blob(text) {
  const b = Buffer.from(text, 'utf8');
  return createHash('sha1').update(Buffer.concat([Buffer.from(`blob ${b.length}\0`), b])).digest('hex');
}

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

// canonical JSON: object keys sorted, so that key order does not matter
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

function assertEqual(actual, expected, what) {
  const a = canonical(actual);
  const e = canonical(expected);
  if (a !== e) throw new Error(`${what}: got ${a}, want ${e}`);
}

const PLACE = {
  placeId: 1234,
  placeName: 'EmulatorTest',
  root: {
    name: 'Game',
    className: 'DataModel',
    properties: {},
    children: [
      {
        name: 'ReplicatedStorage',
        className: 'ReplicatedStorage',
        properties: {},
        children: [
          {
            name: 'Shared',
            className: 'Folder',
            properties: {},
            children: [
              { name: 'Util', className: 'ModuleScript', properties: { Source: { String: 'return {}\n' } }, children: [] },
              ...Array.from({ length: 12 }, (_, i) => ({
                name: `V${i}`,
                className: 'StringValue',
                properties: { Value: { String: `v${i}` } },
                children: [],
              })),
            ],
          },
        ],
      },
      {
        name: 'ServerScriptService',
        className: 'ServerScriptService',
        properties: {},
        children: [
          {
            name: 'Main',
            className: 'Script',
            properties: { Source: { String: 'print("saved")\n' }, RunContext: { Enum: 1 } },
            children: [],
          },
        ],
      },
      {
        name: 'Workspace',
        className: 'Workspace',
        properties: {},
        children: [
          {
            name: 'Floor',
            className: 'Part',
            properties: { Anchored: { Bool: true }, Size: { Vector3: [10, 1, 10] }, Material: { Enum: 256 } },
            children: [],
          },
        ],
      },
    ],
  },
  drafts: { 'ServerScriptService/Main': 'print("draft")\n' },
  enums: { Material: { Plastic: 256, Neon: 288 } },
};

// A host: accepts plugin connections and lets a test exchange frames with the current one.
class Host {
  constructor() {
    this.wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/plugin' });
    this.connections = [];
    this.waiters = [];
    this.headers = [];
    this.nextId = 1;
    this.wss.on('connection', (ws, req) => {
      this.headers.push(req.headers);
      const conn = { ws, frames: [], listeners: [] };
      this.connections.push(conn);
      ws.on('message', (data) => {
        const frame = JSON.parse(data.toString('utf8'));
        conn.frames.push(frame);
        for (const l of [...conn.listeners]) l(frame);
      });
      for (const w of this.waiters.splice(0)) w(conn);
    });
  }

  async url() {
    await new Promise((resolve) => (this.wss.address() ? resolve() : this.wss.once('listening', resolve)));
    return `ws://127.0.0.1:${this.wss.address().port}/plugin`;
  }

  nextConnection(timeout = TIMEOUT) {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no plugin connected')), timeout);
      this.waiters.push((c) => {
        clearTimeout(t);
        resolve(c);
      });
    });
  }

  frame(conn, pred, timeout = TIMEOUT) {
    const found = conn.frames.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('timed out waiting for a frame')), timeout);
      const l = (f) => {
        if (pred(f)) {
          clearTimeout(t);
          conn.listeners.splice(conn.listeners.indexOf(l), 1);
          resolve(f);
        }
      };
      conn.listeners.push(l);
    });
  }

  /** Sends a request; resolves with {partials, response}. */
  async request(conn, method, params) {
    const id = `r${this.nextId++}`;
    conn.ws.send(JSON.stringify({ type: 'request', id, method, params }));
    const response = await this.frame(conn, (f) => f.type === 'response' && f.id === id);
    const partials = conn.frames.filter((f) => f.type === 'partial' && f.id === id);
    return { partials, response };
  }

  close() {
    for (const c of this.connections) c.ws.terminate();
    return new Promise((resolve) => this.wss.close(resolve));
  }
}

function startEmulator(args, stdin = 'ignore') {
  const child = spawn(process.execPath, [runScript, ...args], { stdio: [stdin, 'pipe', 'pipe'] });
  const state = { stderr: '', stdout: '', exit: null };
  child.stderr.on('data', (d) => (state.stderr += d.toString()));
  child.stdout.on('data', (d) => (state.stdout += d.toString()));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve((state.exit = { code, signal }))));
  return { child, state, exited };
}

function waitFor(check, what, timeout = TIMEOUT) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      const v = check();
      if (v) return resolve(v);
      if (Date.now() - started > timeout) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

export async function runEmulatorTests() {
  const results = { passed: 0, failed: 0, failures: [] };
  const dir = mkdtempSync(join(tmpdir(), 'atlas-emulator-'));
  const placeFile = join(dir, 'place.json');
  const saveFile = join(dir, 'saved.json');
  writeFileSync(placeFile, JSON.stringify(PLACE));

  const host = new Host();
  const url = await host.url();
  const emu = startEmulator(['--url', url, '--place', placeFile, '--save', saveFile, '--review', 'accept', '--session-id', SESSION]);
  const ctx = {};

  const tests = [
    ['says hello with its session id and place, without an Origin header', async () => {
      ctx.conn = await host.nextConnection();
      const hello = await host.frame(ctx.conn, (f) => f.type === 'hello');
      assertEqual(hello, {
        type: 'hello', protocol: 1, pluginVersion: '0.1.0', placeId: 1234, placeName: 'EmulatorTest', sessionId: SESSION,
        context: 'edit', readOnly: false, collaborativeEditing: false, capabilities: ['stage', 'stageAppend'],
      }, 'hello');
      assert(host.headers[0].origin === undefined, 'the upgrade carried an Origin header');
    }],
    ['prints "emulator: connected <sessionId>" when the welcome arrives', async () => {
      ctx.conn.ws.send(JSON.stringify({ type: 'welcome', protocol: 1, hostVersion: 'test', project: 'Demo' }));
      await waitFor(() => emu.state.stderr.includes(`emulator: connected ${SESSION}\n`), 'the connected line');
      assert(emu.state.stdout === '', `stdout is not empty: ${emu.state.stdout}`);
    }],
    ['streams a snapshot in partial frames, parent before child', async () => {
      const { partials, response } = await host.request(ctx.conn, 'snapshot', {
        roots: [['ReplicatedStorage'], ['ServerScriptService', 'Main']],
        nodes: [['Workspace', 'Floor']],
        properties: { Part: { Anchored: 'Bool', Size: 'Vector3', Material: 'Enum:Material' }, StringValue: { Value: 'String' } },
        chunkSize: 5,
      });
      assert(response.ok, `snapshot failed: ${JSON.stringify(response.error)}`);
      const all = [...partials.sort((a, b) => a.seq - b.seq).flatMap((p) => p.result.instances), ...response.result.instances];
      // game, RS, Shared, Util, V0..V11, SSS, Main, Workspace, Floor
      assertEqual(all.length, 20, 'instance count');
      assertEqual(partials.length, 3, 'partial count');
      assertEqual(partials.map((p) => p.seq), [0, 1, 2], 'partial seqs');
      assert(partials.every((p) => p.result.instances.length === 5), 'every partial holds chunkSize instances');
      const seen = new Set();
      for (const [i, inst] of all.entries()) {
        if (i === 0) assertEqual([inst.parent, inst.className], [null, 'DataModel'], 'game');
        else assert(seen.has(inst.parent), `${inst.name} came before its parent`);
        assert(!seen.has(inst.handle), `handle ${inst.handle} twice`);
        seen.add(inst.handle);
      }
      const byName = Object.fromEntries(all.map((i) => [i.name, i]));
      assertEqual(byName.Floor.properties, { Anchored: { Bool: true }, Size: { Vector3: [10, 1, 10] }, Material: { Enum: 256 } }, 'Floor properties');
      assertEqual(byName.Main.properties, { Source: { String: 'print("saved")\n' }, RunContext: { Enum: 1 } }, 'Main properties');
      assertEqual(byName.V3.properties, { Value: { String: 'v3' } }, 'V3 properties');
      assertEqual(byName.Shared.properties, {}, 'Shared properties');
      ctx.handles = Object.fromEntries(all.map((i) => [i.name, i.handle]));
    }],
    ['reads a script and its unsaved draft', async () => {
      const saved = await host.request(ctx.conn, 'getScript', { handle: ctx.handles.Main });
      assertEqual(saved.response.result, {
        source: 'print("saved")\n', sourceSha1: blob('print("saved")\n'), className: 'Script', isDraft: false, path: ['ServerScriptService', 'Main'],
      }, 'saved script');
      const draft = await host.request(ctx.conn, 'getScript', { path: ['ServerScriptService', 'Main'], draft: true });
      assertEqual([draft.response.result.source, draft.response.result.isDraft], ['print("draft")\n', true], 'draft');
      const notScript = await host.request(ctx.conn, 'getScript', { handle: ctx.handles.Shared });
      assertEqual(notScript.response.error.code, 'E_NOT_A_SCRIPT', 'folder');
    }],
    ['applies a transaction and refuses a failed precondition', async () => {
      const ok = await host.request(ctx.conn, 'apply', {
        txId: 'tx-e2e-1',
        ops: [
          { op: 'edit', handle: ctx.handles.Util, expect: { sourceSha1: blob('return {}\n') }, set: { Source: { String: 'return { answer = 42 } -- <&>\n' } } },
          { op: 'edit', handle: ctx.handles.Floor, expect: { properties: { Size: { Vector3: [10.00001, 1, 10] } } }, set: { Material: { Enum: 288 } } },
          { op: 'add', parent: ctx.handles.Shared, instance: { name: 'New', className: 'ModuleScript', properties: { Source: { String: 'return 1\n' } }, children: [] } },
          { op: 'remove', handle: ctx.handles.V0 },
        ],
      });
      assert(ok.response.ok, `apply failed: ${JSON.stringify(ok.response.error)}`);
      assertEqual(ok.response.result.txId, 'tx-e2e-1', 'txId');
      assertEqual(ok.response.result.results.map((r) => r.ok), [true, true, true, true], 'results');
      assert(typeof ok.response.result.results[2].handle === 'string', 'handle of the added instance');
      const refused = await host.request(ctx.conn, 'apply', {
        txId: 'tx-e2e-2',
        ops: [{ op: 'edit', handle: ctx.handles.Util, expect: { sourceSha1: blob('return {}\n') }, set: { Source: { String: 'x' } } }],
      });
      assertEqual(refused.response.error.code, 'E_PRECONDITION_FAILED', 'refusal');
      assertEqual(refused.response.error.details.failures[0].actual, blob('return { answer = 42 } -- <&>\n'), 'actual hash');
      const tx = await host.request(ctx.conn, 'transactions', {});
      assertEqual(tx.response.result, { txIds: ['tx-e2e-1'] }, 'transactions');
    }],
    ['answers E_NOT_FOUND for a handle of an earlier snapshot', async () => {
      await host.request(ctx.conn, 'snapshot', { roots: [['ServerScriptService']] });
      const stale = await host.request(ctx.conn, 'getScript', { handle: ctx.handles.Main });
      assertEqual(stale.response.error.code, 'E_NOT_FOUND', 'stale handle');
    }],
    ['sends snapshotId, and sourceFrom instead of unchanged sources when reuse names the snapshot just before', async () => {
      const params = { roots: [['ReplicatedStorage'], ['ServerScriptService']], chunkSize: 4 };
      const snap = async (extra) => {
        const { partials, response } = await host.request(ctx.conn, 'snapshot', { ...params, ...extra });
        assert(response.ok, `snapshot failed: ${JSON.stringify(response.error)}`);
        assert(partials.length > 0, 'no partials');
        assert(partials.every((p) => !('snapshotId' in p.result)), 'a partial carries snapshotId');
        const all = [...partials.sort((a, b) => a.seq - b.seq).flatMap((p) => p.result.instances), ...response.result.instances];
        // path of every handle, from game
        const paths = new Map();
        for (const inst of all) paths.set(inst.handle, inst.parent === null ? '' : `${paths.get(inst.parent)}/${inst.name}`);
        const byPath = Object.fromEntries(all.map((i) => [paths.get(i.handle), i]));
        return { id: response.result.snapshotId, all, byPath, paths };
      };
      const scripts = (s) => s.all.filter((i) => ['Script', 'ModuleScript', 'LocalScript'].includes(i.className));
      const fullSources = (s, what) => {
        assert(scripts(s).length === 3, `${what}: ${scripts(s).length} scripts`);
        for (const i of scripts(s)) {
          assert(typeof i.properties.Source?.String === 'string', `${what}: ${i.name} has no Source`);
          assert(!('sourceFrom' in i), `${what}: ${i.name} has sourceFrom`);
        }
      };

      const a = await snap({});
      assert(typeof a.id === 'string' && a.id !== '', `snapshotId ${a.id}`);
      fullSources(a, 'first snapshot');
      const b = await snap({ reuse: 's999-unknown' });
      assert(b.id !== a.id, 'snapshot ids repeat');
      fullSources(b, 'unknown reuse');
      const c = await snap({ reuse: a.id }); // a is stale: b came after it
      fullSources(c, 'stale reuse');

      // between c and d: New is edited (Main has unsaved editor text: Studio would lose
      // it, so Atlas does not write it), a script is added
      const applied = await host.request(ctx.conn, 'apply', {
        txId: 'tx-e2e-reuse',
        ops: [
          { op: 'edit', handle: c.byPath['/ReplicatedStorage/Shared/New'].handle, set: { Source: { String: 'print("edited")\n' } } },
          { op: 'add', parent: c.byPath['/ServerScriptService'].handle, instance: { name: 'Added', className: 'Script', properties: { Source: { String: 'print("added")\n' } }, children: [] } },
        ],
      });
      assert(applied.response.ok, `apply failed: ${JSON.stringify(applied.response.error)}`);

      const d = await snap({ reuse: c.id });
      assertEqual(scripts(d).map((i) => [d.paths.get(i.handle), i.properties.Source ?? null, i.sourceFrom ?? null]), [
        ['/ReplicatedStorage/Shared/Util', null, c.byPath['/ReplicatedStorage/Shared/Util'].handle],
        ['/ReplicatedStorage/Shared/New', { String: 'print("edited")\n' }, null],
        ['/ServerScriptService/Main', null, c.byPath['/ServerScriptService/Main'].handle],
        ['/ServerScriptService/Added', { String: 'print("added")\n' }, null],
      ], 'scripts of the reusing snapshot');
      assertEqual(d.byPath['/ServerScriptService/Main'].properties.RunContext, { Enum: 1 }, 'RunContext still sent');
      assert(d.all.filter((i) => !scripts(d).includes(i)).every((i) => !('sourceFrom' in i)), 'sourceFrom on a non-script');

      // what a host rebuilds from c's sources is what the plugin holds
      const cSource = new Map(c.all.map((i) => [i.handle, i.properties.Source?.String]));
      for (const i of scripts(d)) {
        const text = i.sourceFrom ? cSource.get(i.sourceFrom) : i.properties.Source.String;
        if (i.sourceFrom) assertEqual(c.paths.get(i.sourceFrom), d.paths.get(i.handle), `instance of ${i.name}'s sourceFrom`);
        const got = await host.request(ctx.conn, 'getScript', { handle: i.handle });
        assertEqual(text, got.response.result.source, `rebuilt source of ${i.name}`);
      }
      // c's handles are stale as before
      const stale = await host.request(ctx.conn, 'getScript', { handle: c.byPath['/ReplicatedStorage/Shared/Util'].handle });
      assertEqual(stale.response.error.code, 'E_NOT_FOUND', 'handle of the reused snapshot');
    }],
    ['answers unchanged to a repeated snapshot with allowUnchanged, and in full after a change', async () => {
      const params = { roots: [['ReplicatedStorage'], ['ServerScriptService'], ['Workspace']], properties: { Part: { Size: 'Vector3' } }, chunkSize: 5 };
      const snap = async (extra) => {
        const { partials, response } = await host.request(ctx.conn, 'snapshot', { ...params, ...extra });
        assert(response.ok, `snapshot failed: ${JSON.stringify(response.error)}`);
        const all = [...partials.sort((a, b) => a.seq - b.seq).flatMap((p) => p.result.instances), ...response.result.instances];
        return { partials, result: response.result, all, byName: Object.fromEntries(all.map((i) => [i.name, i])) };
      };
      const a = await snap({});
      assert(a.all.length > 5 && a.result.unchanged === undefined, 'first snapshot');
      const b = await snap({ reuse: a.result.snapshotId, allowUnchanged: true });
      assertEqual([b.partials.length, b.result], [0, { instances: [], snapshotId: a.result.snapshotId, unchanged: true }], 'unchanged answer');
      // a's handles are still valid
      const got = await host.request(ctx.conn, 'getScript', { handle: a.byName.Main.handle });
      assert(got.response.ok, `getScript with a handle of the unchanged snapshot: ${JSON.stringify(got.response.error)}`);
      const applied = await host.request(ctx.conn, 'apply', {
        txId: 'tx-e2e-unchanged',
        ops: [{ op: 'edit', handle: a.byName.Floor.handle, set: { Size: { Vector3: [4, 1, 4] } } }],
      });
      assert(applied.response.ok, `apply with a handle of the unchanged snapshot: ${JSON.stringify(applied.response.error)}`);
      // the apply is a change
      const c = await snap({ reuse: a.result.snapshotId, allowUnchanged: true });
      assert(c.result.unchanged === undefined && c.result.snapshotId !== a.result.snapshotId, 'full after an apply');
      assertEqual(c.byName.Floor.properties.Size, { Vector3: [4, 1, 4] }, 'Size after the apply');
      // an apply's edits are followed like a person's: with delta, the next answer holds them
      const again = await host.request(ctx.conn, 'apply', {
        txId: 'tx-e2e-delta',
        ops: [{ op: 'edit', handle: c.byName.Floor.handle, set: { Size: { Vector3: [5, 1, 5] } } }],
      });
      assert(again.response.ok, `apply: ${JSON.stringify(again.response.error)}`);
      const cd = await snap({ reuse: c.result.snapshotId, allowUnchanged: true, delta: true });
      assertEqual([cd.result.delta, cd.all.map((i) => [i.name, i.handle, i.properties.Size])], [true, [['Floor', c.byName.Floor.handle, { Vector3: [5, 1, 5] }]]], 'a delta after an apply');
      // without reuse, with a stale id, or with Tags asked: full
      for (const [extra, what] of [
        [{ allowUnchanged: true }, 'without reuse'],
        [{ allowUnchanged: true, reuse: a.result.snapshotId }, 'stale id'],
        [{ allowUnchanged: true, reuse: 'LATEST', properties: { Folder: { Tags: 'Tags' } } }, 'Tags asked'],
      ]) {
        const prev = (await snap({ properties: extra.properties ?? params.properties })).result.snapshotId;
        const r = await snap({ ...extra, reuse: extra.reuse === 'LATEST' ? prev : extra.reuse });
        assert(r.result.unchanged === undefined && r.all.length > 5, `full answer ${what}`);
      }
      // a change made by code run in Studio: the next answer is full, then unchanged again
      const d = await snap({});
      const e = await snap({ reuse: d.result.snapshotId, allowUnchanged: true });
      assert(e.result.unchanged === true && e.result.snapshotId === d.result.snapshotId, 'unchanged off the latest id');
      await host.request(ctx.conn, 'exec', { code: 'workspace.Floor.Name = "Ground"' });
      const f = await snap({ reuse: d.result.snapshotId, allowUnchanged: true });
      assert(f.result.unchanged === undefined && f.byName.Ground, 'full after a rename');
      await host.request(ctx.conn, 'exec', { code: 'workspace.Ground.Name = "Floor"' });
    }],
    ['runs code with exec', async () => {
      const r = await host.request(ctx.conn, 'exec', { code: 'print(#game.ReplicatedStorage.Shared:GetChildren()) warn("w") return "done"' });
      assertEqual(r.response.result, { success: true, output: [{ level: 'print', text: '13' }, { level: 'warn', text: 'w' }], returns: ['done'], values: [{ String: 'done' }] }, 'exec');
      const bad = await host.request(ctx.conn, 'exec', { code: 'error("nope")' });
      assertEqual([bad.response.ok, bad.response.result.success], [true, false], 'exec error is data');
    }],
    ['queries an instance: typed properties, attributes, tags, children, duplicate names reported', async () => {
      const made = await host.request(ctx.conn, 'exec', {
        code: 'local f = Instance.new("Folder") f.Name = "Q" f:SetAttribute("Speed", 5) f:AddTag("Hot") f.Parent = workspace ' +
          'for i = 1, 2 do local d = Instance.new("Part") d.Name = "Dup" d.Parent = f end ' +
          'local one = Instance.new("Part") one.Name = "One" one.Size = Vector3.new(1, 2, 3) one.Parent = f return #f:GetChildren()',
      });
      assertEqual(made.response.result.values, [{ Float64: 3 }], 'exec made the folder');
      const r = await host.request(ctx.conn, 'query', {
        path: ['Workspace', 'Q'], depth: 1, children: true, attributes: true, tags: true,
        properties: { Folder: { Name: 'String' }, Part: { Size: 'Vector3', Anchored: 'Bool', Nope: 'Bogus' } }, listServices: true,
      });
      assert(r.response.ok, `query failed: ${JSON.stringify(r.response.error)}`);
      const q = r.response.result.instance;
      assertEqual([q.name, q.className, q.childCount, q.ordinal], ['Q', 'Folder', 3, 0], 'the folder');
      assertEqual(q.properties, { Name: { String: 'Q' } }, 'folder properties');
      assertEqual(q.attributes, { Speed: { Float64: 5 } }, 'attributes');
      assertEqual(q.tags, ['Hot'], 'tags');
      assertEqual(q.duplicates, [{ name: 'Dup', count: 2 }], 'duplicate names');
      assertEqual(q.children.map((c) => [c.name, c.ordinal]), [['Dup', 0], ['Dup', 1], ['One', 0]], 'children and ordinals');
      const one = q.children[2];
      assertEqual(one.properties, { Size: { Vector3: [1, 2, 3] }, Anchored: { Bool: false } }, 'typed values');
      assertEqual(one.unreadable, ['Nope'], 'unreadable');
      assert(r.response.result.services.some((x) => x.className === 'Workspace'), 'services listed');
      const second = await host.request(ctx.conn, 'query', { path: ['Workspace', 'Q', 'Dup'], ordinals: [0, 0, 1], properties: {} });
      assertEqual([second.response.ok, second.response.result.instance.ordinal], [true, 1], 'ordinals pick a duplicate');
      const dup = await host.request(ctx.conn, 'query', { path: ['Workspace', 'Q', 'Dup'], properties: {} });
      assertEqual([dup.response.error.code, dup.response.error.details.duplicates, dup.response.error.details.at], ['E_BAD_REQUEST', 2, ['Workspace', 'Q', 'Dup']], 'duplicates refused');
      const missing = await host.request(ctx.conn, 'query', { path: ['Workspace', 'Q', 'Gone', 'Deeper'], properties: {} });
      assertEqual([missing.response.error.code, missing.response.error.details.nearest, missing.response.error.details.missing],
        ['E_NOT_FOUND', ['Workspace', 'Q'], 'Gone'], 'missing path names its nearest ancestor');
      await host.request(ctx.conn, 'exec', { code: 'workspace.Q:Destroy()' });
    }],
    ['keeps the Output log from LogService.MessageOut, exec\'s print and warn included', async () => {
      await host.request(ctx.conn, 'exec', { code: 'print("log-one") warn("log-two") print("log-three")' });
      const all = await host.request(ctx.conn, 'logs', { count: 1000 });
      const res = all.response.result;
      assert(res.capacity >= 100, `capacity ${res.capacity}`);
      const mine = res.entries.filter((e) => e.text.startsWith('log-'));
      assertEqual(mine.map((e) => [e.level, e.text]), [['output', 'log-one'], ['warning', 'log-two'], ['output', 'log-three']], 'levels from MessageType');
      assert(res.totalSeen >= 3 && res.totalSeen === res.entries[res.entries.length - 1].seq, 'totalSeen is the last seq');
      assert(mine.every((e) => typeof e.time === 'number' && e.time > 1.6e9), 'times are Unix seconds');
      const warnings = await host.request(ctx.conn, 'logs', { count: 10, levels: ['warning'], since: mine[0].seq - 1 });
      assertEqual(warnings.response.result.entries.map((e) => e.text), ['log-two'], 'levels and since filter');
      const oldest = await host.request(ctx.conn, 'logs', { count: 1, direction: 'oldest', since: mine[0].seq - 1 });
      assertEqual(oldest.response.result.entries.map((e) => e.text), ['log-one'], 'oldest first');
      const newest = await host.request(ctx.conn, 'logs', { count: 1 });
      assertEqual(newest.response.result.entries.map((e) => e.text), ['log-three'], 'newest');
    }],
    ['says the run mode and the place', async () => {
      const r = await host.request(ctx.conn, 'state', {});
      assertEqual(r.response.result, { runMode: 'Edit', context: 'edit', placeId: 1234, placeName: 'EmulatorTest', gameId: 0 }, 'state');
    }],
    ['accepts a review with each change\'s default selection (--review accept)', async () => {
      const r = await host.request(ctx.conn, 'review', {
        planHash: 'sha256:abc',
        mode: 'standard',
        changes: [
          { id: 'a', path: 'ReplicatedStorage/Shared/Util', patchType: 'Edit', defaultSelection: 'push' },
          { id: 'b', path: 'ReplicatedStorage/Shared/X', patchType: 'Add', defaultSelection: 'pull' },
          { id: 'c', path: 'ReplicatedStorage/Shared/Y', patchType: 'Edit', defaultSelection: null },
        ],
      });
      assertEqual(r.response.result, { decision: 'accept', selections: { a: 'push', b: 'pull', c: 'skip' } }, 'review answer');
    }],
    ['answers ping and refuses unknown methods', async () => {
      const p = await host.request(ctx.conn, 'ping', {});
      assert(typeof p.response.result.time === 'number', 'ping time');
      const u = await host.request(ctx.conn, 'frobnicate', {});
      assertEqual(u.response.error.code, 'E_BAD_REQUEST', 'unknown method');
    }],
    ['reconnects with the same session id after the connection drops', async () => {
      const next = host.nextConnection();
      ctx.conn.ws.terminate();
      ctx.conn = await next;
      const hello = await host.frame(ctx.conn, (f) => f.type === 'hello');
      assertEqual(hello.sessionId, SESSION, 'session id after reconnect');
      ctx.conn.ws.send(JSON.stringify({ type: 'welcome', protocol: 1, hostVersion: 'test', project: 'Demo' }));
    }],
    ['reads a request sent in requestPart frames, decoded ahead in JS with its Sources hashed', async () => {
      const { partials, response } = await host.request(ctx.conn, 'snapshot', { roots: [['ReplicatedStorage']] });
      const handle = [...partials.flatMap((p) => p.result.instances), ...response.result.instances].find((i) => i.name === 'New').handle;
      const big = 'local s = "é🎉\\n\\t\\"x\\"" -- <&>\n'.repeat(20000);
      // the request's text in three parts, the first long enough for run.mjs to decode it
      const inParts = async (ops, method = 'apply') => {
        const id = `rp${host.nextId++}`;
        const text = JSON.stringify({ type: 'request', id, method, params: { txId: id, ops } });
        const cut = (at) => (text.charCodeAt(at - 1) >= 0xd800 && text.charCodeAt(at - 1) <= 0xdbff ? at + 1 : at);
        const a = cut(Math.min(300_000, text.length >> 1));
        const b = cut(a + 100);
        const pieces = [text.slice(0, a), text.slice(a, b), text.slice(b)];
        pieces.forEach((data, seq) => ctx.conn.ws.send(JSON.stringify({ type: 'requestPart', id, seq, count: 3, data })));
        return host.frame(ctx.conn, (f) => f.type === 'response' && f.id === id);
      };
      const edit = (from, to) => [{ op: 'edit', handle, expect: { sourceSha1: blob(from) }, set: { Source: { String: to } } }];
      const before = (await host.request(ctx.conn, 'getScript', { handle })).response.result.source;
      const written = await inParts(edit(before, big));
      assert(written.ok, `apply failed: ${JSON.stringify(written.error)}`);
      const got = await host.request(ctx.conn, 'getScript', { handle });
      assertEqual([got.response.result.source === big, got.response.result.sourceSha1], [true, blob(big)], 'the Source written');
      // the next precondition is checked against the hash JS gave with the request
      const wrong = await inParts(edit(big + 'x', 'return 2\n'));
      assertEqual([wrong.error?.code, wrong.error?.details?.failures?.[0]?.actual], ['E_PRECONDITION_FAILED', blob(big)], 'refused');
      const back = await inParts(edit(big, before));
      assert(back.ok, `apply failed: ${JSON.stringify(back.error)}`);
      // Staged: the ops come in a stage request's parts, and the apply names them by txId.
      const staged = await inParts(edit(before, big), 'stage');
      assertEqual(staged.result, { txId: staged.id, ops: 1 }, 'staged');
      const source = async () => (await host.request(ctx.conn, 'getScript', { handle })).response.result.source;
      assert((await source()) === before, 'a stage writes nothing');
      const other = (await host.request(ctx.conn, 'apply', { txId: 'another', ops: null, staged: true })).response;
      assertEqual([other.error?.code, other.error?.details?.staged], ['E_BAD_REQUEST', false], 'nothing staged for another txId');
      await inParts(edit(before, big), 'stage');
      const again = await inParts(edit(before, big), 'stage');
      const applied = (await host.request(ctx.conn, 'apply', { txId: again.id, ops: null, staged: true })).response;
      assert(applied.ok, `staged apply failed: ${JSON.stringify(applied.error)}`);
      assert((await source()) === big, 'the staged Source written');
      const twice = (await host.request(ctx.conn, 'apply', { txId: again.id, ops: null, staged: true })).response;
      assertEqual(twice.error?.details?.staged, false, 'staged ops are taken once');
    }],
    ['saves the place on SIGTERM and exits 0', async () => {
      emu.child.kill('SIGTERM');
      const exit = await emu.exited;
      assertEqual(exit.code, 0, 'exit code');
      const saved = JSON.parse(readFileSync(saveFile, 'utf8'));
      assertEqual([saved.placeId, saved.placeName], [1234, 'EmulatorTest'], 'place header');
      const rs = saved.root.children.find((c) => c.name === 'ReplicatedStorage');
      const shared = rs.children.find((c) => c.name === 'Shared');
      const names = shared.children.map((c) => c.name);
      assertEqual(names, ['Util', ...Array.from({ length: 11 }, (_, i) => `V${i + 1}`), 'New'], 'children after apply');
      assertEqual(shared.children[0].properties.Source, { String: 'return { answer = 42 } -- <&>\n' }, 'edited source');
      const floor = saved.root.children.find((c) => c.name === 'Workspace').children[0];
      assertEqual(floor.properties.Material, { Enum: 288 }, 'edited material');
      assertEqual(saved.drafts, { 'ServerScriptService/Main': 'print("draft")\n' }, 'drafts');
      assertEqual(saved.enums, PLACE.enums, 'enums');
    }],
    ['saves and exits 0 when the host closes with 1000 "shutdown"', async () => {
      const save2 = join(dir, 'saved2.json');
      const emu2 = startEmulator(['--url', url, '--place', placeFile, '--save', save2]);
      const conn = await host.nextConnection();
      await host.frame(conn, (f) => f.type === 'hello');
      conn.ws.send(JSON.stringify({ type: 'welcome', protocol: 1, hostVersion: 'test', project: 'Demo' }));
      await waitFor(() => emu2.state.stderr.includes('emulator: connected '), 'the connected line');
      const hello = conn.frames.find((f) => f.type === 'hello');
      assert(/^[0-9a-f]{32}$/.test(hello.sessionId), `random session id ${hello.sessionId}`);
      conn.ws.close(1000, 'shutdown');
      const exit = await emu2.exited;
      assertEqual(exit.code, 0, 'exit code');
      assert(existsSync(save2), 'no saved place');
      const saved = JSON.parse(readFileSync(save2, 'utf8'));
      assertEqual(saved.root.children.map((c) => c.name), ['ReplicatedStorage', 'ServerScriptService', 'Workspace'], 'services');
    }],
    ['takes the place\'s path on stdin with --place -, and exits 1 without one', async () => {
      const emu3 = startEmulator(['--url', url, '--place', '-'], 'pipe');
      // the VM starts before the path comes
      await new Promise((r) => setTimeout(r, 200));
      emu3.child.stdin.end(`${placeFile}\n`);
      const conn = await host.nextConnection();
      await host.frame(conn, (f) => f.type === 'hello');
      conn.ws.send(JSON.stringify({ type: 'welcome', protocol: 1, hostVersion: 'test', project: 'Demo' }));
      await waitFor(() => emu3.state.stderr.includes('emulator: connected '), 'the connected line');
      assert(emu3.state.stderr.includes(`emulator: loaded ${placeFile}`), 'the place from stdin was loaded');
      const { response } = await host.request(conn, 'exec', { code: 'return #game.ServerScriptService:GetChildren()' });
      assertEqual(response.result.returns, [String(PLACE.root.children.find((c) => c.name === 'ServerScriptService').children.length)], 'the place\'s scripts');
      conn.ws.close(1000, 'shutdown');
      assertEqual((await emu3.exited).code, 0, 'exit code');
      const none = startEmulator(['--url', url, '--place', '-'], 'pipe');
      none.child.stdin.end();
      assertEqual((await none.exited).code, 1, 'exit code without a path');
      assert(none.state.stderr.includes('no place path on stdin'), 'the message says why');
    }],
    ['passes multi-megabyte strings into the VM intact', async () => {
      const rt = await createRuntime({ virtualTime: true, log: () => {} });
      await rt.call('installPlugin', JSON.stringify(readSources(srcDir)), '{}');
      const before = rt.bigInPlace;
      for (const size of [100, 300_000, 3_000_000]) {
        // multi-byte characters, and a surrogate pair on every piece boundary would do no harm
        const text = 'é🎉x\n"'.repeat(size / 6);
        const [, got] = await rt.call('eval', 'local _, s = ... return #s .. " " .. require(script.Sha1).blob(s)', 'big', text);
        assertEqual(got, `${Buffer.byteLength(text)} ${blob(text)}`, `string of ${text.length} characters`);
      }
      // both big ones went straight into the VM's memory
      assertEqual(rt.bigInPlace - before, 2, 'strings written in place');
      // a string that is not well-formed UTF-16 goes in pieces, as luau-web converts it
      const lone = 'x'.repeat(200_000) + '\ud800' + 'y'.repeat(200_000);
      const [, pieces] = await rt.call('eval', 'local _, s = ... return #s', 'lone', lone);
      const [, small] = await rt.call('eval', 'local _, s = ... return #s', 'lone', lone.slice(199_990, 200_010));
      assertEqual([pieces, rt.bigInPlace - before], [400_000 + small - 19, 2], 'a lone surrogate, in pieces');
      rt.stop();
    }],
    ['sends big frames out of the VM intact, read in its memory', async () => {
      for (const fastLane of [true, false]) {
        const sent = [];
        let opened = null;
        const rt = await createRuntime({
          virtualTime: true,
          log: () => {},
          fastLane,
          network: { open: (id) => (opened = id), send: (id, text) => sent.push([id, text]), close: () => {} },
          globals: { __test_opened: () => opened },
        });
        const texts = [
          'small é',
          '\ufeff' + 'a byte order mark first, then é🎉 "quotes" \\ and\nlines '.repeat(3000),
          '{"type":"partial","instances":[' + '{"name":"ключ\\u0000"},'.repeat(20_000) + '{}]}',
        ];
        const send = `local _, s = ...
local c = game:GetService("HttpService"):CreateWebStreamClient(Enum.WebStreamClientType.WebSocket, { Url = "ws://127.0.0.1:1/x" })
__mock.networkEvent(__test_opened(), "open")
c:Send(s)
return c.ConnectionState.Name`;
        for (const text of texts) {
          const [, state] = await rt.call('eval', send, 'send', text);
          assertEqual(state, 'Open', 'the client is open');
          assertEqual(sent.at(-1)[1], text, `a frame of ${text.length} characters (fast lane ${fastLane})`);
          assertEqual(sent.at(-1)[0], opened, 'on its client');
        }
        // the two big ones took the fast lane, when there is one
        assertEqual(rt.sentInPlace, fastLane ? 2 : 0, `frames read in place (fast lane ${fastLane})`);
        // bytes that are not UTF-8 are left to luau-web's own way: one frame, not read in place
        const before = [sent.length, rt.sentInPlace];
        await rt.call('eval', send.replace('local _, s = ...', 'local s = string.rep("x", 70000) .. "\\255"'), 'bytes');
        assertEqual([sent.length - before[0], rt.sentInPlace - before[1]], [1, 0], 'a frame that is not UTF-8');
        rt.stop();
      }
    }],
    ['resumes a wait at the next step after a frame of work, and at the next sixtieth after less, never in its own frame', async () => {
      // real time, with a clock the test moves (shared.t; read through a local, as Luau
      // resolves shared.t itself once, when a chunk loads): each call is a frame
      const rt = await createRuntime({ log: () => {} });
      const run = async (code) => (await rt.call('eval', `local S = shared ${code}`, 'frames'))[1];
      await run('S.t = 0 __mock.Scheduler.setClock(function() return S.t end)');
      // a frame that began at 0 and worked 30 ms (more than a sixtieth) before the wait
      await run('S.t = 0');
      // (a step run within the frame, as the frame's own step runs)
      const inFrame = await run('S.t = 0.03 task.spawn(function() task.wait() S.first = S.t end) __mock.Scheduler.step() return S.first');
      assertEqual(inFrame, null, 'not resumed in the frame it yielded in');
      await new Promise((r) => setTimeout(r, 30)); // the step Node runs next is a new frame
      assertEqual(await run('return S.first'), 0.03, 'resumed at the next step, with no more time passed');
      // a frame that began at 1 and worked 5 ms: the next Heartbeat is at 61/60
      await run('S.t = 1');
      await run('S.t = 1.005 task.spawn(function() task.wait() S.second = S.t end)');
      await run('S.t = 1.016');
      await new Promise((r) => setTimeout(r, 30));
      assertEqual(await run('return S.second'), null, 'not before the next sixtieth of a second');
      await run('S.t = 1.017');
      await new Promise((r) => setTimeout(r, 30));
      assertEqual(await run('return S.second'), 1.017, 'resumed at the first step after 61/60');
      await run('__mock.Scheduler.setClock(nil)');
      rt.stop();
    }],
    ['hands a place to Luau packed, read as Json.decode reads its JSON', async () => {
      const rt = await createRuntime({ virtualTime: true, log: () => {} });
      const values = [
        { a: 'quote " backslash \\ tab \t nl \n', 'ключ:1': 'é🎉', e: '', z: null, n: [0, -1, 2.5, 1e21, 5e-324, -0, 123456789012345] },
        [[], {}, [null, true, false, 's'], 'x'.repeat(300_000) + '🎉'],
        { lone: 'a\ud800b', pair: '\ud83c\udf89', nested: { deeper: { deepest: [1, { k: 'v' }] } } },
        'just a string',
        42,
      ];
      for (const v of values) {
        const text = JSON.stringify(v);
        const [, fromJson] = await rt.call('eval', 'local _, s = ... return __mock.Json.encode(__mock.Json.decode(s), { sortKeys = true })', 'json', text);
        const [, fromPacked] = await rt.call('eval', 'local _, s = ... return __mock.Json.encode(__mock.Json.decodePacked(s), { sortKeys = true })', 'packed', pack(v));
        assertEqual(fromPacked, fromJson, `packed ${text.slice(0, 60)}`);
      }
      const decodes = 'local _, b = ... local ok, v = pcall(__mock.Json.decodePacked, b) return if ok then v else "refused: " .. tostring(v)';
      const whole = pack('abc');
      assertEqual((await rt.call('eval', decodes, 'whole', whole))[1], 'abc', 'a packed string');
      const trailing = new Uint8Array([...whole, 0x74]);
      assert(String((await rt.call('eval', decodes, 'trailing', trailing))[1]).startsWith('refused: packed JSON: trailing bytes'), 'trailing bytes are refused');
      const cut = whole.subarray(0, whole.length - 1);
      assert(String((await rt.call('eval', decodes, 'cut', cut))[1]).startsWith('refused:'), 'a cut value is refused');
      rt.stop();
      // Off the fast lane, bytes go as hex pieces and arrive the same.
      const slow = await createRuntime({ virtualTime: true, log: () => {}, fastLane: false });
      await slow.call('installPlugin', JSON.stringify(readSources(srcDir)), '{}');
      const big = pack(values[1]);
      const [, viaHex] = await slow.call('eval', 'local _, b = ... return __mock.Json.encode(__mock.Json.decodePacked(b), { sortKeys = true })', 'hex', big);
      const [, viaJson] = await slow.call('eval', 'local _, s = ... return __mock.Json.encode(__mock.Json.decode(s), { sortKeys = true })', 'json', JSON.stringify(values[1]));
      assertEqual(viaHex, viaJson, 'packed bytes in hex pieces');
      assertEqual((await slow.call('eval', decodes, 'empty', new Uint8Array(0)))[1].startsWith('refused:'), true, 'no bytes: refused, not a crash');
      assertEqual(slow.bigInPlace, 0, 'nothing took the fast lane');
      slow.stop();
    }],
    ['gives each script Source its git blob id in a packed value, which decodePacked passes on', async () => {
      const rt = await createRuntime({ virtualTime: true, log: () => {} });
      const place = { root: { name: 'Game', className: 'DataModel', children: [
        { name: 'A', className: 'ModuleScript', properties: { Source: { String: 'return "é"\n' } } },
        { name: 'B', className: 'Folder', properties: { Source: 'not a tagged string' }, children: [{ name: 'C', className: 'Script', properties: { Source: { String: 'print(1)' } } }] },
        { name: 'D', className: 'Script', properties: { Source: { String: 'lone \ud800' } } },
      ] } };
      const packed = pack(place, { blobIds: true });
      const [, seen] = await rt.call('eval', `local _, s = ...
local seen = {}
__mock.Json.decodePacked(s, function(text, hex) table.insert(seen, hex .. " " .. text) end)
table.sort(seen)
return table.concat(seen, "|")`, 'blobs', packed);
      assertEqual(seen, [`${blob('print(1)')} print(1)`, `${blob('return "é"\n')} return "é"\n`].sort().join('|'), 'blob ids');
      assert(Buffer.from(packed).includes('h'.concat(blob('print(1)'))), 'blob ids when asked');
      assert(!Buffer.from(pack(place)).includes('h'.concat(blob('print(1)'))), 'no blob ids unless asked');
      let threw = false;
      try {
        pack({ n: Infinity });
      } catch {
        threw = true;
      }
      assert(threw, 'Infinity is refused');
      rt.stop();
    }],
    ['rejects bad arguments with exit code 2', async () => {
      const bad = startEmulator(['--url', url, '--review', 'maybe']);
      const exit = await bad.exited;
      assertEqual(exit.code, 2, 'exit code');
      assert(bad.state.stderr.includes('--review'), 'the message names the flag');
    }],
  ];

  for (const [name, fn] of tests) {
    try {
      await fn();
      results.passed++;
    } catch (e) {
      results.failed++;
      results.failures.push({ name, message: `${e.message}\n--- emulator stderr (tail) ---\n${emu.state.stderr.split('\n').slice(-15).join('\n')}` });
    }
  }
  if (emu.state.exit === null) emu.child.kill('SIGKILL');
  await host.close();
  rmSync(dir, { recursive: true, force: true });
  return results;
}
