export interface RequestOptions {
  /** Per-attempt timeout in milliseconds; overrides the client's. */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx, a timeout or a network failure; overrides the client's. */
  maxRetries?: number;
  /** Extra headers for this request. */
  headers?: Record<string, string>;
  /** Cancels the request, including its retries. */
  signal?: AbortSignal;
}

/** A response with a status outside 2xx, after any retries. */
export class ApiError extends Error {
  readonly status: number;
  /** The decoded body: parsed JSON, text, or undefined when empty. */
  readonly body: unknown;
  readonly headers: Headers;

  constructor(status: number, body: unknown, headers: Headers) {
    super(`HTTP ${status}${describeBody(body)}`);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

function describeBody(body: unknown): string {
  if (body === undefined || body === null) return "";
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return text === undefined ? "" : `: ${text.length > 200 ? text.slice(0, 200) + "..." : text}`;
}

type Credential = string | { username: string; password: string } | undefined;
type Scheme =
  | { kind: "apiKey"; in: "header" | "query" | "cookie"; name: string }
  | { kind: "token"; prefix: string }
  | { kind: "basic" };
type BodyKind = "json" | "form" | "multipart" | "text" | "binary";
interface Param {
  name: string;
  value: unknown;
  style?: string;
  explode?: boolean;
}
interface RequestSpec {
  method: string;
  path: string;
  query?: Param[];
  headers?: Param[];
  cookies?: Param[];
  body?: unknown;
  bodyKind?: BodyKind;
  contentType?: string;
  security?: string[][];
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
const INITIAL_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;

function scalar(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}

function encodePath(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => encodeURIComponent(scalar(item))).join(",");
  return encodeURIComponent(scalar(value));
}

function appendQuery(search: URLSearchParams, param: Param): void {
  const { name, value } = param;
  if (value === undefined || value === null) return;
  if (param.style === "json") {
    search.append(name, JSON.stringify(value));
    return;
  }
  const explode = param.explode ?? true;
  if (Array.isArray(value)) {
    const items = value.map(scalar);
    if (param.style === "spaceDelimited") search.append(name, items.join(" "));
    else if (param.style === "pipeDelimited") search.append(name, items.join("|"));
    else if (explode) for (const item of items) search.append(name, item);
    else search.append(name, items.join(","));
    return;
  }
  if (typeof value === "object" && !(value instanceof Date)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
    if (param.style === "deepObject") for (const [k, v] of entries) search.append(`${name}[${k}]`, scalar(v));
    else if (explode) for (const [k, v] of entries) search.append(k, scalar(v));
    else search.append(name, entries.map(([k, v]) => `${k},${scalar(v)}`).join(","));
    return;
  }
  search.append(name, scalar(value));
}

function headerValue(param: Param): string {
  if (param.style === "json") return JSON.stringify(param.value);
  if (Array.isArray(param.value)) return param.value.map(scalar).join(",");
  return scalar(param.value);
}

function encodeBody(kind: BodyKind, body: unknown): BodyInit {
  switch (kind) {
    case "json":
      return JSON.stringify(body);
    case "form": {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries((body ?? {}) as Record<string, unknown>)) {
        if (v === undefined || v === null) continue;
        const items: unknown[] = Array.isArray(v) ? v : [v];
        for (const item of items) form.append(k, scalar(item));
      }
      return form;
    }
    case "multipart": {
      const form = new FormData();
      for (const [k, v] of Object.entries((body ?? {}) as Record<string, unknown>)) {
        if (v === undefined || v === null) continue;
        const items: unknown[] = Array.isArray(v) ? v : [v];
        for (const item of items) form.append(k, item instanceof Blob ? item : scalar(item));
      }
      return form;
    }
    case "text":
      return scalar(body);
    case "binary":
      return body as BodyInit;
  }
}

async function decode(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205) return undefined;
  const type = response.headers.get("content-type") ?? "";
  if (/json/i.test(type)) {
    const text = await response.text();
    if (text === "") return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  if (type === "" || /^text\//i.test(type) || /xml|html|csv/i.test(type)) {
    const text = await response.text();
    return text === "" ? undefined : text;
  }
  return response.blob();
}

/** Milliseconds to wait before retry number `attempt` (0-based). */
export function retryDelayMs(attempt: number, retryAfter: string | null): number {
  if (retryAfter !== null && retryAfter.trim() !== "") {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.min(Math.max(seconds, 0) * 1000, MAX_RETRY_AFTER_MS);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.min(Math.max(date - Date.now(), 0), MAX_RETRY_AFTER_MS);
  }
  const ceiling = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** attempt, MAX_RETRY_DELAY_MS);
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function toBase64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function isRetryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

abstract class BaseClient {
  readonly baseUrl: string;
  protected readonly settings: { timeoutMs: number; maxRetries: number; headers: Record<string, string> };
  protected readonly credentials: Record<string, Credential>;
  private readonly fetchImpl: typeof fetch;

