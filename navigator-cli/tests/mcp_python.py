"""Drives `navigator mcp` with the official MCP Python SDK, as an agent host would.

Run by navigator-cli/tests/mcp_python.rs (inside `cargo test`) with the environment it sets:
NAVIGATOR_BIN (the binary), MCP_TEST_HOME (a data directory already holding an index of
MCP_TEST_VAULT, a writable copy of examples/data/vault), MCP_TEST_REPO (this repository),
MCP_TEST_MEMORY (a session log for the time table of contents), and the runtime and model
variables. Exits non-zero, with the reason, on the first failed check.
"""

import asyncio
import json
import os
import re
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

TOOLS = {
    "search", "get_item", "read_note", "recent", "toc_search", "toc_children",
    "write_note", "update_note", "archive_note", "build_context", "replay_flight_plan",
}
READ_ONLY = TOOLS - {"write_note", "update_note", "archive_note"}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Client:
    """A session plus the output schemas, validating every successful tool result."""

    def __init__(self, session, schemas):
        self.session = session
        self.schemas = schemas
        self.validated = set()

    async def call(self, name, arguments, progress=None):
        result = await self.session.call_tool(name, arguments, progress_callback=progress)
        if not result.is_error:
            jsonschema.validate(result.structured_content, self.schemas[name])
            self.validated.add(name)
        return result

    async def ok(self, name, arguments, progress=None):
        # A write can meet the start-up index run still holding the index (`busy`): that is
        # the documented answer, so wait for it to finish, a bounded number of times.
        for _ in range(600):
            result = await self.call(name, arguments, progress)
            code = (result.structured_content or {}).get("error", {}).get("code")
            if result.is_error and code == "busy":
                await asyncio.sleep(0.1)
                continue
            break
        check(not result.is_error, f"{name}({arguments}) failed: {result.structured_content}")
        return result.structured_content

    async def error(self, name, arguments, code):
        result = await self.call(name, arguments)
        check(result.is_error, f"{name}({arguments}) should fail with {code}, got {result.structured_content}")
        error = result.structured_content["error"]
        check(error["code"] == code, f"{name}({arguments}): code {error['code']}, expected {code}: {error['message']}")
        check(error["message"], f"{name}: an error needs a message")
        check(any(code in c.text for c in result.content), f"{name}: the text content names the error")
        return error["message"]


async def list_everything(session):
    tools = (await session.list_tools()).tools
    names = {t.name for t in tools}
    check(names == TOOLS, f"tools: {sorted(names)}")
    schemas = {}
    for tool in tools:
        check(tool.description, f"{tool.name}: description")
        check(tool.input_schema.get("type") == "object", f"{tool.name}: inputSchema root")
        check(tool.output_schema and tool.output_schema.get("type") == "object", f"{tool.name}: outputSchema")
        jsonschema.validators.validator_for(tool.output_schema).check_schema(tool.output_schema)
        jsonschema.validators.validator_for(tool.input_schema).check_schema(tool.input_schema)
        hints = tool.annotations
        check(hints is not None and hints.read_only_hint == (tool.name in READ_ONLY), f"{tool.name}: readOnlyHint")
        check(hints.destructive_hint is not None and hints.idempotent_hint is not None, f"{tool.name}: hints")
        schemas[tool.name] = tool.output_schema
    search_props = next(t for t in tools if t.name == "search").input_schema["properties"]
    for field in ("query", "searchMode", "categories", "filters", "limit", "offset", "includeArchived"):
        check(field in search_props, f"search inputSchema lacks {field}")

    resources = (await session.list_resources()).resources
    uris = [str(r.uri) for r in resources]
    check("navigator://category/project" in uris, f"category listings: {uris[:6]}")
    notes = [u for u in uris if u.startswith("navigator://note/")]
    check(len(notes) >= 25, f"{len(notes)} note resources")
    templates = (await session.list_resource_templates()).resource_templates
    check(any(t.uri_template == "navigator://note/{id}" for t in templates), "note template")
    prompts = (await session.list_prompts()).prompts
    check([p.name for p in prompts] == ["navigator"], f"prompts: {prompts}")
    prompt = await session.get_prompt("navigator", {"request": "find my kitchen budget"})
    text = prompt.messages[0].content.text
    check("Navigator" in text and "{{" not in text, "the prompt is rendered")
    check(prompt.messages[-1].content.text == "find my kitchen budget", "the request follows the prompt")
    return schemas, notes


