//! Rendering through the real templates: content, escaping, sanitising.

use super::*;

const PETSTORE: &str = r#"
openapi: 3.0.3
info:
  title: Petstore <b>API</b>
  version: '1.0'
  description: "The **pet** API.\n\n<script>alert('desc')</script>\n\n[bad](javascript:alert(1))"
servers: [{url: 'https://api.example.com/v1'}]
tags: [{name: pets, description: Everything about pets}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-API-Key}
  schemas:
    Pet:
      type: object
      required: [id]
      properties:
        id: {type: string, description: "<img src=x onerror=alert(2)>The id"}
        name: {type: string, example: Rex}
security: [{key: []}]
paths:
  /pets:
    get:
      operationId: listPets
      summary: "List <pets>"
      tags: [pets]
      parameters:
        - {name: limit, in: query, schema: {type: integer, maximum: 100}, description: How many}
      responses:
        '200':
          description: the pets
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}
  /pets/{id}:
    delete:
      summary: Delete a pet
      tags: [pets]
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses: {'204': {description: gone}}
"#;

fn site() -> Site {
    Site::new(spec::parse(PETSTORE.as_bytes()).unwrap_or_else(|e| panic!("{e}")))
}

fn chrome() -> Chrome {
    Chrome {
        project_name: "Pets \"quoted\"".to_owned(),
        base: "/docs/pets".to_owned(),
        asset_base: assets::BASE.to_owned(),
        versions: vec![VersionLink { label: "1.0".to_owned(), is_default: true, is_preview: false }],
        label: "1.0".to_owned(),
        mock_url: Some("/mock/pets@1.0".to_owned()),
        show_badge: true,
        ..Chrome::default()
    }
}

fn page(page: Page<'_>) -> String {
    render(&site(), &chrome(), page).unwrap_or_else(|| panic!("{page:?} did not render"))
}

#[test]
fn operation_keys_use_ids_or_method_and_path() {
    let site = site();
    assert_eq!(site.operation_keys(), ["listPets", "delete-pets-id"]);
    assert!(site.operation("delete-pets-id").is_some());
}

#[test]
fn overview_lists_operations_by_tag_and_escapes_titles() {
    let html = page(Page::Overview);
    assert!(
        html.contains("Petstore &lt;b&gt;API&lt;&#x2f;b&gt;") || html.contains("Petstore &lt;b&gt;API&lt;/b&gt;"),
        "{html}"
    );
    assert!(html.contains("href=\"/docs/pets/1.0/op/listPets\""), "{html}");
    assert!(html.contains("List &lt;pets&gt;"), "{html}");
    assert!(html.contains("<strong>pet</strong>"), "{html}");
    assert!(!html.contains("<script>alert"), "{html}");
    assert!(!html.contains("javascript:"), "{html}");
    assert!(html.contains("Powered by"), "{html}");
    assert!(html.contains("/_docs/docs.css?v="), "{html}");
    assert!(!html.contains("cdn"), "no CDN");
}

#[test]
fn operation_page_shows_parameters_responses_samples_and_try_it() {
    let html = page(Page::Operation("listPets"));
    let text = text_of(&html);
    assert!(html.contains("<code>/pets</code>"), "{html}");
    assert!(html.contains("<code>limit</code>"), "{html}");
    assert!(html.contains("max 100"), "{html}");
    assert!(html.contains("href=\"/docs/pets/1.0/schemas/Pet\""), "{html}");
    assert!(text.contains("curl -X GET"), "{text}");
    assert!(text.contains("await fetch("), "{text}");
    assert!(text.contains("import requests"), "{text}");
    assert!(text.contains("http.NewRequest(\"GET\""), "{text}");
    assert!(html.contains("<span class=\"k\">import"), "samples are highlighted on the server: {html}");
    assert!(html.contains("X-API-Key"), "{html}");
    assert!(html.contains("data-tryit"), "{html}");
    assert!(html.contains("value=\"/mock/pets@1.0\""), "{html}");
    assert!(html.contains("value=\"https://api.example.com/v1\""), "{html}");
    assert!(!html.contains("onerror"), "{html}");
    assert!(render(&site(), &chrome(), Page::Operation("nope")).is_none());
}