  protected constructor(
    baseUrl: string,
    credentials: Record<string, Credential>,
    settings: { timeoutMs?: number | undefined; maxRetries?: number | undefined; headers?: Record<string, string> | undefined; fetch?: typeof fetch | undefined },
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.credentials = credentials;
    this.settings = {
      timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES,
      headers: settings.headers ?? {},
    };
    this.fetchImpl = settings.fetch ?? ((input, init) => fetch(input, init));
  }

  private chooseSecurity(alternatives: string[][]): string[] {
    for (const alternative of alternatives) {
      if (alternative.length > 0 && alternative.every((key) => this.credentials[key] !== undefined)) {
        return alternative;
      }
    }
    return [];
  }

  protected async request<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<T> {
    const search = new URLSearchParams();
    for (const param of spec.query ?? []) appendQuery(search, param);
    const headers: Record<string, string> = { accept: "application/json, */*;q=0.8" };
    for (const [name, value] of Object.entries(this.settings.headers)) headers[name.toLowerCase()] = value;
    const cookies: string[] = [];
    for (const param of spec.cookies ?? []) {
      if (param.value !== undefined && param.value !== null) {
        cookies.push(`${param.name}=${encodeURIComponent(headerValue(param))}`);
      }
    }
    for (const key of this.chooseSecurity(spec.security ?? [])) {
      const scheme = SCHEMES[key];
      const credential = this.credentials[key];
      if (scheme === undefined || credential === undefined) continue;
      if (scheme.kind === "basic") {
        if (typeof credential !== "string") {
          headers["authorization"] = "Basic " + toBase64(`${credential.username}:${credential.password}`);
        }
      } else if (typeof credential === "string") {
        if (scheme.kind === "token") headers["authorization"] = `${scheme.prefix} ${credential}`;
        else if (scheme.in === "header") headers[scheme.name.toLowerCase()] = credential;
        else if (scheme.in === "query") search.append(scheme.name, credential);
        else cookies.push(`${scheme.name}=${encodeURIComponent(credential)}`);
      }
    }
    for (const param of spec.headers ?? []) {
      if (param.value !== undefined && param.value !== null) headers[param.name.toLowerCase()] = headerValue(param);
    }
    if (cookies.length > 0) headers["cookie"] = cookies.join("; ");
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    let body: BodyInit | undefined;
    if (spec.bodyKind !== undefined && spec.body !== undefined) {
      body = encodeBody(spec.bodyKind, spec.body);
      if (spec.contentType !== undefined && spec.bodyKind !== "multipart" && spec.bodyKind !== "form") {
        headers["content-type"] = spec.contentType;
      }
    }
    const query = search.toString();
    const url = this.baseUrl + spec.path + (query === "" ? "" : (spec.path.includes("?") ? "&" : "?") + query);
    const maxRetries = options.maxRetries ?? this.settings.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      const onAbort = (): void => controller.abort(options.signal?.reason);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      let status: number;
      let decoded: unknown;
      let responseHeaders: Headers;
      try {
        const init: RequestInit = { method: spec.method, headers, signal: controller.signal };
        if (body !== undefined) init.body = body;
        const response = await this.fetchImpl(url, init);
        status = response.status;
        responseHeaders = response.headers;
        decoded = await decode(response);
      } catch (error) {
        if (options.signal?.aborted || attempt >= maxRetries) throw error;
        await sleep(retryDelayMs(attempt, null), options.signal);
        continue;
      } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
      }
      if (status >= 200 && status < 300) return decoded as T;
      if (isRetryable(status) && attempt < maxRetries) {
        await sleep(retryDelayMs(attempt, responseHeaders.get("retry-after")), options.signal);
        continue;
      }
      throw new ApiError(status, decoded, responseHeaders);
    }
  }
}
