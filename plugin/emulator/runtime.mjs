// Hosts one Luau VM (luau-web) with the mock DataModel loaded, and drives it from Node:
// timers, WebSocket events and file I/O stay in JS; everything else runs in Luau.
//
// luau-web crosses the JS⇄Luau boundary through JSON transactions (tens of µs per call),
// so the boundary is kept narrow: Luau calls a handful of `__js_*` functions, and JS
// enters Luau only through the functions of the table that mock/Boot.luau returns.
// Entries into Luau are serialized: the VM is never re-entered while it runs.

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LuauState } from 'luau-web';

const here = dirname(fileURLToPath(import.meta.url));
export const pluginRoot = join(here, '..');
export const srcDir = join(pluginRoot, 'src');
export const mockDir = join(here, 'mock');

/** Reads every `*.luau` file of a directory into {stem: source}. */
export function readSources(dir) {
  const out = {};
  for (const f of readdirSync(dir).sort()) {
    if (f.endsWith('.luau')) out[basename(f, '.luau')] = readFileSync(join(dir, f), 'utf8');
  }
  return out;
}

/**
 * Creates a VM with the mock DataModel.
 * options.log(level, text): plugin output (print/warn/error), default stderr.
 * options.network: {open(id, url), send(id, text), close(id, code, reason)} for WebStreamClients.
 * options.virtualTime: true to drive task.* with a virtual clock (tests).
 * options.globals: extra JS values visible to Luau as globals.
 */
export async function createRuntime(options = {}) {
  const log = options.log ?? ((level, text) => process.stderr.write(`[${level}] ${text}\n`));
  const network = options.network ?? null;
  let state;
  const env = {
    __js_compile(src, chunkname) {
      const r = state.loadstring(String(src), String(chunkname), false);
      return typeof r === 'function' ? [r] : [false, String(r)];
    },
    __js_log(level, text) {
      log(String(level), String(text));
    },
    __js_ws_open(id, url) {
      if (!network) throw new Error('no network in this runtime');
      network.open(id, String(url));
    },
    __js_ws_send(id, text) {
      if (!network) throw new Error('no network in this runtime');
      network.send(id, text);
    },
    __js_ws_close(id) {
      if (network) network.close(id);
    },
    __js_has_network() {
      return network !== null;
    },
    __js_cpu_time() {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    },
    ...(options.globals ?? {}),
  };
  state = await LuauState.createAsync(env);

  const mockSources = readSources(mockDir);
  const boot = state.loadstring(mockSources.Boot, '=mock.Boot', true);
  const [api] = await boot(mockSources, options.virtualTime === true);
  return new Runtime(state, api);
}

/** Runtime is a mock DataModel in a Luau VM. Calls into Luau are queued, one at a time. */
export class Runtime {
  constructor(state, api) {
    this.state = state;
    this.api = api;
    this.queue = Promise.resolve();
    this.timer = null;
    this.stopped = false;
  }

  /** Calls api[name](...args) in Luau after every earlier call has finished. */
  call(name, ...args) {
    const run = async () => {
      const fn = this.api[name];
      if (typeof fn !== 'function') throw new Error(`mock has no entry ${name}`);
      const [ok, ...rest] = await fn(...args);
      // Every entry returns ok, next-timer-delay (or nil), results...; see Boot.luau.
      const next = rest.shift();
      this.#schedule(next);
      if (!ok) throw new Error(String(rest[0]));
      return rest;
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => {});
    return p;
  }

  #schedule(next) {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (typeof next === 'number' && next >= 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.call('step').catch((e) => process.stderr.write(`emulator: step failed: ${e.message}\n`));
      }, Math.min(Math.ceil(next * 1000), 2 ** 31 - 1));
    }
  }

  /** Stops the timers; the VM stays usable for direct calls. */
  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
