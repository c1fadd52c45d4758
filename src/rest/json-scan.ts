/**
 * Finding where a JSON object or array ends without parsing it: the byte loop of the LIST decoder
 * (items that may span network chunks). Outside strings only brackets and quotes matter, inside
 * strings only quotes and backslashes; UTF-8 continuation bytes never equal those ASCII bytes, so
 * scanning bytes is safe. (The managedFields interner runs the same loop, extended to recognise the
 * fieldsV1 key of each entry on the way.)
 */

/** Where a scan stopped when its input ran out: carried to the next chunk. */
export interface CompositeScanState {
  /** Nesting depth inside the value (1 right after its opening bracket). */
  depth: number;
  inString: boolean;
  /** Bytes of the next chunk to skip: the character after a backslash that ended the last one. */
  skip: number;
}

/**
 * Scans `buf` from `i` (inside an object or array, as `state` says) up to `n`. Returns the index
 * after the closing bracket of the value, or -1 when `n` came first, with `state` updated for the
 * next chunk. Brackets are not matched by kind: the value is parsed afterwards, which checks it.
 */
export function scanComposite(buf: Uint8Array, i: number, n: number, state: CompositeScanState): number {
  let depth = state.depth;
  let inString = state.inString;
  while (i < n) {
    const c = buf[i++]!;
    if (inString) {
      if (c === 0x22) inString = false;
      else if (c === 0x5c) i++;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) {
        state.depth = 0;
        state.inString = false;
        state.skip = 0;
        return i;
      }
    }
  }
  state.depth = depth;
  state.inString = inString;
  state.skip = i - n;
  return -1;
}
