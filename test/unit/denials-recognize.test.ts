import { describe, expect, it } from 'vitest';
import { extractAddress, extractPaths, hintOf, recognizeFailures } from '../../src/denials/recognize.ts';

describe('recognizeFailures', () => {
  it('recognizes file errors from common tools with their paths and operation words', () => {
    const text = [
      "touch: cannot touch '/etc/x': Read-only file system",
      'cat: /home/user/.ssh/id_rsa: Permission denied',
      "ls: cannot open directory '/home/user/.ssh': Permission denied",
      'sh: 1: cannot create /opt/z: Read-only file system',
      "Error: EROFS: read-only file system, open '/usr/x'",
      "PermissionError: [Errno 13] Permission denied: 'notes.txt'",
      'mkdir: cannot create directory ‘/srv/data’: Permission denied',
      'open /var/lib/thing: permission denied',
      "fatal: Unable to create '/w/.git/index.lock': Read-only file system.",
      'hello world',
      "  code: 'EROFS',",
    ].join('\n');
    expect(recognizeFailures(text)).toEqual([
      {
        kind: 'fs',
        errno: 'EROFS',
        paths: ['/etc/x'],
        hint: 'create',
        line: "touch: cannot touch '/etc/x': Read-only file system",
      },
      {
        kind: 'fs',
        errno: 'EACCES',
        paths: ['/home/user/.ssh/id_rsa'],
        hint: 'unknown',
        line: 'cat: /home/user/.ssh/id_rsa: Permission denied',
      },
      {
        kind: 'fs',
        errno: 'EACCES',
        paths: ['/home/user/.ssh'],
        hint: 'read',
        line: "ls: cannot open directory '/home/user/.ssh': Permission denied",
      },
      {
        kind: 'fs',
        errno: 'EROFS',
        paths: ['/opt/z'],
        hint: 'create',
        line: 'sh: 1: cannot create /opt/z: Read-only file system',
      },
      {
        kind: 'fs',
        errno: 'EROFS',
        paths: ['/usr/x'],
        hint: 'unknown',
        line: "Error: EROFS: read-only file system, open '/usr/x'",
      },
      {
        kind: 'fs',
        errno: 'EACCES',
        paths: ['notes.txt'],
        hint: 'unknown',
        line: "PermissionError: [Errno 13] Permission denied: 'notes.txt'",
      },
      {
        kind: 'fs',
        errno: 'EACCES',
        paths: ['/srv/data'],
        hint: 'create',
        line: 'mkdir: cannot create directory ‘/srv/data’: Permission denied',
      },
      {
        kind: 'fs',
        errno: 'EACCES',
        paths: ['/var/lib/thing'],
        hint: 'unknown',
        line: 'open /var/lib/thing: permission denied',
      },
      {
        kind: 'fs',
        errno: 'EROFS',
        paths: ['/w/.git/index.lock'],
        hint: 'create',
        line: "fatal: Unable to create '/w/.git/index.lock': Read-only file system.",
      },
    ]);
  });

  it('recognizes network failures and the address they name', () => {
    const lines = [
      'curl: (6) Could not resolve host: example.com',
      'npm error request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org',
      'Error: getaddrinfo ENOTFOUND api.github.com',
      'Error: connect ECONNREFUSED 10.1.2.3:443',
      'Error: connect ECONNREFUSED 127.0.0.1:5432',
      'ssh: connect to host github.com port 22: Network is unreachable',
      'socket.gaierror: [Errno -3] Temporary failure in name resolution',
      'ping: socket: Operation not permitted',
    ];
    expect(
      recognizeFailures(lines.join('\n')).map((c) => (c.kind === 'net' ? [c.errno, c.address] : c)),
    ).toEqual([
      ['resolve', 'example.com'],
      ['resolve', 'registry.npmjs.org'],
      ['not-found', 'api.github.com'],
      ['refused', '10.1.2.3:443'],
      ['refused', '127.0.0.1:5432'],
      ['unreachable', 'github.com:22'],
      ['resolve', undefined],
      ['socket', undefined],
    ]);
  });

  it('ignores error phrases without a path, and URLs', () => {
    expect(recognizeFailures('Permission denied\nerror: https://x.example/a: Permission denied')).toEqual([]);
  });

  it('hints create before write before read', () => {
    expect([
      hintOf('cannot create x'),
      hintOf("rm: cannot remove 'x'"),
      hintOf('cannot open x'),
      hintOf('x'),
    ]).toEqual(['create', 'write', 'read', 'unknown']);
  });

  it('extracts quoted paths with spaces and colon fields', () => {
    expect(extractPaths("cp: cannot create regular file '/data/my file': Permission denied")).toEqual([
      '/data/my file',
    ]);
    expect(extractPaths("mv: cannot move 'a.txt' to '/etc/b': Read-only file system")).toEqual([
      'a.txt',
      '/etc/b',
    ]);
    expect(extractAddress('wget: unable to resolve host address ‘example.org’')).toBe('example.org');
  });
});
