import { createHash, type KeyObject } from 'node:crypto';

import { strToU8, Zip, ZipDeflate } from 'fflate';

import { jsonFile, PACK_FILES, signHashes } from './pack-format';

/** A file of the pack being written: its bytes in pieces, then its end. */
export interface PackFileWriter {
  write(bytes: Uint8Array): void;
  end(): void;
}

/**
 * Writes a pack as a zip stream, a file at a time (pack-format.ts): each file's SHA-256 is taken as it
 * is written, and the zip's bytes are handed out as they come (`take`), so that no file, however long,
 * and not the zip either, is held whole. `finish` signs the hashes and ends the zip with signature.json.
 */
export class PackWriter {
  private readonly zip: Zip;
  private readonly chunks: Uint8Array[] = [];
  private readonly hashes: Record<string, string> = {};
  private failure: Error | undefined;

  /** Every entry is dated `date`, so that a pack's bytes depend on its content only. */
  constructor(private readonly date: Date) {
    this.zip = new Zip((error, chunk) => {
      if (error) this.failure = error;
      else this.chunks.push(chunk);
    });
  }

  /** A file written in pieces; its hash is signed once it ended. */
  open(path: string): PackFileWriter {
    const entry = new ZipDeflate(path, { level: 6 });
    entry.mtime = this.date;
    this.zip.add(entry);
    const hash = createHash('sha256');
    return {
      write: (bytes) => {
        hash.update(bytes);
        entry.push(bytes, false);
      },
      end: () => {
        entry.push(new Uint8Array(0), true);
        this.hashes[path] = hash.digest('hex');
      },
    };
  }

  /** A file written whole. */
  add(path: string, bytes: Uint8Array): void {
    const file = this.open(path);
    file.write(bytes);
    file.end();
  }

  /** One JSON value per line of the file being written. */
  static line(value: unknown): Uint8Array {
    return strToU8(`${JSON.stringify(value)}\n`);
  }

  /** The zip's bytes written since the last call. */
  take(): Uint8Array[] {
    if (this.failure) throw this.failure;
    return this.chunks.splice(0);
  }

  /** Signs the hashes of every file written, adds signature.json and ends the zip; its last bytes are to `take`. */
  finish(evidenceId: string, key: { privateKey: KeyObject; publicKey: KeyObject }, signedAt: Date): void {
    const entry = new ZipDeflate(PACK_FILES.signature, { level: 6 });
    entry.mtime = this.date;
    this.zip.add(entry);
    entry.push(jsonFile(signHashes(evidenceId, this.hashes, key, signedAt)), true);
    this.zip.end();
  }
}
