import type { Store } from '../db/runner.ts';

export interface AppConfig {
  /** Largest accepted request body in bytes, before and after gzip decoding. */
  maxBodyBytes: number;
  /** Origins allowed to call the API from a browser, besides the server's own. */
  allowedOrigins: readonly string[];
  /**
   * Host names the server answers to (Host header), which defeats DNS rebinding; null (any) only when it listens
   * beyond loopback, where a token is required, and no --allow-host was given.
   */
  allowedHosts: readonly string[] | null;
  /** Bearer token required on every API call; required whenever the server listens beyond loopback. */
  token: string | null;
}

export interface AppDeps {
  store: Store;
  clock: () => number;
  config: AppConfig;
}

export type Env = {
  Variables: {
    deps: AppDeps;
    requestId: string;
  };
};

export const DEFAULT_CONFIG: AppConfig = {
  maxBodyBytes: 16 * 1024 * 1024,
  allowedOrigins: [],
  allowedHosts: ['127.0.0.1', 'localhost', '[::1]'],
  token: null,
};
