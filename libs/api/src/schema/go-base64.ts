/**
 * Where Go's base64.StdEncoding.Decode stops on text that is not base64, as the offset it reports
 * (`illegal base64 data at input byte N`); undefined for text it decodes. Kubernetes decodes `[]byte`
 * fields (a Secret's data) and checks the `byte` format of a CRD schema with it, so what it takes
 * is Go's: padding required, line breaks skipped anywhere, nothing after the padding. Offsets count
 * bytes of the UTF-8 text, as Go's do.
 */
export function goBase64ErrorOffset(text: string): number | undefined {
  const src = Buffer.from(text, 'utf8');
  let si = 0;
  while (si < src.length) {
    const quantum = decodeQuantum(src, si);
    if (quantum.error !== undefined) return quantum.error;
    si = quantum.next;
  }
  return undefined;
}

const PAD = 0x3d;

function isAlphabet(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
}

function isNewline(c: number): boolean {
  return c === 0x0a || c === 0x0d;
}

function skipNewlines(src: Buffer, si: number): number {
  while (si < src.length && isNewline(src[si])) si++;
  return si;
}

/** One group of four characters from `si`, as encoding/base64's decodeQuantum reads it. */
function decodeQuantum(src: Buffer, si: number): { next: number; error?: number } {
  for (let j = 0; j < 4; j++) {
    if (si === src.length) return j === 0 ? { next: si } : { next: si, error: si - j };
    const c = src[si++];
    if (isAlphabet(c)) continue;
    if (isNewline(c)) {
      j--;
      continue;
    }
    if (c !== PAD || j < 2) return { next: si, error: si - 1 };
    if (j === 2) {
      // A third-place pad needs a second one.
      si = skipNewlines(src, si);
      if (si === src.length) return { next: si, error: src.length };
      if (src[si] !== PAD) return { next: si, error: si - 1 };
      si++;
    }
    si = skipNewlines(src, si);
    return si < src.length ? { next: si, error: si } : { next: si };
  }
  return { next: si };
}