async def knowledge_base(client, notes):
    answer = await client.ok("search", {"query": "which contractor can start in spring"})
    check(answer["action"] == "search_results", f"search action {answer['action']}")
    top = [r["itemId"] for r in answer["results"][:3]]
    check(any(i.endswith("Contractor quotes.md") for i in top), f"top 3: {top}")
    scoped = await client.ok("search", {
        "query": "budget", "categories": ["area"], "searchMode": "keyword", "limit": 5})
    check(all(r["category"] == "area" for r in scoped.get("results", [])), "categories scope the search")

    item_id = top[0]
    got = await client.ok("get_item", {"id": item_id})
    check(got["item"]["id"] == item_id, "get_item")
    note = await client.ok("read_note", {"path": item_id})
    check(note["source"] == "vault" and note["markdown"].strip(), "read_note reads the file")
    recent = await client.ok("recent", {"limit": 3, "categories": ["project"]})
    check(len(recent["items"]) == 3 and all(i["category"] == "project" for i in recent["items"]), "recent")
    dates = [i["updatedAt"] for i in recent["items"]]
    check(dates == sorted(dates, reverse=True), "recent is newest first")

    first_note = next(u for u in notes if u.endswith(".md"))
    contents = (await client.session.read_resource(first_note)).contents
    check(contents and contents[0].text, "a note resource reads")
    listing = (await client.session.read_resource("navigator://category/area")).contents[0].text
    check(all(e["uri"].startswith("navigator://note/") for e in json.loads(listing)), "category listing")


async def write_then_find(client):
    reports = []

    async def on_progress(progress, total, message):
        reports.append((progress, total, message))

    created = await client.ok("write_note", {
        "path": "1 Projects/Orbit Migration/Cutover plan",
        "content": "# Cutover plan\n\nMove the zephyrine ledger to the cobalt cluster on Saturday.\n",
        "tags": ["migration", "orbit"],
        "frontMatter": {"status": "active"},
    }, progress=on_progress)
    note_id = created["id"]
    check(reports and all("indexing" in m for _, _, m in reports), f"re-index progress: {reports}")
    values = [p for p, _, _ in reports]
    check(values == sorted(values), f"progress only grows: {values}")
    check(note_id == "1 Projects/Orbit Migration/Cutover plan.md", f"id {note_id}")
    check(created["item"]["category"] == "project" and created["index"]["added"] >= 1, f"indexed: {created['index']}")
    found = await client.ok("search", {"query": "zephyrine ledger cobalt cluster"})
    ids = [r["itemId"] for r in found.get("results", [])] or [found.get("navigationTarget", {}).get("itemId")]
    check(note_id in ids, f"the new note is found: {ids}")

    updated = await client.ok("update_note", {"id": note_id, "append": "Rollback window: two hours.",
                                              "frontMatter": {"owner": "Dana"}})
    check(updated["action"] == "updated", "update_note")
    text = (await client.ok("read_note", {"id": note_id}))["markdown"]
    check("owner: Dana" in text and "status: active" in text and "Rollback window" in text,
          f"front matter kept and merged: {text}")

    archived = await client.ok("archive_note", {"id": note_id})
    check(archived["id"].startswith("4 Archives/"), f"archived to {archived['id']}")
    check(archived["item"]["category"] == "archive", "the archived note is an archive item")
    again = await client.ok("search", {"query": "zephyrine ledger cobalt cluster", "searchMode": "keyword"})
    ids = [r["itemId"] for r in again.get("results", [])]
    check(archived["id"] in ids and note_id not in ids, f"search follows the move: {ids}")


async def code_context(client):
    reports = []

    async def on_progress(progress, total, message):
        reports.append((progress, total, message))

    built = await client.ok("build_context", {
        "goal": "Where does the MCP server confine note paths to the vault and refuse symlinks?",
        "tokens": 6000,
    }, progress=on_progress)
    messages = [m for _, _, m in reports]
    check(any(m.startswith("mapped ") for m in messages), f"mapping progress: {messages}")
    check(any(m.startswith("turn 1:") for m in messages), f"a progress report per turn: {messages}")
    values = [p for p, _, _ in reports]
    check(values == sorted(values) and reports[-1][0] == reports[-1][1], f"progress grows to its total: {reports}")
    check(0 < built["tokens"] <= 6000 and built["tokenBudget"] == 6000, f"tokens {built['tokens']}")
    check(built["files"] and built["context"] and built["turns"], "files, context, turns")
    check("goal:" in built["flightPlan"], "a Flight Plan")
    paths = [f["path"] for f in built["files"]]
    check(any("mcp" in p for p in paths[:8]), f"the MCP module is in the context: {paths[:8]}")
    replayed = await client.ok("replay_flight_plan", {"plan": built["planUri"]})
    check(replayed["context"] == built["context"], "the replay regenerates the same context")
    plans = [str(r.uri) for r in (await client.session.list_resources()).resources
             if str(r.uri).startswith("navigator://flight-plan/")]
    check(plans, "the session's plans are resources")
    return built


