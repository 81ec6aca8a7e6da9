// How JS hands big JSON values to the mock DataModel: packed (see pack). run.mjs packs the
// place it loads, and the big frames the host sends (see Network in run.mjs), which the
// mock's HttpService:JSONDecode then reads without decoding JSON in Luau.

import { createHash } from 'node:crypto';

// blobId is the git blob id of text: the SHA-1 of "blob <bytes>\0" and its UTF-8 bytes.
export function blobId(text) {
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

// pack writes a JSON value in the binary form mock/Json.luau's decodePacked reads from a
// buffer: faster for Luau than JSON, as no string is scanned or unescaped and every
// length is one read. A value is a tag byte and what follows it:
//   s u32 byte length, UTF-8 text    o u32 count, count × (key as an s value, value)
//   a u32 count, count × value       n f64    t    f    z (null)
//   h 40 hex digits, value (the value is a script's Source, below)
// Integers are little-endian. Lone surrogates become U+FFFD, as Json.decode makes them.
// A number JSON cannot hold (Infinity, NaN) throws: the caller decodes the JSON in Luau
// instead. With blobIds, a script's Source ({"String": text} under the key "Source") is
// preceded by h and the text's git blob id, which decodePacked tells the mock's
// EncodingService (Studio hashes natively; a crossing from the emulator into JS costs
// far more). Returns a Uint8Array.
export function pack(value, { blobIds = false } = {}) {
  let buf = new Uint8Array(1 << 16);
  let view = new DataView(buf.buffer);
  let at = 0;
  const encoder = new TextEncoder();
  const room = (n) => {
    if (at + n <= buf.length) return;
    let size = buf.length * 2;
    while (size < at + n) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(buf.subarray(0, at));
    buf = bigger;
    view = new DataView(buf.buffer);
  };
  const head = (tag, n) => {
    room(5);
    buf[at] = tag;
    view.setUint32(at + 1, n, true);
    at += 5;
  };
  const str = (v) => {
    const t = v.isWellFormed() ? v : v.toWellFormed();
    room(5 + t.length * 3);
    buf[at] = 0x73; // s
    const { written } = encoder.encodeInto(t, buf.subarray(at + 5));
    view.setUint32(at + 1, written, true);
    at += 5 + written;
  };
  const put = (v, key) => {
    if (typeof v === 'string') {
      str(v);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new Error(`pack: ${v} is not a JSON number`);
      room(9);
      buf[at] = 0x6e; // n
      view.setFloat64(at + 1, v, true);
      at += 9;
    } else if (v === true || v === false || v === null || v === undefined) {
      room(1);
      buf[at++] = v === true ? 0x74 : v === false ? 0x66 : 0x7a;
    } else if (Array.isArray(v)) {
      head(0x61, v.length); // a
      for (const x of v) put(x);
    } else {
      if (blobIds && key === 'Source' && typeof v.String === 'string' && v.String.isWellFormed()) {
        room(41);
        buf[at] = 0x68; // h
        encoder.encodeInto(blobId(v.String), buf.subarray(at + 1, at + 41));
        at += 41;
      }
      const keys = Object.keys(v);
      head(0x6f, keys.length); // o
      for (const k of keys) {
        str(k);
        put(v[k], k);
      }
    }
  };
  put(value);
  return buf.subarray(0, at);
}
