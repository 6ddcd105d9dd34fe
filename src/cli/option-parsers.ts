import { InputError } from '../errors';

// Number('') and Number(' ') are 0: an empty value is refused before it is read as one.
export function parsePositive(flag: string, value: string): number {
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InputError(`${flag} must be a positive integer, got "${value}"`);
  return n;
}

export function parseCount(flag: string, value: string): number {
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InputError(`${flag} must be a whole number, got "${value}"`);
  return n;
}

export function parseFraction(flag: string, value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !(x >= 0 && x <= 1))
    throw new InputError(`${flag} must be a number from 0 to 1, got "${value}"`);
  return x;
}

const EVERY = /^(\d+)(m|h|d)$/;

/** Option parser for --every: minutes, hours or days (30m, 6h, 1d). */
export function parseEvery(value: string): string {
  const match = EVERY.exec(value);
  if (!match || Number(match[1]) < 1)
    throw new InputError(`--every wants a number of minutes, hours or days (30m, 6h, 1d), got "${value}"`);
  return value;
}

/** Option parser for --name: owner/name, or a bare name, as chain ids and reports show it. */
export function parseRepoLabel(value: string): string {
  // '#' separates the name from the PR numbers in a chain id.
  if (!/^[^\s/#]+(\/[^\s/#]+)?$/.test(value))
    throw new InputError(`--name wants owner/name (or a name) without spaces or '#', got "${value}"`);
  return value;
}

/** Option parser for --min-strength. */
export function parseStrength(value: string): 'strong' | 'weak' {
  if (value !== 'strong' && value !== 'weak')
    throw new InputError(`--min-strength wants strong or weak, got "${value}"`);
  return value;
}
