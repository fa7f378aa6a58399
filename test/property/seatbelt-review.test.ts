// Issue 23 (the expert review of the Seatbelt profile) checked on the model: the generated
// rules evaluated with Seatbelt's documented semantics (last match wins, default deny) by
// test/helpers/sbpl.ts. Whether macOS evaluates the same way is for the darwin lane.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { buildSeatbeltPlan } from '../../src/plan/macos/seatbelt.ts';
import { aliasesRegex } from '../../src/plan/macos/seatbelt-aliases.ts';
import type { SandboxPolicy } from '../../src/policy/types.ts';
import { isAllowed } from '../helpers/sbpl.ts';
import { resolveCase, SEATBELT_CASES } from '../helpers/seatbelt-cases.ts';

const flag = { kind: 'flag', flag: '--read' } as const;
const HOME = '/Users/user';
const CWD = `${HOME}/project`;

function plan(extra: Partial<SandboxPolicy>, env: Record<string, string> = {}) {
  const policy: SandboxPolicy = {
    platform: 'darwin',
    rules: [
      { path: '/', access: 'read', source: flag },
      { path: HOME, access: 'write', source: flag },
      { path: `${HOME}/.ssh`, access: 'none', source: flag },
      { path: CWD, access: 'write', source: flag },
      { path: `${CWD}/.env`, access: 'none', source: flag },
      { path: `${CWD}/.git`, access: 'read', source: flag },
      { path: `${CWD}/Café`, access: 'none', source: flag },
      { path: '/private/tmp', access: 'write', source: flag },
    ],
    network: 'off',
    privateTmp: false,
    cwd: CWD,
    profile: 'review',
    ...extra,
  };
  return buildSeatbeltPlan({ policy, command: ['true'], env, host: syntheticHost('darwin') });
}

