// How run.mjs hands a place to the mock DataModel: packed (see pack), with each script's
// git blob id computed in JS (see seedBlobIds).

import { createHash } from 'node:crypto';

// seedBlobIds gives each script node of a place the SHA-1 of its Source's git blob input
// ("blob <bytes>\0" and the UTF-8 text), which the mock's EncodingService then answers
// without crossing back into JS (see EncodingService in mock/Services.luau).
export function seedBlobIds(node) {
  if (node === null || typeof node !== 'object') return;
  const text = node.properties?.Source?.String;
  if (typeof text === 'string' && text.isWellFormed()) {
    const bytes = Buffer.from(text, 'utf8');
    node.blobId = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
  }
  if (Array.isArray(node.children)) for (const child of node.children) seedBlobIds(child);
}

// pack writes a JSON value in the form mock/Json.luau's decodePacked reads: faster for
// Luau than JSON, as no string is scanned or unescaped. Lone surrogates become U+FFFD, as
// Json.decode makes them.
export function pack(value) {
  const out = [];
  const put = (v) => {
    if (typeof v === 'string') {
      const t = v.isWellFormed() ? v : v.toWellFormed();
      out.push(`s${Buffer.byteLength(t, 'utf8')}:`, t);
    } else if (typeof v === 'number') {
      out.push(`n${v};`);
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
      const keys = Object.keys(v);
      out.push(`o${keys.length}:`);
      for (const k of keys) {
        put(k);
        put(v[k]);
      }
    }
  };
  put(value);
  return out.join('');
}
