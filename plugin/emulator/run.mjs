#!/usr/bin/env node
// The Studio emulator: runs the real Atlas plugin (src/*.luau) on the mock DataModel in a
// Luau VM, and connects it to an Atlas host over a real WebSocket.
//
//   node emulator/run.mjs --url ws://127.0.0.1:PORT/plugin --place PLACE.json
//        [--save FILE] [--review accept|abort|none] [--session-id HEX32] [--keep] [--watch-stdin]
//
// A place whose name ends in .packed is in pack.mjs's form already (the host writes
// its start place so: Luau reads it without decoding JSON). With --place -, the place's
// path comes as the first line of stdin, read once the VM is up (the host makes the
// place meanwhile); no line, and the emulator exits 1. With --watch-stdin, stdin is a
// pipe its parent holds open: its end (the parent exited, even by SIGKILL) stops the
// emulator as SIGTERM does, so it never outlives the atlas process that started it.
//
// Logs go to stderr only; "emulator: connected <sessionId>" is printed when the host's
// welcome arrives. On SIGINT/SIGTERM, or when the host closes the socket with code 1000
// and reason "shutdown", the place is written to --save (if given) and the process exits 0.
// With --keep, a host's shutdown does not end it: the plugin reconnects, as in Studio.

import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { WebSocket } from 'ws';
import { createRuntime, readSources, srcDir } from './runtime.mjs';
import { pack } from './pack.mjs';

const USAGE =
  'usage: node emulator/run.mjs --url ws://127.0.0.1:PORT/plugin [--place PLACE.json] ' +
  '[--save FILE] [--review accept|abort|none] [--session-id HEX32] [--keep] [--watch-stdin]';

function log(line) {
  process.stderr.write(line + '\n');
}

function parseArgs(argv) {
  const opts = { url: null, place: null, save: null, review: 'none', sessionId: null, keep: false, watchStdin: false };
  const names = { '--url': 'url', '--place': 'place', '--save': 'save', '--review': 'review', '--session-id': 'sessionId' };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let value;
    if (arg === '--keep') {
      opts.keep = true;
      continue;
    }
    if (arg === '--watch-stdin') {
      opts.watchStdin = true;
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (arg === '-h' || arg === '--help') {
      log(USAGE);
      process.exit(0);
    }
    const key = names[arg];
    if (!key) throw new Error(`unknown argument ${arg}`);
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new Error(`${arg} needs a value`);
    }
    opts[key] = value;
  }
  if (!opts.url) throw new Error('--url is required');
  if (!/^wss?:\/\//.test(opts.url)) throw new Error('--url must be a ws:// URL');
  if (!['accept', 'abort', 'none'].includes(opts.review)) throw new Error('--review must be accept, abort or none');
  if (opts.sessionId !== null && !/^[0-9a-fA-F]{32}$/.test(opts.sessionId)) {
    throw new Error('--session-id must be 32 hex digits');
  }
  return opts;
}

// Frames at least this long are decoded in JS as they arrive (see Network.ahead).
const AHEAD_MIN = 1 << 18;

// The transport behind the mock's HttpService:CreateWebStreamClient: one ws client per id.
class Network {
  constructor() {
    this.sockets = new Map();
    this.runtime = null;
    this.sessionId = null;
    this.onShutdown = null;
    // requestPart texts by socket and request id, until every part has come
    this.parts = new Map();
  }

  deliver(id, kind, a, b) {
    this.runtime.call('wsEvent', id, kind, a ?? null, b ?? null).catch((e) => log(`emulator: ${e.message}`));
  }