#[test]
fn schema_page_sanitises_property_descriptions() {
    let html = page(Page::Schema("Pet"));
    assert!(html.contains("The id"), "{html}");
    assert!(!html.contains("onerror"), "{html}");
    assert!(html.contains("&quot;Rex&quot;") || html.contains("Rex"), "{html}");
}

#[test]
fn header_theme_and_markdown_are_applied_safely() {
    let mut chrome = chrome();
    chrome.header = Header {
        logo_url: Some("javascript:alert(1)".to_owned()),
        title: Some("<Acme>".to_owned()),
        buttons: vec![HeaderButton {
            label: "Sign up".into(),
            url: "https://acme.example/signup".into(),
            variant: "solid".into(),
        }],
        links: vec![HeaderLink { label: "Blog".into(), url: "https://acme.example/blog".into() }],
        search: true,
    };
    chrome.theme = Some(Theme { lock: Some("dark".into()), ..Theme::default() });
    chrome.endpoint_markdown.insert(
        "GET /pets".into(),
        EndpointMarkdown {
            intro: Some("Read **this** first <script>x()</script>".into()),
            extras: Some("More".into()),
        },
    );
    chrome.show_badge = false;
    let html = render(&site(), &chrome, Page::Operation("listPets")).unwrap_or_default();
    assert!(html.contains("&lt;Acme&gt;"), "{html}");
    assert!(!html.contains("javascript:"), "{html}");
    assert!(html.contains("class=\"btn btn-solid\" href=\"https://acme.example/signup\""), "{html}");
    assert!(html.contains("action=\"/docs/pets/1.0/search\""), "{html}");
    assert!(html.contains("data-theme=\"dark\""), "{html}");
    assert!(html.contains("Read <strong>this</strong> first"), "{html}");
    assert!(!html.contains("x()"), "{html}");
    assert!(!html.contains("Powered by"), "{html}");
}

#[test]
fn graphql_reference_lists_queries_mutations_and_types() {
    let sdl = "\"The root\" type Query { \"Find a book\" book(id: ID!): Book books: [Book!]! }\ntype Mutation { addBook(title: String!): Book }\n\"A <book>\" type Book { id: ID! title: String! }\n";
    let site = Site::new(spec::parse(sdl.as_bytes()).unwrap_or_else(|e| panic!("{e}")));
    let html = render(&site, &chrome(), Page::Overview).unwrap_or_default();
    assert!(html.contains("id=\"query-book\""), "{html}");
    assert!(html.contains("id=\"mutation-addBook\""), "{html}");
    assert!(html.contains("href=\"/docs/pets/1.0/types/Book\""), "{html}");
    let book = render(&site, &chrome(), Page::Type("Book")).unwrap_or_default();
    assert!(book.contains("<code>title</code>"), "{book}");
    assert!(!book.contains("<book>"), "raw HTML in a description is sanitised: {book}");
    assert!(render(&site, &chrome(), Page::Type("Nope")).is_none());
}

#[test]
fn embed_describes_the_operation_for_the_widget() {
    let value = embed(&site(), &chrome(), "delete-pets-id").unwrap_or_default();
    assert_eq!(value["operation"]["method"], "DELETE");
    assert_eq!(value["operation"]["params"][0]["name"], "id");
    assert_eq!(value["targets"][1]["kind"], "mock");
    assert_eq!(value["operation"]["auth_headers"][0], "X-API-Key");
}

#[test]
fn sections_cover_operations_and_schemas() {
    let sections = site().sections();
    assert!(sections.iter().any(|s| s.target == "op/listPets" && s.body.contains("How many")));
    assert!(sections.iter().any(|s| s.target == "schemas/Pet"));
}

#[test]
fn message_page_escapes() {
    let html = message_page("<x>", "a & b", Some("/docs/p/_login"), Some("wrong"));
    assert!(html.contains("&lt;x&gt;") && html.contains("a &amp; b") && html.contains("type=\"password\""), "{html}");
}

