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
import { createHash } from 'node:crypto';
import v8 from 'node:v8';
import { LuauState } from 'luau-web';

// V8 recompiles a wasm function with its optimizing compiler once the function has run
// for its tiering budget (1.8 MB of code by default). Starting a VM runs the Luau
// compiler over the mock and the plugin, which spends that budget in more than a
// hundred functions of the compiler that run little after; the VM's own interpreter
// runs for seconds whatever the budget. A budget twenty times larger leaves those
// out: on a 10k-script place, 72 functions optimized instead of 178 and the place
// loaded in 1,070 ms instead of 1,250 (the snapshot after it as fast), with the
// compiler's threads competing less with the host's own start. (A V8 that does not
// know the flag says so on stderr, and runs on.)
v8.setFlagsFromString('--wasm-tiering-budget=40000000');

// Enum.HashAlgorithm names → Node's hash names (Blake2b and Blake3 are not offered).
const HASHES = { Md5: 'md5', Sha1: 'sha1', Sha256: 'sha256' };

const here = dirname(fileURLToPath(import.meta.url));

// luau-web 1.4.0 is built with a fixed 17.5 MB heap (no memory growth): too small for a
// place with thousands of scripts. Its memory is defined inside the wasm binary, so the
// binary's memory section is rewritten before it is instantiated, to a larger fixed size
// (ATLAS_LUAU_MEMORY_MB, default 2048). Pages are only backed by RAM once touched.
const MEMORY_MB = Number(process.env.ATLAS_LUAU_MEMORY_MB) || 2048;

function readLeb(bytes, pos) {
  let result = 0;
  let shift = 0;
  let b;
  do {
    b = bytes[pos++];
    result += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  return [result, pos];
}

function writeLeb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

/** Returns the wasm binary with its (single, non-imported) memory set to `pages` pages. */
export function withMemoryPages(binary, pages) {
  const bytes = binary instanceof Uint8Array ? binary : new Uint8Array(binary);
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return binary;
  let pos = 8;
  while (pos < bytes.length) {
    const id = bytes[pos];
    const [size, bodyStart] = readLeb(bytes, pos + 1);
    if (id === 5) {
      let [count, p] = readLeb(bytes, bodyStart);
      if (count !== 1) return binary;
      const flags = bytes[p++];
      const [min] = readLeb(bytes, p);
      if (min >= pages || (flags & 2) !== 0) return binary; // already larger, or shared
      const body = [...writeLeb(1), 0x00, ...writeLeb(pages)];
      const section = [5, ...writeLeb(body.length), ...body];
      const out = new Uint8Array(bytes.length - (bodyStart + size - pos) + section.length);
      out.set(bytes.subarray(0, pos), 0);
      out.set(section, pos);
      out.set(bytes.subarray(bodyStart + size), pos + section.length);
      return out;
    }
    pos = bodyStart + size;
  }
  return binary;
}

let memoryPatched = false;
// The VM's memory, once luau-web has instantiated its binary (for Runtime's fast lane).
let wasmMemory = null;
function patchWasmMemory() {
  if (memoryPatched) return;
  memoryPatched = true;
  const pages = Math.min(65536, Math.max(1, Math.floor((MEMORY_MB * 1024 * 1024) / 65536)));
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async function (source, imports) {
    if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
      source = withMemoryPages(source, pages);
    }
    const result = await instantiate.call(this, source, imports);
    const exports = (result.instance ?? result).exports ?? {};
    wasmMemory ??= Object.values(exports).find((v) => v instanceof WebAssembly.Memory) ?? null;
    return result;
  };
}

// bufferAddress reads the address of a Luau buffer's object from its tostring
// ("buffer: 0x0000000000162398"), or null.
function bufferAddress(text) {
  const m = /^buffer: 0x([0-9a-fA-F]{1,16})$/.exec(String(text));
  return m ? Number.parseInt(m[1], 16) : null;
}
// bufferBytes gives the n bytes of the Luau buffer whose tostring is where, as a view of
// the VM's memory, or null when it cannot vouch for them: no memory found, or an address
// that does not hold a buffer of that length. Luau's buffer object: a 4-byte header, its
// length (uint32), then its bytes at +8.
function bufferBytes(where, n) {
  if (wasmMemory === null) return null;
  const address = bufferAddress(where);
  const memory = wasmMemory.buffer;
  if (address === null || address % 8 !== 0 || address + 8 + n > memory.byteLength) return null;
  if (new DataView(memory).getUint32(address + 4, true) !== n) return null;
  return new Uint8Array(memory, address + 8, n);
}

