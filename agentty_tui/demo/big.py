"""Demo MCP server ``big``: a pretend cloud API with 150 tools.

One tool per (resource, verb) pair: 25 resources (``compute_instances``,
``storage_buckets``, ``iam_roles``, ...) times 6 verbs (``list``, ``get``, ``create``,
``update``, ``delete``, ``tag``), named ``<resource>_<verb>``, e.g.
``compute_instances_list``. That is more than the default tool budget of 128, so with
this server enabled agentty_tui trims the lowest-priority tools and shows the
over-budget warning; disable a few tools (or whole verbs) to make room.

The tools are harmless: they answer with made-up, deterministic data and change nothing.
Run with ``python -m agentty_tui.demo.big`` or the ``agentty-demo-big`` script.
"""

# No ``from __future__ import annotations`` here: the tool parameters' annotations use
# closure variables (``noun``), and MCPServer evaluates string annotations against the
# module globals only.
import hashlib
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from agentty_tui.demo._serve import configure_logging, run_stdio

# (resource, singular noun for descriptions)
RESOURCES: tuple[tuple[str, str], ...] = (
    ("compute_instances", "virtual machine instance"),
    ("compute_disks", "persistent disk"),
    ("compute_snapshots", "disk snapshot"),
    ("compute_images", "machine image"),
    ("compute_instance_groups", "managed instance group"),
    ("network_vpcs", "VPC network"),
    ("network_subnets", "subnet"),
    ("network_firewalls", "firewall rule"),
    ("network_load_balancers", "load balancer"),
    ("network_dns_zones", "DNS zone"),
    ("storage_buckets", "storage bucket"),
    ("storage_objects", "stored object"),
    ("database_instances", "managed database instance"),
    ("database_backups", "database backup"),
    ("iam_users", "IAM user"),
    ("iam_roles", "IAM role"),
    ("iam_policies", "IAM policy"),
    ("kubernetes_clusters", "Kubernetes cluster"),
    ("kubernetes_node_pools", "Kubernetes node pool"),
    ("functions", "serverless function"),
    ("queues", "message queue"),
    ("topics", "pub/sub topic"),
    ("secrets", "secret"),
    ("monitoring_alerts", "alerting policy"),
    ("logging_sinks", "log sink"),
)
VERBS: tuple[str, ...] = ("list", "get", "create", "update", "delete", "tag")
TOOL_COUNT = len(RESOURCES) * len(VERBS)  # 150

Region = Annotated[str, Field(description="Region, e.g. eu-west-1.")]
ResourceId = Annotated[str, Field(description="The resource id, as returned by list.")]


def _fake_id(resource: str, seed: str) -> str:
    return f"{resource.split('_')[-1][:3]}-{hashlib.sha256(seed.encode()).hexdigest()[:8]}"


def _make_tool(resource: str, noun: str, verb: str) -> tuple[Callable[..., Any], str, str]:
    """The function, description and annotations key for one (resource, verb)."""
    if verb == "list":

        def list_(
            region: Region = "eu-west-1",
            page_size: Annotated[int, Field(description="Items per page.", ge=1, le=500)] = 3,
            name_filter: Annotated[str, Field(description="Only names containing this.")] = "",
        ) -> str:
            names = [f"{resource.split('_')[-1]}-{i}" for i in range(1, page_size + 1)]
            rows = [
                f"{_fake_id(resource, region + n)}  {n}  {region}"
                for n in names
                if name_filter in n
            ]
            return "\n".join(rows) or "no results"

        return list_, f"List the {noun}s in a region.", "read"
    if verb == "get":

        def get(id: ResourceId) -> str:  # noqa: A002 - the API's own parameter name
            return f"{noun} {id}: status=READY created=2025-01-01T00:00:00Z"

        return get, f"Get one {noun} by id.", "read"
    if verb == "create":

        def create(
            name: Annotated[str, Field(description=f"Name of the new {noun}.", min_length=1)],
            region: Region = "eu-west-1",
            labels: Annotated[
                dict[str, str], Field(description="Labels to attach, key to value.")
            ] = {},  # noqa: B006 - never mutated
            dry_run: Annotated[
                bool, Field(description="Validate only; always true in this demo.")
            ] = True,
        ) -> str:
            new_id = _fake_id(resource, name + region)
            return f"[dry run] would create {noun} {name!r} ({new_id}) in {region}"

        return create, f"Create a {noun}.", "write"
    if verb == "update":

        def update(
            id: ResourceId,  # noqa: A002
            changes: Annotated[dict[str, Any], Field(description="Fields to change.")],
        ) -> str:
            fields = ", ".join(sorted(changes)) or "nothing"
            return f"[dry run] would update {noun} {id}: {fields}"

        return update, f"Update fields of a {noun}.", "write"
    if verb == "delete":

        def delete(
            id: ResourceId,  # noqa: A002
            force: Annotated[bool, Field(description="Delete even if in use.")] = False,
        ) -> str:
            return f"[dry run] would delete {noun} {id}{' (forced)' if force else ''}"

        return delete, f"Delete a {noun}.", "destroy"

    def tag(
        id: ResourceId,  # noqa: A002
        tags: Annotated[list[str], Field(description="Tags to add.", min_length=1)],
    ) -> str:
        return f"[dry run] would tag {noun} {id} with {', '.join(tags)}"

    return tag, f"Add tags to a {noun}.", "write"


_ANNOTATIONS: dict[str, ToolAnnotations] = {
    "read": ToolAnnotations(read_only_hint=True),
    "write": ToolAnnotations(read_only_hint=False, destructive_hint=False),
    "destroy": ToolAnnotations(read_only_hint=False, destructive_hint=True),
}


def tool_names() -> list[str]:
    """All 150 tool names, in advertised order (resource-major)."""
    return [f"{resource}_{verb}" for resource, _noun in RESOURCES for verb in VERBS]


def build_server() -> MCPServer:
    """Build the server with all 150 tools."""
    server: MCPServer = MCPServer(
        "big",
        version="1.0.0",
        instructions="A pretend cloud API. Every call is a dry run with made-up data.",
        log_level="WARNING",
    )
    for resource, noun in RESOURCES:
        for verb in VERBS:
            fn, description, kind = _make_tool(resource, noun, verb)
            server.add_tool(
                fn,
                name=f"{resource}_{verb}",
                title=f"{verb.title()} {noun}{'s' if verb == 'list' else ''}",
                description=description,
                annotations=_ANNOTATIONS[kind],
            )
    return server


def main() -> None:
    """Entry point of ``agentty-demo-big``."""
    configure_logging()
    run_stdio(build_server())


if __name__ == "__main__":
    main()