#[test]
fn large_graphql_schemas_get_a_page_per_field() {
    let mut sdl = String::from("type Query {\n");
    for i in 0..70 {
        sdl.push_str(&format!("  \"Field {i}\" f{i}(id: ID!): Book\n"));
    }
    sdl.push_str("}\ntype Book { id: ID! }\n");
    let site = Site::new(spec::parse(sdl.as_bytes()).unwrap_or_else(|e| panic!("{e}")));
    let html = render(&site, &chrome(), Page::Overview).unwrap_or_default();
    assert!(html.contains("href=\"/docs/pets/1.0/graphql/query/f69\""), "{html}");
    assert!(!html.contains("id=\"query-f1\""), "no full sections: {html}");
    let field = render(&site, &chrome(), Page::Field("query", "f3")).unwrap_or_default();
    assert!(
        field.contains("id=\"query-f3\"") && field.contains("Field 3") && field.contains("data-graphql"),
        "{field}"
    );
    assert!(render(&site, &chrome(), Page::Field("query", "nope")).is_none());
    assert!(render(&site, &chrome(), Page::Field("bogus", "f3")).is_none());
}

/// The text of an HTML fragment: tags removed, the few entities decoded.
fn text_of(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(ch),
            _ => {}
        }
    }
    out.replace("&quot;", "\"").replace("&#x27;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

const SECURED: &str = r#"
openapi: 3.1.0
info: {title: Accounts, version: '1'}
servers: [{url: 'https://api.example.com'}]
components:
  securitySchemes:
    login:
      type: oauth2
      flows:
        authorizationCode: {authorizationUrl: 'https://auth.example.com/authorize', tokenUrl: 'https://auth.example.com/token', scopes: {read: read}}
        clientCredentials: {tokenUrl: 'https://auth.example.com/token', scopes: {}}
    key: {type: apiKey, in: query, name: api_key}
    basicAuth: {type: http, scheme: basic}
    jwt: {type: http, scheme: bearer}
security: [{login: [read]}, {key: []}, {basicAuth: [], jwt: []}]
paths:
  /books:
    post:
      operationId: createBook
      parameters:
        - {name: genre, in: query, required: true, schema: {type: string, enum: [fiction, poetry]}, example: poetry}
        - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 50}}
        - {name: isbn, in: query, schema: {type: string, pattern: '^[0-9]{13}$'}}
        - {name: session, in: cookie, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {title: {type: string, example: Dune}}}
      responses:
        '201':
          description: created
          content:
            application/json:
              schema: {type: object, properties: {id: {type: integer, example: 7}}}
        '400':
          description: "Bad **input**"
          content:
            application/problem+json:
              schema: {type: object, properties: {title: {type: string, example: Invalid}}}
"#;

fn secured(page: Page<'_>) -> String {
    let site = Site::new(spec::parse(SECURED.as_bytes()).unwrap_or_else(|e| panic!("{e}")));
    render(&site, &chrome(), page).unwrap_or_else(|| panic!("{page:?} did not render"))
}

#[test]
fn operation_page_has_three_panes_with_examples_per_status() {
    let html = secured(Page::Operation("createBook"));
    let aside = html.split("<aside class=\"op-aside\"").nth(1).unwrap_or_else(|| panic!("no sample pane: {html}"));
    let main = html.split("<aside class=\"op-aside\"").next().unwrap_or_default();
    // Samples, response examples and Try-It are in the pane, the schema
    // tables in the prose.
    assert!(aside.contains("data-remember=\"docs.sample\""), "{aside}");
    assert!(
        aside.contains("<input type=\"radio\" name=\"tab-sample\" id=\"ts-curl\" value=\"curl\" checked>"),
        "{aside}"
    );
    assert!(aside.contains("<label for=\"ts-java\">Java</label>"), "{aside}");
    assert!(aside.contains("data-tab=\"201\""), "{aside}");
    assert!(aside.contains("data-tab=\"400\""), "{aside}");
    assert!(aside.contains("<label for=\"tr-2\" class=\"s-client\">400</label>"), "{aside}");
    assert!(aside.contains("<span class=\"p\">&quot;id&quot;</span>: <span class=\"n\">7</span>"), "{aside}");
    assert!(aside.contains("<span class=\"s\">&quot;Invalid&quot;</span>"), "{aside}");
    assert!(aside.contains("data-tryit"), "{aside}");
    assert!(main.contains("<h2 id=\"responses\">Responses<a class=\"anchor\" href=\"#responses\""), "{main}");
    assert!(main.contains("<span class=\"rdesc\">Bad **input**</span>"), "{main}");
    assert!(!main.contains("data-tryit"), "{main}");
}

