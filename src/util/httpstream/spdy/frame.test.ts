import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headerDictionary } from './dictionary.ts';
import {
  FrameSplitter,
  HeaderCompressor,
  HeaderDecompressor,
  SpdyProtocolError,
  decodeFrame,
  decodeHeaderBlock,
  encodeData,
  encodeGoAway,
  encodeHeaderBlock,
  encodePing,
  encodeRstStream,
  encodeSettings,
  encodeSynReply,
  encodeSynStream,
  encodeWindowUpdate,
  type Frame,
} from './frame.ts';

/** Adler-32 (RFC 1950): the dictionary id zlib checks. */
function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

test('the header dictionary is the 1423 bytes of SPDY/3 with Adler-32 0xe3c6a7c2', () => {
  assert.equal(headerDictionary.length, 1423);
  assert.equal(adler32(headerDictionary), 0xe3c6a7c2);
});

test('every frame type survives encoding, splitting at every byte boundary and decoding', async () => {
  const out = new HeaderCompressor();
  const inflate = new HeaderDecompressor();
  const headers = { streamtype: ['data'], port: ['8080'], requestid: ['0'] };
  const wire = Buffer.concat([
    encodeSynStream(1, await out.compress(headers), 0x01, 3),
    encodeSynReply(1, await out.compress({})),
    encodeData(1, Buffer.from('payload'), false),
    encodeData(1, Buffer.alloc(0), true),
    encodeRstStream(3, 5),
    encodePing(7),
    encodeGoAway(9, 0),
    encodeWindowUpdate(1, 65536),
    encodeSettings([{ id: 4, value: 100 }]),
    encodeSynStream(3, await out.compress({ streamtype: ['error'], port: ['8080'] })),
  ]);
  const splitter = new FrameSplitter();
  const raws = [];
  for (let i = 0; i < wire.length; i++) raws.push(...splitter.push(wire.subarray(i, i + 1)));
  assert.equal(splitter.buffered, 0);
  const frames: Array<Frame | undefined> = [];
  for (const r of raws) frames.push(await decodeFrame(r, inflate));
  assert.deepEqual(frames, [
    { type: 'synStream', streamId: 1, associatedStreamId: 0, priority: 3, flags: 1, headers },
    { type: 'synReply', streamId: 1, flags: 0, headers: {} },
    { type: 'data', streamId: 1, flags: 0, data: Buffer.from('payload') },
    { type: 'data', streamId: 1, flags: 1, data: Buffer.alloc(0) },
    { type: 'rstStream', streamId: 3, status: 5 },
    { type: 'ping', id: 7 },
    { type: 'goAway', lastGoodStreamId: 9, status: 0 },
    { type: 'windowUpdate', streamId: 1, delta: 65536 },
    { type: 'settings', flags: 0, entries: [{ flags: 0, id: 4, value: 100 }] },
    { type: 'synStream', streamId: 3, associatedStreamId: 0, priority: 0, flags: 0, headers: { streamtype: ['error'], port: ['8080'] } },
  ]);
  out.close();
  inflate.close();
});

test('a header block is one zlib stream per direction: later blocks refer to earlier ones', async () => {
  const out = new HeaderCompressor();
  const first = await out.compress({ streamtype: ['data'], port: ['80'] });
  const second = await out.compress({ streamtype: ['data'], port: ['80'] });
  assert.ok(second.length < first.length, `${second.length} < ${first.length}`);
  const fresh = new HeaderDecompressor();
  await assert.rejects(fresh.decompress(second), SpdyProtocolError);
  out.close();
  fresh.close();
});

test('header blocks: values travel NUL-joined, names must be lower case and unique', () => {
  const block = encodeHeaderBlock({ 'x-multi': ['a', 'b'] });
  assert.deepEqual(decodeHeaderBlock(block), { 'x-multi': ['a', 'b'] });
  const upper = Buffer.from(block);
  upper.write('X', 8);
  assert.throws(() => decodeHeaderBlock(upper), /header was not lowercased/);
  const dup = Buffer.concat([Buffer.from([0, 0, 0, 2]), block.subarray(4), block.subarray(4)]);
  assert.throws(() => decodeHeaderBlock(dup), /multiple headers with same name/);
  assert.throws(() => decodeHeaderBlock(Buffer.from([0, 0, 0, 1, 0, 0, 0, 9, 0x61])), /truncated name/);
});

test('frames above the size limit and short control frames are protocol errors', async () => {
  const splitter = new FrameSplitter(1024);
  assert.throws(() => splitter.push(encodeData(1, Buffer.alloc(2048), false)), SpdyProtocolError);
  const [raw] = new FrameSplitter().push(Buffer.from([0x80, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0, 0]));
  await assert.rejects(decodeFrame(raw!, new HeaderDecompressor()), /RST_STREAM frame too short/);
  const [v2] = new FrameSplitter().push(Buffer.from([0x80, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 1]));
  await assert.rejects(decodeFrame(v2!, new HeaderDecompressor()), /unsupported version 2/);
  const [unknown] = new FrameSplitter().push(Buffer.from([0x80, 0x03, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00]));
  assert.equal(await decodeFrame(unknown!, new HeaderDecompressor()), undefined);
});
