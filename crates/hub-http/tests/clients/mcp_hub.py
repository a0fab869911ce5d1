"""The official MCP client SDK (PyPI `mcp`) against the hub's per-project MCP
servers: a public project without a credential, a private one with its MCP
token and with a member's personal access token; refused without a
credential (401) and with another project's token (404). Lists exactly the
twelve tools and calls each with a result checked here.

Usage: mcp_hub.py <hub url> <personal token> <public mcp token> <private mcp token> <local api url>
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

TOOLS = {
    "list_endpoints", "search_endpoints", "get_endpoint", "get_schema", "list_versions", "get_examples",
    "typescript_types", "ask_docs", "call_endpoint", "call_mock", "diff_versions", "get_auth",
}


def failed(result) -> bool:
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


def data(result):
    assert not failed(result), result
    structured = getattr(result, "structured_content", getattr(result, "structuredContent", None))
    return structured if structured is not None else json.loads(result.content[0].text)


async def session_for(url: str, token: str | None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(headers=headers, timeout=30), url


async def run(url: str, token: str | None, body):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(url, http_client=http, terminate_on_close=False) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                return await body(session)


async def every_tool(session, api: str):
    listed = (await session.list_tools()).tools
    names = {tool.name for tool in listed}
    assert names == TOOLS and len(listed) == 12, names
    assert all(tool.input_schema.get("type") == "object" for tool in listed)
    assert all((tool.output_schema or {}).get("type") == "object" for tool in listed)
    call = session.call_tool

    page = data(await call("list_endpoints", {"version": "1"}))
    assert page["total"] == 3 and {e["operationId"] for e in page["endpoints"]} == {"listPets", "createPet", "showPetById"}, page

    found = data(await call("search_endpoints", {"query": "how do I add a new pet", "version": "1"}))
    assert (found["results"][0]["method"], found["results"][0]["path"]) == ("POST", "/pets"), found

    endpoint = data(await call("get_endpoint", {"method": "GET", "path": "/pets/{petId}", "version": "1"}))
    assert [p["name"] for p in endpoint["parameters"]] == ["petId"], endpoint
    assert "/docs/pets/1/op/" in endpoint["url"], endpoint["url"]
    by_id = data(await call("get_endpoint", {"operationId": "createPet", "version": "1"}))
    assert by_id["method"] == "POST" and by_id["requestBody"] is not None, by_id

    schema = data(await call("get_schema", {"name": "NewPet", "version": "1"}))
    assert "name" in schema["schema"]["properties"], schema

    versions = data(await call("list_versions", {}))
    labels = [v["label"] for v in versions["versions"]]
    assert sorted(labels) == ["1", "2"] and versions["versions"][0]["default"], versions
    assert versions["versions"][0]["mcp_url"].endswith("/api/mcp/pets@" + labels[0]), versions

    examples = data(await call("get_examples", {"method": "POST", "path": "/pets", "version": "1"}))
    assert isinstance(examples["request"]["example"], dict) and "name" in examples["request"]["example"], examples

    types = data(await call("typescript_types", {"schema": "NewPet", "version": "1"}))
    assert types["language"] == "typescript" and "export type NewPet = {" in types["code"], types
    op_types = data(await call("typescript_types", {"method": "POST", "path": "/pets", "version": "1"}))
    assert "CreatePetBody" in op_types["code"], op_types

    answer = data(await call("ask_docs", {"question": "How do I create a pet?", "version": "1"}))
    assert "`POST /pets`" in answer["answer"] and "curl -X POST" in answer["answer"], answer
    assert answer["citations"][0]["url"].endswith("/op/createPet"), answer
    nothing = data(await call("ask_docs", {"question": "zyzzyva quux", "version": "1"}))
    assert nothing["citations"] == [] and "No endpoint" in nothing["answer"], nothing

    live = data(await call("call_endpoint", {"method": "GET", "path": "/pets", "query": {"limit": "2"}, "headers": {"Authorization": "Bearer live-key"}, "version": "1"}))
    assert live["status"] == 200, live
    echoed = live["body"] if isinstance(live["body"], dict) else json.loads(live["body"])
    assert echoed["path"] == "/pets?limit=2" and echoed["authorization"] == "Bearer live-key", echoed

    mocked = data(await call("call_mock", {"method": "GET", "path": "/pets", "version": "1"}))
    assert mocked["status"] == 200 and isinstance(mocked["body"], list), mocked
    created = data(await call("call_mock", {"method": "POST", "path": "/pets", "body": {"name": "Rex"}, "version": "1"}))
    assert created["status"] in (200, 201), created

    diff = data(await call("diff_versions", {"from": "1", "to": "2"}))
    # Version 2 adds GET /health and requires a bearer token everywhere: major.
    rules = {(c["rule"], c["operation"]) for c in diff["changes"]}
    assert diff["bump"] == "major" and ("endpoint-added", "GET /health") in rules, diff
    assert ("security-added", "GET /pets") in rules and diff["summary"]["breaking"] == 3, diff

    auth = data(await call("get_auth", {"version": "2"}))
    assert [s["name"] for s in auth["schemes"]] == ["bearer"] and auth["required"] == [["bearer"]], auth
    assert "Authorization: Bearer" in auth["schemes"][0]["how"], auth

    missing = await call("get_endpoint", {"method": "DELETE", "path": "/nothing", "version": "1"})
    assert failed(missing) and "no endpoint" in missing.content[0].text, missing
    return len(listed)


async def status_of(url: str, token: str | None) -> int:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    async with httpx2.AsyncClient(timeout=30) as http:
        return (await http.post(url, headers=headers, json=body)).status_code


async def main(hub: str, pat: str, public_token: str, private_token: str, api: str) -> None:
    public = f"{hub}/api/mcp/pets"
    private = f"{hub}/api/mcp/secret"
    count = await run(public, None, lambda s: every_tool(s, api))
    assert await status_of(private, None) == 401, "a private project without a credential"
    assert await status_of(private, public_token) == 404, "another project's MCP token"
    assert await status_of(private, "svc_mcp_" + "A" * 43) == 401, "an unknown MCP token"

    async def private_checks(session):
        assert len((await session.list_tools()).tools) == 12
        endpoint = data(await session.call_tool("get_endpoint", {"operationId": "listPets"}))
        assert endpoint["path"] == "/pets", endpoint
        return True

    assert await run(private, private_token, private_checks)
    assert await run(private, pat, private_checks), "a member's personal access token"
    assert await run(f"{private}@1", private_token, private_checks), "a version by label"
    print(f"mcp: {count} tools on the public project, each called; the private project with its token and a member's; 401 and 404 as documented")


if __name__ == "__main__":
    asyncio.run(main(*(a.rstrip("/") for a in sys.argv[1:6])))
