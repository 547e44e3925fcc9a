import { type ChainBreak, type ChainedRecord, ChainVerifier, GENESIS_HASH, hashOf } from '#lib/audit/audit-chain';

/** An audit chain of `count` records (seq 1..count), each hashed with the one before. */
export function chainOf(count: number): ChainedRecord[] {
  const links: ChainedRecord[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const link = {
      seq,
      recordedAt: `2026-01-01T00:00:0${seq}.000Z`,
      record: { subject: `s${seq}`, status: 201 },
      previousHash: links.at(-1)?.hash ?? GENESIS_HASH,
    };
    links.push({ ...link, hash: hashOf(link) });
  }
  return links;
}

/** The first break of `links` (lib/audit/audit-chain.ts's ChainVerifier), or how many hold and their seq. */
export function verifyLinks(links: readonly ChainedRecord[], fromStart = true): ChainBreak | { count: number; firstSeq?: number; lastSeq?: number } {
  const verifier = new ChainVerifier(fromStart);
  for (const link of links) {
    const broken = verifier.add(link);
    if (broken) return broken;
  }
  return { count: verifier.count, firstSeq: verifier.firstSeq, lastSeq: verifier.lastSeq };
}
