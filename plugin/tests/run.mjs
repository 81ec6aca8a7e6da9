// Runs the plugin's tests: every tests/*.spec.luau in a fresh Luau VM with the mock
// DataModel and the plugin installed (as in Studio: a Script "Atlas" with ModuleScript
// children), then the emulator's end-to-end tests (tests/emulator.test.mjs).
// Prints one line per failure and ends with "N passed, N failed"; exits 1 on any failure.
//
//   node tests/run.mjs [filter]     (filter: a substring of the spec file names)

import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { createRuntime, readSources, srcDir } from '../emulator/runtime.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const verbose = process.env.VERBOSE === '1';

function sha1(buf) {
  return createHash('sha1').update(buf).digest('hex');
}

// Test vectors computed here with Node's crypto, checked by Sha1.spec.luau.
function vectors() {
  const mb = Buffer.alloc(1 << 20);
  for (let i = 0; i < mb.length; i++) mb[i] = i % 251;
  const unicode = 'héllo wörld — ✓ 日本語 🎉';
  const edges = {};
  for (const n of [55, 56, 63, 64, 65, 119, 120, 127, 128]) {
    edges[n] = sha1(Buffer.alloc(n, 0x61));
  }
  return {
    megabyte: sha1(mb),
    megabyteBlob: sha1(Buffer.concat([Buffer.from(`blob ${mb.length}\0`), mb])),
    unicode,
    unicodeSha1: sha1(Buffer.from(unicode, 'utf8')),
    unicodeBlob: sha1(Buffer.concat([Buffer.from(`blob ${Buffer.byteLength(unicode)}\0`), Buffer.from(unicode)])),
    edges,
    invalidUtf8Sha1: sha1(Buffer.from([0xf0, 0x28, 0x8c, 0x28])),
    invalidUtf8Blob: sha1(Buffer.concat([Buffer.from('blob 6\0'), Buffer.from([0x61, 0xf0, 0x28, 0x8c, 0x28, 0x62])])),
  };
}

const DRIVER = `
local _, argJson = ...
local arg = __mock.Json.decode(argJson)
TEST_VECTORS = arg.vectors
local Spec = __mock.compile(arg.spec, "=tests.Spec", true)(script)
Spec.install()
local fn, err = __mock.compile(arg.test, "=tests." .. arg.name, true)
if not fn then
	Spec.fail("load " .. arg.name, err)
else
	local ok, e = pcall(fn, script)
	if not ok then
		Spec.fail("load " .. arg.name, e)
	end
end
return __mock.Json.encode(Spec.report())
`;

async function runSpec(file, pluginSources, spec, vecs) {
  const output = [];
  const rt = await createRuntime({
    virtualTime: true,
    log: (level, text) => output.push(`[${level}] ${text}`),
  });
  await rt.call('installPlugin', JSON.stringify(pluginSources), '{}');
  await rt.call('newPlace');
  const test = readFileSync(join(here, file), 'utf8');
  const name = basename(file, '.luau');
  const arg = JSON.stringify({ spec, test, name, vectors: vecs });
  let done, reportJson;
  try {
    [done, reportJson] = await rt.call('eval', DRIVER, 'tests.driver', arg);
  } finally {
    // luau-web cannot create a VM after destroying one, so VMs are left to the process.
    rt.stop();
  }
  if (!done) {
    return { passed: 0, failed: 1, failures: [{ name: `${name}: the test file did not finish`, message: '' }], names: [], output };
  }
  return { ...JSON.parse(reportJson), output };
}

async function main() {
  const pluginSources = readSources(srcDir);
  const spec = readFileSync(join(here, 'support', 'Spec.luau'), 'utf8');
  const vecs = vectors();
  let passed = 0;
  let failed = 0;

  const files = readdirSync(here)
    .filter((f) => f.endsWith('.spec.luau') && f.includes(filter))
    .sort();
  for (const file of files) {
    const started = performance.now();
    let r;
    try {
      r = await runSpec(file, pluginSources, spec, vecs);
    } catch (e) {
      r = { passed: 0, failed: 1, failures: [{ name: file, message: e.stack ?? String(e) }], names: [], output: [] };
    }
    passed += r.passed;
    failed += r.failed;
    const ms = (performance.now() - started).toFixed(0);
    console.log(`${file}: ${r.passed} passed, ${r.failed} failed (${ms} ms)`);
    if (verbose) for (const n of r.names) console.log(`  ${n}`);
    for (const f of r.failures) {
      console.log(`  FAIL ${f.name}\n    ${String(f.message).split('\n').join('\n    ')}`);
    }
    if (verbose && r.output.length > 0) {
      console.log('  output:\n    ' + r.output.join('\n    '));
    } else if (r.failed > 0 && r.output.length > 0) {
      console.log('  output:\n    ' + r.output.slice(-20).join('\n    '));
    }
  }

  if ('emulator'.includes(filter)) {
    const { runEmulatorTests } = await import('./emulator.test.mjs');
    const r = await runEmulatorTests();
    passed += r.passed;
    failed += r.failed;
    console.log(`emulator.test.mjs: ${r.passed} passed, ${r.failed} failed`);
    for (const f of r.failures) console.log(`  FAIL ${f.name}\n    ${String(f.message).split('\n').join('\n    ')}`);
  }

  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((e) => {
  console.error(e);
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
});
