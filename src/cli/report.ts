import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Config } from '../config';
import { InputError } from '../errors';
import { writeReport } from '../report/write-report';
import { defaultExportDir } from './export';

interface ReportCommandOptions {
  export?: string;
  out?: string;
  sample?: string;
  priceInput?: string;
  priceOutput?: string;
}

function price(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new InputError(`${flag} must be a non-negative number of US dollars per million tokens, got "${value}"`);
  return n;
}

/** `chainsmith report`: the export directory → one static HTML page with plots and a trajectory view. */
export async function reportCommand(
  config: Config,
  opts: ReportCommandOptions,
  say: (line: string) => void = console.log,
): Promise<void> {
  const input = price('--price-input', opts.priceInput);
  const output = price('--price-output', opts.priceOutput);
  if ((input === undefined) !== (output === undefined))
    throw new InputError('give both --price-input and --price-output, or neither');
  const dir = resolve(opts.export ?? defaultExportDir(config));
  const file = await writeReport(dir, {
    out: opts.out ? resolve(opts.out) : undefined,
    sample: opts.sample,
    prices: input !== undefined ? { input, output: output! } : undefined,
  });
  say(`report: ${file}`);
  say(`open it in a browser: ${pathToFileURL(file).href}`);
}
