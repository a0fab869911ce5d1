// End-to-end check of the generated TypeScript SDK against a running mock of
// petstore.yaml: typed results, typed errors, and a retry after a 429.
import { ApiError, Client, retryDelayMs } from "./petstore";
import type { ErrorModel, Pet } from "./petstore";

declare const process: { env: Record<string, string | undefined>; exitCode?: number };

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

async function main(): Promise<void> {
  const baseUrl = process.env["PETSTORE_URL"];
  const retryUrl = process.env["PETSTORE_RETRY_URL"];
  if (baseUrl === undefined || retryUrl === undefined) throw new Error("set PETSTORE_URL and PETSTORE_RETRY_URL");
  const client = new Client({ baseUrl, apiKey: "secret-key", timeoutMs: 10_000 });

  const pets: Pet[] = await client.listPets({ limit: 2 });
  check(pets.length === 2, `two pets, got ${JSON.stringify(pets)}`);
  const [first, second] = pets;
  check(first !== undefined && first.id === 1 && first.name === "Rex" && first.tag === "dog", "first pet");
  check(first?.status === "available", "a typed enum value");
  check(second !== undefined && second.tag === null && second.status === "sold", "a nullable field");

  const pet: Pet = await client.showPetById(1);
  check(pet.id === 1 && pet.name === "Rex", `one pet, got ${JSON.stringify(pet)}`);

  const created: Pet = await client.createPet({ name: "Kit", tag: "cat" });
  check(created.id === 3 && created.status === "pending", `created, got ${JSON.stringify(created)}`);

  try {
    await client.showPetById(99, { headers: { prefer: "code=404" }, maxRetries: 0 });
    check(false, "a 404 throws");
  } catch (error) {
    check(error instanceof ApiError, `an ApiError, got ${String(error)}`);
    const apiError = error as ApiError;
    const body = apiError.body as ErrorModel;
    check(apiError.status === 404 && body.code === 404 && body.message === "no such pet", `error body ${JSON.stringify(body)}`);
  }

  // The proxy in front of the mock answers the first request with 429 and
  // `Retry-After: 1`; the SDK waits a second and succeeds.
  const retrying = new Client({ baseUrl: retryUrl, apiKey: "secret-key" });
  const started = Date.now();
  const again: Pet[] = await retrying.listPets();
  const waited = Date.now() - started;
  check(again.length === 2 && again[0]?.name === "Rex", "the retried request succeeds");
  check(waited >= 900, `Retry-After was honoured (waited ${waited} ms)`);
  // Retry-After as an HTTP date, and the jittered backoff without it.
  const dated = retryDelayMs(0, new Date(Date.now() + 3_000).toUTCString());
  check(dated > 1_000 && dated <= 3_000, `an HTTP-date Retry-After (${dated} ms)`);
  const backoff = retryDelayMs(3, null);
  check(backoff >= 2_000 && backoff <= 4_000, `backoff of the fourth retry (${backoff} ms)`);
  console.log(`typescript: 8 checks passed (retry waited ${waited} ms)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
