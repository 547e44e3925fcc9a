// A pack of the Evidence page (pages/evidence.tsx): its status followed until it ended, its counts, its zip saved.
import { useEffect, useRef, useState } from 'preact/hooks';

import { downloadPack, type EvidencePack, readEvidence } from '../api/evidence';
import { formatDateTime, formatNumber } from '../format';
import { useApi } from '../use-api';
import { ProblemNotice } from './problem';
import { when } from './result-cells';

/** How often a pack being built is read again. */
const POLL_MS = 1000;

const ended = (pack: EvidencePack) => pack.status === 'completed' || pack.status === 'failed';

/** The pack asked for, read again every POLL_MS until it has ended; `onEnded` is told once it has. */
function usePolledPack(asked: EvidencePack, onEnded: () => void): { pack: EvidencePack; error?: unknown } {
  const [state, setState] = useState<{ pack: EvidencePack; error?: unknown }>({ pack: asked });
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const pack = await readEvidence(asked.evidenceId, controller.signal);
        if (controller.signal.aborted) return;
        setState({ pack });
        if (ended(pack)) onEnded();
        else timer = setTimeout(poll, POLL_MS);
      } catch (error) {
        if (!controller.signal.aborted) setState((previous) => ({ pack: previous.pack, error }));
      }
    };
    timer = setTimeout(poll, POLL_MS);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [asked.evidenceId]);
  return state;
}

/** The file a pack's zip is saved as: evidence-<at>.zip, with what file names cannot hold replaced. */
const zipName = (pack: EvidencePack) => `evidence-${pack.at.replace(/[:.]/g, '-')}.zip`;

/** An object URL of the blob while it is shown (revoked after). */
function useObjectUrl(blob?: Blob): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (!blob) return undefined;
    const made = URL.createObjectURL(blob);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [blob]);
  return url;
}

/** A completed pack's zip: downloaded in parts, then saved by a link to it (an <a download>), clicked once; the link stays to save it again. */
function SavedZip({ pack }: { pack: EvidencePack }) {
  const zip = useApi((signal) => downloadPack(pack.evidenceId, signal), [pack.evidenceId]);
  const url = useObjectUrl(zip.data);
  const link = useRef<HTMLAnchorElement>(null);
  useEffect(() => link.current?.click(), [url]);
  if (zip.error) return <ProblemNotice error={zip.error} />;
  if (!url) return <span aria-busy="true">Downloading…</span>;
  return (
    <a ref={link} href={url} download={zipName(pack)}>
      {zipName(pack)}
    </a>
  );
}

/** Download, of a completed pack in the list: its zip once pressed. */
export function DownloadCell({ pack }: { pack: EvidencePack }) {
  const [asked, setAsked] = useState(false);
  if (asked) return <SavedZip pack={pack} />;
  return (
    <button type="button" class="secondary" aria-label={`Download the pack of ${formatDateTime(pack.at)}`} onClick={() => setAsked(true)}>
      Download
    </button>
  );
}

/** What a completed pack holds, in a line. */
export function summaryOf(summary: EvidencePack['summary']): string {
  if (!summary) return '—';
  const { policies, verdicts, resources, failingResources, exceptions, approvals, auditRecords } = summary;
  return [
    `${formatNumber(policies)} policies`,
    `${formatNumber(verdicts)} verdicts`,
    `${formatNumber(resources)} resources (${formatNumber(failingResources)} failing)`,
    `${formatNumber(exceptions)} exceptions`,
    `${formatNumber(approvals)} approvals`,
    `${formatNumber(auditRecords)} audit records`,
  ].join(', ');
}

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB'];

/** A size in bytes in the largest unit it has at least one of (12.3 KiB). */
export function sizeOf(bytes: number | null): string {
  if (bytes === null) return '—';
  let [value, unit] = [bytes, 0];
  for (; value >= 1024 && unit < UNITS.length - 1; unit++) value /= 1024;
  return `${formatNumber(Math.round(value * 10) / 10)} ${UNITS[unit]}`;
}

/** The pack asked for on this page: its status read every second, then its counts and its zip saved, or why it failed. */
export function ExportStatus({ asked, onEnded }: { asked: EvidencePack; onEnded: () => void }) {
  const { pack, error } = usePolledPack(asked, onEnded);
  return (
    <section class="evidence-asked" aria-labelledby="evidence-asked">
      <h2 id="evidence-asked">The pack of {when(pack.at)}</h2>
      <p role="status">
        Status: <span class="status">{pack.status}</span>
        {ended(pack) ? '' : '…'}
      </p>
      <ProblemNotice error={error} />
      {pack.status === 'failed' ? (
        <p class="problem" role="alert">
          The pack could not be built: {pack.error ?? 'the platform gave no reason'}
        </p>
      ) : null}
      {pack.status === 'completed' ? (
        <>
          <p>
            {summaryOf(pack.summary)}; {sizeOf(pack.size)}, SHA-256 <code>{pack.sha256}</code>
          </p>
          <p>
            Saved as <SavedZip pack={pack} />
          </p>
        </>
      ) : null}
    </section>
  );
}
