//! `navigator mcp` end to end over stdio JSON-RPC: tools, resources and prompts listed with
//! their schemas; search, notes and errors on the sample vault; one server per data
//! directory; writes confined to the vault; reads served while the index runs.

mod mcp_support;

use mcp_support::{navigator, repo_root, text, Fixture, Server};
use serde_json::{json, Value};

const TOOLS: [&str; 11] = [
    "archive_note",
    "build_context",
    "get_item",
    "read_note",
    "recent",
    "replay_flight_plan",
    "search",
    "toc_children",
    "toc_search",
    "update_note",
    "write_note",
];

#[test]
fn tools_resources_and_prompts_are_listed_with_schemas_and_hints() {
    let fixture = Fixture::indexed();
    let mut server = fixture.serve();
    let reply = server.request("tools/list", json!({}));
    let tools = reply["result"]["tools"].as_array().expect("tools");
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, TOOLS);
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
        assert_eq!(
            tool["outputSchema"]["anyOf"].as_array().unwrap().len(),
            2,
            "{name}"
        );
        let writes = name.ends_with("_note") && name != "read_note";
        assert_eq!(
            tool["annotations"]["readOnlyHint"],
            json!(!writes),
            "{name}"
        );
        assert!(
            tool["annotations"]["destructiveHint"].is_boolean(),
            "{name}"
        );
    }
    // The search input is the core SearchRequest schema: new fields appear by themselves.
    let search = tools.iter().find(|t| t["name"] == "search").unwrap();
    let request = navigator_core::json_schema::<navigator_core::SearchRequest>();
    for field in request["properties"].as_object().unwrap().keys() {
        assert!(
            search["inputSchema"]["properties"].get(field).is_some(),
            "search lacks {field}"
        );
    }
    assert_eq!(search["inputSchema"]["required"], json!(["query"]));

    let resources = server.request("resources/list", json!({}));
    let uris: Vec<&str> = resources["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"navigator://category/archive"));
    let archive = resources["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "navigator://category/archive")
        .unwrap();
    assert_eq!(archive["title"], "Archives (category)", "{archive}");
    let brief = "navigator://note/1%20Projects/Website%20Relaunch/Project%20brief.md";
    assert!(uris.contains(&brief), "{uris:?}");
    let read = server.request("resources/read", json!({ "uri": brief }));
    let contents = &read["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "text/markdown");
    assert!(contents["text"]
        .as_str()
        .unwrap()
        .starts_with("---\ntitle: Website relaunch"));
    let templates = server.request("resources/templates/list", json!({}));
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "navigator://note/{id}"
    );
    let prompt = server.request("prompts/get", json!({ "name": "navigator" }));
    let text = prompt["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("PARA") && !text.contains("{{"), "{text}");
    let unknown = server.request("prompts/get", json!({ "name": "nope" }));
    assert!(unknown["error"]["message"]
        .as_str()
        .unwrap()
        .contains("nope"));
}

#[test]
fn search_reads_and_errors_on_the_sample_vault() {
    let fixture = Fixture::indexed();
    let mut server = fixture.serve();
    let answer = server.ok(
        "search",
        json!({ "query": "which contractor can start in spring" }),
    );
    assert_eq!(answer["action"], "search_results", "{answer}");
    let top: Vec<&str> = answer["results"].as_array().unwrap()[..3]
        .iter()
        .map(|r| r["itemId"].as_str().unwrap())
        .collect();
    assert!(
        top.iter().any(|id| id.ends_with("Contractor quotes.md")),
        "{top:?}"
    );
    for r in answer["results"].as_array().unwrap() {
        let score = r["relevanceScore"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score), "{r}");
    }
    let item = server.ok("get_item", json!({ "id": top[0] }));
    assert_eq!(item["item"]["id"], top[0]);
    let note = server.ok("read_note", json!({ "path": top[0] }));
    assert_eq!(note["source"], "vault");
    let recent = server.ok("recent", json!({ "limit": 2, "categories": ["area"] }));
    assert_eq!(recent["items"].as_array().unwrap().len(), 2, "{recent}");

    // An empty query with a scope lists that scope, newest first.
    let listed = server.ok(
        "search",
        json!({ "query": "", "categories": ["area"], "limit": 50 }),
    );
    assert_eq!(listed["action"], "search_results", "{listed}");
    let hits = listed["results"].as_array().unwrap();
    assert!(hits.len() >= 2, "{listed}");
    assert!(hits
        .iter()
        .all(|h| h["category"] == "area" && h["relevanceScore"] == 1.0));
    let dates: Vec<&str> = hits
        .iter()
        .map(|h| h["metadata"]["updatedAt"].as_str().unwrap())
        .collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");

    // Every kind of bad call is a tool error with a code; the session goes on.
    assert_eq!(
        server.error_code("search", json!({ "query": "" })),
        "bad_request"
    );
    assert_eq!(
        server.error_code("search", json!({ "query": "x", "limit": 51 })),
        "bad_request"
    );
    assert_eq!(
        server.error_code("search", json!({ "qeury": "x" })),
        "bad_request"
    );
    assert_eq!(
        server.error_code("search", json!({ "query": 7 })),
        "bad_request"
    );
    assert_eq!(
        server.error_code("get_item", json!({ "id": "nope.md" })),
        "not_found"
    );
    assert_eq!(
        server.error_code("recent", json!({ "limit": 0 })),
        "bad_request"
    );
    assert_eq!(
        server.error_code("build_context", json!({ "goal": "x" })),
        "not_configured"
    );
    assert_eq!(
        server.error_code("toc_children", json!({ "parentId": "toc:year:1990" })),
        "not_found"
    );
    // No session log loaded: an empty answer says so, whatever the question.
    let found = server.ok(
        "toc_search",
        json!({ "query": "what did we decide about JWT" }),
    );
    assert!(
        found["emptyReason"]
            .as_str()
            .is_some_and(|r| r.contains("--memory")),
        "{found}"
    );
    let (is_error, content) = server.call("search", json!({ "query": "x", "limit": 0 }));
    assert!(is_error);
    assert!(
        content["error"]["message"]
            .as_str()
            .unwrap()
            .contains("limit"),
        "{content}"
    );
    // A line that is not JSON is answered with a parse error, not silence.
    server.send_line("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
    let parse_error = server.next_message();
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    let unknown = server.request(
        "tools/call",
        json!({ "name": "no_such_tool", "arguments": {} }),
    );
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let message = unknown["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`no_such_tool`") && message.contains("read_note"),
        "the error names the tool asked for and the tools there are: {unknown}"
    );
    assert_eq!(
        server.ok("recent", json!({}))["items"]
            .as_array()
            .unwrap()
            .len(),
        10
    );
}

#[test]
fn a_second_server_on_the_same_data_directory_stops_with_a_clear_error() {
    let fixture = Fixture::indexed();
    let _first = fixture.serve();
    // A command that needs the index while the server holds it names the server.
    let out = navigator(&fixture.home())
        .args(["search", "budget"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6), "{}", text(&out));
    assert!(
        text(&out).contains("held by a running `navigator mcp` (process "),
        "{}",
        text(&out)
    );
    let out = navigator(&fixture.home()).arg("mcp").output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let message = text(&out);
    assert!(
        message.contains("in use by another `navigator mcp`"),
        "{message}"
    );
    assert!(
        message.contains(&fixture.home().display().to_string()),
        "{message}"
    );
}

#[test]
fn notes_are_written_inside_the_vault_and_found() {
    let fixture = Fixture::indexed();
    let outside = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), fixture.vault().join("Outbox")).unwrap();
    let mut server = fixture.serve();
    for path in ["../escape.md", "/tmp/escape.md", "2 Areas/../../escape.md"] {
        let code = server.error_code("write_note", json!({ "path": path, "content": "x" }));
        assert_eq!(code, "outside_vault", "{path}");
    }
    #[cfg(unix)]
    assert_eq!(
        server.error_code(
            "write_note",
            json!({ "path": "Outbox/leak.md", "content": "x" })
        ),
        "outside_vault"
    );
    assert_eq!(
        std::fs::read_dir(outside.path()).unwrap().count(),
        0,
        "nothing written outside"
    );

    let created = write(
        &mut server,
        json!({
            "path": "2 Areas/Health/Physio exercises",
            "content": "---\naliases: [rehab]\n---\n# Physio\nQuadriceps isometrics, three sets daily.\n",
            "title": "Physio exercises",
        }),
    );
    assert_eq!(created["id"], "2 Areas/Health/Physio exercises.md");
    assert_eq!(created["item"]["category"], "area");
    let file = std::fs::read_to_string(fixture.vault().join("2 Areas/Health/Physio exercises.md"))
        .unwrap();
    assert!(
        file.contains("aliases:") && file.contains("title: Physio exercises"),
        "{file}"
    );
    assert_eq!(
        server.error_code(
            "write_note",
            json!({ "path": "2 Areas/Health/Physio exercises.md", "content": "again" })
        ),
        "already_exists"
    );
    let found = server.ok("search", json!({ "query": "quadriceps isometrics" }));
    assert_eq!(found["results"][0]["itemId"], created["id"], "{found}");
}

#[test]
fn a_plain_text_note_is_written_without_front_matter_and_a_folder_is_no_note_path() {
    let fixture = Fixture::indexed();
    let mut server = fixture.serve();
    let rel = "3 Resources/Reading list.txt";
    let abs = fixture.vault().join(rel);
    // A plain-text note has no front matter to put a title or tags in.
    for extra in [json!({ "title": "Books" }), json!({ "tags": ["books"] })] {
        let mut arguments = json!({ "path": rel, "content": "Dune" });
        arguments
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        assert_eq!(server.error_code("write_note", arguments), "bad_request");
    }
    // A note larger than the index takes (8 MiB) is refused, not written and never found.
    let huge = "word ".repeat(1_800_000);
    assert_eq!(
        server.error_code("write_note", json!({ "path": rel, "content": huge })),
        "bad_request"
    );
    assert!(!abs.exists());
    let created = write(
        &mut server,
        json!({ "path": rel, "content": "Dune\nNeuromancer" }),
    );
    assert_eq!(created["id"], rel);
    assert_eq!(
        std::fs::read_to_string(&abs).unwrap(),
        "Dune\nNeuromancer\n"
    );
    let updated = call_until_free(
        &mut server,
        "update_note",
        json!({ "path": rel, "append": "Foundation" }),
    );
    assert_eq!(updated["id"], rel, "{updated}");
    assert_eq!(
        std::fs::read_to_string(&abs).unwrap(),
        "Dune\nNeuromancer\n\nFoundation\n"
    );
    let item = server.ok("get_item", json!({ "id": rel }));
    assert!(
        !item["item"]["body"].as_str().unwrap().contains("---"),
        "{item}"
    );
    // A path ending in `/` names a folder: refused, not written as `Health.md`.
    assert_eq!(
        server.error_code(
            "write_note",
            json!({ "path": "2 Areas/Health/", "content": "x" })
        ),
        "bad_request"
    );
    assert!(!fixture.vault().join("2 Areas/Health.md").exists());
}

#[test]
fn an_update_keeps_the_text_of_the_front_matter_keys_it_does_not_change() {
    let fixture = Fixture::indexed();
    let rel = "1 Projects/Kitchen/Plan.md";
    let abs = fixture.vault().join(rel);
    std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
    std::fs::write(
        &abs,
        "---\n# planning, not yet booked\ntitle: 'Kitchen plan'\ntags: [home, renovation]\nowner: me\n---\nMeasure the walls.\n",
    )
    .unwrap();
    let mut server = fixture.serve();
    call_until_free(
        &mut server,
        "update_note",
        json!({ "path": rel, "frontMatter": { "owner": "Dana" }, "append": "Order tiles." }),
    );
    let text = std::fs::read_to_string(&abs).unwrap();
    let (front, body) = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("---\n"))
        .unwrap();
    // Comments, the flow list and the quoting stay; the changed key and the date are new.
    assert!(
        front.starts_with("# planning, not yet booked\ntitle: 'Kitchen plan'\ntags: [home, renovation]\nowner: Dana\nupdated: "),
        "{text}"
    );
    assert_eq!(body, "Measure the walls.\n\nOrder tiles.\n");
    let item = server.ok("get_item", json!({ "id": rel }));
    assert_eq!(item["item"]["title"], "Kitchen plan", "{item}");
    // A key given both as an argument and in frontMatter is refused, not one silently won.
    assert_eq!(
        server.error_code(
            "update_note",
            json!({ "path": rel, "tags": ["a"], "frontMatter": { "tags": ["b"] } })
        ),
        "bad_request"
    );
    // A backslash is no folder separator: refused rather than written as one odd file name.
    assert_eq!(
        server.error_code(
            "write_note",
            json!({ "path": "2 Areas\\win.md", "content": "x" })
        ),
        "bad_request"
    );
}