describe('item 5: other spellings of a carve-out are carved out too', () => {
  const p = plan({});
  it.each([
    [`${HOME}/.SSH/id_rsa`, 'file-read-data'],
    [`/System/Volumes/Data${HOME}/.ssh/id_rsa`, 'file-read-data'],
    [`/System/Volumes/Data${HOME}/.Ssh`, 'file-read-metadata'],
    [`${CWD}/.ENV`, 'file-write-create'],
    [`${CWD}/.Env`, 'file-read-data'],
    [`${CWD}/.GIT/config`, 'file-write-data'],
    [`${CWD}/CAFÉ/x`, 'file-read-data'],
    [`${CWD}/${'Cafe\u0301'}/x`, 'file-read-data'],
    [`${CWD}/${'cafe\u0301'}`, 'file-write-create'],
  ])('%s: %s denied', (path, op) => {
    expect(isAllowed(p, op, path)).toBe(false);
  });

  it('the exact spellings still work where the policy allows them', () => {
    expect(isAllowed(p, 'file-write-create', `${CWD}/src/x.ts`)).toBe(true);
    expect(isAllowed(p, 'file-read-data', `${CWD}/.git/config`)).toBe(true);
    expect(isAllowed(p, 'file-write-data', `${CWD}/.git/config`)).toBe(false);
    expect(isAllowed(p, 'file-read-data', `${CWD}/.envrc`)).toBe(true);
  });

  it('the alias regex matches exactly the case/NFC/NFD variants of the path and its subtree', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9._ éüÅ-]{1,8}$/);
    fc.assert(
      fc.property(
        name,
        name,
        fc.boolean(),
        fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
        (a, b, nfd, flips) => {
          const path = `/Users/u/${a}`;
          const re = new RegExp(aliasesRegex(path));
          const variant = (s: string) =>
            [...s].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c)).join('');
          const spelled = variant(path).normalize(nfd ? 'NFD' : 'NFC');
          expect(re.test(spelled)).toBe(true);
          expect(re.test(`${spelled}/${b}`)).toBe(true);
          expect(re.test(`/System/Volumes/Data${spelled}`)).toBe(true);
          const other = `/Users/u/${b}`;
          expect(re.test(other)).toBe(
            other.toLowerCase().normalize('NFC') === path.toLowerCase().normalize('NFC'),
          );
          expect(re.test(`${path}x`)).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('items 1-2: unix sockets are the command own, in every network mode', () => {
  const sock = (p: ReturnType<typeof plan>, path: string) => ({
    bind: isAllowed(p, 'network-bind', path),
    connect: isAllowed(p, 'network-outbound', path),
  });
  for (const network of ['off', 'on'] as const) {
    it(`network ${network}: own sockets yes, host daemons and denied paths no, even with --write ~ and /tmp`, () => {
      const p = plan({ network }, { SSH_AUTH_SOCK: `${HOME}/agents/ssh.sock` });
      expect(sock(p, `${CWD}/s.sock`)).toEqual({ bind: true, connect: true });
      expect(sock(p, '/private/tmp/test.sock')).toEqual({ bind: true, connect: true });
      for (const daemon of [
        `${HOME}/.docker/run/docker.sock`,
        `${HOME}/.DOCKER/run/docker.sock`,
        '/private/var/run/docker.sock',
        `${HOME}/.orbstack/run/docker.sock`,
        `${HOME}/.colima/default/docker.sock`,
        `${HOME}/.gnupg/S.gpg-agent`,
        `${HOME}/.ssh/agent.sock`,
        `${HOME}/Library/Group Containers/2BUA8C4S2C.com.1password/t/agent.sock`,
        '/private/tmp/com.apple.launchd.Xy12/Listeners',
        '/private/tmp/ssh-AbCdEf12/agent.4242',
        `${HOME}/agents/ssh.sock`,
        `${CWD}/.env`,
        `${CWD}/.git/fsmonitor.sock`,
        '/private/var/run/syslog',
      ])
        expect({ daemon, ...sock(p, daemon) }).toEqual({ daemon, bind: false, connect: false });
    });
  }

  it('--allow-unix opens exactly the named socket, even a daemon one', () => {
    const p = plan({ allowUnix: [`${HOME}/.docker/run/docker.sock`, '/private/var/run/other.sock'] });
    expect(isAllowed(p, 'network-outbound', `${HOME}/.docker/run/docker.sock`)).toBe(true);
    expect(isAllowed(p, 'network-outbound', '/private/var/run/other.sock')).toBe(true);
    expect(isAllowed(p, 'network-outbound', '/private/var/run/other.sock.x')).toBe(false);
    expect(isAllowed(p, 'network-bind', `${HOME}/.docker/run/docker.sock`)).toBe(false);
  });

  it('network on allows IP and the resolver socket, not every socket (no bare network rule)', () => {
    const p = plan({ network: 'on' });
    expect(p.profile).not.toMatch(/\(allow network[-a-z*]*\)/);
    expect(p.profile).toContain('(allow network-outbound (remote ip "*:*"))');
    expect(isAllowed(p, 'network-outbound', '/private/var/run/mDNSResponder')).toBe(true);
  });
});

describe('items 3, 4, 9, 10: devices, links, the user cache dir, PATH', () => {
  it('/dev comes only from the base: another terminal is not readable through "/"', () => {
    const p = plan({});
    expect(isAllowed(p, 'file-read-data', '/dev/ttys003')).toBe(false);
    expect(isAllowed(p, 'file-write-data', '/dev/ttys003')).toBe(false);
    expect(isAllowed(p, 'file-ioctl', '/dev/ttys003')).toBe(false);
    expect(isAllowed(p, 'file-read-data', '/dev/disk0')).toBe(false);
    expect(isAllowed(p, 'file-read-metadata', '/dev/ttys003')).toBe(true);
    // (/dev/null and /dev/zero also need a vnode type, which the model does not evaluate)
    for (const dev of ['/dev/urandom', '/dev/stdout', '/dev/stderr', '/dev/stdin', '/dev/fd/1'])
      expect({ dev, read: isAllowed(p, 'file-read-data', dev) }).toEqual({ dev, read: true });
  });

  it('links only from the writable roots, clones from anything readable', () => {
    const p = plan({});
    expect(isAllowed(p, 'file-link', `${CWD}/a`)).toBe(true);
    expect(isAllowed(p, 'file-link', '/usr/bin/true')).toBe(false);
    expect(isAllowed(p, 'file-link', `${HOME}/.ssh/id_rsa`)).toBe(false);
    expect(isAllowed(p, 'file-clone', '/usr/bin/true')).toBe(true);
    expect(isAllowed(p, 'file-clone', `${HOME}/.ssh/id_rsa`)).toBe(false);
  });

  it('the confstr user cache dir is writable; its temp dir is hidden with the shared $TMPDIR', () => {
    const c = SEATBELT_CASES.find((x) => x.name === 'strict')!;
    const { plan: p } = resolveCase(c);
    expect(isAllowed(p, 'file-write-create', '/private/var/folders/zz/C/clang/ModuleCache/x.pcm')).toBe(true);
    expect(isAllowed(p, 'file-read-data', '/private/var/folders/zz/T/other-app/x')).toBe(false);
  });

  it('a denied PATH entry is dropped, the others keep their order', () => {
    const { plan: p } = resolveCase(SEATBELT_CASES.find((x) => x.name === 'path-entry-denied')!);
    expect(p.env['PATH']).toBe('/usr/bin:relative:/bin');
  });

  it('strict with --net reads the resolver files; an explicit deny still wins', () => {
    const { plan: strict } = resolveCase(SEATBELT_CASES.find((x) => x.name === 'strict-network-on')!);
    expect(isAllowed(strict, 'file-read-data', '/private/var/run/resolv.conf')).toBe(true);
    expect(isAllowed(strict, 'file-read-data', '/private/etc/hosts')).toBe(true);
    const denied = plan({
      network: 'on',
      rules: [
        { path: '/usr', access: 'read', source: flag },
        { path: '/private', access: 'none', source: flag },
      ],
    });
    expect(isAllowed(denied, 'file-read-data', '/private/var/run/resolv.conf')).toBe(false);
  });
});

describe('items 6, 7, 11: preferences, semaphores, loopback, quiet denials', () => {
  it('no unrestricted preference, semaphore or network rule in any golden', () => {
    for (const c of SEATBELT_CASES) {
      const { plan: p } = resolveCase(c);
      expect(p.profile).not.toContain('(allow user-preference-read)');
      expect(p.profile).not.toContain('(allow ipc-posix-sem)');
      expect(p.profile).not.toMatch(/\(allow network[-a-z*]*\)/);
    }
  });

  it('localBinding is off by default and loopback-only when on', () => {
    expect(plan({}).profile).not.toContain('(local ip');
    const on = plan({ localBinding: true }).profile;
    expect(on).toContain('(allow network-inbound (local ip "localhost:*"))');
    expect(on).toContain('(allow network-outbound (remote ip "localhost:*"))');
    expect(on).not.toContain('(remote ip "*:*")');
  });
});
