"""End-to-end check of the generated Python SDK against a running mock of
petstore.yaml: typed results, typed errors, and a retry after a 429."""

from __future__ import annotations

import email.utils
import os
import time

from petstore import ApiError, Client, ErrorModel, Pet, retry_delay


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def main() -> None:
    base_url = os.environ["PETSTORE_URL"]
    retry_url = os.environ["PETSTORE_RETRY_URL"]
    client = Client(base_url, api_key="secret-key", timeout=10.0)

    pets: list[Pet] = client.list_pets(limit=2)
    check(len(pets) == 2, f"two pets, got {pets}")
    first, second = pets
    check(first["id"] == 1 and first["name"] == "Rex" and first.get("tag") == "dog", "first pet")
    check(first["status"] == "available", "a typed enum value")
    check("tag" in second and second["tag"] is None and second["status"] == "sold", "a nullable field")

    pet: Pet = client.show_pet_by_id(1)
    check(pet["id"] == 1 and pet["name"] == "Rex", f"one pet, got {pet}")

    created: Pet = client.create_pet({"name": "Kit", "tag": "cat"})
    check(created["id"] == 3 and created["status"] == "pending", f"created, got {created}")

    missing = Client(base_url, api_key="secret-key", max_retries=0, headers={"Prefer": "code=404"})
    try:
        missing.show_pet_by_id(99)
        check(False, "a 404 raises")
    except ApiError as error:
        body: ErrorModel = error.body
        check(error.status == 404 and body["code"] == 404 and body["message"] == "no such pet", f"error body {body}")

    # The proxy in front of the mock answers the first request with 429 and
    # `Retry-After: 1`; the SDK waits a second and succeeds.
    retrying = Client(retry_url, api_key="secret-key")
    started = time.monotonic()
    again = retrying.list_pets()
    waited = time.monotonic() - started
    check(len(again) == 2 and again[0]["name"] == "Rex", "the retried request succeeds")
    check(waited >= 0.9, f"Retry-After was honoured (waited {waited:.2f} s)")
    # Retry-After as an HTTP date, and the jittered backoff without it.
    dated = retry_delay(0, email.utils.formatdate(time.time() + 3, usegmt=True))
    check(1.0 < dated <= 3.0, f"an HTTP-date Retry-After ({dated:.2f} s)")
    backoff = retry_delay(3, None)
    check(2.0 <= backoff <= 4.0, f"backoff of the fourth retry ({backoff:.2f} s)")
    print(f"python: 8 checks passed (retry waited {waited:.2f} s)")


if __name__ == "__main__":
    main()