  // ahead decodes a big frame in JS, and every requestPart frame, with the request
  // once its last part has come: the mock's HttpService:JSONDecode answers those texts
  // with these values (Services.networkEvent) instead of decoding the JSON in Luau,
  // which costs seconds where Studio's native decoder takes milliseconds. The plugin
  // still receives every frame's text and joins the parts itself; the mock names the
  // request by the same join. Returns the packed list [frame's value, request's value]
  // (the second only when the frame completes a request), or null; whatever JS cannot
  // parse or pack is left to Luau.
  ahead(id, text) {
    const isPart = text.startsWith('{"type":"requestPart"');
    if (text.length < AHEAD_MIN && !isPart) return null;
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return null;
    }
    const out = [frame];
    if (isPart && frame?.type === 'requestPart') {
      const request = this.joinPart(id, frame);
      if (request !== null) {
        try {
          out.push(JSON.parse(request));
        } catch {
          // not JSON: the plugin's decode of the joined text says so
        }
      }
    }
    try {
      return pack(out, { blobIds: true });
    } catch {
      return null; // not JSON JS can pack: Luau decodes it
    }
  }

  // joinPart keeps a requestPart's piece and returns the request's text once every
  // piece has come, as the plugin's Connection does (malformed parts are its to judge).
  joinPart(id, { id: req, seq, count, data }) {
    if (typeof req !== 'string' || !Number.isInteger(seq) || !Number.isInteger(count) || typeof data !== 'string') return null;
    if (count < 1 || seq < 0 || seq >= count) return null;
    const key = `${id}/${req}`;
    let entry = this.parts.get(key);
    if (!entry || entry.count !== count) {
      entry = { count, texts: new Array(count).fill(null) };
      this.parts.set(key, entry);
    }
    entry.texts[seq] = data;
    if (entry.texts.some((t) => t === null)) return null;
    this.parts.delete(key);
    return entry.texts.join('');
  }

  open(id, url) {
    // No Origin header (the host refuses upgrades that carry one), no compression, and no
    // size limit here: the host enforces its own.
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 2 ** 31 - 1 });
    this.sockets.set(id, ws);
    ws.on('open', () => this.deliver(id, 'open'));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString('utf8');
      if (text.length < 65536 && text.includes('"welcome"')) {
        try {
          if (JSON.parse(text).type === 'welcome') log(`emulator: connected ${this.sessionId}`);
        } catch {
          // not ours to judge: the plugin ignores it too
        }
      }
      this.deliver(id, 'message', text, this.ahead(id, text));
    });
    // A refused upgrade (the host answers 403 to an Origin header, for one) reaches the
    // plugin's Error signal with its HTTP status, as Studio's WebStreamClient does.
    let status = 0;
    ws.on('unexpected-response', (req, res) => {
      status = res.statusCode;
      this.deliver(id, 'error', status, `${res.statusCode} ${res.statusMessage ?? ''}`.trim());
      ws.terminate();
    });
    ws.on('error', (err) => {
      if (status === 0) this.deliver(id, 'error', 0, err.message);
    });
    ws.on('close', (code, reason) => {
      this.sockets.delete(id);
      for (const key of this.parts.keys()) if (key.startsWith(`${id}/`)) this.parts.delete(key);
      if (code === 1000 && reason.toString() === 'shutdown' && this.onShutdown) {
        this.onShutdown('the host shut down');
        return;
      }
      this.deliver(id, 'close');
    });
  }

  send(id, text) {
    const ws = this.sockets.get(id);
    if (!ws || ws.readyState !== WebSocket.OPEN) throw new Error('the socket is not open');
    if (this.sessionId === null && text.length < 4096 && text.includes('"hello"')) {
      try {
        const frame = JSON.parse(text);
        if (frame.type === 'hello') this.sessionId = frame.sessionId;
      } catch {
        // the plugin only sends JSON
      }
    }
    ws.send(text);
  }

  close(id) {
    const ws = this.sockets.get(id);
    if (!ws) return;
    if (ws.readyState === WebSocket.OPEN) ws.close(1000);
    else ws.terminate();
  }

  closeAll() {
    for (const ws of this.sockets.values()) ws.terminate();
    this.sockets.clear();
  }
}

