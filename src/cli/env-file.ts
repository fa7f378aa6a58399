// --env-file FILE: dotenv-format variables to set for the command, as `--env NAME=VALUE` does
// (explicitly given, so the credential-name filter does not drop them). The format, as the
// common dotenv loaders read it: `NAME=VALUE` per line, optional `export ` before the name,
// blank lines and `#` comments; a value in single quotes is literal, in double quotes it may
// span lines and knows \n, \t, \" and \\; an unquoted value ends at ` #` and is trimmed.
// Anything else is an error naming the file and line. Pure (parseEnvFile); readEnvFile reads.
import { readFileSync } from 'node:fs';
import { CordonError } from '../errors.ts';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseEnvFile(text: string, file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i]!;
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const body = line.startsWith('export ') ? line.slice(7).trimStart() : line;
    const eq = body.indexOf('=');
    const name = eq === -1 ? body : body.slice(0, eq).trim();
    if (eq === -1 || !NAME.test(name))
      throw new CordonError(
        'bad-env',
        `invalid line in --env-file ${file}:${lineNo}: '${raw.length > 60 ? `${raw.slice(0, 60)}…` : raw}' — use NAME=VALUE`,
      );
    let value = body.slice(eq + 1).trimStart();
    const quote = value[0];
    if (quote === "'" || quote === '"') {
      // The value runs to the matching quote, possibly over several lines.
      let rest = value.slice(1);
      let end = findClosing(rest, quote);
      while (end === -1 && i + 1 < lines.length && quote === '"') {
        rest += `\n${lines[++i]}`;
        end = findClosing(rest, quote);
      }
      if (end === -1)
        throw new CordonError(
          'bad-env',
          `unterminated ${quote} quote in --env-file ${file}:${lineNo} — close the value of ${name}`,
        );
      const inner = rest.slice(0, end);
      const after = rest.slice(end + 1).trim();
      if (after !== '' && !after.startsWith('#'))
        throw new CordonError(
          'bad-env',
          `unexpected text after the quoted value of ${name} in --env-file ${file}:${lineNo}`,
        );
      value = quote === '"' ? unescapeDouble(inner) : inner;
    } else {
      const comment = value.search(/\s#/);
      value = (comment === -1 ? value : value.slice(0, comment)).trim();
    }
    out[name] = value;
  }
  return out;
}

function findClosing(text: string, quote: string): number {
  for (let i = 0; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') {
      i++;
      continue;
    }
    if (text[i] === quote) return i;
  }
  return -1;
}

function unescapeDouble(text: string): string {
  return text.replace(
    /\\([nrt"\\])/g,
    (_, c: string) => ({ n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' })[c]!,
  );
}

export function readEnvFile(file: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CordonError(
      'bad-env',
      `cannot read --env-file '${file}': ${(error as NodeJS.ErrnoException).code ?? String(error)} — give a readable dotenv file`,
    );
  }
  return parseEnvFile(text, file);
}