#[test]
fn try_it_has_a_field_per_credential_and_checked_parameter_forms() {
    let html = secured(Page::Operation("createBook"));
    for needle in [
        "data-auth=\"oauth2\" data-scheme=\"login\"",
        "data-flow=\"authorization_code\" data-authorize=\"https://auth.example.com/authorize\" data-token=\"https://auth.example.com/token\" data-scopes=\"read\"",
        "data-flow=\"client_credentials\"",
        "Authorize (PKCE, in a pop-up)",
        "data-auth=\"apikey\" data-scheme=\"key\" data-in=\"query\" data-param=\"api_key\"",
        "data-auth=\"basic\" data-scheme=\"basicAuth\"",
        "data-auth=\"bearer\" data-scheme=\"jwt\"",
        // An enum is a select with its example chosen; numbers carry their
        // bounds; patterns are checked by the script.
        "<option selected>poetry</option>",
        "type=\"number\" inputmode=\"decimal\" step=\"1\" min=\"1\" max=\"50\"",
        "data-pattern=\"^[0-9]{13}$\"",
        "data-copy-curl",
    ] {
        assert!(html.contains(needle), "{needle} missing in {html}");
    }
    assert!(!html.contains("data-name=\"session\""), "cookie parameters have no field: {html}");
}

#[test]
fn quick_index_lists_operations_schemas_and_tags_and_pages_link_it() {
    let site = site();
    let index: Vec<[String; 4]> = serde_json::from_str(&site.quick_index().json).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        index.contains(&["GET".to_owned(), "List <pets>".to_owned(), "/pets".to_owned(), "op/listPets".to_owned()]),
        "{index:?}"
    );
    assert!(index.iter().any(|e| e[0] == "schema" && e[1] == "Pet" && e[3] == "schemas/Pet"), "{index:?}");
    assert!(index.iter().any(|e| e[0] == "tag" && e[1] == "pets"), "{index:?}");
    let html = page(Page::Overview);
    let hash = &site.quick_index().hash;
    assert_eq!(hash.len(), 16);
    assert!(html.contains(&format!("data-index=\"/docs/pets/1.0/search?index={hash}\"")), "{html}");
}

