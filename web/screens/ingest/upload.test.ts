import { describe, expect, it } from 'vitest';
import { splitNdjson } from '../../../shared/batch.ts';
import type { IngestReport } from '../../queries/ingest.ts';
import { ApiFailure } from '../../query-client.ts';
import { type FileReject, type FileWarning, uploadText } from './upload.ts';

/** A stand-in server: every line that is not `{}`-shaped is rejected as the real one numbers it. */
async function fakeServer(body: string): Promise<IngestReport> {
  const items = splitNdjson(body);
  const bad = items.filter((item) => !item.text.startsWith('{'));
  return {
    accepted: items.length - bad.length,
    duplicates: 0,
    rejected: bad.map((item) => ({ line: item.line, code: 'invalid_json', message: 'not JSON' })),
    rejectedTotal: bad.length,
    warnings: [],
    warningsTotal: 0,
    span: null,
  };
}

describe('uploadText', () => {
  it('sends every batch and reports rejects by file line', async () => {
    const text = ['{"n":1}', 'oops', '', '{"n":4}', '{"n":5}', 'nope', '{"n":7}'].join('\n');
    const rejects: FileReject[] = [];
    let accepted = 0;
    let sent = 0;
    await uploadText(
      text,
      async (body) => {
        sent++;
        return fakeServer(body);
      },
      {
        onStart: (totals) => expect(totals.lines).toBe(7),
        onBatch: (_batch, report, mapped) => {
          accepted += report.accepted;
          rejects.push(...mapped);
        },
        onRetry: () => {},
      },
      { limits: { maxLines: 2, maxBytes: 1000 } },
    );
    expect(sent).toBe(4);
    expect(accepted).toBe(4);
    expect(rejects.map((r) => r.line)).toEqual([2, 6]);
  });

  it('reports warnings by file line as well', async () => {
    const warned: FileWarning[] = [];
    await uploadText(
      'a\nb\n\nc',
      async (body) => {
        const items = splitNdjson(body);
        const warnings = items.map((item) => ({ line: item.line, field: 'server', message: 'named after its host' }));
        return {
          accepted: items.length,
          duplicates: 0,
          rejected: [],
          rejectedTotal: 0,
          warnings,
          warningsTotal: 9,
          span: null,
        };
      },
      { onStart: () => {}, onBatch: (_b, _r, _rejects, warnings) => warned.push(...warnings), onRetry: () => {} },
      { limits: { maxLines: 2, maxBytes: 1000 } },
    );
    expect(warned.map((w) => w.line)).toEqual([1, 2, 4]);
    expect(warned[0]).toEqual({ line: 1, field: 'server', message: 'named after its host' });
  });

  it('stops the file at a refusal', async () => {
    let sent = 0;
    const refusal = new ApiFailure('too large', 'payload_too_large', false);
    const upload = uploadText(
      'a\nb\nc',
      async () => {
        sent++;
        throw refusal;
      },
      { onStart: () => {}, onBatch: () => {}, onRetry: () => {} },
      { limits: { maxLines: 1, maxBytes: 1000 } },
    );
    await expect(upload).rejects.toBe(refusal);
    expect(sent).toBe(1);
  });
});