async def time_toc(client):
    found = await client.ok("toc_search", {"query": "what did we decide about JWT"})
    check(found["findings"] and found["evidence"], f"toc_search: {found.get('emptyReason')}")
    years = await client.ok("toc_children", {})
    check(years["children"], "year nodes")
    months = await client.ok("toc_children", {"parentId": years["children"][0]["node"]["node_id"],
                                              "query": "authentication"})
    check(months["parentId"], "ranked children")


async def bad_arguments(client):
    await client.error("search", {"query": ""}, "bad_request")
    message = await client.error("search", {"query": "x", "limit": 0}, "bad_request")
    check("limit" in message, message)
    await client.error("search", {"query": "x", "mode": "fuzzy"}, "bad_request")
    await client.error("search", {}, "bad_request")
    await client.error("get_item", {"id": "no/such/note.md"}, "not_found")
    await client.error("read_note", {"id": "a.md", "path": "b.md"}, "bad_request")
    await client.error("write_note", {"path": "../escape.md", "content": "x"}, "outside_vault")
    await client.error("write_note", {"path": "/tmp/escape.md", "content": "x"}, "outside_vault")
    await client.error("update_note", {"path": "1 Projects/none.md", "append": "x"}, "not_found")
    await client.error("build_context", {"goal": "x", "tokens": 0}, "bad_request")
    await client.error("replay_flight_plan", {"plan": "not: [a plan"}, "bad_request")
    await client.error("toc_children", {"parentId": "toc:year:1999"}, "not_found")
    try:
        await client.session.read_resource("navigator://note/no%20such.md")
        check(False, "reading an unknown note resource must fail")
    except MCPError:
        pass
    # The connection survives every failure above.
    await client.ok("recent", {"limit": 1})


async def main():
    home = os.environ["MCP_TEST_HOME"]
    args = ["mcp", "--home", home, "--vault", os.environ["MCP_TEST_VAULT"],
            "--repo", os.environ["MCP_TEST_REPO"], "--memory", os.environ["MCP_TEST_MEMORY"]]
    params = StdioServerParameters(command=os.environ["NAVIGATOR_BIN"], args=args, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            info = await session.initialize()
            check(info.server_info.name == "navigator", f"server {info.server_info}")
            schemas, notes = await list_everything(session)
            client = Client(session, schemas)
            await knowledge_base(client, notes)
            await write_then_find(client)
            built = await code_context(client)
            await time_toc(client)
            await bad_arguments(client)
            missing = TOOLS - client.validated
            check(not missing, f"tools never validated against their outputSchema: {sorted(missing)}")
    http_clients = await over_http(home)
    print(json.dumps({"ok": True, "tools": len(TOOLS), "context_tokens": built["tokens"],
                      "http_clients": http_clients}))


async def over_http(home):
    """The same server over streamable HTTP: two clients at once share one process."""
    server = await asyncio.create_subprocess_exec(
        os.environ["NAVIGATOR_BIN"], "mcp", "--home", home, "--repo", os.environ["MCP_TEST_REPO"],
        "--http", "127.0.0.1:0", stderr=asyncio.subprocess.PIPE, env=dict(os.environ))
    try:
        url = None
        while url is None:
            line = await asyncio.wait_for(server.stderr.readline(), 120)
            check(line, "the HTTP server exited before listening")
            found = re.search(r"listening on (http://\S+/mcp)", line.decode())
            url = found and found.group(1)
        drain = asyncio.create_task(server.stderr.read())

        async def one_client(query):
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write) as session:
                    info = await session.initialize()
                    check(info.server_info.name == "navigator", f"server {info.server_info}")
                    schemas, _ = await list_everything(session)
                    client = Client(session, schemas)
                    answer = await client.ok("search", {"query": query, "limit": 5})
                    check(answer.get("results") or answer.get("navigationTarget"), f"http search: {answer}")
                    await client.error("get_item", {"id": "no/such/note.md"}, "not_found")
                    return sorted(client.validated)

        both = await asyncio.gather(one_client("which contractor can start in spring"),
                                    one_client("kitchen budget"))
        check(all("search" in v for v in both), f"both HTTP clients searched: {both}")
        return len(both)
    finally:
        server.terminate()
        await server.wait()
        if "drain" in locals():
            drain.cancel()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except BaseException as e:  # the session's task groups wrap the failure in groups
        while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
            e = e.exceptions[0]
        print(f"FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
