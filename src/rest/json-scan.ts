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
  // Each string is skipped by its own tight loop (most of an object's bytes are inside strings), so the
  // loop over structure tests no "in a string" flag per byte; the flag only carries a string cut by
  // the end of a chunk over to the next one.
  let inString = state.inString;
  for (;;) {
    if (inString) {
      for (;;) {
        if (i >= n) {
          state.depth = depth;
          state.inString = true;
          state.skip = i - n;
          return -1;
        }
        const d = buf[i++]!;
        if (d === 0x22) break;
        if (d === 0x5c) i++;
      }
      inString = false;
    }
    if (i >= n) break;
    const c = buf[i++]!;
    if (c === 0x22) inString = true;
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
  state.inString = false;
  state.skip = 0;
  return -1;
}