#[test]
fn input_that_ends_before_initialize_is_a_clean_end() {
    let fixture = Fixture::indexed();
    let out = navigator(&fixture.home())
        .arg("mcp")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(out.stdout.is_empty(), "{}", text(&out));
}

/// Calls `tool` until the start-up index run has let go of the index (`busy` meanwhile).
fn call_until_free(server: &mut Server, tool: &str, arguments: Value) -> Value {
    loop {
        let (is_error, content) = server.call(tool, arguments.clone());
        if !is_error {
            return content;
        }
        assert_eq!(content["error"]["code"], "busy", "{content}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Writes until the start-up index run has let go of the index (`busy` meanwhile).
fn write(server: &mut Server, arguments: Value) -> Value {
    loop {
        let (is_error, content) = server.call("write_note", arguments.clone());
        if !is_error {
            return content;
        }
        assert_eq!(content["error"]["code"], "busy", "{content}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn the_vault_is_indexed_in_the_background_at_start_while_reads_are_answered() {
    // Not indexed yet: the server indexes the vault at start, on its own.
    let fixture = Fixture::new();
    let mut server = fixture.serve();
    let mut answers = 0;
    loop {
        // Reads never wait for the index run: each is answered with what is indexed so far.
        let recent = server.ok("recent", json!({ "limit": 200, "includeFolders": true }));
        answers += 1;
        if recent["total"].as_u64().unwrap() >= 40 {
            break;
        }
        assert!(
            answers < 2000,
            "the start-up index never finished: {recent}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let created = write(
        &mut server,
        json!({ "path": "Inbox idea.md", "content": "Try a standing desk." }),
    );
    assert!(created["item"].is_object(), "{created}");
    assert_eq!(created["index"]["added"], 1, "only the new note: {created}");
}

/// Notes written, edited and deleted outside the server (an editor, a sync) are indexed as
/// they change: the server held the index for its life and never saw them (a deleted note
/// stayed a search result, a new one was never found, and `navigator index` was refused).
#[test]
fn notes_changed_outside_the_server_are_indexed_as_they_change() {
    let fixture = Fixture::new();
    let mut server = fixture.serve();
    // Once the start-up run is done, a write goes through.
    write(
        &mut server,
        json!({ "path": "Inbox idea.md", "content": "Try a standing desk." }),
    );
    let found = |server: &mut Server, query: &str| -> Vec<String> {
        let answer = server.ok("search", json!({ "query": query, "searchMode": "keyword" }));
        let hits = match answer["action"].as_str() {
            Some("navigate") => vec![answer["navigationTarget"].clone()],
            _ => answer["results"].as_array().cloned().unwrap_or_default(),
        };
        hits.iter()
            .filter_map(|h| h["itemId"].as_str().map(str::to_string))
            .collect()
    };
    // A hang guard, not a timing assertion: a missed change would otherwise loop forever.
    let until = |server: &mut Server, query: &str, present: bool, path: &str| {
        for _ in 0..1200 {
            if found(server, query).iter().any(|p| p == path) == present {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!(
            "`{path}` never {} for {query:?}",
            if present { "found" } else { "gone" }
        );
    };
    let outside = fixture.vault().join("3 Resources/Albatross.md");
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    std::fs::write(
        &outside,
        "# Albatross\n\nThe albatross plays the ukulele.\n",
    )
    .unwrap();
    until(
        &mut server,
        "albatross ukulele",
        true,
        "3 Resources/Albatross.md",
    );
    std::fs::remove_file(&outside).unwrap();
    until(
        &mut server,
        "albatross ukulele",
        false,
        "3 Resources/Albatross.md",
    );
}

#[test]
fn the_server_re_indexes_the_vault_with_the_folder_mappings_it_was_indexed_with() {
    let fixture = Fixture::new();
    let inbox = fixture.vault().join("Inbox");
    std::fs::create_dir(&inbox).unwrap();
    std::fs::write(
        inbox.join("Standing desk.md"),
        "Try a standing desk at work.\n",
    )
    .unwrap();
    let out = navigator(&fixture.home())
        .args(["index", "--quiet", "--folder", "Inbox=area"])
        .arg(fixture.vault())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let mut server = fixture.serve();
    // A write waits out the start-up index run, so what follows sees its result.
    write(
        &mut server,
        json!({ "path": "Inbox/Chair.md", "content": "A better chair." }),
    );
    let found = server.ok(
        "search",
        json!({ "query": "standing desk", "categories": ["area"] }),
    );
    // A clear match is a navigation to it; else the first result.
    let hit = match found["action"].as_str() {
        Some("navigate") => &found["navigationTarget"],
        _ => &found["results"][0],
    };
    assert_eq!(
        hit["itemId"], "Inbox/Standing desk.md",
        "still an area after the server's own index run: {found}"
    );
}

/// SIGTERM (as Ctrl-C) ends a session whose input is still open as the end of the input
/// does: exit 0, and the store closed, so the next open recovers nothing.
#[cfg(unix)]
#[test]
fn a_terminated_server_closes_the_store() {
    let fixture = Fixture::indexed();
    let mut server = fixture.serve();
    server.ok("search", json!({ "query": "kitchen budget" }));
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    // A hang guard, not a timing assertion.
    let mut status = None;
    for _ in 0..1200 {
        status = server.child.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = status.expect("the server stopped on SIGTERM");
    assert_eq!(status.code(), Some(0), "{status:?}");
    let out = navigator(&fixture.home()).arg("status").output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("not closed cleanly"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_cancelled_call_leaves_the_session_working() {
    let fixture = Fixture::indexed();
    let repo = repo_root();
    let mut server = fixture.serve_with(&["--repo".as_ref(), repo.as_os_str()]);
    let goal = json!({ "goal": "How does the engine repair its indexes on open?", "tokens": 4000 });
    let id = server.send(
        "tools/call",
        json!({ "name": "build_context", "arguments": goal }),
    );
    server.send_line(
        &json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": id, "reason": "the user moved on" }
        })
        .to_string(),
    );
    // Whether the cancel arrived in time or not, the next call is answered.
    let recent = server.ok("recent", json!({ "limit": 1 }));
    assert_eq!(recent["items"].as_array().unwrap().len(), 1);
    let built = server.ok("build_context", goal);
    assert!(
        built["tokens"].as_u64().unwrap() <= 4000,
        "{}",
        built["tokens"]
    );
    assert!(built["planUri"]
        .as_str()
        .unwrap()
        .starts_with("navigator://flight-plan/"));
    // A model or base URL nothing would use, or a base URL that is not http(s), is refused
    // as the command line refuses it.
    for args in [
        json!({ "goal": "x", "model": "local" }),
        json!({ "goal": "x", "llm": "openai", "baseUrl": "file:///tmp/x" }),
    ] {
        assert_eq!(server.error_code("build_context", args), "bad_request");
    }
}
