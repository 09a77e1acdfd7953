import { decodeWatchEvent, EnvelopeError } from '@svc/machinery';

/** The stream held something that is not a sequence of length-prefixed protobuf watch events. */
export class ProtobufStreamError extends Error {
  override readonly name = 'ProtobufStreamError';
}

/** client-go's streaming decoder refuses a frame larger than this; so does this one, before buffering it. */
export const MAX_PROTOBUF_FRAME_BYTES = 16 * 1024 * 1024;

const LENGTH_BYTES = 4;

/**
 * Splits a protobuf watch stream into its events whatever the chunking: each frame is a 4-byte
 * big-endian length, then a `WatchEvent` message whose object is the object's own envelope, as
 * Kubernetes' length-delimited framer writes it. Events come out as `{type, object}`, the shape a
 * JSON watch line has, with objects in Kubernetes' JSON shape.
 */
export class ProtobufStreamDecoder {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Bytes needed before the next frame can be read: chunks are only joined once it is whole. */
  private needed = LENGTH_BYTES;

  constructor(private readonly maxFrameBytes = MAX_PROTOBUF_FRAME_BYTES) {}

  /** Adds a chunk and returns the events of the frames it completed, in order. */
  push(chunk: Buffer): Array<{ type: string; object: Record<string, unknown> }> {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes < this.needed) return [];
    const buffer = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.bytes);
    const out: Array<{ type: string; object: Record<string, unknown> }> = [];
    let at = 0;
    this.needed = LENGTH_BYTES;
    while (buffer.length - at >= LENGTH_BYTES) {
      const size = buffer.readUInt32BE(at);
      if (size > this.maxFrameBytes) {
        throw new ProtobufStreamError(`a watch frame of ${size} bytes is larger than the ${this.maxFrameBytes} allowed`);
      }
      if (buffer.length - at - LENGTH_BYTES < size) {
        this.needed = LENGTH_BYTES + size;
        break;
      }
      const frame = buffer.subarray(at + LENGTH_BYTES, at + LENGTH_BYTES + size);
      at += LENGTH_BYTES + size;
      try {
        out.push(decodeWatchEvent(frame));
      } catch (error) {
        if (error instanceof EnvelopeError) throw new ProtobufStreamError(`a watch frame does not decode: ${error.message}`);
        throw error;
      }
    }
    const rest = buffer.subarray(at);
    this.chunks = rest.length === 0 ? [] : [rest];
    this.bytes = rest.length;
    return out;
  }

  /** Whether a frame was begun and not finished (the stream ended inside it). */
  get pending(): boolean {
    return this.bytes > 0;
  }
}