// readStdin reads stdin as it comes: firstLine resolves to its first line (the text
// before its end when it has no newline, null when it is empty), ended once it ends
// or fails.
function readStdin() {
  const stream = process.stdin;
  stream.setEncoding('utf8'); // a character cut between chunks stays whole
  let text = '';
  let lined = false;
  let resolveLine, resolveEnd;
  const firstLine = new Promise((r) => (resolveLine = r));
  const ended = new Promise((r) => (resolveEnd = r));
  const line = (value) => {
    if (lined) return;
    lined = true;
    text = '';
    resolveLine(value);
  };
  stream.on('data', (chunk) => {
    if (lined) return;
    text += chunk;
    const nl = text.indexOf('\n');
    if (nl >= 0) line(text.slice(0, nl));
  });
  const end = () => {
    line(text === '' ? null : text);
    resolveEnd();
  };
  stream.on('end', end);
  stream.on('close', end);
  stream.on('error', end);
  return { firstLine, ended };
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    log(`emulator: ${e.message}\n${USAGE}`);
    process.exit(2);
  }

  const network = new Network();
  const runtime = await createRuntime({
    network,
    log: (level, text) => log(level === 'print' ? `plugin: ${text}` : `plugin ${level}: ${text}`),
  });
  network.runtime = runtime;

  let stopping = false;
  const shutdown = async (why) => {
    if (stopping) return;
    stopping = true;
    log(`emulator: stopping (${why})`);
    let code = 0;
    if (opts.save) {
      try {
        const [text] = await runtime.call('savePlace');
        const tmp = `${opts.save}.tmp-${process.pid}`;
        writeFileSync(tmp, text);
        renameSync(tmp, opts.save);
        log(`emulator: saved the place to ${opts.save}`);
      } catch (e) {
        log(`emulator: could not save the place: ${e.message}`);
        code = 1;
      }
    }
    runtime.stop();
    network.closeAll();
    process.exit(code);
  };
  if (!opts.keep) network.onShutdown = shutdown;
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  const stdin = opts.place === '-' || opts.watchStdin ? readStdin() : null;
  if (opts.place === '-') {
    opts.place = await stdin.firstLine;
    if (!opts.place) {
      log('emulator: no place path on stdin');
      process.exit(1);
    }
    if (!opts.watchStdin) process.stdin.destroy();
  }
  if (opts.watchStdin) stdin.ended.then(() => shutdown('stdin closed: the parent is gone'));
  if (opts.place) {
    const started = performance.now();
    let packed = null;
    let text = null;
    if (opts.place.endsWith('.packed')) {
      packed = readFileSync(opts.place); // packed already, blob ids included (the host's WritePackedPlace)
    } else {
      text = readFileSync(opts.place, 'utf8');
      try {
        packed = pack(JSON.parse(text), { blobIds: true });
      } catch {
        // not JSON JS can pack (Infinity, say): Luau decodes it, and says what is wrong
      }
    }
    if (packed !== null) await runtime.call('loadPlacePacked', packed);
    else await runtime.call('loadPlace', text);
    log(`emulator: loaded ${opts.place} in ${(performance.now() - started).toFixed(0)} ms`);
  } else {
    await runtime.call('newPlace');
  }

  const settings = { AtlasUrl: opts.url };
  if (opts.sessionId) settings.AtlasSessionId = opts.sessionId.toLowerCase();
  if (opts.review !== 'none') settings.AtlasAutoReview = opts.review;
  await runtime.call('installPlugin', JSON.stringify(readSources(srcDir)), JSON.stringify(settings));
  await runtime.call('runMain');
  log(`emulator: plugin started, connecting to ${opts.url}`);
}

process.on('unhandledRejection', (e) => log(`emulator: ${e?.stack ?? e}`));

main().catch((e) => {
  log(`emulator: ${e?.stack ?? e}`);
  process.exit(1);
});
