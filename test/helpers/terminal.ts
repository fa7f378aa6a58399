// What a terminal must never receive from cordon (the allow-list, checked independently).

/** Sequences a terminal must not receive: anything but text, CR/LF/TAB/BS, SGR and cursor/erase CSI. */
export function offList(bytes: Buffer): string[] {
  const s = bytes.toString('latin1');
  const allowed = /\x1b\[[0-9;:]*[ABCDEFGHfd`aeJKXm]/g;
  const rest = s.replace(allowed, '');
  const bad: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const c = rest.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x08) || c === 0x7f)
      bad.push(JSON.stringify(rest.slice(i, i + 8)));
    if (c === 0xc2 && i + 1 < rest.length && rest.charCodeAt(i + 1) >= 0x80 && rest.charCodeAt(i + 1) <= 0x9f)
      bad.push('C1');
  }
  return bad;
}