// readInPlace decodes the bytes of a Luau buffer (Boot's send; see bufferBytes), or
// gives null when they cannot be vouched for or are not UTF-8 (luau-web's own way then
// carries them as it does). A leading byte order mark is kept, as it is text.
function readInPlace(where, n) {
  const bytes = bufferBytes(where, n);
  if (bytes === null) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

export const pluginRoot = join(here, '..');
export const srcDir = join(pluginRoot, 'src');
export const mockDir = join(here, 'mock');

// The longest string passed to Luau as one argument: 128 Ki UTF-16 units, at most 384 KiB
// of UTF-8 on luau-web's 1 MiB wasm stack.
const PIECE = 1 << 17;

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
  const fastLane = options.fastLane !== false;
  const stats = { sentInPlace: 0 };
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
    // A big frame's fast lane out (Boot's send): the text is read from a Luau buffer in
    // the VM's memory. False, having sent nothing, when that cannot be vouched for.
    __js_ws_send_big(id, where, n) {
      if (!network) throw new Error('no network in this runtime');
      const text = fastLane ? readInPlace(where, n) : null;
      if (text === null) return false;
      stats.sentInPlace++;
      network.send(id, text);
      return true;
    },
    __js_ws_close(id) {
      if (network) network.close(id);
    },
    __js_has_network() {
      return network !== null;
    },
    // EncodingService:ComputeStringHash: the digest of text (UTF-8), or of hex-encoded bytes.
    __js_hash(algorithm, text, isHex) {
      const name = HASHES[String(algorithm)];
      if (!name) throw new Error(`unsupported hash algorithm ${algorithm}`);
      const data = isHex ? Buffer.from(String(text), 'hex') : Buffer.from(String(text), 'utf8');
      return createHash(name).update(data).digest('hex');
    },
    __js_cpu_time() {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    },
    ...(options.globals ?? {}),
  };
  patchWasmMemory();
  state = await LuauState.createAsync(env);

  const mockSources = readSources(mockDir);
  // The generated data (one long string) is compiled here and handed over as a
  // function: passing its text through Luau to __js_compile would copy it twice more.
  const data = state.loadstring(mockSources.Data, '=mock.Data', false);
  delete mockSources.Data;
  const boot = state.loadstring(mockSources.Boot, '=mock.Boot', true);
  const [api] = await boot(mockSources, options.virtualTime === true, data);
  return new Runtime(state, api, fastLane, stats);
}

/** Runtime is a mock DataModel in a Luau VM. Calls into Luau are queued, one at a time. */
export class Runtime {
  constructor(state, api, fastLane = true, stats = { sentInPlace: 0 }) {
    this.state = state;
    this.stats = stats;
    // fastLane: big strings and bytes may be written straight into the VM's memory.
    this.fastLane = fastLane;
    this.api = api;
    this.queue = Promise.resolve();
    this.timer = null;
    this.stopped = false;
    this.bigId = 0;
    // bigInPlace counts the big strings that took the fast lane.
    this.bigInPlace = 0;
  }

  /** The big frames Luau sent that JS read in the VM's memory (the fast lane out). */
  get sentInPlace() {
    return this.stats.sentInPlace;
  }

  /** Calls api[name](...args) in Luau after every earlier call has finished. */
  call(name, ...args) {
    const run = async () => {
      const fn = this.api[name];
      if (typeof fn !== 'function') throw new Error(`mock has no entry ${name}`);
      for (let i = 0; i < args.length; i++) {
        if (args[i] instanceof Uint8Array) args[i] = await this.#passBytes(args[i]);
        else if (typeof args[i] === 'string' && args[i].length > PIECE) args[i] = await this.#passBig(args[i]);
      }
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

  // luau-web copies a string argument onto the wasm stack (1 MiB), one UTF-16 unit at a
  // time in JS (about 17 ms per MB), so a big string goes another way, and the call gets a
  // token in its place. The fast lane: Luau makes a buffer of the string's UTF-8 length
  // (Boot's bigBuffer) and gives its address, JS encodes the string straight into the VM's
  // memory there, and Luau turns the buffer into the string. Where that cannot be vouched
  // for (no memory found, an address that does not hold a buffer of that length, a string
  // that is not well-formed UTF-16), the string is sent in pieces, each its own argument,
  // and joined in Luau.
  async #passBig(text) {
    const id = ++this.bigId;
    if (await this.#passBigInPlace(id, text)) {
      this.bigInPlace++;
      return `\u0001big:${id}`;
    }
    const pieces = [];
    for (let at = 0; at < text.length; ) {
      let end = Math.min(at + PIECE, text.length);
      const code = text.charCodeAt(end - 1);
      if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--; // keep surrogate pairs whole
      pieces.push(text.slice(at, end));
      at = end;
    }
    await this.#putPieces(id, pieces);
    return `\u0001big:${id}`;
  }

  // #putPieces sends the pieces of big value id to Luau (Boot's putBig), which keeps
  // them as a list, empty when there are none.
  async #putPieces(id, pieces) {
    await this.api.putBig(id);
    // A few pieces per call: luau-web pushes arguments without growing the Lua stack
    // (LUA_MINSTACK is 20 slots), and more arguments than that corrupt the VM.
    for (let i = 0; i < pieces.length; i += 8) {
      await this.api.putBig(id, ...pieces.slice(i, i + 8));
    }
  }

  async #passBigInPlace(id, text) {
    if (!text.isWellFormed()) return false;
    const bytes = Buffer.byteLength(text, 'utf8');
    return this.#inPlace(id, bytes, (dest) => {
      const { read, written } = new TextEncoder().encodeInto(text, dest);
      return read === text.length && written === bytes;
    });
  }

  // #passBytes hands bytes (a Uint8Array) to Luau as a buffer, the call getting a token
  // in its place: written into the VM's memory by the fast lane, or else sent as hex
  // text in pieces that Luau turns back into bytes.
  async #passBytes(bytes) {
    const id = ++this.bigId;
    if (await this.#inPlace(id, bytes.length, (dest) => (dest.set(bytes), true))) {
      this.bigInPlace++;
      return `\u0001buf:${id}`;
    }
    const pieces = [];
    for (let at = 0; at < bytes.length; at += PIECE / 2) {
      pieces.push(Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(PIECE / 2, bytes.length - at)).toString('hex'));
    }
    await this.#putPieces(id, pieces);
    return `\u0001buf:${id}`;
  }

  // #inPlace has Luau make a buffer of n bytes (Boot's bigBuffer) and lets write fill
  // it in the VM's memory (bufferBytes). False when that cannot be vouched for.
  async #inPlace(id, n, write) {
    if (!this.fastLane || wasmMemory === null) return false;
    const [where] = await this.api.bigBuffer(id, n);
    const dest = bufferBytes(where, n);
    return dest !== null && write(dest);
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