#[test]
fn one_of_is_shown_as_tabs_of_its_branches() {
    let spec = spec::parse(
        br"
openapi: 3.1.0
info: {title: t, version: '1'}
paths: {}
components:
  schemas:
    Payment:
      type: object
      properties:
        method:
          oneOf:
            - {title: Card, type: object, properties: {last4: {type: string, description: Last digits}}}
            - {title: Bank, type: object, properties: {iban: {type: string}}}
",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let html = render(&Site::new(spec), &chrome(), Page::Schema("Payment")).unwrap_or_else(|| panic!("no page"));
    let tabs = html.split("class=\"tabset variant-set\"").nth(1).unwrap_or_else(|| panic!("no variant tabs: {html}"));
    assert!(tabs.contains("<span class=\"variant-kind\">one of</span>"), "{tabs}");
    assert!(tabs.contains(">Card</label>") && tabs.contains(">Bank</label>"), "{tabs}");
    let panels: Vec<&str> = tabs.split("<section class=\"tabpanel\">").skip(1).collect();
    assert_eq!(panels.len(), 2, "{tabs}");
    assert!(panels.first().is_some_and(|p| p.contains("<code>last4</code>") && p.contains("Last digits")), "{tabs}");
    assert!(panels.get(1).is_some_and(|p| p.contains("<code>iban</code>")), "{tabs}");
}

#[test]
fn webhooks_get_pages_a_navigation_group_and_a_payload_example() {
    let spec = spec::parse(
        br"
openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /pets:
    get:
      operationId: listPets
      responses: {'200': {description: ok}}
webhooks:
  newPet:
    post:
      summary: A pet was added
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {name: {type: string, example: Rex}}}
      responses: {'200': {description: Return a 200 status to say you got it}}
",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let site = Site::new(spec);
    assert_eq!(site.operation_keys(), ["listPets", "webhook-newpet"]);
    let overview = render(&site, &chrome(), Page::Overview).unwrap_or_else(|| panic!("no overview"));
    assert!(overview.contains("Webhooks") && overview.contains("/op/webhook-newpet"), "{overview}");
    let html = render(&site, &chrome(), Page::Operation("webhook-newpet")).unwrap_or_else(|| panic!("no page"));
    assert!(html.contains("<span class=\"tag\">webhook</span>"), "{html}");
    assert!(html.contains("Payload example"), "{html}");
    assert!(html.contains("<span class=\"s\">&quot;Rex&quot;</span>"), "{html}");
    assert!(
        !html.contains("id=\"samples\"") && !html.contains("data-tryit"),
        "no samples or Try-It for a webhook: {html}"
    );
    let index = &site.quick_index().json;
    assert!(index.contains("[\"webhook\",\"A pet was added\",\"newPet\",\"op/webhook-newpet\"]"), "{index}");
}

#[test]
fn referenced_schemas_expand_in_place() {
    let spec = spec::parse(
        br"
openapi: 3.1.0
info: {title: t, version: '1'}
paths: {}
components:
  schemas:
    Money: {type: object, properties: {amount: {type: integer}, currency: {type: string, description: ISO code}}}
    Order: {type: object, properties: {total: {$ref: '#/components/schemas/Money'}}}
",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let html = render(&Site::new(spec), &chrome(), Page::Schema("Order")).unwrap_or_else(|| panic!("no page"));
    let expanded = html.split("<details class=\"expand\">").nth(1).unwrap_or_else(|| panic!("not expandable: {html}"));
    assert!(expanded.starts_with("<summary>Money fields <span class=\"count\">2</span></summary>"), "{expanded}");
    assert!(expanded.contains("<code>currency</code>") && expanded.contains("ISO code"), "{expanded}");
}

#[test]
fn theme_tokens_recolour_the_highlighting() {
    let plain = page(Page::Operation("listPets"));
    assert!(!plain.contains("--hl-"), "no tokens, the stylesheet's palette");
    let mut chrome = chrome();
    chrome.theme = Some(Theme {
        light: Palette { primary: Some("#b4005a".into()), ..Palette::default() },
        dark: Palette { primary: Some("#ff9ecf".into()), ..Palette::default() },
        ..Theme::default()
    });
    let html = render(&site(), &chrome, Page::Operation("listPets")).unwrap_or_default();
    let style = html.split("<style>").nth(1).and_then(|s| s.split("</style>").next()).unwrap_or_default();
    assert!(style.contains(":root{--primary:#b4005a;--hl-p:"), "{style}");
    assert!(style.contains("--hl-k:#b4005a;"), "{style}");
    assert!(style.contains(":root[data-theme=dark]{--primary:#ff9ecf;--hl-p:"), "{style}");
    assert!(style.contains("--hl-k:#ff9ecf;"), "{style}");
    // The code itself carries classes, not colours.
    assert!(html.contains("<code class=\"hl lang-curl\">") && !html.contains("style=\"color"), "{html}");
}

/// The OpenAPI 3 callback example (OAI's `callback-example.yaml`).
const CALLBACK_EXAMPLE: &str = r"
openapi: 3.0.0
info: {title: Callback Example, version: 1.0.0}
paths:
  /streams:
    post:
      description: subscribes a client to receive out-of-band data
      parameters:
        - name: callbackUrl
          in: query
          required: true
          description: the location where data will be sent
          schema: {type: string, format: uri, example: 'https://tonys-server.com'}
      responses:
        '201':
          description: subscription successfully created
          content:
            application/json:
              schema:
                required: [subscriptionId]
                properties:
                  subscriptionId: {type: string, example: 2531329f-fb09-4ef7-887e-84e648214436}
      callbacks:
        onData:
          '{$request.query.callbackUrl}/data':
            post:
              requestBody:
                description: subscription payload
                content:
                  application/json:
                    schema:
                      type: object
                      properties:
                        timestamp: {type: string, format: date-time}
                        userData: {type: string}
              responses:
                '202':
                  description: Your server implementation should return this HTTP status code if the data was received successfully
                '204':
                  description: Your server should return this HTTP status code if no longer interested in further updates
";

#[test]
fn callbacks_are_rendered_in_place_with_method_expression_body_and_responses() {
    let site = Site::new(spec::parse(CALLBACK_EXAMPLE.as_bytes()).unwrap_or_else(|e| panic!("{e}")));
    let key = site.operation_keys().first().cloned().unwrap_or_default();
    let html = render(&site, &chrome(), Page::Operation(&key)).unwrap_or_else(|| panic!("no page"));
    let section = html.split("id=\"callbacks\"").nth(1).unwrap_or_else(|| panic!("no callbacks section: {html}"));
    assert!(section.contains("<code>onData</code>"), "{section}");
    assert!(
        section.contains(
            "<span class=\"m m-post\">POST</span> <code class=\"expr\">{$request.query.callbackUrl}/data</code>"
        ),
        "{section}"
    );
    assert!(section.contains("subscription payload"), "{section}");
    assert!(section.contains("<code>timestamp</code>") && section.contains("<code>userData</code>"), "{section}");
    assert!(section.contains("string (date-time)") || section.contains("date-time"), "{section}");
    assert!(section.contains(">202</span>") && section.contains(">204</span>"), "{section}");
    assert!(section.contains("received successfully"), "{section}");
    // The payload example is generated from the schema and highlighted.
    assert!(
        section.contains("Payload example") && section.contains("<span class=\"p\">&quot;userData&quot;</span>"),
        "{section}"
    );
    // The callback is not an operation of its own: no page, no nav entry.
    assert_eq!(site.operation_keys().len(), 1);
}

#[test]
fn try_it_starts_required_parameters_with_values_named_like_them() {
    let yaml = "openapi: 3.0.3\ninfo: {title: R, version: '1'}\npaths:\n  /repos/{owner}/{repo}/issues/{number}:\n    get:\n      parameters:\n        - {name: owner, in: path, required: true, schema: {type: string}}\n        - {name: repo, in: path, required: true, schema: {type: string}}\n        - {name: number, in: path, required: true, schema: {type: integer}}\n        - {name: q, in: query, required: false, schema: {type: string}}\n      responses: {'200': {description: ok}}\n";
    let spec = spec::parse(yaml.as_bytes()).unwrap();
    let op = &spec.operations[0];
    let value = |name: &str| {
        let p = op.parameters.iter().find(|p| p.name == name).unwrap();
        crate::examples::parameter_value(&spec, p)
    };
    assert_eq!(value("owner").as_deref(), Some("ada-lovelace"), "a user name, not the word string");
    assert_eq!(value("repo").as_deref(), Some("hello-world"));
    assert!(value("number").is_some_and(|n| n.parse::<i64>().is_ok()));
    assert_eq!(value("q"), None, "optional parameters start empty");
}

#[test]
fn try_it_offers_save_as_a_request_only_where_the_plan_has_it() {
    assert!(!page(Page::Operation("listPets")).contains("data-save-request"), "no saved requests below Pro");
    let chrome = Chrome {
        save_url: Some("https://hub.example.com/app/p/pets/requests/new".to_owned()),
        base_url: Some("https://api.example.com/v1".to_owned()),
        ..chrome()
    };
    let html = render(&site(), &chrome, Page::Operation("listPets")).unwrap_or_default();
    assert!(
        html.contains("data-save-request=\"https://hub.example.com/app/p/pets/requests/new\"")
            && html.contains("data-api-base=\"https://api.example.com/v1\""),
        "{html}"
    );
}
