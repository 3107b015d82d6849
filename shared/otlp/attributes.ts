import type { Attributes } from './model.ts';

/** Typed reads of span attributes: each answers undefined for an absent member or one of another type. */

/** A non-empty string. */
export function text(attributes: Attributes, key: string): string | undefined {
  const value = attributes.get(key);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** An integer, or a string of one: semantic conventions have written codes both ways over the years. */
export function integer(attributes: Attributes, key: string): number | undefined {
  const value = attributes.get(key);
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  return typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/** `address:port` (an IPv6 address in brackets) from two attributes, the port when there is one. */
export function hostPort(attributes: Attributes, addressKey: string, portKey: string): string | undefined {
  const address = text(attributes, addressKey);
  if (address === undefined) return undefined;
  const host = address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
  const port = integer(attributes, portKey);
  return port === undefined ? host : `${host}:${port}`;
}

/**
 * A captured HTTP header (`http.request.header.<name>`, lowercase): a string array by the semantic conventions,
 * its first value is the header as sent; older instrumentations wrote a plain string.
 */
export function header(attributes: Attributes, direction: 'request' | 'response', name: string): string | undefined {
  const value = attributes.get(`http.${direction}.header.${name}`);
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

/** An attribute that is a JSON object in a string (Traceloop's entity input and output). */
export function jsonObject(attributes: Attributes, key: string): Record<string, unknown> | undefined {
  const raw = text(attributes, key);
  if (raw === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
