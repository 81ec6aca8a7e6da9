// How JS hands big JSON values to the mock DataModel: packed (see pack). run.mjs packs the
// place it loads, and the big frames the host sends (see Network in run.mjs), which the
// mock's HttpService:JSONDecode then reads without decoding JSON in Luau.

import { createHash } from 'node:crypto';

// blobId is the git blob id of text: the SHA-1 of "blob <bytes>\0" and its UTF-8 bytes.
export function blobId(text) {
  const bytes = Buffer.from(text, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

// pack writes a JSON value in the form mock/Json.luau's decodePacked reads: faster for
// Luau than JSON, as no string is scanned or unescaped. A value is
//   s<bytes>:<text>   o<count>:<key><value>...   a<count>:<value>...
//   n<number>;   t   f   z (null)   h<40 hex><value>
// Lone surrogates become U+FFFD, as Json.decode makes them. A number JSON cannot hold
// (Infinity, NaN) throws: the caller decodes the JSON in Luau instead, as before.
// With blobIds, a script's Source ({"String": text} under the key "Source") is preceded
// by h and the text's git blob id, which decodePacked tells the mock's EncodingService
// (Studio hashes natively; a crossing from the emulator into JS costs far more).
export function pack(value, { blobIds = false } = {}) {
  const out = [];
  const put = (v, key) => {
    if (typeof v === 'string') {
      const t = v.isWellFormed() ? v : v.toWellFormed();
      out.push(`s${Buffer.byteLength(t, 'utf8')}:`, t);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new Error(`pack: ${v} is not a JSON number`);
      out.push(Object.is(v, -0) ? 'n-0;' : `n${v};`);
    } else if (v === true) {
      out.push('t');
    } else if (v === false) {
      out.push('f');
    } else if (v === null || v === undefined) {
      out.push('z');
    } else if (Array.isArray(v)) {
      out.push(`a${v.length}:`);
      for (const x of v) put(x);
    } else {
      if (blobIds && key === 'Source' && typeof v.String === 'string' && v.String.isWellFormed()) {
        out.push(`h${blobId(v.String)}`);
      }
      const keys = Object.keys(v);
      out.push(`o${keys.length}:`);
      for (const k of keys) {
        put(k);
        put(v[k], k);
      }
    }
  };
  put(value);
  return out.join('');
}
