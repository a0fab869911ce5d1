"""The official MCP client SDK (PyPI `mcp`) against the courses service's
MCP endpoint: initialize, list the tools, call generate_course, then check
that the REST API serves the course the tool made.

Usage: mcp_smoke.py <base url> <api key>
"""

import asyncio
import json
import sys
import urllib.request

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def failed(result) -> bool:
    # 2.x names the flag is_error; 1.x isError.
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


async def main(base: str, key: str) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with streamable_http_client(f"{base}/v1/mcp", http_client=http, terminate_on_close=False) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {tool.name for tool in (await session.list_tools()).tools}
                expected = {"generate_course", "create_course", "add_screen", "reorder_screens", "duplicate_screen", "add_block", "publish_course"}
                assert expected <= tools, f"missing tools: {expected - tools}"
                result = await session.call_tool(
                    "generate_course",
                    {"prompt": "Safe lifting at work. Bend your knees. Keep the load close to your body. Ask for help with heavy items.", "screensTarget": 4},
                )
                assert not failed(result), result
                course = json.loads(result.content[0].text)
                published = await session.call_tool("publish_course", {"courseId": course["id"]})
                assert not failed(published), published
    request = urllib.request.Request(f"{base}/v1/courses/{course['id']}", headers=headers)
    with urllib.request.urlopen(request) as response:
        served = json.load(response)
    assert served["status"] == "published" and served["sourceKind"] == "generated", served
    assert len(served["screens"]) == 4, served
    print(f"mcp smoke: {len(tools)} tools; generated and published {course['id']} ({served['title']!r})")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1].rstrip("/"), sys.argv[2]))
