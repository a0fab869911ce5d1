// Runtime checks of the generated TypeScript SDK with a recording `fetch`:
// path, query (form, exploded or not, deepObject), header and cookie
// parameters, multipart, form and binary bodies, and every credential location.
import { Client } from "./features";

declare const process: { exitCode?: number };

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

function recorder(seen: Seen[], reply: () => Response): typeof fetch {
  return async (input, init) => {
    seen.push({
      url: String(input),
      method: init?.method ?? "GET",
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: init?.body,
    });
    return reply();
  };
}

async function main(): Promise<void> {
  const seen: Seen[] = [];
  const json = (): Response => new Response('{"ok":true}', { status: 201, headers: { "content-type": "application/json" } });
  const client = new Client({ token: "T", fetch: recorder(seen, json) });
  const result = await client.upload("a b", "x/y", { file: new Blob(["hi"]), note: "n" }, {
    tags: ["a", "b"],
    ids: [1, 2],
    filter: { kind: "k" },
    "X-Request-Id": "r1",
    theme: "dark",
  });
  check(result.ok === true, "typed JSON result");
  const upload = seen[0];
  check(upload !== undefined, "one request");
  if (upload === undefined) return;
  check(
    upload.url === "https://api.example/v1/items/a%20b/files/x%2Fy?tags=a&tags=b&ids=1%2C2&filter%5Bkind%5D=k",
    `path and query: ${upload.url}`,
  );
  check(upload.method === "POST" && upload.headers["authorization"] === "Bearer T", "bearer token");
  check(upload.headers["x-request-id"] === "r1" && upload.headers["cookie"] === "theme=dark", "header and cookie");
  check(upload.body instanceof FormData && upload.body.get("note") === "n" && upload.body.get("file") instanceof Blob, "multipart");
  check(upload.headers["content-type"] === undefined, "multipart leaves the boundary to fetch");

  const empty = (): Response => new Response(null, { status: 204 });
  const login = new Client({ basic: { username: "u", password: "p\u00e9" }, fetch: recorder(seen, empty) });
  await login.login({ user: "me", remember: true });
  const form = seen[1];
  check(form?.headers["authorization"] === "Basic " + btoa("u:p\u00c3\u00a9"), "basic credentials in UTF-8");
  check(form?.body instanceof URLSearchParams && form.body.toString() === "user=me&remember=true", "form body");

  const text = (): Response => new Response("hello", { status: 200, headers: { "content-type": "text/plain" } });
  const keys = new Client({ keyQuery: "K", keyCookie: "S", token: "T", fetch: recorder(seen, text) });
  const found: string = await keys.search({ q: "x" });
  const search = seen[2];
  check(found === "hello", "text result");
  check(search?.url === "https://api.example/v1/search?q=x&api_key=K", `API key in the query: ${search?.url}`);
  check(search?.headers["cookie"] === "session=S" && search.headers["authorization"] === undefined, "first alternative only");
  const tokenOnly = new Client({ token: "T", fetch: recorder(seen, text) });
  await tokenOnly.search({ q: "y" });
  check(seen[3]?.headers["authorization"] === "Bearer T", "the second alternative when the first lacks credentials");

  const bytes = (): Response => new Response(new Uint8Array([1, 2, 3]), { headers: { "content-type": "application/octet-stream" } });
  const blobs = new Client({ fetch: recorder(seen, bytes) });
  const back: Blob = await blobs.putBlob(new Uint8Array([1, 2, 3]));
  check(seen[4]?.headers["content-type"] === "application/octet-stream" && seen[4].body instanceof Uint8Array, "binary body");
  check(back instanceof Blob && back.size === 3, "binary result");
  console.log("typescript runtime: 17 checks passed");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
